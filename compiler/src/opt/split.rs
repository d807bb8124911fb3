//! Partial inlining of recursive functions (GCC's `-fpartial-inlining`, its `ipa-split` pass;
//! LLVM's PartialInlining). The inliner never inlines a function of a call-graph cycle, so
//! every activation of a recursive function pays a call, a prologue with its stack check and
//! the callee-saved registers it spills, even when all it does is test its arguments and
//! return: AWFY's Permute spends 58% of its calls on `permute(self, 0)`, which only counts.
//!
//! A recursive function `f` whose entry block branches to a small region (the fast side) that
//! returns without leading back to `f` is split in two:
//! - `f` keeps its entry block and the fast side; its other side (the slow side) becomes a
//!   call of `f.part` with the locals live there, whose result `f` returns;
//! - `f.part` starts with those locals as parameters and runs the slow side.
//!
//! Every run of the pair executes the same statements in the same order as `f` did: the entry
//! block once, then one of the sides. `f` no longer recurses by itself (every cycle through it
//! runs through `f.part`), so the inliner inlines it, fast side and all, at its call sites,
//! `f.part`'s own included; `f.part` is never inlined and keeps a stack check, so deep
//! recursion is still reported, at `f`'s name (the part has `f`'s spans). Profiling statements
//! move with the statements they count, which is what inlining does with them too (see
//! `inline.rs`); a function that traces blocks is not split.

use super::inline::{rename, rename_locals, renamed};
use crate::lower::remove_unreachable_blocks;
use crate::mir::clone;
use crate::mir::{
    BasicBlock, BlockId, Callee, ENTRY, FnId, Function, IdVec, LocalDecl, LocalId, Operand,
    PART_SUFFIX, Program, Rvalue, Statement, StatementKind, Terminator, TerminatorKind, Type,
    reaches,
};

/// The largest entry block plus fast side split off, in statements and blocks, counted after
/// inlining (with what its calls inlined): it is copied to every call site. AWFY's Towers moves
/// a disk on the fast side of `move_disks`, 47 statements and blocks with the moves inlined,
/// and runs 10–21% faster split; a head is paid for once per call site and saves a call on every
/// run of the fast side.
const MAX_HEAD_SIZE: usize = 64;

/// Splits every recursive function that has a fast side; returns the ids of the `.part`
/// functions made, which the inliner must never inline.
pub fn split_recursive_functions(program: &mut Program) -> Vec<FnId> {
    let callees = program.callees();
    let mut parts = Vec::new();
    for f in program.functions.ids() {
        if f == program.main || f == program.init || !reaches(&callees, f, f) {
            continue;
        }
        let leads_to_f = |g: FnId| reaches(&callees, g, f);
        let Some(slow) = slow_side(&program.functions[f], &leads_to_f) else {
            continue;
        };
        let part = FnId::new(program.functions.len());
        let (outlined, live) = outline(&program.functions[f], slow);
        call_part(&mut program.functions[f], slow, part, &live);
        program.functions.push(outlined);
        parts.push(part);
    }
    parts
}

/// The first block of the slow side of `func`, if its entry block, which nothing jumps back to,
/// branches to two sides one of which (the fast side: the blocks reachable from that successor)
/// has no loop, calls no function that `leads_to_f`, and is, with the entry block, at most
/// `MAX_HEAD_SIZE` big. The sides may share blocks (a common return): each of the two functions
/// gets its own copy.
fn slow_side(func: &Function, leads_to_f: &dyn Fn(FnId) -> bool) -> Option<BlockId> {
    let TerminatorKind::Branch {
        then_bb, else_bb, ..
    } = func.blocks[ENTRY].term.kind
    else {
        return None;
    };
    let preds = func.predecessors();
    let recurses = |blocks: &[BlockId]| {
        (blocks.iter())
            .flat_map(|&b| &func.blocks[b].stmts)
            .any(|s| s.kind.called_function().is_some_and(leads_to_f))
    };
    if then_bb == else_bb || !preds[ENTRY].is_empty() || func.traces_blocks() || recurses(&[ENTRY])
    {
        return None;
    }
    let profiling = func.profiling_locals();
    [(then_bb, else_bb), (else_bb, then_bb)]
        .into_iter()
        .find_map(|(fast, slow)| {
            let fast_side = reachable(func, fast);
            let fast_side_and_entry = fast_side.iter().chain([&ENTRY]).copied();
            let size = clone::size(func, fast_side_and_entry, &profiling);
            (size <= MAX_HEAD_SIZE && !recurses(&fast_side) && is_acyclic(func, &fast_side))
                .then_some(slow)
        })
}

