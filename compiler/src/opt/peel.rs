//! Peeling the first iteration of a loop whose path register enters it with another value than
//! its back edges give it. A Ball-Larus path that enters a loop differs from one that starts at
//! its header after a back edge ([BL96] §3.1: a back edge ends a path and the register restarts
//! at the header's value), so the register's value at the header is the entry's in the first
//! iteration and the latches' constant in every other: each count in the loop is
//! `count[r + c]`, at an index the program computes, and two counts never share a counter.
//!
//! A copy of the loop's blocks runs the first iteration and jumps to the loop's header from its
//! latches; in the loop the register then holds the latches' constant from every predecessor
//! of the header, constant folding makes its counts constant, and merging and promotion keep
//! them in fewer counters and in registers (AWFY Queens: a callee's count and the loop's count
//! at each latch become one counter). Profiles do not change: the copy is the loop's blocks as
//! they are (`mir/clone.rs`).
//!
//! Which loops: innermost ones of at most `MAX_SIZE` statements where the differing first
//! iteration costs a count per iteration: the loop calls a function that may stop the program,
//! so its counts stay in memory, or it adds to the register on the way to a latch, so the
//! latch's index changes between iterations. Elsewhere promotion already counts the first
//! iteration apart (`opt/counters.rs`), and a copy only adds code.

use pcc_profiler::edge_profile::Stop;

use super::const_fold::fold_constants;
use crate::mir::clone::{append_copies, size};
use crate::mir::{BlockId, Function, IdVec, LocalId, Operand, Program, Rvalue, StatementKind};
use crate::profiling::{Quiet, quiet_functions, statement_stop};

/// Larger loops (program statements plus terminators) are not copied.
const MAX_SIZE: usize = 100;

/// Peels the first iteration of every loop of the program that resets a path register that the
/// loop reads.
pub fn peel_first_iterations(program: &mut Program) {
    let quiet = quiet_functions(program);
    for func in program.functions.iter_mut() {
        let profiling = func.profiling_locals();
        if !profiling.iter().any(|&p| p) {
            continue;
        }
        // Innermost loops share no block, so peeling one leaves the others' blocks as found.
        let loops: Vec<Vec<BlockId>> = (func.innermost_loops().into_iter())
            .filter(|body| size(func, body.iter().copied(), &profiling) <= MAX_SIZE)
            .filter(|body| {
                restarted_register(func, body, &profiling).is_some_and(|r| {
                    steps(func, body, r) || calls_a_function_that_may_stop(func, body, &quiet)
                })
            })
            .collect();
        for body in &loops {
            peel(func, body);
        }
        if !loops.is_empty() {
            fold_constants(func);
        }
    }
}

/// A profiling local that a latch of the loop `body` (the header first) sets to a constant and
/// the loop also reads.
fn restarted_register(
    func: &Function,
    body: &[BlockId],
    profiling: &IdVec<LocalId, bool>,
) -> Option<LocalId> {
    let header = body[0];
    let reset = |kind: &StatementKind| match kind {
        StatementKind::Assign(r, Rvalue::Use(Operand::Const(_))) if profiling[*r] => Some(*r),
        _ => None,
    };
    let latches = (body.iter()).filter(|&&b| func.blocks[b].term.kind.jumps_to(header));
    let mut registers =
        latches.flat_map(|&b| func.blocks[b].stmts.iter().filter_map(|s| reset(&s.kind)));
    registers.find(|&r| {
        (body.iter())
            .flat_map(|&b| func.blocks[b].reads().flatten())
            .any(|op| *op == Operand::Local(r))
    })
}

/// Whether the loop `body` adds to the path register `r` on the way to a latch (a branch in the
/// loop), so that promotion cannot keep the latch's count, whose index then differs from one
/// iteration to the next, in a local; peeled, the header's `r` is a constant and each arm's
/// sum one too (a loop with one `if`, as loop_heavy's: 1.06 → 0.95 of the instructions).
fn steps(func: &Function, body: &[BlockId], r: LocalId) -> bool {
    (body.iter().flat_map(|&b| &func.blocks[b].stmts)).any(|s| match &s.kind {
        StatementKind::Assign(dest, rvalue) => *dest == r && !matches!(rvalue, Rvalue::Use(_)),
        _ => false,
    })
}

