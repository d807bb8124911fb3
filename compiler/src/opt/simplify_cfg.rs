//! CFG simplification: a block ends at a statement that always stops the program, a branch with
//! both arms alike becomes a jump, jumps through empty blocks go straight to their target, a
//! block with a single predecessor that jumps to it is merged into that predecessor, and a small
//! block shared by several predecessors that jump to it is copied into each (tail duplication).

use crate::lower::remove_unreachable_blocks;
use crate::mir::{
    BlockId, Builtin, Callee, Const, Dominators, ENTRY, Function, IdVec, LocalId, Operand,
    StatementKind, TerminatorKind, natural_loop,
};
use crate::profiling::is_exit;

pub fn simplify_cfg(func: &mut Function) {
    clean_up(func);
    if duplicate_small_targets(func) {
        clean_up(func);
    }
}

/// The most statements a block may have to be copied into the blocks that jump to it, not
/// counting profiling statements and the assignments to profiling locals.
const MAX_DUPLICATED: usize = 3;

/// Tail duplication: a block that jumps to a small block shared with other predecessors gets its
/// own copy of it. The copy runs the same statements in the same order, so nothing observable
/// changes; but a loop's latch and header test move into each path that ends an iteration, so
/// Cranelift has one join (with its register moves) less per iteration, and a `match` arm jumps
/// straight back to the loop's test.
fn duplicate_small_targets(func: &mut Function) -> bool {
    let preds = func.predecessors();
    let idom = func.dominators();
    let profiling = func.profiling_locals();
    let mut changed = false;
    for b in func.blocks.ids() {
        let TerminatorKind::Goto(target) = func.blocks[b].term.kind else {
            continue;
        };
        if target == b
            || preds[target].len() < 2
            || func.blocks[target].program_statements(&profiling) > MAX_DUPLICATED
            || would_enter_loop_twice(func, b, target, &preds, &idom)
        {
            continue;
        }
        let copy = func.blocks[target].clone();
        let block = &mut func.blocks[b];
        block.stmts.extend(copy.stmts);
        block.term = copy.term;
        changed = true;
    }
    changed
}

/// Tail duplication into branch arms: a small loop latch (a block that branches back to its
/// loop's header) that an arm of a branch in the same loop, not in a nested one, leads to gets a
/// copy for that arm. An iteration that skips the rest of the body (AWFY Sieve's
/// `if flags[i - 1]`) then tests and jumps back by itself: Cranelift lays blocks out in reverse
/// postorder, which puts a shared latch after the whole body, so the short way round took a jump
/// forward to it, a join with its register moves, and a jump back. Not for the exits of nested
/// loops or the branch that skips one (a zero-trip test), which run once per inner loop. Run
/// last, on the loops versioning and counter promotion left.
pub fn duplicate_latches_into_branches(func: &mut Function) {
    let loops = func.natural_loops();
    // The header of the innermost loop each block is in, and that loop's size.
    let mut innermost: IdVec<BlockId, Option<(BlockId, usize)>> =
        IdVec::from_elem(None, func.blocks.len());
    for l in &loops {
        for &b in &l.body {
            if innermost[b].is_none_or(|(_, size)| l.body.len() < size) {
                innermost[b] = Some((l.header(), l.body.len()));
            }
        }
    }
    let header_of = |b: BlockId| innermost[b].map(|(h, _)| h);
    let is_header = |b: BlockId| loops.iter().any(|l| l.header() == b);
    // A nested loop's entry: its header or the guard that picks one of its versions, each
    // perhaps after a preheader that sets up promoted counts.
    let preheaded = |b: BlockId| match func.blocks[b].term.kind {
        TerminatorKind::Goto(s) => s,
        _ => b,
    };
    let enters_loop = |b: BlockId| {
        let b = preheaded(b);
        let succs = func.blocks[b].term.kind.successors();
        is_header(b) || succs.len() > 1 && succs.iter().all(|&s| is_header(preheaded(s)))
    };
    let preds = func.predecessors();
    let profiling = func.profiling_locals();
    let is_small_latch = |latch: BlockId, header: BlockId| {
        let block = &func.blocks[latch];
        matches!(block.term.kind, TerminatorKind::Branch { then_bb, else_bb, .. }
            if then_bb == header || else_bb == header)
            && preds[latch].len() > 1
            && block.program_statements(&profiling) <= MAX_DUPLICATED
    };
    let mut copies = Vec::new();
    for b in func.blocks.ids() {
        let (
            TerminatorKind::Branch {
                then_bb, else_bb, ..
            },
            Some(header),
        ) = (&func.blocks[b].term.kind, header_of(b))
        else {
            continue;
        };
        for (arm, other) in [(*then_bb, *else_bb), (*else_bb, *then_bb)] {
            if arm != b
                && arm != other
                && header_of(arm) == Some(header)
                && is_small_latch(arm, header)
                && !enters_loop(other)
            {
                copies.push((b, arm));
            }
        }
    }
    for (b, latch) in copies {
        let copy = func.blocks.push(func.blocks[latch].clone());
        func.blocks[b].term.kind.retarget(latch, copy);
    }
    remove_unreachable_blocks(func);
}

