//! Where a function's code starts relative to a 64-byte line, chosen for its innermost loops.
//!
//! Cranelift does not align loop headers, and a small loop's speed depends on how many 64-byte
//! lines its code spans: this CPU's op cache and instruction fetch deliver one line per cycle,
//! so a five-instruction loop split over two lines takes up to twice as long as the same loop
//! within one (single benchmarks moved by 30–75% with the function's start). A function with
//! loops is therefore placed at a 64-byte boundary and preceded by a few bytes of no-ops, as
//! many as put its most deeply nested loops on the fewest lines: the whole of a small loop that
//! calls nothing, and of a loop that calls only its header block, where every iteration starts
//! (in a function with a long loop that calls nothing, whose placement no rule foresees, only
//! the loops inside it).
//! Before the loops' lines, the placement keeps the indirect jump of each jump table in a loop
//! (an interpreter's dispatch) within a line. The no-ops run once per call (at most 7 of them).
//! Functions with neither get no padding and keep their own alignment: their speed depends on
//! their placement too, but in no way a rule can foresee. Only on x86-64, whose no-ops these
//! are.

use cranelift_codegen::Context;
use cranelift_codegen::binemit::CodeOffset;
use cranelift_codegen::entity::SecondaryMap;
use cranelift_codegen::ir::{Block, InstructionData, SourceLoc};
use cranelift_codegen::loop_analysis::Loop;

/// The cache line (and op-cache window) the placement is chosen for.
pub const LINE: CodeOffset = 64;

/// Fetch blocks within a line, a tie-breaker between placements with equal line counts.
const FETCH: CodeOffset = 32;

/// Loops longer than this are left out: a line more costs them a third of their time at most,
/// and their speed depends more on where their branches fall (the bodies of AWFY Bounce's loops,
/// 360 bytes each, ran 13% slower placed for their fewest lines).
const MAX_LOOP_BYTES: CodeOffset = 2 * LINE;

/// Marks every instruction of `ctx.func` with its block as source location, so that the
/// compiled code tells which bytes came from which block ([`padding`]). PL code has no other
/// use for Cranelift's source locations.
pub fn mark_blocks(ctx: &mut Context) {
    let func = &mut ctx.func;
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for block in blocks {
        let insts: Vec<_> = func.layout.block_insts(block).collect();
        for inst in insts {
            func.set_srcloc(inst, SourceLoc::new(block.as_u32()));
        }
    }
}

/// A loop of the compiled code: its bytes (ranges, in order) and how much a line more costs it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct LoopCode {
    ranges: Vec<(CodeOffset, CodeOffset)>,
    weight: u64,
}

