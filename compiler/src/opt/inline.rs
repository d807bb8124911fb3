//! Inlining of small functions that cannot recurse. Cranelift inlines nothing, and a call in a
//! hot loop costs the call, the callee's prologue (with its stack check) and the caller's values
//! spilled around it.
//!
//! Only callees on no cycle of the call graph are inlined: leaf functions (which call no PL
//! function and have no stack check) and functions whose callees never lead back to them. Every
//! recursion runs through functions that are never inlined, and each keeps the stack check of
//! its prologue, so deep recursion is still detected, and reported, at the entry of a function
//! of the cycle (which one depends on frame sizes, at every level); a caller that inlined a
//! callee's calls makes calls itself, so it has a check of its own. Inlining repeats until
//! nothing changes: a callee's own inlined calls are inlined into its callers in a later round.
//! A callee with a loop is inlined only where its call repeats (in a loop, or at a hot site) or
//! at its only call site: elsewhere the call is paid once for all the loop's iterations, and the
//! copy costs compile time.
//!
//! Path and edge counting statements (`bl`, `edge`, `ppp`, `tpp`) are inlined with the rest: they
//! name the callee's counter table and read the callee's own (renamed) path register, which its
//! copied entry code resets, so every inlined activation counts exactly as a call would, and
//! profiled programs keep the speed of unprofiled ones. So are the path events a callee streams
//! (`kbl`, `wpp`): they name the callee's stream (codegen keeps a position per stream buffer a
//! function appends to), and the copy appends the same events, enter and leave markers
//! included, in the same order as the call would. A callee that traces blocks is not inlined.
//!
//! Inlined statements keep their spans, so a runtime error in inlined code is reported at the
//! same place and, since codegen names the function whose source contains the location, in the
//! same function.

use crate::mir::clone;
use crate::mir::{
    BasicBlock, BlockId, ENTRY, FnId, Function, IdVec, LocalId, Operand, Program, Rvalue,
    Statement, StatementKind, Terminator, TerminatorKind, reachable, reaches,
};

/// The largest callee inlined, in statements and blocks (each block ends in a terminator).
const MAX_CALLEE_SIZE: usize = 40;

/// The largest callee inlined at a hot call site (`BasicBlock::hot_callees`, from `--use-profile`): there
/// the call is paid per loop iteration, and the caller's growth is paid once.
pub const MAX_HOT_CALLEE_SIZE: usize = 160;

/// A caller grows by inlining only while it is smaller than this, which bounds compile time.
/// Calls that run once (outside loops, not hot) stop at half of it: calls are inlined in block
/// order, and a large `main` whose hot loop comes after its setup would otherwise spend the
/// whole budget before the loop.
const MAX_CALLER_SIZE: usize = 2000;

/// The largest callee without loops inlined at its only call site in the live program: the
/// program does not grow, since the callee's own body is then never called (gcc's
/// `-finline-functions-called-once` at -O2). AWFY's Bounce moves each ball through such a
/// function, called from one loop (1.73 → 1.23× gcc). A callee with a loop pays its call once
/// for many iterations, and its loop, inlined, can lose registers to the caller's values
/// (the brainfuck interpreter's ran 11% slower).
const MAX_ONLY_SITE_CALLEE_SIZE: usize = 400;

/// Inlines calls of small functions; never of `parts` (from `split.rs`), whose calls end the
/// cycles of the functions split, and always of their heads, the functions that call them as
/// split made them (whose size it bounded): AWFY Towers' `move_disks` moves a disk in its head,
/// over the usual budget, and paid two calls per level of recursion.
pub fn inline_small_functions(program: &mut Program, parts: &[FnId]) {
    // Every inlining grows a caller smaller than `MAX_CALLER_SIZE`, so this ends.
    let recursive = recursive(program, parts);
    let callees = program.callees();
    let head = |f: FnId| callees[f].iter().any(|g| parts.contains(g));
    loop {
        let sites = live_call_sites(program);
        let inlinable: IdVec<FnId, Option<Candidate>> = program
            .functions
            .iter_enumerated()
            .map(|(f, func)| {
                let never = recursive[f] || parts.contains(&f);
                candidate(func, never, sites[f] == 1, head(f))
            })
            .collect();
        let mut changed = false;
        for caller in program.functions.ids() {
            changed |= inline_calls(program, caller, &inlinable);
        }
        if !changed {
            break;
        }
    }
}

