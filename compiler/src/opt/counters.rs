//! Counter promotion: an innermost loop in which nothing can stop the program keeps the counts
//! of the array counters whose index it does not change in locals, which Cranelift keeps in
//! registers, and adds them to the counters on every edge that leaves the loop. A counter
//! incremented in memory in every iteration makes each iteration wait for the store of the one
//! before; gcc moves the stores of its own edge counters out of loops for the same reason.
//!
//! The profile is the same: nothing between the loop's entry and its exits can end the program
//! (no check that may fail, no call that may stop: `profiling::statement_stop`), so every count
//! kept in a local reaches its counter before the profile is written.
//!
//! Which counts:
//! - at a constant index, in any innermost loop (`edge`, `block`): the counts of one block share
//!   a local, since they run equally often;
//! - in a loop of one block, which runs whole in each iteration, also a count whose index is
//!   the same in every iteration but perhaps the first: `bl`'s count at the back edge,
//!   `count[r + c]`, after which the block resets `r` to a constant `K`. The first iteration's
//!   count, `r + c` with `r` as the loop is entered, is made before the loop; the others,
//!   `K + c`, at its exits, as many as the iterations less one.

use std::collections::BTreeMap;

use pcc_profiler::edge_profile::Stop;

use crate::mir::{
    BasicBlock, BinOp, BlockId, Const, Function, LocalId, Operand, Program, Rvalue, Statement,
    StatementKind, Terminator, TerminatorKind, Type,
};
use crate::profiling::{Quiet, quiet_functions, statement_stop};

/// The most locals a loop keeps counts in (blocks with promoted counts): each holds a register.
const MAX_LOCALS: usize = 4;

/// Promotes the counts of every innermost loop of the program where nothing can stop it.
pub fn promote_loop_counters(program: &mut Program) {
    if program.counter_tables.is_empty() {
        return;
    }
    let quiet = quiet_functions(program);
    let arrays: Vec<bool> = (program.counter_tables.iter())
        .map(|t| !t.hashed && !t.keyed)
        .collect();
    for func in program.functions.iter_mut() {
        for (body, _) in func.natural_loops().into_iter().filter(|(_, inner)| *inner) {
            if cannot_stop(func, &body, &quiet) {
                promote(func, &body, &arrays);
            }
        }
    }
}

fn cannot_stop(func: &Function, body: &[BlockId], quiet: &Quiet) -> bool {
    (body.iter().flat_map(|&b| &func.blocks[b].stmts))
        .all(|stmt| statement_stop(func, &stmt.kind, quiet) == Stop::Never)
}

/// A counter index: a local's value (none: zero) plus a constant.
type Index = (Option<LocalId>, i64);

/// Where a promoted count goes at the loop's exits.
struct Promoted {
    table: usize,
    /// The index in every iteration after the first: a constant, or a local the loop does not
    /// assign plus a constant.
    index: Index,
    /// The first iteration's index, when it differs: the entry value of a local plus a constant.
    first: Option<(LocalId, i64)>,
}

