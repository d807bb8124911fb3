//! Superblock formation by tail duplication (Hwu et al., "The Superblock", 1993), with the
//! traces taken from the path profile: a hot Ball-Larus path is a whole hot acyclic trace, not
//! one grown edge by edge from edge counts. Where control can also enter a trace from off the
//! trace (a side entrance, typically the join after a rare `if` arm), the rest of the trace is
//! copied and the trace's own edge is pointed at the copy: the hot path becomes a chain that
//! only its first block can be entered at, so every block of it is dominated by the ones before
//! it, and the clean-ups after (constant folding, bounds-check elimination on dominators,
//! Cranelift's GVN) see the path alone. Edges leaving the chain are side exits to the original
//! blocks, and the chain's back edge goes to the original loop header.
//!
//! Semantics are kept as for any cloning (`mir/clone.rs`): a copy's edges go to a copy of, or the
//! original of, its original's targets.
//!
//! Traces are formed hottest first. Later paths are followed through the copies made so far
//! (two hot paths sharing a prefix become a tree of chains), and the part of a later trace that
//! gets copied must not hold a block of an earlier trace: copying it would give that trace a
//! side entrance again (the copy's edge back into the trace).

use std::collections::HashSet;

use crate::mir::{BlockId, ENTRY, Function, IdVec};

use super::frequencies::Frequencies;
use crate::mir::clone::{append_copies, size};

/// A path is hot if it is at least this share of its function's path executions…
pub const MIN_SHARE: f64 = 0.1;
/// …and ran at least this many times.
pub const MIN_COUNT: u64 = 64;
/// Statements (terminators included) a function may grow by: this share of its size as lowered,
/// but at least `MIN_BUDGET` and at most `MAX_BUDGET`.
pub const BUDGET_SHARE: f64 = 0.5;
pub const MIN_BUDGET: usize = 64;
pub const MAX_BUDGET: usize = 400;
/// The largest tail (statements and terminators) one trace may copy. Our later passes use a
/// single-entry path only locally (constant folding, BCE, Cranelift's GVN), so small tails — the
/// latch and loop test copied into each arm of an interpreter's `match`, `programs/bench/
/// brainfuck.pl` — pay, and long ones only add code for the register allocator (the heap loops
/// of `programs/bench/dijkstra.pl`: 3% slower with tails of 9 and more).
pub const MAX_TAIL: usize = 8;

/// What superblock formation did to a function: the paths whose tails were copied, each with
/// its share of the function's path executions, the blocks and statements copied, and the hot
/// paths that needed a copy but did not get one, with their shares and why.
#[derive(Debug, PartialEq)]
pub struct Superblocks {
    pub paths: Vec<(u64, f64)>,
    pub blocks: usize,
    pub statements: usize,
    pub left: Vec<(u64, f64, Left)>,
}

/// Why a hot path with a side entrance was left as it is.
#[derive(Debug, PartialEq)]
pub enum Left {
    /// Its tail from the side entrance on has this many statements, over [`MAX_TAIL`].
    LongTail(usize),
    /// Its tail holds a block of a hotter path's superblock.
    SharedTail,
    /// Copying its tail would grow the function past this budget of statements.
    OverBudget(usize),
}

impl std::fmt::Display for Left {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Left::LongTail(n) => write!(f, "its tail of {n} statements is over {MAX_TAIL}"),
            Left::SharedTail => write!(f, "its tail runs through a hotter path's superblock"),
            Left::OverBudget(n) => {
                write!(f, "the function's budget of {n} copied statements is spent")
            }
        }
    }
}