/// Whether copying loop header `target` into `b`, which enters its loop from outside, would leave
/// the loop with two entries: the header's branch has more than one arm inside the loop (a loop
/// whose first test was folded away, entered at the body's first branch). Such a cycle is not a
/// natural loop, so versioning (`version.rs`) could no longer guard it; copying the header into
/// its latches, or a header test with one arm in the loop, rotates the loop instead.
fn would_enter_loop_twice(
    func: &Function,
    b: BlockId,
    target: BlockId,
    preds: &IdVec<BlockId, Vec<BlockId>>,
    idom: &Dominators,
) -> bool {
    let latches: Vec<BlockId> = (preds[target].iter().copied())
        .filter(|&p| idom.dominates(target, p))
        .collect();
    if latches.is_empty() || idom.dominates(target, b) {
        return false;
    }
    let in_loop = natural_loop(target, &latches, preds, idom);
    let mut arms = func.blocks[target].term.kind.successors();
    arms.sort();
    arms.dedup();
    arms.iter().filter(|&&s| in_loop[s]).count() > 1
}

fn clean_up(func: &mut Function) {
    end_at_stops(func);
    loop {
        let changed = fold_same_target_branches(func)
            | fold_decided_branches(func)
            | bypass_empty_blocks(func)
            | merge_chains(func);
        remove_unreachable_blocks(func);
        if !changed {
            break;
        }
    }
}

/// Cuts each block after its first `assert(false, ...)` or `exit(...)`: nothing after them runs,
/// and the blocks they led to lose a predecessor, so what the others agree on (a path register's
/// value after an error check, as in AWFY Towers' `pop_disk_from`) is known there.
fn end_at_stops(func: &mut Function) {
    for block in &mut func.blocks {
        let stop = block.stmts.iter().position(|stmt| match &stmt.kind {
            kind if is_exit(kind) => true,
            StatementKind::Call {
                callee: Callee::Builtin(Builtin::Assert),
                args,
                ..
            } => matches!(args.first(), Some(Operand::Const(Const::Bool(false)))),
            _ => false,
        });
        if let Some(at) = stop {
            block.stmts.truncate(at + 1);
            block.term.kind = TerminatorKind::Unreachable;
        }
    }
}

fn fold_same_target_branches(func: &mut Function) -> bool {
    let mut changed = false;
    for block in &mut func.blocks {
        let succs = block.term.kind.successors();
        if succs.len() == 1 && !matches!(block.term.kind, TerminatorKind::Goto(_)) {
            block.term.kind = TerminatorKind::Goto(succs[0]);
            changed = true;
        }
    }
    changed
}

/// How far up a chain of single predecessors a branch looks for the one that decided its
/// condition.
const MAX_DECIDING_DISTANCE: usize = 16;

/// Correlated branches (Bodík, Gupta & Soffa, PLDI 1997, in its simplest, intra-path form): a
/// branch on a condition that a branch above it already tested, on the only way into it with the
/// condition not assigned since, goes the way that branch went. Tail duplication and the
/// superblocks of `--use-profile` make such single ways in: `if odd {…} else {…}; if odd {…}` copied
/// along each path tests `odd` once.
fn fold_decided_branches(func: &mut Function) -> bool {
    let preds = func.predecessors();
    let assigns = |b: BlockId, c: LocalId| {
        let stmts = &func.blocks[b].stmts;
        stmts.iter().any(|s| s.kind.dest() == Some(c))
    };
    let mut decided = Vec::new();
    for b in func.blocks.ids() {
        let TerminatorKind::Branch {
            cond: Operand::Local(c),
            then_bb,
            else_bb,
        } = func.blocks[b].term.kind
        else {
            continue;
        };
        if then_bb == else_bb || assigns(b, c) {
            continue;
        }
        let mut below = b;
        for _ in 0..MAX_DECIDING_DISTANCE {
            let &[above] = &preds[below][..] else {
                break;
            };
            if let TerminatorKind::Branch {
                cond: Operand::Local(tested),
                then_bb: yes,
                else_bb: no,
            } = func.blocks[above].term.kind
                && tested == c
                && yes != no
            {
                decided.push((b, if yes == below { then_bb } else { else_bb }));
                break;
            }
            if above == b || assigns(above, c) {
                break;
            }
            below = above;
        }
    }
    for &(b, target) in &decided {
        func.blocks[b].term.kind = TerminatorKind::Goto(target);
    }
    !decided.is_empty()
}