/// Replaces the promotable counts of the loop `body` (blocks, the header first) by increments of
/// a local per block, set on entry ([`start`]) and added to the counters on every exit.
fn promote(func: &mut Function, body: &[BlockId], arrays: &[bool]) {
    let one_block = body.len() == 1;
    let mut by_block: BTreeMap<BlockId, (LocalId, Vec<Promoted>)> = BTreeMap::new();
    for &b in body {
        if by_block.len() == MAX_LOCALS {
            break;
        }
        let mut promoted = Vec::new();
        let mut kept = Vec::new();
        let stmts = std::mem::take(&mut func.blocks[b].stmts);
        for (at, stmt) in stmts.iter().enumerate() {
            let found = match &stmt.kind {
                StatementKind::Count { table, index } if arrays[*table] => match index {
                    Operand::Const(Const::Int(k)) => Some(((None, *k), None)),
                    Operand::Local(l) if one_block => steady_index(&stmts, at, *l),
                    _ => None,
                }
                .map(|(index, first)| Promoted {
                    table: *table,
                    index,
                    first,
                }),
                _ => None,
            };
            match found {
                Some(p) => promoted.push(p),
                None => kept.push(stmt.clone()),
            }
        }
        if promoted.is_empty() {
            func.blocks[b].stmts = stmts;
            continue;
        }
        let local = func.new_temp(Type::Int);
        let span = func.blocks[b].term.span;
        let add = StatementKind::Assign(
            local,
            Rvalue::Binary(BinOp::Add, Operand::Local(local), int(1)),
        );
        kept.insert(0, Statement { kind: add, span });
        func.blocks[b].stmts = kept;
        by_block.insert(b, (local, promoted));
    }
    if by_block.is_empty() {
        return;
    }
    let header = body[0];
    let entries: Vec<BlockId> = (func.predecessors()[header].iter().copied())
        .filter(|p| !body.contains(p))
        .collect();
    let span = func.blocks[header].term.span;
    let stmt = |kind| Statement { kind, span };

    // Before the loop: the locals start; a first iteration's own count is made here.
    let mut entry = Vec::new();
    for (local, promoted) in by_block.values() {
        entry.push(stmt(StatementKind::Assign(
            *local,
            Rvalue::Use(int(start(promoted))),
        )));
        for p in promoted {
            if let Some((l, c)) = p.first {
                let index = offset(func, &mut entry, Some(l), c, span);
                entry.push(stmt(StatementKind::Count {
                    table: p.table,
                    index,
                }));
            }
        }
    }
    let preheader = func.blocks.push(BasicBlock::new(
        entry,
        Terminator {
            kind: TerminatorKind::Goto(header),
            span,
        },
    ));
    for p in entries {
        func.blocks[p].term.kind.retarget(header, preheader);
    }

    // On each edge out of the loop: the locals' counts go to their counters.
    for &b in body {
        for exit in func.blocks[b].term.kind.successors() {
            if body.contains(&exit) {
                continue;
            }
            let mut flush = Vec::new();
            for (local, promoted) in by_block.values() {
                for p in promoted {
                    // The first iteration's count was made before the loop, if `p.first`.
                    let correction = start(promoted) + i64::from(p.first.is_some());
                    let amount = match correction {
                        0 => *local,
                        c => {
                            let amount = func.new_temp(Type::Int);
                            flush.push(stmt(StatementKind::Assign(
                                amount,
                                Rvalue::Binary(BinOp::Add, Operand::Local(*local), int(-c)),
                            )));
                            amount
                        }
                    };
                    let index = offset(func, &mut flush, p.index.0, p.index.1, span);
                    flush.push(stmt(StatementKind::CountBy {
                        table: p.table,
                        index,
                        amount: Operand::Local(amount),
                    }));
                }
            }
            let through = func.blocks.push(BasicBlock::new(
                flush,
                Terminator {
                    kind: TerminatorKind::Goto(exit),
                    span,
                },
            ));
            func.blocks[b].term.kind.retarget(exit, through);
        }
    }
}

/// What a block's local starts at: -1 if all its counts but the first iteration's are counted at
/// the exits, so that it holds what they add (the count of the iterations less one: `local - 1`
/// at the exit would keep the last value but one alive across the loop's back edge as well).
fn start(promoted: &[Promoted]) -> i64 {
    -i64::from(promoted.iter().all(|p| p.first.is_some()))
}

/// In a loop of one block `stmts`, the index of the count at `at`, local `index` there: the same
/// in every iteration after the first (`(local not assigned in the loop, or none, plus a
/// constant)`), and the first iteration's if it differs (`(local at the loop's entry, plus a
/// constant)`); `None` if it changes otherwise.
fn steady_index(
    stmts: &[Statement],
    at: usize,
    index: LocalId,
) -> Option<(Index, Option<(LocalId, i64)>)> {
    // Follow `index` back through copies and additions of constants to the block's entry.
    let (mut local, mut c, mut before) = (index, 0i64, at);
    while let Some(def) = (0..before)
        .rev()
        .find(|&s| stmts[s].kind.dest() == Some(local))
    {
        match &stmts[def].kind {
            StatementKind::Assign(_, Rvalue::Use(Operand::Local(x))) => local = *x,
            StatementKind::Assign(_, Rvalue::Use(Operand::Const(Const::Int(k)))) => {
                return Some(((None, c.wrapping_add(*k)), None));
            }
            StatementKind::Assign(
                _,
                Rvalue::Binary(BinOp::Add, Operand::Local(x), Operand::Const(Const::Int(k)))
                | Rvalue::Binary(BinOp::Add, Operand::Const(Const::Int(k)), Operand::Local(x)),
            ) => {
                local = *x;
                c = c.wrapping_add(*k);
            }
            _ => return None,
        }
        before = def;
    }
    // `local` as the iteration starts: what the block last assigns it, which is what the
    // back edge brings.
    match stmts.iter().rev().find(|s| s.kind.dest() == Some(local)) {
        None => Some(((Some(local), c), None)),
        Some(Statement {
            kind: StatementKind::Assign(_, Rvalue::Use(Operand::Const(Const::Int(k)))),
            ..
        }) => Some(((None, c.wrapping_add(*k)), Some((local, c)))),
        Some(_) => None,
    }
}