/// The loops of `ctx`'s compiled code (marked by [`mark_blocks`]): the whole of those that call
/// nothing and are short, the header block of those that call (a loop that calls runs its
/// callee's lines too, and the rest of its own matter less). A line more costs a loop of
/// `n` bytes about `1/n` of its time, and loops nested deeper run more: each weighs
/// `4^depth / n`, so the innermost of a nest decide, and of two copies of a loop (checked and
/// versioned) the smaller, which is the one that runs.
fn loops(ctx: &mut Context) -> Vec<LoopCode> {
    ctx.compute_cfg();
    ctx.compute_domtree();
    ctx.compute_loop_analysis();
    let Some(code) = ctx.compiled_code() else {
        return Vec::new();
    };
    let (analysis, func) = (&ctx.loop_analysis, &ctx.func);
    // The loops a block is in, innermost first.
    let loops_of = |block: Block| {
        std::iter::successors(analysis.innermost_loop(block), |&lp| {
            analysis.loop_parent(lp)
        })
    };
    let mut ranges: SecondaryMap<Loop, Vec<(CodeOffset, CodeOffset)>> = SecondaryMap::new();
    let mut calls: SecondaryMap<Loop, bool> = SecondaryMap::new();
    for block in func.layout.blocks() {
        if func
            .layout
            .block_insts(block)
            .any(|inst| func.dfg.insts[inst].opcode().is_call())
        {
            loops_of(block).for_each(|lp| calls[lp] = true);
        }
    }
    let mut headers: SecondaryMap<Loop, Vec<(CodeOffset, CodeOffset)>> = SecondaryMap::new();
    for r in code.buffer.get_srclocs_sorted() {
        if r.loc.is_default() {
            continue;
        }
        let block = Block::from_u32(r.loc.bits());
        if func.layout.is_block_inserted(block) {
            loops_of(block).for_each(|lp| ranges[lp].push((r.start, r.end)));
            if let Some(lp) = analysis.is_loop_header(block) {
                headers[lp].push((r.start, r.end));
            }
        }
    }
    // A long loop that calls nothing is left out, and its speed depends on where its branches
    // fall more than on its lines (AWFY Bounce's ran from 0.44 to 0.70 s with the no-ops before
    // its function): in a function with one, only the loops inside such a loop are placed (there
    // its time goes), the others are left out too, lest they move it (the headers of Bounce's
    // loops that call; the loop after brainfuck's dispatch loop, which clears the tape once,
    // put it where it ran 0.87 s instead of 0.77 s).
    let mut long: SecondaryMap<Loop, bool> = SecondaryMap::new();
    for lp in analysis.loops() {
        let bytes: CodeOffset = ranges[lp].iter().map(|(start, end)| end - start).sum();
        long[lp] = !calls[lp] && bytes > MAX_LOOP_BYTES;
    }
    let any_long = analysis.loops().any(|lp| long[lp]);
    let in_long = |lp: Loop| {
        std::iter::successors(analysis.loop_parent(lp), |&outer| {
            analysis.loop_parent(outer)
        })
        .any(|outer| long[outer])
    };
    analysis
        .loops()
        .filter(|&lp| !any_long || in_long(lp))
        .filter_map(|lp| {
            // Of a loop that calls, only its header: every iteration starts there, and a
            // header across a line costs each one a fetch (AWFY Queens' loop, which recurses,
            // ran 15% slower with its header across a line).
            let ranges = std::mem::take(if calls[lp] {
                &mut headers[lp]
            } else {
                &mut ranges[lp]
            });
            let bytes: CodeOffset = ranges.iter().map(|(start, end)| end - start).sum();
            if bytes == 0 || bytes > MAX_LOOP_BYTES {
                return None;
            }
            let depth = analysis.loop_level(analysis.loop_header(lp)).level();
            let nesting = 4u64.saturating_pow(depth.saturating_sub(1) as u32);
            let weight = nesting.saturating_mul(u64::from(4 * LINE / bytes).max(1));
            Some(LoopCode { ranges, weight })
        })
        .collect()
}

/// How many distinct `size`-byte blocks the byte `ranges` (in order), moved by `pad`, touch.
fn blocks_touched(ranges: &[(CodeOffset, CodeOffset)], pad: CodeOffset, size: CodeOffset) -> u64 {
    let mut touched = 0;
    // The first block not counted yet.
    let mut next = 0;
    for &(start, end) in ranges.iter().filter(|(start, end)| start < end) {
        let first = ((start + pad) / size).max(next);
        let last = (end - 1 + pad) / size;
        if last >= first {
            touched += u64::from(last - first + 1);
            next = last + 1;
        }
    }
    touched
}

/// The no-op bytes to put before `ctx`'s compiled code, placed at a line boundary, a multiple of
/// `granule` below [`LINE`], that put its loops on the fewest lines (by their weights); ties go
/// to fewer 32-byte fetch blocks, then to less padding. `None` for code without loops short
/// enough to gain, which stays where it would be.
pub fn padding(ctx: &mut Context, granule: CodeOffset) -> Option<CodeOffset> {
    let loops = loops(ctx);
    let jumps = dispatch_jumps(ctx);
    (!loops.is_empty() || !jumps.is_empty()).then(|| best_padding(&loops, &jumps, granule))
}