/// Retargets edges into a block that holds nothing but a jump elsewhere.
fn bypass_empty_blocks(func: &mut Function) -> bool {
    let mut changed = false;
    for b in func.blocks.ids() {
        let TerminatorKind::Goto(target) = func.blocks[b].term.kind else {
            continue;
        };
        if b == ENTRY || target == b || !func.blocks[b].stmts.is_empty() {
            continue;
        }
        for block in &mut func.blocks {
            for t in block.term.kind.targets_mut() {
                if *t == b {
                    *t = target;
                    changed = true;
                }
            }
        }
    }
    changed
}

/// Appends a block to its only predecessor when that predecessor jumps straight to it.
fn merge_chains(func: &mut Function) -> bool {
    let mut changed = false;
    let mut preds = func.predecessors();
    for b in func.blocks.ids() {
        while let TerminatorKind::Goto(s) = func.blocks[b].term.kind {
            if s == b || s == ENTRY || preds[s].len() != 1 {
                break;
            }
            let absorbed = std::mem::replace(
                &mut func.blocks[s],
                crate::mir::BasicBlock::new(
                    Vec::new(),
                    crate::mir::Terminator {
                        kind: TerminatorKind::Unreachable,
                        span: Default::default(),
                    },
                ),
            );
            let block = &mut func.blocks[b];
            block.stmts.extend(absorbed.stmts);
            block.term = absorbed.term;
            preds[s].clear();
            for succ in block.term.kind.successors() {
                for p in &mut preds[succ] {
                    if *p == s {
                        *p = b;
                    }
                }
            }
            changed = true;
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use pcc_profiler::profile::Mode;

    use super::*;
    use crate::opt::testing::{instrumented, lower, text};

    #[test]
    fn a_loop_test_moves_into_every_path_that_ends_an_iteration() {
        let source = "\
fn main() {
    let i = 0;
    while i < 10 {
        match i % 3 {
            0 => { print(i); }
            1 => { i += 1; }
            _ => {}
        }
        i += 1;
    }
}
";
        let mut program = lower(source);
        let main = program.main;
        simplify_cfg(&mut program.functions[main]);
        let expected = "\
fn main() -> void {
    let _0: int; // i
    let _1: bool; // tmp
    let _2: int; // tmp
  bb0:
    _0 = 0                                   // line 2
    _1 = _0 < 10                             // line 3
    branch _1 ? bb1 : bb2                    // line 3
  bb1:
    _2 = _0 % 3                              // line 4
    switch _2 [0 => bb4, 1 => bb5, _ => bb3] // line 4
  bb2:
    return                                   // line 11
  bb3:
    _0 = _0 + 1                              // line 9
    _1 = _0 < 10                             // line 3
    branch _1 ? bb1 : bb2                    // line 3
  bb4:
    print(_0)                                // line 5
    _0 = _0 + 1                              // line 9
    _1 = _0 < 10                             // line 3
    branch _1 ? bb1 : bb2                    // line 3
  bb5:
    _0 = _0 + 1                              // line 6
    _0 = _0 + 1                              // line 9
    _1 = _0 < 10                             // line 3
    branch _1 ? bb1 : bb2                    // line 3
}
";
        assert_eq!(text(&program, source, "main"), expected);
    }

    #[test]
    fn a_branch_that_ends_an_iteration_gets_its_own_copy_of_the_latch() {
        let source = "\
fn main() {
    let i = 0;
    let n = 0;
    while i < 10 {
        if i % 3 == 0 {
            n += i;
            if n > 5 { print(n); }
        }
        i += 1;
    }
}
";
        let mut program = lower(source);
        let main = program.main;
        simplify_cfg(&mut program.functions[main]);
        duplicate_latches_into_branches(&mut program.functions[main]);
        let text = text(&program, source, "main");
        // Each way an iteration ends (not a multiple of 3, n <= 5, after the print) has its
        // own latch, and none jumps to a shared one: three tests back, with the loop's entry.
        assert_eq!(text.matches("_0 = _0 + 1").count(), 3, "{text}");
        assert_eq!(text.matches("goto").count(), 0, "{text}");
        let branches_back = text.matches("branch _2 ? bb1 : bb2").count();
        assert_eq!(branches_back, 4, "{text}");
    }

    /// AWFY Sieve's loop: under `bl`, whose path register the latch resets and whose counts
    /// it makes, the latch is copied where it is in the plain program.
    #[test]
    fn instrumentation_changes_no_copy() {
        let source = crate::opt::testing::SIEVE;
        let latches = |mut program: crate::mir::Program| {
            crate::opt::optimize(&mut program);
            let text = text(&program, source, "f");
            text.matches("_3 = _3 + 1").count()
        };
        let plain = latches(lower(source));
        assert!(plain >= 2, "no copy of the latch");
        for mode in [Mode::Bl, Mode::Edge, Mode::Ppp, Mode::Kbl] {
            assert_eq!(latches(instrumented(source, mode)), plain, "{mode:?}");
        }
    }

    #[test]
    fn larger_blocks_are_not_copied() {
        let source = "\
fn main() {
    let i = 0;
    while i < 10 {
        if i % 2 == 0 { print(i); }
        i += 1; i += 1; i += 1; i -= 2;
    }
}
";
        let mut program = lower(source);
        let main = program.main;
        simplify_cfg(&mut program.functions[main]);
        let text = text(&program, source, "main");
        assert_eq!(text.matches("_0 = _0 - 2").count(), 1, "{text}");
        // The loop test is small: rotated into the loop's end.
        assert_eq!(text.matches("_1 = _0 < 10").count(), 2, "{text}");
    }

    /// Two branches on one condition: once tail duplication gives the second a single way in
    /// per arm of the first, each copy goes where the first went, and `odd` is tested once.
    #[test]
    fn a_branch_decided_above_is_folded() {
        let source = "\
fn f(n: int) -> int {
    let s = 0;
    for i in 0..n {
        let odd = i % 2 == 1;
        if odd { s += i; } else { s -= 1; }
        if odd { s = s ^ 5; }
    }
    return s;
}
fn main() { println(f(10)); }
";
        let mut program = lower(source);
        let f = program.functions.position(|f| f.name == "f").unwrap();
        simplify_cfg(&mut program.functions[f]);
        let text = text(&program, source, "f");
        let odd = text
            .lines()
            .find(|l| l.contains("// odd"))
            .and_then(|l| l.split_whitespace().nth(1))
            .map(|local| local.trim_end_matches(':').to_string())
            .expect("the local `odd`");
        assert_eq!(
            text.matches(&format!("branch {odd} ?")).count(),
            1,
            "{text}"
        );
    }

    #[test]
    fn a_block_ends_where_the_program_always_stops() {
        let source = "\
fn f(x: int) -> int {
    let y = 0;
    if x < 0 { assert(false, \"negative\"); y = -1; } else { y = 1; }
    if x > 99 { exit(2); y = 5; }
    if x == 7 { assert(x > 8, \"seven\"); y = 7; }
    return y + x;
}
fn main() { println(f(3)); }
";
        let mut program = lower(source);
        let f = program.functions.position(|f| f.name == "f").unwrap();
        simplify_cfg(&mut program.functions[f]);
        let text = text(&program, source, "f");
        // The assertion that holds stays, and so does the code after it.
        assert_eq!(text.matches("unreachable").count(), 2, "{text}");
        assert!(!text.contains("= -1") && !text.contains("= 5"), "{text}");
        assert!(text.contains("= 7"), "{text}");
    }

    /// The pass on a whole function, as `--emit mir` shows it (`UPDATE_EXPECT=1` rewrites the
    /// snapshot): the empty blocks `else { }` and the ends of the `if`s leave (bb3, bb5), and
    /// bb4 takes the `return` it jumped to.
    #[test]
    fn snapshot() {
        let source = "fn f(n: int) -> int { let s = 0; if n > 0 { if n > 1 { s = 1; } } \
                      else { } return s; }\nfn main() { println(f(1)); }";
        expect_test::expect![[r#"
            before:
            fn f(_0: int) -> int {
                let _1: int;
                let _2: bool;
                let _3: bool;
              bb0:
                _1 = 0
                _2 = _0 > 0
                branch _2 ? bb1 : bb3
              bb1:
                _3 = _0 > 1
                branch _3 ? bb4 : bb5
              bb2:
                return _1
              bb3:
                goto bb2
              bb4:
                _1 = 1
                goto bb5
              bb5:
                goto bb2
            }
            after:
            fn f(_0: int) -> int {
                let _1: int;
                let _2: bool;
                let _3: bool;
              bb0:
                _1 = 0
                _2 = _0 > 0
                branch _2 ? bb1 : bb2
              bb1:
                _3 = _0 > 1
                branch _3 ? bb3 : bb2
              bb2:
                return _1
              bb3:
                _1 = 1
                return _1
            }
        "#]]
        .assert_eq(&crate::opt::testing::before_and_after(
            source,
            "f",
            simplify_cfg,
        ));
    }
}