/// A function's size for inlining. Unlike the other size limits, it counts the arithmetic of
/// path registers and count indices: leaving it out inlined loop kernels into `main` under
/// `bl` as without instrumentation, where the extra live values (path register, count table)
/// spilled the kernel's accumulator (loop_heavy and dijkstra: 8% more instructions than with
/// the kernel left a function of its own).
fn size(func: &Function) -> usize {
    clone::size(func, func.blocks.ids(), &IdVec::new())
}

/// Functions on a cycle of the call graph: those reachable from their own callees. Calls out of
/// `parts` make no cycle: those functions are never inlined, so a cycle through one ends there.
fn recursive(program: &Program, parts: &[FnId]) -> IdVec<FnId, bool> {
    let mut callees = program.callees();
    for &part in parts {
        callees[part].clear();
    }
    (program.functions.ids())
        .map(|f| reaches(&callees, f, f))
        .collect()
}

/// Per function, its call sites in the functions `main` and the initializer can reach (a
/// function inlined into its only caller is no longer reached, so its callees' sites move into
/// the caller).
fn live_call_sites(program: &Program) -> IdVec<FnId, usize> {
    let callees = program.callees();
    let live = reachable(&callees, vec![program.main, program.init]);
    let mut sites = IdVec::from_elem(0, program.functions.len());
    for (f, callees) in callees.iter_enumerated() {
        if live[f] {
            for &g in callees {
                sites[g] += 1;
            }
        }
    }
    sites
}

/// A function that may be inlined.
#[derive(Clone, Copy)]
struct Candidate {
    /// In statements and blocks.
    size: usize,
    /// Inlined at every call site whatever its budget: it has no loop and one call site in the
    /// live program, or it is the head of a split function.
    everywhere: bool,
    /// Inlined only at call sites in loops (or hot ones) unless it has one call site: it has a
    /// loop, and a call outside the caller's loops pays the call once for many iterations. AWFY
    /// Deltablue's test drivers inlined `change` four times each, its loop and all, for nothing;
    /// at a function's only call site the copy costs nothing (the function is no longer compiled)
    /// and may learn from the caller (the CRC32 table's length, from its allocation, proves its
    /// lookups in bounds).
    in_loops_only: bool,
}

/// `func` as a candidate if it cannot recurse (`recursive`: it is on a cycle of the call graph),
/// has no block traces, and is small enough for a hot site (or, as the `once` call site of a
/// function without loops, for that); a `head` is inlined everywhere.
fn candidate(func: &Function, recursive: bool, once: bool, head: bool) -> Option<Candidate> {
    let size = size(func);
    let has_loop = func.has_loop();
    let only_site = once && !has_loop;
    let limit = if only_site {
        MAX_ONLY_SITE_CALLEE_SIZE
    } else {
        MAX_HOT_CALLEE_SIZE
    };
    let inlinable = size <= limit && !recursive && !func.traces_blocks();
    inlinable.then_some(Candidate {
        size,
        everywhere: only_site || head,
        in_loops_only: has_loop && !once,
    })
}