/// The bytes of the indirect jump of each hot jump table in a loop of `ctx`'s compiled code (an
/// interpreter's dispatch), which [`best_padding`] keeps within a line: of 16 placements of
/// bytecode_vm's JIT code, the one with its dispatch jump across a line end ran 1.00 s, the
/// others 0.90–0.92 s. Cranelift emits a jump table's 4-byte entries (the default's first)
/// right after the jump, in the bytes of the `br_table`'s block; a jump not found there
/// (`jmp *reg`, `FF E0` to `FF E7`) is left out. Reads the loop analysis [`loops`] computes.
fn dispatch_jumps(ctx: &Context) -> Vec<(CodeOffset, CodeOffset)> {
    let (Some(code), func) = (ctx.compiled_code(), &ctx.func) else {
        return Vec::new();
    };
    let bytes = code.code_buffer();
    let mut ends: SecondaryMap<Block, CodeOffset> = SecondaryMap::new();
    for r in code.buffer.get_srclocs_sorted() {
        if !r.loc.is_default() {
            let block = Block::from_u32(r.loc.bits());
            ends[block] = ends[block].max(r.end);
        }
    }
    func.layout
        .blocks()
        .filter(|&b| !func.layout.is_cold(b) && ctx.loop_analysis.innermost_loop(b).is_some())
        .filter_map(|b| {
            let last = func.layout.last_inst(b)?;
            let InstructionData::BranchTable { table, .. } = func.dfg.insts[last] else {
                return None;
            };
            let entries = func.dfg.jump_tables[table].all_branches().len() as CodeOffset;
            let end = ends[b].checked_sub(4 * entries)?;
            let jump = bytes.get(end.checked_sub(3)? as usize..end as usize)?;
            // `jmp *%r8`..`%r15` has a REX prefix.
            let start = if jump[0] == 0x41 { end - 3 } else { end - 2 };
            (jump[1] == 0xff && jump[2] & 0xf8 == 0xe0).then_some((start, end))
        })
        .collect()
}

fn best_padding(
    loops: &[LoopCode],
    jumps: &[(CodeOffset, CodeOffset)],
    granule: CodeOffset,
) -> CodeOffset {
    let cost = |pad: CodeOffset| {
        let sum = |size| -> u64 {
            loops
                .iter()
                .map(|l| l.weight * blocks_touched(&l.ranges, pad, size))
                .sum()
        };
        let split_jumps = (jumps.iter())
            .filter(|&&jump| blocks_touched(&[jump], pad, LINE) > 1)
            .count();
        (split_jumps, sum(LINE), sum(FETCH), pad)
    };
    (0..LINE)
        .step_by(granule.clamp(1, LINE) as usize)
        .min_by_key(|&pad| cost(pad))
        .unwrap_or(0)
}