fn int(value: i64) -> Operand {
    Operand::Const(Const::Int(value))
}

/// `local + c` as an operand (a constant without a local), computed at the end of `stmts`.
fn offset(
    func: &mut Function,
    stmts: &mut Vec<Statement>,
    local: Option<LocalId>,
    c: i64,
    span: pcc_lang::Span,
) -> Operand {
    let Some(local) = local else {
        return int(c);
    };
    let sum = func.new_temp(Type::Int);
    stmts.push(Statement {
        kind: StatementKind::Assign(
            sum,
            Rvalue::Binary(BinOp::Add, Operand::Local(local), int(c)),
        ),
        span,
    });
    Operand::Local(sum)
}

#[cfg(test)]
mod tests {
    use pcc_profiler::profile::Mode;

    use crate::notes::Notes;
    use crate::opt::testing::{lower, text};
    use crate::profiling::{Instrumentation, instrument};

    /// Function `f` of `source`, instrumented for `mode` and optimized at -O2.
    fn optimized(source: &str, mode: Mode) -> String {
        let mut program = lower(source);
        let how = Instrumentation {
            mode,
            program_path: "test.pl",
            source_hash: String::new(),
            output: String::new(),
            hash_threshold: crate::driver::DEFAULT_HASH_THRESHOLD,
            interesting: None,
            k: crate::driver::DEFAULT_K,
            edge_profile: None,
        };
        instrument(&mut program, &how, source, &mut Notes::default()).expect("instrumented");
        crate::opt::optimize(&mut program);
        text(&program, source, "f")
    }

    /// The blocks of `text` that branch back to themselves: one-block loops.
    fn one_block_loops(text: &str) -> Vec<&str> {
        let blocks = text.split("\n  bb").skip(1);
        blocks
            .filter(|b| {
                let (name, rest) = b.split_once(':').expect("a block label");
                rest.contains(&format!("? bb{name} :")) || rest.contains(&format!(": bb{name} "))
            })
            .collect()
    }

    const SUM: &str = "\
fn f(n: int) -> int {
    let s = 0;
    let i = 0;
    while i < n { s += i; i += 1; }
    return s;
}
fn main() { println(f(10)); }
";

    #[test]
    fn a_one_block_loop_counts_its_path_in_a_local() {
        let text = optimized(SUM, Mode::Bl);
        let loops = one_block_loops(&text);
        assert_eq!(loops.len(), 1, "{text}");
        assert!(!loops[0].contains("count"), "{text}");
        // The first iteration's path is counted before the loop, the others at its exit, and
        // the path that leaves the function after the loop where it ends.
        assert_eq!(text.matches("] += ").count(), 1, "{text}");
        assert_eq!(text.matches("count table").count(), 3, "{text}");
    }

    #[test]
    fn constant_counters_of_a_loop_are_kept_in_locals() {
        for mode in [Mode::Edge, Mode::Block] {
            let text = optimized(SUM, mode);
            let loops = one_block_loops(&text);
            assert_eq!(loops.len(), 1, "{text}");
            assert!(!loops[0].contains("count table"), "{text}");
            assert!(text.contains("] += "), "{text}");
        }
    }

    #[test]
    fn a_loop_that_may_stop_counts_in_memory() {
        // `println` may fail (a closed output), and the division may divide by zero: the
        // profile written then must hold the iterations so far.
        for body in ["println(i);", "s += 100 / (n - i);"] {
            let source = SUM.replace("s += i;", body);
            let text = optimized(&source, Mode::Bl);
            assert!(!text.contains("] += "), "{text}");
        }
    }
}