/// Inlines every call in `caller` of a function whose `inlinable` size fits the site's budget
/// (and, for a callee with a loop and other call sites, in a loop or hot; for a call that runs
/// once, while the caller is under half its size limit); whether there was one.
fn inline_calls(
    program: &mut Program,
    caller: FnId,
    inlinable: &IdVec<FnId, Option<Candidate>>,
) -> bool {
    // Most callers have no call left to inline after the first round: they need no loops.
    let calls_candidate = (program.functions[caller].blocks.iter())
        .flat_map(|block| &block.stmts)
        .any(|stmt| (stmt.kind.called_function()).is_some_and(|f| inlinable[f].is_some()));
    if !calls_candidate {
        return false;
    }
    let mut changed = false;
    let mut caller_size = size(&program.functions[caller]);
    let mut in_loop = IdVec::from_elem(false, program.functions[caller].blocks.len());
    for l in program.functions[caller].natural_loops() {
        for b in l.body {
            in_loop[b] = true;
        }
    }
    // Blocks appended by inlining are visited too: the continuation of a call holds the rest of
    // its block.
    let mut b = ENTRY;
    while b.index() < program.functions[caller].blocks.len() && caller_size < MAX_CALLER_SIZE {
        let block = &program.functions[caller].blocks[b];
        let site = block.stmts.iter().enumerate().find_map(|(i, stmt)| {
            let f = stmt.kind.called_function()?;
            let hot = block.hot_callees.contains(&f);
            let budget = if hot {
                MAX_HOT_CALLEE_SIZE
            } else {
                MAX_CALLEE_SIZE
            };
            let repeats = hot || in_loop[b];
            let fits = |c: &Candidate| {
                c.everywhere
                    || (c.size <= budget
                        && (!c.in_loops_only || repeats)
                        && (repeats || caller_size < MAX_CALLER_SIZE / 2))
            };
            inlinable[f].as_ref().is_some_and(fits).then_some((i, f))
        });
        match site {
            Some((i, callee)) => {
                let callee = program.functions[callee].clone();
                caller_size += size(&callee) + callee.params.len();
                inline_call(&mut program.functions[caller], b, i, &callee);
                // The callee's copy runs where the call did, and may hold loops of its own.
                let copied = program.functions[caller].blocks.len() - in_loop.len();
                let copy_in_loop = in_loop[b] || callee.has_loop();
                in_loop.extend(std::iter::repeat_n(copy_in_loop, copied - 1));
                in_loop.push(in_loop[b]);
                changed = true;
            }
            None => b = BlockId::new(b.index() + 1),
        }
    }
    changed
}

/// Replaces the call that is statement `i` of block `b` of `caller` by the body of `callee`:
/// the block ends by assigning the arguments to copies of the callee's parameters and jumping to
/// a copy of its blocks, whose returns assign the call's destination and jump to a new block
/// holding the rest of block `b`.
fn inline_call(caller: &mut Function, b: BlockId, i: usize, callee: &Function) {
    let rest = caller.blocks[b].stmts.split_off(i + 1);
    let call = caller.blocks[b]
        .stmts
        .pop()
        .expect("the call is statement i");
    let StatementKind::Call { dest, args, .. } = call.kind else {
        unreachable!("statement {i} of bb{b} is a call")
    };
    let local_base = caller.locals.len();
    caller.locals.extend(callee.locals.iter().cloned());
    // The caller's copy of callee block `b`: the callee's blocks are appended, then the
    // continuation.
    let block_base = caller.blocks.len();
    let copied = |b: BlockId| BlockId::new(block_base + b.index());
    let continuation = BlockId::new(block_base + callee.blocks.len());

    let block = &mut caller.blocks[b];
    for (&param, arg) in callee.params.iter().zip(args) {
        block.stmts.push(Statement {
            kind: StatementKind::Assign(renamed(param, local_base), Rvalue::Use(arg)),
            span: call.span,
        });
    }
    let call_term = Terminator {
        kind: TerminatorKind::Goto(copied(ENTRY)),
        span: call.span,
    };
    let after_call = std::mem::replace(&mut block.term, call_term);

    for callee_block in &callee.blocks {
        let mut block = callee_block.clone();
        for stmt in &mut block.stmts {
            rename_locals(&mut stmt.kind, local_base);
        }
        if let Some(op) = block.term.kind.operand_mut() {
            rename(op, local_base);
        }
        for target in block.term.kind.targets_mut() {
            *target = copied(*target);
        }
        if let TerminatorKind::Return(value) = &block.term.kind {
            if let (Some(dest), Some(value)) = (dest, value) {
                block.stmts.push(Statement {
                    kind: StatementKind::Assign(dest, Rvalue::Use(value.clone())),
                    span: block.term.span,
                });
            }
            block.term.kind = TerminatorKind::Goto(continuation);
        }
        caller.blocks.push(block);
    }
    // The rest of block `b` runs as often as `b` did.
    let (cold, hot_callees) = (caller.blocks[b].cold, caller.blocks[b].hot_callees.clone());
    caller.blocks.push(BasicBlock {
        cold,
        hot_callees,
        ..BasicBlock::new(rest, after_call)
    });
}