/// The blocks reachable from `start`, `start` first.
fn reachable(func: &Function, start: BlockId) -> Vec<BlockId> {
    let mut seen = IdVec::from_elem(false, func.blocks.len());
    seen[start] = true;
    let mut order = vec![start];
    let mut i = 0;
    while let Some(&b) = order.get(i) {
        for s in func.blocks[b].term.kind.successors() {
            if !std::mem::replace(&mut seen[s], true) {
                order.push(s);
            }
        }
        i += 1;
    }
    order
}

/// Whether `blocks`, closed under successors, hold no cycle: repeatedly removing a block no
/// other remaining block jumps to removes them all (Kahn's topological sort).
fn is_acyclic(func: &Function, blocks: &[BlockId]) -> bool {
    let mut incoming = IdVec::from_elem(0usize, func.blocks.len());
    for &b in blocks {
        for s in func.blocks[b].term.kind.successors() {
            incoming[s] += 1;
        }
    }
    let mut ready: Vec<BlockId> = (blocks.iter().copied())
        .filter(|&b| incoming[b] == 0)
        .collect();
    let mut removed = 0;
    while let Some(b) = ready.pop() {
        removed += 1;
        for s in func.blocks[b].term.kind.successors() {
            incoming[s] -= 1;
            if incoming[s] == 0 {
                ready.push(s);
            }
        }
    }
    removed == blocks.len()
}

/// `f.part`: the slow side of `func` from `slow` on, whose parameters are the locals `live` at
/// `slow`, in order; and `live`. Its locals are those parameters, then all of `func`'s,
/// renumbered past them.
fn outline(func: &Function, slow: BlockId) -> (Function, Vec<LocalId>) {
    let live: Vec<LocalId> = func.live_in()[slow].iter().copied().collect();
    let mut locals: IdVec<LocalId, LocalDecl> =
        live.iter().map(|&l| func.locals[l].clone()).collect();
    locals.extend(func.locals.iter().cloned());
    let span = func.blocks[ENTRY].term.span;
    let entry = BasicBlock::new(
        (live.iter().enumerate())
            .map(|(j, &l)| Statement {
                kind: StatementKind::Assign(
                    renamed(l, live.len()),
                    Rvalue::Use(Operand::Local(LocalId::new(j))),
                ),
                span,
            })
            .collect(),
        Terminator {
            kind: TerminatorKind::Goto(slow),
            span,
        },
    );
    let mut blocks = func.blocks.clone();
    blocks[ENTRY] = entry;
    for block in blocks.iter_mut().skip(1) {
        for stmt in &mut block.stmts {
            rename_locals(&mut stmt.kind, live.len());
        }
        if let Some(op) = block.term.kind.operand_mut() {
            rename(op, live.len());
        }
    }
    let mut part = Function {
        name: format!("{}{PART_SUFFIX}", func.name),
        params: (0..live.len()).map(LocalId::new).collect(),
        ret: func.ret.clone(),
        locals,
        blocks,
        span: func.span,
        name_span: func.name_span,
        dead_code: Vec::new(),
        steady_callees: Default::default(),
    };
    remove_unreachable_blocks(&mut part);
    (part, live)
}

