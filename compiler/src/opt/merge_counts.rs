//! Merging counts: the constant counts a block makes with nothing between them that could stop
//! the program (no check that may fail, no call that may stop: `profiling::statement_stop`; a
//! field access of an object known to be non-null cannot fail, `mir::non_null`) always run
//! equally often, so one counter can count for all of them. Inlining puts the counts of a
//! callee's straight-line path next to its caller's: the edge profile of AWFY Towers made six
//! counts per disk moved, in five tables, and makes three.
//!
//! The merged counter is a new counter at the end of an array table, shared by every place that
//! makes the same counts; [`Program::merged_counters`] lists its members, which the profile spec
//! carries, and the program hands its counts to them when it builds its profile
//! (`pcc_profiler::spec::build_profile`), so the profile is the same.

use std::collections::HashMap;

use pcc_profiler::edge_profile::Stop;

use super::counters::statement_stops;
use crate::mir::non_null::NonNull;
use crate::mir::{Const, MergedCounter, Operand, Program, StatementKind};
use crate::profiling::quiet_functions;

/// A merged counter's member: (table, index, times), as [`MergedCounter::members`].
type Member = (usize, u64, u64);

/// Replaces each run of two or more constant counts of a block that nothing between them can
/// stop by one count of a merged counter.
pub fn merge_counts(program: &mut Program) {
    if program.counter_tables.is_empty() {
        return;
    }
    let quiet = quiet_functions(program);
    // A merged counter goes in an array of plain counters: not `tpp`'s, whose last counter is
    // its cold counter, nor `ppp`'s or `kbl`'s, which are indexed by something else.
    let mut hosts: Vec<bool> = (program.counter_tables.iter())
        .map(|t| !t.hashed && !t.keyed && t.slots.is_none())
        .collect();
    let statements = || {
        (program.functions.iter())
            .flat_map(|f| &f.blocks)
            .flat_map(|b| &b.stmts)
    };
    for stmt in statements() {
        if let StatementKind::CountOrCold { table, .. } = stmt.kind {
            hosts[table] = false;
        }
    }
    let keyed: Vec<bool> = program.counter_tables.iter().map(|t| t.keyed).collect();
    // The merged counter of each list of members: (table, index).
    let mut merged: HashMap<Vec<Member>, (usize, u64)> = HashMap::new();
    for func in program.functions.iter_mut() {
        let constant_count = |kind: &StatementKind| match kind {
            StatementKind::Count {
                table,
                index: Operand::Const(Const::Int(index)),
            } if !keyed[*table] => Some((*table, *index as u64)),
            _ => None,
        };
        let candidates: Vec<_> = (func.blocks.ids())
            .filter(|&b| {
                (func.blocks[b].stmts.iter())
                    .filter(|s| constant_count(&s.kind).is_some())
                    .nth(1)
                    .is_some()
            })
            .collect();
        if candidates.is_empty() {
            continue;
        }
        let non_null = NonNull::of(func);
        for b in candidates {
            let stops = statement_stops(func, b, &non_null, &quiet);
            // The runs of counts between statements that may stop the program.
            let mut runs: Vec<Vec<usize>> = vec![Vec::new()];
            for (at, stmt) in func.blocks[b].stmts.iter().enumerate() {
                if stops[at] != Stop::Never {
                    runs.push(Vec::new());
                } else if constant_count(&stmt.kind).is_some() {
                    runs.last_mut().expect("a run").push(at);
                }
            }
            let mut removed = vec![false; stops.len()];
            for run in runs.into_iter().filter(|run| run.len() > 1) {
                let mut members: Vec<Member> = Vec::new();
                for &at in &run {
                    let (table, index) =
                        constant_count(&func.blocks[b].stmts[at].kind).expect("a count");
                    match members.iter_mut().find(|m| (m.0, m.1) == (table, index)) {
                        Some(member) => member.2 += 1,
                        None => members.push((table, index, 1)),
                    }
                }
                members.sort_unstable();
                let counter = match merged.get(&members) {
                    Some(&counter) => counter,
                    None => {
                        let Some(host) = members.iter().map(|m| m.0).find(|&t| hosts[t]) else {
                            continue;
                        };
                        let index = program.counter_tables[host].len;
                        program.counter_tables[host].len += 1;
                        program.merged_counters.push(MergedCounter {
                            table: host,
                            index,
                            members: members.clone(),
                        });
                        merged.insert(members, (host, index));
                        (host, index)
                    }
                };
                func.blocks[b].stmts[run[0]].kind = StatementKind::Count {
                    table: counter.0,
                    index: Operand::Const(Const::Int(counter.1 as i64)),
                };
                run[1..].iter().for_each(|&at| removed[at] = true);
            }
            let mut removed = removed.into_iter();
            (func.blocks[b].stmts).retain(|_| !removed.next().expect("a statement"));
        }
    }
}

#[cfg(test)]
mod tests {
    use pcc_profiler::profile::Mode;

    use super::*;

    /// The pass on a whole function, as `--emit mir` shows it (`UPDATE_EXPECT=1` rewrites the
    /// snapshot), after the inlining and CFG simplification that run before it in the pipeline:
    /// under `edge`, `g`'s count now stands beside `f`'s in one block, and the two become one
    /// count of a merged counter.
    #[test]
    fn snapshot() {
        let source = "fn g(x: int) -> int { return x + 1; }\nfn f(n: int) -> int { return g(n) * 2; }\n\
                      fn main() { println(f(3)); }";
        expect_test::expect![[r#"
            before:
            fn f(_0: int) -> int {
                let _1: int;
                let _2: int;
              bb0:
                _1 = g(_0)
                _2 = _1 * 2
                count table1[0]
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
                _4 = _3 + 1
                count table0[1] (merged: table0[0], table1[0])
                _1 = _4
                _2 = _1 * 2
                return _2
            }
        "#]]
        .assert_eq(&crate::opt::testing::instrumented_before_and_after(
            source,
            Mode::Edge,
            "f",
            |p| {
                crate::opt::inline::inline_small_functions(p, &[]);
                (p.functions.iter_mut()).for_each(crate::opt::simplify_cfg::simplify_cfg);
                merge_counts(p);
            },
        ));
    }
}