/// Renames the locals `kind` reads and assigns to their copies from `local_base` on.
pub(super) fn rename_locals(kind: &mut StatementKind, local_base: usize) {
    for op in kind.operands_mut() {
        rename(op, local_base);
    }
    if let Some(dest) = kind.dest_mut() {
        *dest = renamed(*dest, local_base);
    }
}

pub(super) fn rename(op: &mut Operand, local_base: usize) {
    if let Operand::Local(l) = op {
        *l = renamed(*l, local_base);
    }
}

/// The caller's copy of callee local `l`: the callee's locals are appended from `local_base` on.
pub(super) fn renamed(l: LocalId, local_base: usize) -> LocalId {
    LocalId::new(local_base + l.index())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::Callee;
    use crate::opt::testing::{lower, text};

    fn calls(program: &Program, name: &str) -> Vec<String> {
        let func = program.functions.iter().find(|f| f.name == name).unwrap();
        func.blocks
            .iter()
            .flat_map(|b| &b.stmts)
            .filter_map(|s| match s.kind {
                StatementKind::Call {
                    callee: Callee::Function(f),
                    ..
                } => Some(program.functions[f].name.clone()),
                _ => None,
            })
            .collect()
    }

    /// A small callee with a loop is inlined where the call repeats (in a loop of the caller,
    /// or in the loop of a callee inlined there) or at its only call site, not at one of several
    /// calls that run once.
    #[test]
    fn a_callee_with_a_loop_is_inlined_only_at_calls_in_loops() {
        let source = "\
fn total(a: [int]) -> int {
    let s = 0;
    for i in 0..len(a) { s += a[i]; }
    return s;
}
fn twice(a: [int]) -> int { return total(a) + total(a); }
fn each(rows: [[int]]) -> int {
    let s = 0;
    for r in 0..len(rows) { s += total(rows[r]); }
    return s;
}
fn main() {
    let a = [1, 2, 3];
    println(total(a), twice(a), each([a, a]));
    for k in 0..3 { println(twice(a)); }
}
";
        let mut program = lower(source);
        inline_small_functions(&mut program, &[]);
        assert_eq!(calls(&program, "each"), Vec::<String>::new());
        assert_eq!(calls(&program, "twice"), ["total", "total"]);
        // `twice` has no loop: inlined at both its calls, where the copy's calls of `total` are
        // left outside `main`'s loop and inlined inside it; `each`, called once, is inlined.
        assert_eq!(calls(&program, "main"), ["total", "total", "total"]);
    }

    #[test]
    fn inlines_a_leaf_with_renamed_locals_blocks_and_returns() {
        let source = "\
fn sign(x: int) -> int {
    if x < 0 { return -1; }
    return 1;
}
fn main() {
    let s = sign(-5);
    println(s);
}
";
        let mut program = lower(source);
        inline_small_functions(&mut program, &[]);
        let expected = "\
fn main() -> void {
    let _0: int; // s
    let _1: int; // tmp
    let _2: int; // x
    let _3: bool; // tmp
  bb0:
    _2 = -5                                  // line 6
    goto bb1                                 // line 6
  bb1:
    _3 = _2 < 0                              // line 2
    branch _3 ? bb2 : bb3                    // line 2
  bb2:
    _1 = -1                                  // line 2
    goto bb4                                 // line 2
  bb3:
    _1 = 1                                   // line 3
    goto bb4                                 // line 3
  bb4:
    _0 = _1                                  // line 6
    println(_0)                              // line 7
    return                                   // line 8
}
";
        assert_eq!(text(&program, source, "main"), expected);
    }

    #[test]
    fn inlines_bottom_up_but_never_recursion() {
        let source = "\
fn leaf(x: int) -> int { return x + 1; }
fn middle(x: int) -> int { return leaf(x) * 2; }
fn down(n: int) -> int {
    if n == 0 { return leaf(0); }
    return down(n - 1);
}
fn main() {
    println(middle(1), down(3));
}
";
        let mut program = lower(source);
        inline_small_functions(&mut program, &[]);
        assert_eq!(calls(&program, "middle"), Vec::<String>::new());
        assert_eq!(calls(&program, "down"), ["down"]);
        assert_eq!(calls(&program, "main"), ["down"]);
    }

    #[test]
    fn inlines_callers_of_functions_but_no_function_of_a_cycle() {
        let source = "\
fn step(n: int) -> int { return down(n - 1); }
fn down(n: int) -> int {
    if n <= 0 { return 0; }
    return other(n) + 1;
}
fn other(n: int) -> int { return step(n); }
fn calls_down(n: int) -> int { return down(n) + 1; }
fn main() {
    println(calls_down(3));
}
";
        let mut program = lower(source);
        inline_small_functions(&mut program, &[]);
        // `calls_down` calls `down` but is on no cycle: inlined into `main`; `down`, `other`
        // and `step` form one, and stay calls.
        assert_eq!(calls(&program, "main"), ["down"]);
        assert_eq!(calls(&program, "down"), ["other"]);
        assert_eq!(calls(&program, "other"), ["step"]);
    }

    /// A large caller stops inlining calls that run once at half its budget, so the calls in
    /// its loop, after the setup, are still inlined.
    #[test]
    fn calls_in_a_loop_after_a_long_setup_are_inlined() {
        // `setup` is about 35 statements (each `x = x * 3 + 1` is three), called 80 times.
        let setup_body = "x = x * 3 + 1; ".repeat(11);
        let setup_calls = "s += setup(s); ".repeat(80);
        let source = format!(
            "fn setup(x: int) -> int {{ {setup_body} return x; }}
fn step(x: int) -> int {{ return x * 2 + 1; }}
fn main() {{ let s = 0; {setup_calls} for i in 0..10 {{ s += step(i); }} println(s); }}"
        );
        let mut program = lower(&source);
        let setup = program
            .functions
            .iter()
            .find(|f| f.name == "setup")
            .unwrap();
        assert!(
            (30..=MAX_CALLEE_SIZE).contains(&size(setup)),
            "{}",
            size(setup)
        );
        inline_small_functions(&mut program, &[]);
        let calls = calls(&program, "main");
        // Without the half budget, 80 copies of `setup` (over 2,000 statements) left `step`.
        assert!(!calls.contains(&"step".to_string()), "{calls:?}");
        let left = calls.iter().filter(|f| *f == "setup").count();
        assert!((30..80).contains(&left), "{left} calls of setup left");
    }

    #[test]
    fn leaves_traced_and_large_callees_alone_but_inlines_counting_and_streaming_ones() {
        let big_body = "x = x * 3 + 1; ".repeat(MAX_CALLEE_SIZE);
        let source = format!(
            "fn counted(x: int) -> int {{ return x; }}
fn streamed(x: int) -> int {{ return x; }}
fn traced(x: int) -> int {{ return x; }}
fn big(x: int) -> int {{ {big_body} return x; }}
fn main() {{ println(counted(1), streamed(2), traced(3), big(4), big(5)); }}"
        );
        let mut program = lower(&source);
        let add = |program: &mut Program, name: &str, kind: StatementKind| {
            let f = program.functions.position(|f| f.name == name);
            program.functions[f.unwrap()].blocks[ENTRY]
                .stmts
                .push(Statement {
                    kind,
                    span: Default::default(),
                });
        };
        let count = StatementKind::Count {
            table: 7,
            index: Operand::Const(crate::mir::Const::Int(0)),
        };
        add(&mut program, "counted", count);
        let enter = StatementKind::Stream(crate::mir::StreamEvent::Enter { table: 1 });
        add(&mut program, "streamed", enter);
        let trace = StatementKind::Trace(crate::mir::TraceEvent::Enter(FnId::new(2)));
        add(&mut program, "traced", trace);
        inline_small_functions(&mut program, &[]);
        assert_eq!(calls(&program, "main"), ["traced", "big", "big"]);
        // The inlined callees still count in their own table and stream to their own stream.
        let main = program.functions.iter().find(|f| f.name == "main").unwrap();
        let stmts = || main.blocks.iter().flat_map(|b| &b.stmts);
        let counts = stmts().filter(|s| matches!(s.kind, StatementKind::Count { table: 7, .. }));
        assert_eq!(counts.count(), 1);
        let enters = stmts().filter(|s| {
            matches!(
                s.kind,
                StatementKind::Stream(crate::mir::StreamEvent::Enter { table: 1 })
            )
        });
        assert_eq!(enters.count(), 1);
    }

    #[test]
    fn a_hot_call_site_inlines_a_larger_callee() {
        let body = |n: usize| "x = x * 3 + 1; ".repeat(n);
        let source = format!(
            "fn mid(x: int) -> int {{ {} return x; }}
fn other(x: int) -> int {{ {} return x; }}
fn huge(x: int) -> int {{ {} return x; }}
fn main() {{ println(mid(1), other(1), huge(2)); println(mid(3), other(3), huge(4)); }}",
            body(MAX_CALLEE_SIZE),
            body(MAX_CALLEE_SIZE),
            body(MAX_HOT_CALLEE_SIZE)
        );
        let mut program = lower(&source);
        let id = |name: &str| program.functions.position(|f| f.name == name).unwrap();
        let (main, mid, huge) = (id("main"), id("mid"), id("huge"));
        program.functions[main].blocks[ENTRY].hot_callees = vec![mid, huge];
        inline_small_functions(&mut program, &[]);
        // Both calls of `mid` are hot sites (the second one in the block's continuation); those
        // of `other`, as large, are not; `huge` is over even the hot budget.
        assert_eq!(calls(&program, "main"), ["other", "huge", "other", "huge"]);
    }

    #[test]
    fn the_only_call_site_of_a_function_without_loops_inlines_it_whatever_its_size() {
        let body = |n: usize| "x = x * 3 + 1; ".repeat(n);
        let source = format!(
            "fn once(x: int) -> int {{ {big} return x; }}
fn twice(x: int) -> int {{ {big} return x; }}
fn looping(x: int) -> int {{ while x < 100 {{ {big} }} return x; }}
fn too_big(x: int) -> int {{ {huge} return x; }}
fn dead() -> int {{ return once(1); }}
fn main() {{ println(once(1), twice(2), twice(3), looping(4), too_big(5)); }}",
            // Each assignment is three statements: over the hot budget, within this one.
            big = body(MAX_HOT_CALLEE_SIZE / 2),
            huge = body(MAX_ONLY_SITE_CALLEE_SIZE),
        );
        let mut program = lower(&source);
        inline_small_functions(&mut program, &[]);
        // `dead` is never called, so its call of `once` does not count.
        assert_eq!(
            calls(&program, "main"),
            ["twice", "twice", "looping", "too_big"]
        );
    }

    /// The pass on a whole function, as `--emit mir` shows it (`UPDATE_EXPECT=1` rewrites the
    /// snapshot): `g`'s body takes the place of its call, its locals renamed into `f`'s.
    #[test]
    fn snapshot() {
        let source = "fn g(x: int) -> int { return x * 2; }\nfn f(n: int) -> int { return g(n) + 1; }\n\
                      fn main() { println(f(1)); }";
        expect_test::expect![[r#"
            before:
            fn f(_0: int) -> int {
                let _1: int;
                let _2: int;
              bb0:
                _1 = g(_0)
                _2 = _1 + 1
                return _2
            }
            after:
            fn f(_0: int) -> int {
                let _1: int;
                let _2: int;
                let _3: int;
                let _4: int;
              bb0:
                _3 = _0
                goto bb1
              bb1:
                _4 = _3 * 2
                _1 = _4
                goto bb2
              bb2:
                _2 = _1 + 1
                return _2
            }
        "#]]
        .assert_eq(&crate::opt::testing::program_before_and_after(
            source,
            "f",
            |program| inline_small_functions(program, &[]),
        ));
    }
}