/// Turns the hot loop iterations of `func` (lowered ids in `freq`) that do at least
/// `min_weight` of the program's work into superblocks, leaving alone the paths through `keep`
/// (the blocks the unroller copied: their hot paths already are superblocks, and edges into
/// them were retargeted).
///
/// Only paths ending at a back edge: a path ending at a return runs once per call, and the
/// small functions whose paths are hot that way are inlined, where the join that copying would
/// remove is what lets the caller's branch on the result fold (`awfy_queens`: 12% slower with
/// their superblocks).
pub fn form_superblocks(
    func: &mut Function,
    freq: &Frequencies,
    keep: &[BlockId],
    min_weight: u64,
) -> Superblocks {
    let profiling = func.profiling_locals();
    let executions: u64 = freq.paths.iter().map(|p| p.count).sum();
    let share = |count: u64| count as f64 / executions as f64;
    let mut traces: Vec<_> = freq
        .paths
        .iter()
        .filter(|p| {
            p.back_to.is_some()
                && p.count >= MIN_COUNT
                && p.count as f64 >= MIN_SHARE * executions as f64
                && p.count
                    .saturating_mul(size(func, p.blocks.iter().copied(), &profiling) as u64)
                    >= min_weight
        })
        .collect();
    traces.sort_by_key(|p| (std::cmp::Reverse(p.count), p.id));
    let headers: HashSet<BlockId> = freq.paths.iter().filter_map(|p| p.back_to).collect();
    let lowered = freq.block.len();
    let budget = ((size(func, func.blocks.ids().take(lowered), &profiling) as f64 * BUDGET_SHARE)
        as usize)
        .clamp(MIN_BUDGET, MAX_BUDGET);
    // The lowered block each block is a copy of (itself for the blocks this pass did not make).
    let mut origin: IdVec<BlockId, BlockId> = func.blocks.ids().collect();
    let mut on_trace: HashSet<BlockId> = HashSet::new();
    let mut done = Superblocks {
        paths: Vec::new(),
        blocks: 0,
        statements: 0,
        left: Vec::new(),
    };
    for path in traces {
        if path.blocks.iter().any(|b| keep.contains(b)) {
            continue;
        }
        // A trace stops before the next loop's header: copying a header would peel an
        // iteration of that loop, not straighten this path. ENTRY, where the prologue jumps,
        // is not copied either.
        let end = path.blocks[1..]
            .iter()
            .position(|&b| b == ENTRY || headers.contains(&b))
            .map_or(path.blocks.len(), |k| k + 1);
        if end < 2 {
            continue;
        }
        let trace = route(func, &origin, &path.blocks[..end]);
        let Some(i) = side_entrance(func, &trace) else {
            // Already single-entry: a superblock to keep as it is.
            on_trace.extend(trace);
            continue;
        };
        let tail = &trace[i..];
        let statements = size(func, tail.iter().copied(), &profiling);
        let left = if statements > MAX_TAIL {
            Some(Left::LongTail(statements))
        } else if tail.iter().any(|b| on_trace.contains(b)) {
            Some(Left::SharedTail)
        } else if done.statements + statements > budget {
            Some(Left::OverBudget(budget))
        } else {
            None
        };
        if let Some(left) = left {
            done.left.push((path.id, share(path.count), left));
            continue;
        }
        let first = func.blocks.len();
        let copies = append_copies(func, tail, |j, target| {
            if tail.get(j + 1) == Some(&target) {
                BlockId::new(first + j + 1)
            } else {
                target
            }
        });
        // Every mention of the trace's block in its predecessor's terminator is the one CFG
        // edge the path took (`match` arms to the same block are one edge).
        func.blocks[trace[i - 1]]
            .term
            .kind
            .retarget(trace[i], copies[0]);
        for &b in tail {
            origin.push(origin[b]);
        }
        on_trace.extend(trace[..i].iter().chain(&copies));
        done.paths.push((path.id, share(path.count)));
        done.blocks += copies.len();
        done.statements += statements;
    }
    done
}

/// The blocks the lowered path `path` runs through in `func` as transformed so far: from its
/// first block (an entry or a loop header, never copied), the successor that is the path's next
/// block or a copy of it, at each step.
fn route(func: &Function, origin: &IdVec<BlockId, BlockId>, path: &[BlockId]) -> Vec<BlockId> {
    let mut route = vec![path[0]];
    for &next in &path[1..] {
        let here = route[route.len() - 1];
        let step = func.blocks[here]
            .term
            .kind
            .successors()
            .into_iter()
            .find(|&s| origin[s] == next)
            .expect("the path's edges are in the CFG");
        route.push(step);
    }
    route
}