/// Replaces the slow side of `func`, from `slow` on, by a call of `part` with the `live`
/// locals, returning what it returns.
fn call_part(func: &mut Function, slow: BlockId, part: FnId, live: &[LocalId]) {
    let span = func.blocks[ENTRY].term.span;
    let dest = (func.ret != Type::Void).then(|| func.new_temp(func.ret.clone()));
    let call = Statement {
        kind: StatementKind::Call {
            dest,
            callee: Callee::Function(part),
            args: live.iter().map(|&l| Operand::Local(l)).collect(),
        },
        span,
    };
    let ret = Terminator {
        kind: TerminatorKind::Return(dest.map(Operand::Local)),
        span,
    };
    let block = func.blocks.push(BasicBlock::new(vec![call], ret));
    func.blocks[ENTRY].term.kind.retarget(slow, block);
    remove_unreachable_blocks(func);
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::opt::inline::inline_small_functions;
    use crate::opt::testing::{lower, text};

    const DOWN: &str = "\
fn down(n: int) -> int {
    if n == 0 { return 0; }
    let m = n - 1;
    return down(m) + 1;
}
fn main() { println(down(3)); }
";

    fn names(program: &Program) -> Vec<&str> {
        program.functions.iter().map(|f| f.name.as_str()).collect()
    }

    #[test]
    fn the_fast_side_stays_and_the_slow_side_becomes_a_call_of_the_part() {
        let mut program = lower(DOWN);
        let parts = split_recursive_functions(&mut program);
        assert_eq!(names(&program), ["down", "main", "<globals>", "down.part"]);
        assert_eq!(parts, [FnId::new(3)]);
        let head = "\
fn down(_0: int) -> int {
    let _1: int; // m
    let _2: bool; // tmp
    let _3: int; // tmp
    let _4: int; // tmp
    let _5: int; // tmp
    let _6: int; // tmp
  bb0:
    _2 = _0 == 0                             // line 2
    branch _2 ? bb1 : bb2                    // line 2
  bb1:
    return 0                                 // line 2
  bb2:
    _6 = down.part(_0)                       // line 2
    return _6                                // line 2
}
";
        assert_eq!(text(&program, DOWN, "down"), head);
        // The part takes the one local live on the slow side, `n`, and starts there.
        let part = "\
fn down.part(_0: int) -> int {
    let _1: int; // n
    let _2: int; // m
    let _3: bool; // tmp
    let _4: int; // tmp
    let _5: int; // tmp
    let _6: int; // tmp
  bb0:
    _1 = _0                                  // line 2
    goto bb1                                 // line 2
  bb1:
    _4 = _1 - 1                              // line 3
    _2 = _4                                  // line 3
    _5 = down(_2)                            // line 4
    _6 = _5 + 1                              // line 4
    return _6                                // line 4
}
";
        assert_eq!(text(&program, DOWN, "down.part"), part);
    }

    #[test]
    fn emit_shows_a_part_with_its_function() {
        use crate::mir::is_part_of;
        assert!(is_part_of("down", "down") && is_part_of("down.part", "down"));
        assert!(!is_part_of("down.part", "dow") && !is_part_of("download", "down"));
        assert!(!is_part_of("down", "down.part"));
    }

    #[test]
    fn the_inliner_then_inlines_the_head_everywhere_and_never_the_part() {
        let mut program = lower(DOWN);
        let parts = split_recursive_functions(&mut program);
        inline_small_functions(&mut program, &parts);
        let callees = program.callees();
        let called = |f: usize| -> Vec<&str> {
            (callees[FnId::new(f)].iter())
                .map(|&g| program.functions[g].name.as_str())
                .collect()
        };
        assert_eq!(called(1), ["down.part"]);
        assert_eq!(called(3), ["down.part"]);
    }

    #[test]
    fn a_head_over_the_inliners_budget_is_inlined_too() {
        // A fast side of about 50 statements: more than a call site's budget, within
        // `MAX_HEAD_SIZE`; the part still calls itself, not the head.
        let source = format!(
            "fn down(n: int) -> int {{
    if n < 2 {{ let x = n; {} return x; }}
    return down(n - 1) + down(n - 2);
}}
fn main() {{ println(down(5)); }}",
            "x = x * 3 + 1; ".repeat(16)
        );
        let mut program = lower(&source);
        let parts = split_recursive_functions(&mut program);
        assert_eq!(parts.len(), 1);
        inline_small_functions(&mut program, &parts);
        let callees = program.callees();
        let called = |name: &str| -> BTreeSet<&str> {
            let f = program.functions.position(|f| f.name == name).unwrap();
            (callees[f].iter())
                .map(|&g| program.functions[g].name.as_str())
                .collect()
        };
        assert_eq!(called("main"), BTreeSet::from(["down.part"]));
        assert_eq!(called("down.part"), BTreeSet::from(["down.part"]));
    }

    #[test]
    fn functions_without_a_fast_side_are_not_split() {
        let source = format!(
            "fn not_recursive(n: int) -> int {{ if n == 0 {{ return 0; }} return n; }}
fn no_branch(n: int) -> int {{ return no_branch(n + 1) + 1; }}
fn both_recurse(n: int) -> int {{ if n < 0 {{ return both_recurse(n + 1); }} return both_recurse(n - 2); }}
fn fast_loops(n: int) -> int {{
    if n < 0 {{ let i = 0; while i < 3 {{ i += 1; }} return i; }}
    return fast_loops(n - 1);
}}
fn fast_too_big(n: int) -> int {{
    if n < 0 {{ {} return n; }}
    return fast_too_big(n - 1);
}}
fn main() {{
    println(not_recursive(1), no_branch(1), both_recurse(1), fast_loops(1), fast_too_big(1));
}}",
            "n = n * 3 + 1; ".repeat(MAX_HEAD_SIZE)
        );
        let mut program = lower(&source);
        assert!(split_recursive_functions(&mut program).is_empty());
    }

    #[test]
    fn live_locals_are_those_read_before_written() {
        let source = "\
fn f(a: int, b: int, c: int) -> int {
    let x = a + 1;
    if b > 0 { c = 2; x = c; }
    return x + c;
}
fn main() { println(f(1, 2, 3)); }
";
        let program = lower(source);
        let func = &program.functions[FnId::new(0)];
        // From the entry: `a`, `b` and `c` (read on the path that skips the `if`).
        let live: Vec<LocalId> = func.live_in()[ENTRY].iter().copied().collect();
        assert_eq!(live, [LocalId::new(0), LocalId::new(1), LocalId::new(2)]);
    }
}