/// Whether the loop `body` calls a function that may stop the program, so that promotion keeps
/// its counts in memory (`opt/counters.rs`) and a call costs more than the copy. Where promotion
/// keeps them in locals, it counts the first iteration apart already, and the copy only adds
/// code: AWFY List's two-block loop, which runs a few iterations, executed 11% more
/// instructions peeled; and a larger function spills more (AWFY Bounce's loop that allocates
/// its balls, peeled, made the loop that moves them 7% slower).
fn calls_a_function_that_may_stop(func: &Function, body: &[BlockId], quiet: &Quiet) -> bool {
    (body.iter().flat_map(|&b| &func.blocks[b].stmts)).any(|s| {
        s.kind.called_function().is_some() && statement_stop(func, &s.kind, quiet) == Stop::InCall
    })
}

/// Copies the loop `body` (the header first) for its first iteration: the loop's entries go to
/// the copy of its header, edges within the copy stay in it, and its back edges go to the
/// loop's header.
fn peel(func: &mut Function, body: &[BlockId]) {
    let header = body[0];
    let first = func.blocks.len();
    let entries: Vec<BlockId> = (func.predecessors_of(header).into_iter())
        .filter(|p| !body.contains(p))
        .collect();
    append_copies(func, body, |_, target| {
        match body.iter().position(|&b| b == target) {
            Some(k) if target != header => BlockId::new(first + k),
            _ => target,
        }
    });
    for p in entries {
        func.blocks[p]
            .term
            .kind
            .retarget(header, BlockId::new(first));
    }
    // The copy is outside the loop, where a read marked `readonly` could be moved above the
    // guard that proved it in bounds.
    for b in first..func.blocks.len() {
        for stmt in &mut func.blocks[BlockId::new(b)].stmts {
            stmt.kind.set_readonly(false);
        }
    }
}

#[cfg(test)]
mod tests {
    use pcc_profiler::profile::Mode;

    use crate::opt::testing::{instrumented, text};

    /// Function `f` of `source` instrumented for `bl`, before and after peeling.
    fn peeled(source: &str) -> (String, String) {
        let mut program = instrumented(source, Mode::Bl);
        let before = text(&program, source, "f");
        super::peel_first_iterations(&mut program);
        crate::mir::verify::after_pass(&program, "peel");
        (before, text(&program, source, "f"))
    }

    fn blocks(text: &str) -> usize {
        text.matches("\n  bb").count()
    }

    #[test]
    fn a_loop_around_a_call_that_may_stop_counts_at_constant_indices_after_its_first_iteration() {
        let source = "\
fn g(n: int) -> int { if n > 100 { exit(1); } return n; }
fn f(n: int) -> int {
    let s = 0;
    for i in 0..n { s += g(i); }
    return s;
}
fn main() { println(f(3)); }
";
        let (before, after) = peeled(source);
        assert!(blocks(after.as_str()) > blocks(&before), "{after}");
        // The loop's count and the one after it were at the register's index; the loop's is
        // now a constant (and the copy's, the register's value at the entry being one), the
        // one after the loop is not.
        let computed = |t: &str| t.matches("count table1[_").count();
        assert_eq!(computed(&before), 2, "{before}");
        assert_eq!(computed(&after), 1, "{after}");
        assert!(after.contains("count table1[0]"), "{after}");
    }

    #[test]
    fn a_loop_with_a_branch_is_peeled_and_one_without_is_not() {
        let plain = "\
fn f(n: int) -> int {
    let s = 0;
    for i in 0..n { s += i; }
    return s;
}
fn main() { println(f(3)); }
";
        let (before, after) = peeled(plain);
        assert_eq!(before, after);
        let branchy = plain.replace("s += i;", "if i % 2 == 0 { s += i; } else { s -= 1; }");
        let (before, after) = peeled(&branchy);
        assert!(blocks(&after) > blocks(&before), "{after}");
    }
}