/// The first position past the start of `trace` whose block can be reached from a block other
/// than the one before it on the trace.
fn side_entrance(func: &Function, trace: &[BlockId]) -> Option<usize> {
    let mut reachable = IdVec::from_elem(false, func.blocks.len());
    for b in func.reverse_postorder() {
        reachable[b] = true;
    }
    let predecessors = func.predecessors();
    (1..trace.len()).find(|&i| {
        predecessors[trace[i]]
            .iter()
            .any(|&p| p != trace[i - 1] && reachable[p])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::TerminatorKind;
    use crate::pgo::frequencies::ExecutedPath;

    /// `fn f(n)`, lowered: a loop whose body is a rare-or-common `if`, a join, then an
    /// alternating `if` and its join; `extra` more statements after the first join.
    fn lowered(extra: usize) -> Function {
        let source = format!(
            "fn f(n: int) -> int {{ let s = 0; for i in 0..n {{ if i % 10 == 0 {{ s += 3; }} \
             else {{ s += 1; }} {} if i % 2 == 0 {{ s += i; }} else {{ s -= 1; }} }} return s; }}\n\
             fn main() {{ println(f(10)); }}",
            "s += i;".repeat(extra)
        );
        let program = pcc_lang::check_bytes("t.pl", source.as_bytes()).expect("valid");
        crate::lower::lower_program(&program).functions[crate::mir::FnId::new(0)].clone()
    }

    /// The path from `start` taking, at the branches met in turn, `then` for `true`: its blocks
    /// up to the return or the back edge that ends it, and the header it jumps back to.
    fn walk(func: &Function, start: BlockId, choices: &[bool]) -> (Vec<BlockId>, Option<BlockId>) {
        let mut blocks = vec![start];
        let mut choices = choices.iter();
        loop {
            let next = match func.blocks[*blocks.last().unwrap()].term.kind {
                TerminatorKind::Goto(b) => b,
                TerminatorKind::Branch {
                    then_bb, else_bb, ..
                } => {
                    if *choices.next().expect("a choice per branch") {
                        then_bb
                    } else {
                        else_bb
                    }
                }
                _ => return (blocks, None),
            };
            if blocks.contains(&next) {
                return (blocks, Some(next));
            }
            blocks.push(next);
        }
    }

    /// A profile of `func` with the paths from `start` along `choices`, executed `count` times.
    fn profile(func: &Function, paths: &[(BlockId, &[bool], u64)]) -> Frequencies<'static> {
        let mut block = IdVec::from_elem(0, func.blocks.len());
        let paths = paths
            .iter()
            .enumerate()
            .map(|(id, &(start, choices, count))| {
                let (blocks, back_to) = walk(func, start, choices);
                for &b in &blocks {
                    block[b] += count;
                }
                ExecutedPath {
                    id: id as u64,
                    count,
                    blocks,
                    back_to,
                }
            })
            .collect();
        Frequencies {
            block,
            paths,
            kipf: None,
            depth: 0,
        }
    }

    /// What formation returns when it copied nothing and had nothing to leave.
    fn nothing() -> Superblocks {
        Superblocks {
            paths: Vec::new(),
            blocks: 0,
            statements: 0,
            left: Vec::new(),
        }
    }

    fn bb(b: usize) -> BlockId {
        BlockId::new(b)
    }

    fn header(func: &Function) -> BlockId {
        walk(func, ENTRY, &[true, false, false]).1.expect("a loop")
    }

    /// Every block of `trace` but the first is entered only from the one before it.
    fn single_entry(func: &Function, trace: &[BlockId]) -> bool {
        let predecessors = func.predecessors();
        trace.windows(2).all(|w| predecessors[w[1]] == vec![w[0]])
    }

    #[test]
    fn the_hot_path_becomes_a_chain_whose_side_exits_go_to_the_originals() {
        let mut func = lowered(0);
        let n = func.blocks.len();
        let h = header(&func);
        // The common arm then the `then` of the alternating `if`; the rare arm is cold.
        let freq = profile(
            &func,
            &[
                (h, &[true, false, true], 900),
                (h, &[true, true, true], 90),
                (h, &[false], 1),
            ],
        );
        let hot = &freq.paths[0].blocks;
        let join = hot[3];
        assert_eq!(func.predecessors()[join].len(), 2, "both arms join");
        let done = form_superblocks(&mut func, &freq, &[], 0);
        // The tail from the join on is copied, the common arm's edge goes to the copy.
        let tail = hot.len() - 3;
        assert_eq!(done.paths, vec![(0, 900.0 / 991.0)]);
        assert_eq!((done.blocks, func.blocks.len()), (tail, n + tail));
        assert_eq!(func.blocks[hot[2]].term.kind.successors()[..], [bb(n)]);
        let chain: Vec<BlockId> = hot[..3]
            .iter()
            .copied()
            .chain((n..n + tail).map(bb))
            .collect();
        assert!(single_entry(&func, &chain));
        // The copy of the join exits to the original `else` arm; the last copy jumps back to
        // the original header.
        let original_else = walk(&func, hot[0], &[true, false, false]).0[4];
        assert!(original_else < bb(n));
        assert_eq!(
            func.blocks[bb(n)].term.kind.successors()[..],
            [bb(n + 1), original_else]
        );
        assert_eq!(
            func.blocks[bb(n + tail - 1)].term.kind.successors()[..],
            [h]
        );
        // The rare arm still reaches the original join.
        assert_eq!(
            func.blocks[freq.paths[1].blocks[2]].term.kind.successors()[..],
            [join]
        );
        assert_eq!(
            done.statements,
            size(&func, (n..n + tail).map(bb), &func.profiling_locals())
        );
    }

    #[test]
    fn a_second_hot_path_sharing_the_prefix_is_followed_through_the_copies() {
        let mut func = lowered(0);
        let h = header(&func);
        let freq = profile(
            &func,
            &[
                (h, &[true, false, true], 500),
                (h, &[true, false, false], 450),
                (h, &[false], 1),
            ],
        );
        let done = form_superblocks(&mut func, &freq, &[], 0);
        assert_eq!(done.paths.len(), 2);
        // Copies branch as their originals do: the same choices walk the path as it runs now.
        for choices in [[true, false, true], [true, false, false]] {
            let (trace, back_to) = walk(&func, h, &choices);
            assert!(single_entry(&func, &trace), "{trace:?}");
            assert_eq!(back_to, Some(h));
        }
    }

    #[test]
    fn paths_without_side_entrances_into_loops_or_through_kept_blocks_are_left_alone() {
        let mut func = lowered(0);
        let n = func.blocks.len();
        let h = header(&func);
        // The loop's exit path: header, return.
        let freq = profile(&func, &[(h, &[false], 1000)]);
        assert_eq!(form_superblocks(&mut func, &freq, &[], 0), nothing());
        // From the entry into the loop: the trace ends before the header, one block.
        let freq = profile(&func, &[(ENTRY, &[true, false, true], 1000)]);
        assert_eq!(freq.paths[0].blocks[1], h);
        assert_eq!(form_superblocks(&mut func, &freq, &[], 0), nothing());
        let freq = profile(&func, &[(h, &[true, false, true], 1000)]);
        assert_eq!(
            form_superblocks(&mut func, &freq, &[freq.paths[0].blocks[3]], 0),
            nothing()
        );
        assert_eq!(func.blocks.len(), n);
    }

    #[test]
    fn tails_over_the_budget_are_not_copied() {
        // 70 statements after the join: more than 64 and than half the function; 20: within the
        // function's budget but over a trace's `MAX_TAIL`.
        for statements in [70, 20] {
            let mut func = lowered(statements);
            let n = func.blocks.len();
            let h = header(&func);
            let freq = profile(&func, &[(h, &[true, false, true], 1000)]);
            let done = form_superblocks(&mut func, &freq, &[], 0);
            assert!(done.paths.is_empty());
            assert_eq!(func.blocks.len(), n);
            // The report says which path was left and why.
            let [(path, share, left)] = &done.left[..] else {
                panic!("one path left: {:?}", done.left)
            };
            assert_eq!((*path, *share), (freq.paths[0].id, 1.0));
            assert!(
                matches!(left, Left::LongTail(n) if *n > statements),
                "{left:?}"
            );
            assert!(left.to_string().ends_with("is over 8"), "{left}");
        }
        // With fewer statements it fits.
        let mut func = lowered(0);
        let h = header(&func);
        let freq = profile(&func, &[(h, &[true, false, true], 1000)]);
        let done = form_superblocks(&mut func, &freq, &[], 0);
        assert!(done.statements <= MAX_TAIL);
    }
}