/// `n` bytes of x86-64 no-ops, in as few instructions as the recommended long forms allow
/// (`nop`, `66 nop`, `nop dword [...]` of 3 to 9 bytes).
pub fn nops(n: CodeOffset) -> Vec<u8> {
    const FORMS: [&[u8]; 9] = [
        &[0x90],
        &[0x66, 0x90],
        &[0x0f, 0x1f, 0x00],
        &[0x0f, 0x1f, 0x40, 0x00],
        &[0x0f, 0x1f, 0x44, 0x00, 0x00],
        &[0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00],
        &[0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00],
        &[0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
        &[0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00],
    ];
    let mut bytes = Vec::with_capacity(n as usize);
    let mut left = n as usize;
    while left > 0 {
        let form = FORMS[left.min(FORMS.len()) - 1];
        bytes.extend_from_slice(form);
        left -= form.len();
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_range(start: CodeOffset, end: CodeOffset, weight: u64) -> LoopCode {
        LoopCode {
            ranges: vec![(start, end)],
            weight,
        }
    }

    #[test]
    fn a_small_loop_is_moved_off_a_line_boundary() {
        // A loop at 50..80 crosses the line at 64; 14 bytes of padding put it at 64..94.
        let lp = [one_range(50, 80, 1)];
        assert_eq!(best_padding(&lp, &[], 1), 14);
        // With 16-byte constants the padding moves by 16s: 14 is not allowed, 16 is.
        assert_eq!(best_padding(&lp, &[], 16), 16);
    }

    #[test]
    fn the_heavier_loop_decides() {
        // An outer loop 10..120 (weight 1) around an inner one 60..90 (weight 4): the inner one
        // gets one line, and the outer one the two it needs.
        let loops = [one_range(10, 120, 1), one_range(60, 90, 4)];
        let pad = best_padding(&loops, &[], 1);
        assert_eq!(blocks_touched(&loops[1].ranges, pad, LINE), 1);
        assert_eq!(blocks_touched(&loops[0].ranges, pad, LINE), 2);
    }

    #[test]
    fn a_loop_in_pieces_counts_each_line_once() {
        // Two pieces in line 0 and one in line 1.
        let ranges = [(0, 10), (20, 30), (70, 80)];
        assert_eq!(blocks_touched(&ranges, 0, LINE), 2);
        // Moved by 40: 40..50, 60..70 (lines 0 and 1), 110..120 (line 1).
        assert_eq!(blocks_touched(&ranges, 40, LINE), 2);
        assert_eq!(blocks_touched(&ranges, 40, FETCH), 3);
        assert_eq!(blocks_touched(&[(0, 200)], 0, LINE), 4);
    }

    /// `fn(n) { i = 0; s = 0; while i < n { s += i; i += 1 } return s }` after `straight`
    /// additions before the loop (which move it within the code).
    fn summing_loop(
        straight: usize,
        calls: bool,
        isa: &dyn cranelift_codegen::isa::TargetIsa,
    ) -> Context {
        summing_loops(straight, &[(calls, 0)], isa)
    }

    /// Like [`summing_loop`], with one summing loop after another, each `(calls, extra)`:
    /// whether its body calls a function, and how many more additions it makes.
    fn summing_loops(
        straight: usize,
        loops: &[(bool, usize)],
        isa: &dyn cranelift_codegen::isa::TargetIsa,
    ) -> Context {
        use cranelift_codegen::ir::{
            AbiParam, ExtFuncData, ExternalName, Function, InstBuilder, Signature,
            UserExternalName, condcodes::IntCC, types::I64,
        };
        use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
        let mut func = Function::new();
        func.signature.params.push(AbiParam::new(I64));
        func.signature.returns.push(AbiParam::new(I64));
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let n = b.block_params(entry)[0];
        let mut s = b.ins().iconst(I64, 0);
        for k in 0..straight {
            // Opaque to the optimizer: each step depends on `n`.
            let step = b.ins().imul_imm_s(n, k as i64 + 3);
            s = b.ins().bxor(s, step);
        }
        for &(calls, extra) in loops {
            let (header, body, exit) = (b.create_block(), b.create_block(), b.create_block());
            for block in [header, body] {
                b.append_block_param(block, I64);
                b.append_block_param(block, I64);
            }
            b.append_block_param(exit, I64);
            let zero = b.ins().iconst(I64, 0);
            b.ins().jump(header, &[zero.into(), s.into()]);
            b.switch_to_block(header);
            let (i, s_in) = (b.block_params(header)[0], b.block_params(header)[1]);
            let more = b.ins().icmp(IntCC::SignedLessThan, i, n);
            b.ins()
                .brif(more, body, &[i.into(), s_in.into()], exit, &[s_in.into()]);
            b.switch_to_block(body);
            let (i, mut s_body) = (b.block_params(body)[0], b.block_params(body)[1]);
            if calls {
                let mut signature = Signature::new(isa.default_call_conv());
                signature.params.push(AbiParam::new(I64));
                let signature = b.import_signature(signature);
                let name = b
                    .func
                    .declare_imported_user_function(UserExternalName::new(0, 0));
                let callee = b.import_function(ExtFuncData {
                    name: ExternalName::user(name),
                    signature,
                    colocated: false,
                    patchable: false,
                });
                b.ins().call(callee, &[s_body]);
            }
            for k in 0..extra {
                let step = b.ins().imul_imm_s(i, k as i64 + 3);
                s_body = b.ins().bxor(s_body, step);
            }
            let s_next = b.ins().iadd(s_body, i);
            let i = b.ins().iadd_imm_s(i, 1);
            b.ins().jump(header, &[i.into(), s_next.into()]);
            b.switch_to_block(exit);
            s = b.block_params(exit)[0];
        }
        b.ins().return_(&[s]);
        b.seal_all_blocks();
        b.finalize(isa.frontend_config());
        Context::for_function(func)
    }

    /// Compiles [`summing_loop`] after 0 to 23 additions (which move the loop within the code)
    /// and checks that [`loops`] finds one loop of at most `most` bytes, placed on one line.
    fn placed_on_one_line(calls: bool, most: CodeOffset) {
        let isa = super::super::host_isa(&super::super::Options { opt_level: 2 }, &[])
            .expect("the host's instruction set");
        for straight in 0..24 {
            let mut ctx = summing_loop(straight, calls, &*isa);
            mark_blocks(&mut ctx);
            ctx.compile(&*isa, &mut Default::default())
                .expect("compiles");
            let found = loops(&mut ctx);
            assert_eq!(found.len(), 1, "{straight} additions before the loop");
            let ranges = &found[0].ranges;
            let bytes: CodeOffset = ranges.iter().map(|(a, b)| b - a).sum();
            assert!(bytes > 0 && bytes <= most, "{ranges:?}");
            let pad = padding(&mut ctx, 1).expect("a loop to place");
            assert_eq!(
                blocks_touched(ranges, pad, LINE),
                1,
                "{ranges:?} moved by {pad}"
            );
        }
    }

    #[test]
    fn a_compiled_loop_is_found_and_placed_on_one_line() {
        placed_on_one_line(false, LINE / 2 - 1);
    }

    #[test]
    fn of_a_loop_that_calls_only_the_header_is_placed() {
        // The header's test and branch only: the call and the adds of the body are left out.
        placed_on_one_line(true, 16);
    }

    /// A long loop that calls nothing is not placed, and then neither is a loop outside it,
    /// which would move it: the header of a loop that calls, or a short loop that calls
    /// nothing. Beside a short loop that calls nothing, the header of a loop that calls is.
    #[test]
    fn a_long_loop_that_calls_nothing_leaves_the_function_alone() {
        let isa = super::super::host_isa(&super::super::Options { opt_level: 2 }, &[])
            .expect("the host's instruction set");
        let found = |shape: &[(bool, usize)]| {
            let mut ctx = summing_loops(0, shape, &*isa);
            mark_blocks(&mut ctx);
            ctx.compile(&*isa, &mut Default::default())
                .expect("compiles");
            let code = ctx.compiled_code().expect("compiled").code_buffer().len();
            (loops(&mut ctx).len(), code)
        };
        let (short, _) = found(&[(true, 0), (false, 0)]);
        assert_eq!(short, 2);
        let (long, code) = found(&[(true, 0), (false, 40)]);
        assert!(code > 2 * MAX_LOOP_BYTES as usize, "{code} bytes");
        assert_eq!(long, 0);
        let (after_long, _) = found(&[(false, 40), (false, 0)]);
        assert_eq!(after_long, 0);
    }

    #[test]
    fn a_dispatch_jump_is_kept_within_a_line() {
        // A jump at 63..65 crosses the line at 64; one byte of padding moves it to 64..66, and
        // with 16-byte constants, sixteen.
        let jump = [(63, 65)];
        assert_eq!(best_padding(&[], &jump, 1), 1);
        assert_eq!(best_padding(&[], &jump, 16), 16);
        // It goes before a loop's lines: the loop at 0..64 fits one line only unmoved.
        let pad = best_padding(&[one_range(0, 64, 1)], &jump, 1);
        assert!(pad > 0 && blocks_touched(&jump, pad, LINE) == 1, "{pad}");
    }

    /// `fn(n) { i = 0; s = 0; while i < n { match i & 3 { k => s ^= i * (k + 3) } i += 1 }
    /// return s }` after `straight` additions: an interpreter's dispatch loop.
    fn dispatching_loop(straight: usize, isa: &dyn cranelift_codegen::isa::TargetIsa) -> Context {
        use cranelift_codegen::ir::{
            AbiParam, Function, InstBuilder, JumpTableData, condcodes::IntCC, types,
        };
        use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
        let mut func = Function::new();
        func.signature.params.push(AbiParam::new(types::I64));
        func.signature.returns.push(AbiParam::new(types::I64));
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let (i, s) = (b.declare_var(types::I64), b.declare_var(types::I64));
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let n = b.block_params(entry)[0];
        let zero = b.ins().iconst(types::I64, 0);
        b.def_var(i, zero);
        let mut sum = zero;
        for k in 0..straight {
            let step = b.ins().imul_imm_s(n, k as i64 + 3);
            sum = b.ins().bxor(sum, step);
        }
        b.def_var(s, sum);
        let (header, body, exit) = (b.create_block(), b.create_block(), b.create_block());
        let arms: Vec<Block> = (0..4).map(|_| b.create_block()).collect();
        b.ins().jump(header, &[]);
        b.switch_to_block(header);
        let counter = b.use_var(i);
        let more = b.ins().icmp(IntCC::SignedLessThan, counter, n);
        b.ins().brif(more, body, &[], exit, &[]);
        b.switch_to_block(body);
        let counter = b.use_var(i);
        let low = b.ins().band_imm_u(counter, 3);
        let index = b.ins().ireduce(types::I32, low);
        let call = |b: &mut FunctionBuilder, arm: Block| b.func.dfg.block_call(arm, &[]);
        let table: Vec<_> = arms[..3].iter().map(|&arm| call(&mut b, arm)).collect();
        let default = call(&mut b, arms[3]);
        let table = b.create_jump_table(JumpTableData::new(default, &table));
        b.ins().br_table(index, table);
        for (k, &arm) in arms.iter().enumerate() {
            b.switch_to_block(arm);
            let (counter, sum) = (b.use_var(i), b.use_var(s));
            let step = b.ins().imul_imm_s(counter, k as i64 + 3);
            let sum = b.ins().bxor(sum, step);
            b.def_var(s, sum);
            let next = b.ins().iadd_imm_s(counter, 1);
            b.def_var(i, next);
            b.ins().jump(header, &[]);
        }
        b.switch_to_block(exit);
        let result = b.use_var(s);
        b.ins().return_(&[result]);
        b.seal_all_blocks();
        b.finalize(isa.frontend_config());
        Context::for_function(func)
    }

    /// The dispatch jump of [`dispatching_loop`], wherever the additions before it put it, is
    /// found (`jmp *reg` in the code) and kept within a line.
    #[test]
    fn a_compiled_dispatch_jump_is_found_and_kept_within_a_line() {
        let isa = super::super::host_isa(&super::super::Options { opt_level: 2 }, &[])
            .expect("the host's instruction set");
        for straight in 0..24 {
            let mut ctx = dispatching_loop(straight, &*isa);
            mark_blocks(&mut ctx);
            ctx.compile(&*isa, &mut Default::default())
                .expect("compiles");
            loops(&mut ctx);
            let jumps = dispatch_jumps(&ctx);
            assert_eq!(jumps.len(), 1, "{straight} additions before the loop");
            let code = ctx.compiled_code().expect("compiled").code_buffer();
            let (start, end) = jumps[0];
            let jump = &code[start as usize..end as usize];
            assert_eq!(jump[jump.len() - 2], 0xff, "{jump:x?}");
            let pad = padding(&mut ctx, 1).expect("a jump to place");
            assert_eq!(
                blocks_touched(&jumps, pad, LINE),
                1,
                "{jumps:?} moved by {pad}"
            );
        }
    }

    #[test]
    fn nops_have_the_asked_length() {
        for n in 0..LINE {
            assert_eq!(nops(n).len(), n as usize);
        }
        assert_eq!(nops(18), [nops(9), nops(9)].concat());
        assert_eq!(nops(3), [0x0f, 0x1f, 0x00]);
    }
}
