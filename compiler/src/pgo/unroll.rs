//! Selective loop unrolling guided by a k-iteration path profile ([KBLPP], §"Selective loop
//! unrolling", the masked-convolution case study): where the body of an innermost loop takes
//! the same path many iterations in a row, that path gets a chain of `U` copies of its blocks,
//! copy `i`'s back edge going to copy `i + 1`'s header and the last one's back to the chain's
//! guard, so that `U` consecutive iterations are one straight-line superblock that Cranelift
//! optimizes as a whole, and whose bounds checks one guard per chain replaces (`guard.rs`).
//! Every edge leaving the path is a side exit to the original block it targeted, the general
//! loop; the general loop's back edge at the end of that path enters the chain again (a run
//! goes on), and a failing guard runs the iteration in the general loop.
//!
//! Why this keeps the semantics: every edge of a copy goes to a copy of, or the original of,
//! the block its original went to (`mir/clone.rs`), the guard block has no effect but its choice,
//! and the only statements changed are bounds checks the guard has proven to pass. So a side
//! exit re-enters the general loop at exactly the block and state the original loop would have
//! been in.

use crate::mir::{
    BasicBlock, BlockId, ENTRY, Function, Rvalue, StatementKind, Terminator, TerminatorKind,
};

use super::frequencies::{ExecutedPath, Frequencies};
use crate::mir::clone::{append_copies, size};
use crate::mir::poly::chain_tests;
use crate::opt::guard;

/// A path counts as running long when at least this share of its executions start a run of
/// the length considered.
pub const RUN_SHARE: f64 = 0.5;
/// The shortest run worth unrolling for (two copies at least pay off only from there).
pub const MIN_RUN: usize = 4;
/// At most this many copies of a path: the guard is paid once per chain entry (on the masked
/// convolution, 16 copies gain 1.24× where 8 gain 1.19×).
pub const MAX_COPIES: usize = 16;
/// At most this many statements in a chain: unrolling stops paying when the loop no longer
/// fits the instruction cache and the register allocator's reach.
pub const MAX_CHAIN_STATEMENTS: usize = 800;
/// A loop is unrolled only if its long-running paths are at least this share of the work
/// (executed statements) of its function.
pub const MIN_FUNCTION_SHARE: f64 = 0.25;
/// At `-O 2`, a path whose chain's guard covers every bounds check is chained only if it takes at
/// least this share of its loop's iterations. Versioning (`opt/version.rs`) clears such
/// accesses for the whole loop with one test per entry, so the chain saves only loop tests, while
/// each switch to another path leaves it through a side exit into the general loop, which,
/// grown too large to be versioned, checks every access: the masked convolution's two chained
/// paths of 50% each ran 0.88× as fast as its versioned loop; the sieve's path of 93%, 1.4×.
pub const CLEARED_PATH_SHARE: f64 = 0.9;
/// Loops iterating fewer times than this in the whole profile are left alone.
pub const MIN_ITERATIONS: u64 = 64;

/// A loop that was unrolled: its header and the blocks of its chained paths (lowered ids),
/// and its chains.
#[derive(Debug, PartialEq)]
pub struct Unrolled {
    pub header: BlockId,
    pub body: Vec<BlockId>,
    pub chains: Vec<Chain>,
}

/// A path unrolled into a chain: its id, its run length in the profile (`open`: at least that,
/// the forest's depth), its share of the loop's iterations, how many copies, how many bounds
/// checks and branches of the chain the guard replaced, and how many index ranges and
/// comparisons the guard checks.
#[derive(Debug, PartialEq)]
pub struct Chain {
    pub path: u64,
    pub run: usize,
    pub open: bool,
    pub share: f64,
    pub copies: usize,
    pub checks_removed: usize,
    pub branches_removed: usize,
    pub guard_ranges: usize,
    pub guard_comparisons: usize,
}

/// What the unroller did to a function: the loops it unrolled, and the hot loops (doing at
/// least the `min_weight` of the program's work) or hot paths of them it left, by header, and why.
#[derive(Debug, PartialEq)]
pub struct Unrolling {
    pub unrolled: Vec<Unrolled>,
    pub left: Vec<(BlockId, Left)>,
}

/// Why a hot loop, or one of its long-running paths, was not unrolled.
#[derive(Debug, PartialEq)]
pub enum Left {
    /// The loop iterated this many times in the whole profile, under [`MIN_ITERATIONS`].
    FewIterations(u64),
    /// No path of it runs [`MIN_RUN`] times in a row in [`RUN_SHARE`] of its executions.
    ShortRuns,
    /// Its paths that run long call PL functions.
    Calls,
    /// Its paths that run long go through an inner loop.
    NotInnermost,
    /// Its paths that run long do this share of their function's work, under
    /// [`MIN_FUNCTION_SHARE`], or under the program's `min_weight`.
    LittleWork(f64),
    /// Path `id` runs long but was not chained.
    Path(u64, PathLeft),
}

/// Why a long-running path of a hot loop was not chained.
#[derive(Debug, PartialEq)]
pub enum PathLeft {
    /// The loop's average trip count leaves room for fewer than two copies.
    ShortTrips(usize),
    /// One guard for the chain would cost more than the checks and branches it replaces.
    GuardCosts,
    /// `-O 2`'s versioning clears the same checks, and the path takes only this share of the
    /// iterations (under [`CLEARED_PATH_SHARE`]).
    Versioned(f64),
    /// It reads a global or a field, which versioning reads once per loop (`reloads`).
    Reloads,
    /// Hotter paths' chains already took all its blocks.
    Taken,
}

impl std::fmt::Display for Left {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Left::FewIterations(n) => write!(f, "{n} iterations, under {MIN_ITERATIONS}"),
            Left::ShortRuns => write!(
                f,
                "no path of it runs {MIN_RUN} times in a row in {:.0}% of its executions",
                RUN_SHARE * 100.0
            ),
            Left::Calls => write!(f, "its long-running paths call functions"),
            Left::NotInnermost => write!(f, "its long-running paths run an inner loop"),
            Left::LittleWork(share) => write!(
                f,
                "its long-running paths do {:.0}% of the function's work, too little",
                share * 100.0
            ),
            Left::Path(id, why) => write!(f, "path {id}: {why}"),
        }
    }
}

impl std::fmt::Display for PathLeft {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathLeft::ShortTrips(trip) => {
                write!(
                    f,
                    "the loop runs {trip} iterations per entry, too few for 2 copies"
                )
            }
            PathLeft::GuardCosts => write!(f, "its guard would cost more than the checks it saves"),
            PathLeft::Versioned(share) => write!(
                f,
                "-O2's versioning clears the same checks and it takes only {:.0}% of the \
                 iterations (under {:.0}%)",
                share * 100.0,
                CLEARED_PATH_SHARE * 100.0
            ),
            PathLeft::Reloads => write!(
                f,
                "it reads a global or a field, which -O2's versioning reads once per loop"
            ),
            PathLeft::Taken => write!(f, "hotter paths' chains took all its blocks"),
        }
    }
}

/// Unrolls every innermost loop whose iteration paths run long and which does at least
/// `min_weight` of the program's work (executed statements, as the profile counts them), along
/// each such path. `freq` is the profile of `func` as lowered; block ids below the lowered
/// count are kept. `versioning`: `-O 2` will version loops (see `CLEARED_PATH_SHARE`). Without
/// a k-iteration path forest (a profile other than `kbl`), there are no runs to go by: nothing is
/// unrolled and nothing is reported left.
pub fn unroll_hot_loops(
    func: &mut Function,
    freq: &Frequencies,
    min_weight: u64,
    versioning: bool,
) -> Unrolling {
    let mut done = Unrolling {
        unrolled: Vec::new(),
        left: Vec::new(),
    };
    if freq.kipf.is_none() {
        return done;
    }
    let headers: Vec<BlockId> = {
        let mut h: Vec<BlockId> = freq.paths.iter().filter_map(|p| p.back_to).collect();
        h.sort_unstable();
        h.dedup();
        h
    };
    let profiling = func.profiling_locals();
    let weight_of = |func: &Function, p: &ExecutedPath| {
        p.count
            .saturating_mul(size(func, p.blocks.iter().copied(), &profiling) as u64)
    };
    for &header in &headers {
        // ENTRY is also where the prologue jumps; a loop there is left alone.
        if header == ENTRY {
            continue;
        }
        let iteration_paths: Vec<&ExecutedPath> = freq
            .paths
            .iter()
            .filter(|p| p.back_to == Some(header) && p.blocks[0] == header)
            .collect();
        let iterations: u64 = iteration_paths.iter().map(|p| p.count).sum();
        // Only the program's hot loops are reported when left alone.
        let hot = iteration_paths
            .iter()
            .map(|p| weight_of(func, p))
            .sum::<u64>()
            >= min_weight;
        let running_long: Vec<(&ExecutedPath, usize)> = iteration_paths
            .iter()
            .map(|&p| (p, freq.run_length(p.id, RUN_SHARE)))
            .filter(|&(_, run)| run >= MIN_RUN)
            .collect();
        let mut long: Vec<(&ExecutedPath, usize)> = running_long
            .iter()
            .copied()
            .filter(|(p, _)| !calls_functions(func, &p.blocks))
            .collect();
        let innermost = long.iter().all(|(p, _)| {
            p.blocks
                .iter()
                .all(|b| *b == header || !headers.contains(b))
        });
        let weight: u64 = long.iter().map(|(p, _)| weight_of(func, p)).sum();
        // The loop must also be a good part of its function: copies make the whole function
        // bigger for the register allocator, which can cost more in its other hot loops than
        // the chain saves (`clbg_fannkuch`'s 11-element copy loop next to its flip loop: 7%
        // slower).
        let function_weight = freq.weight(func);
        let left = if iterations < MIN_ITERATIONS {
            Some(Left::FewIterations(iterations))
        } else if running_long.is_empty() {
            Some(Left::ShortRuns)
        } else if long.is_empty() {
            Some(Left::Calls)
        } else if !innermost {
            Some(Left::NotInnermost)
        } else if weight < min_weight
            || (weight as f64) < MIN_FUNCTION_SHARE * function_weight as f64
        {
            Some(Left::LittleWork(
                weight as f64 / function_weight.max(1) as f64,
            ))
        } else {
            None
        };
        if let Some(left) = left {
            if hot {
                done.left.push((header, left));
            }
            continue;
        }
        long.sort_by_key(|(p, _)| std::cmp::Reverse(p.count));
        // A loop entry runs its first iteration in the general loop (the entry edge goes to the
        // original header), then chains while the guard passes, and the rest in the general
        // loop again: chains of at most half the average trip count run at least once a loop.
        let back_edges: u64 = freq
            .paths
            .iter()
            .filter(|p| p.back_to == Some(header))
            .map(|p| p.count)
            .sum();
        let entries = freq.block[header].saturating_sub(back_edges).max(1);
        let trip = usize::try_from(freq.block[header] / entries).unwrap_or(usize::MAX);
        // Every path's blocks first, while the latches still jump to the header.
        let mut planned = Vec::new();
        let mut taken: Vec<BlockId> = Vec::new();
        for (path, run) in long {
            let open = run >= freq.depth;
            let copies = if open {
                MAX_COPIES
            } else {
                run.min(MAX_COPIES)
            }
            .min(MAX_CHAIN_STATEMENTS / size(func, path.blocks.iter().copied(), &profiling).max(1))
            .min(trip / 2);
            let mut leave = |why| done.left.push((header, Left::Path(path.id, why)));
            if copies < 2 {
                leave(PathLeft::ShortTrips(trip));
                continue;
            }
            let coverage = guard::cover(func, &path.blocks.repeat(copies));
            let share = path.count as f64 / iterations as f64;
            // Versioning would clear every check the guard covers: then chain only the loop's
            // common path. A path that reads a global or a field is not chained at all there.
            let versioned = versioning && coverage.covers_every_check();
            if !coverage.pays(copies) {
                leave(PathLeft::GuardCosts);
                continue;
            }
            if versioned && share < CLEARED_PATH_SHARE {
                leave(PathLeft::Versioned(share));
                continue;
            }
            if versioning && reloads(func, &path.blocks) {
                leave(PathLeft::Reloads);
                continue;
            }
            let Some(blocks) = own_latch(func, &path.blocks, &taken) else {
                leave(PathLeft::Taken);
                continue;
            };
            taken.extend(&path.blocks);
            planned.push((path, run, open, copies, blocks, coverage));
        }
        let mut chains = Vec::new();
        for (path, run, open, copies, blocks, coverage) in planned {
            build_chain(func, &blocks, copies, &coverage);
            chains.push(Chain {
                path: path.id,
                run,
                open,
                share: path.count as f64 / iterations as f64,
                copies,
                checks_removed: coverage.covered.len(),
                branches_removed: coverage.decided.len(),
                guard_ranges: coverage.ranges(),
                guard_comparisons: coverage.comparisons(),
            });
        }
        if !chains.is_empty() {
            done.unrolled.push(Unrolled {
                header,
                body: taken,
                chains,
            });
        }
    }
    done
}

/// Whether `blocks` read a global or a field: versioning (`opt/version.rs`) reads one that the loop
/// does not store once, at its guard, while each copy of a chain reads it again wherever a call
/// or a string operation between the copies may have stored it (CLBG Fasta's `s += CHARS[buf[i]]`
/// executed 26% more instructions chained than versioned).
fn reloads(func: &Function, blocks: &[BlockId]) -> bool {
    (blocks.iter().flat_map(|&b| &func.blocks[b].stmts)).any(|s| {
        matches!(
            s.kind,
            StatementKind::Assign(_, Rvalue::Global(_) | Rvalue::Field { .. })
        )
    })
}

/// The blocks of the loop iteration `path` with a latch of its own: the general loop's back
/// edge at the end of a path enters that path's chain, so two chained paths ending in the same
/// latch (the join and the `x += 1` after an `if`) need one each. The tail of the path that
/// earlier chains' paths took (`taken`) is copied for this path (tail duplication), the block
/// before it jumping to the copy instead; `None` if the whole path is taken.
fn own_latch(func: &mut Function, path: &[BlockId], taken: &[BlockId]) -> Option<Vec<BlockId>> {
    let shared = path.iter().rev().take_while(|b| taken.contains(b)).count();
    if shared == 0 {
        return Some(path.to_vec());
    }
    let (own, tail) = path.split_at(path.len() - shared);
    let &before = own.last()?;
    let first_copy = func.blocks.len();
    let copies = append_copies(func, tail, |i, target| match tail.get(i + 1) {
        Some(&next) if target == next => BlockId::new(first_copy + i + 1),
        _ => target,
    });
    func.blocks[before].term.kind.retarget(tail[0], copies[0]);
    Some(own.iter().copied().chain(copies).collect())
}

/// Whether `blocks` call a PL function: the call dominates such an iteration, and unrolling
/// around it gains nothing.
fn calls_functions(func: &Function, blocks: &[BlockId]) -> bool {
    blocks.iter().any(|&b| {
        func.blocks[b]
            .stmts
            .iter()
            .any(|s| s.kind.called_function().is_some())
    })
}

/// Adds a chain of `copies` copies of the loop iteration `path` (its header first, its latch
/// last), entered through a guard block that tests the index ranges of `coverage` (the chain's,
/// from `guard::cover`), and sends the original latch's back edge to the guard; see the module
/// comment.
pub fn build_chain(
    func: &mut Function,
    path: &[BlockId],
    copies: usize,
    coverage: &guard::Coverage,
) {
    let header = path[0];
    let latch = path[path.len() - 1];
    let span = func.blocks[header].term.span;
    let guard = func.blocks.next_id();
    let first = guard.index() + 1;
    let copy = |j: usize, i: usize| BlockId::new(first + j * path.len() + i);
    // A placeholder until the chain is there to be evaluated.
    func.blocks.push(BasicBlock::new(
        Vec::new(),
        Terminator {
            kind: TerminatorKind::Goto(copy(0, 0)),
            span,
        },
    ));
    for j in 0..copies {
        append_copies(func, path, |i, target| {
            if i + 1 < path.len() && target == path[i + 1] {
                copy(j, i + 1)
            } else if i + 1 == path.len() && target == header {
                if j + 1 < copies {
                    copy(j + 1, 0)
                } else {
                    guard
                }
            } else {
                target
            }
        });
    }
    func.blocks[latch].term.kind.retarget(header, guard);

    for &(position, s) in &coverage.covered {
        func.blocks[BlockId::new(first + position)].stmts[s]
            .kind
            .uncheck();
    }
    for &(position, then) in &coverage.decided {
        let term = &mut func.blocks[BlockId::new(first + position)].term.kind;
        if let TerminatorKind::Branch {
            then_bb, else_bb, ..
        } = *term
        {
            *term = TerminatorKind::Goto(if then { then_bb } else { else_bb });
        }
    }
    // The guard's tests, the first one at `guard` and the others after the copies; a failing
    // test leaves to the original header.
    let tests = guard::guard_tests(func, coverage, span);
    chain_tests(func, tests, guard, copy(0, 0), header, span);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{BlockId, TerminatorKind};

    /// `fn f(n)`: the loop of `for i in 0..n { if i % 3 == 0 {..} else {..} }`, lowered.
    fn lowered_loop() -> Function {
        let source = "fn f(n: int) -> int { let s = 0; for i in 0..n { if i % 3 == 0 { s += 1; } \
                      else { s += 2; } } return s; }\nfn main() { println(f(10)); }";
        let program = pcc_lang::check_bytes("t.pl", source.as_bytes()).expect("valid");
        crate::lower::lower_program(&program).functions[crate::mir::FnId::new(0)].clone()
    }

    fn succs(func: &Function, b: BlockId) -> Vec<BlockId> {
        func.blocks[b].term.kind.successors().to_vec()
    }

    #[test]
    fn copies_chain_their_back_edges_and_exit_to_the_originals() {
        let mut func = lowered_loop();
        let n = func.blocks.len();
        // The header: the block with a branch whose target jumps back to it eventually; find it
        // as the target of the `goto` that ends the increment block (the only back edge).
        let header = func
            .blocks
            .ids()
            .find(|&h| {
                matches!(func.blocks[h].term.kind, TerminatorKind::Branch { .. })
                    && func
                        .blocks
                        .ids()
                        .any(|b| b > h && succs(&func, b) == vec![h])
            })
            .expect("a loop header");
        let TerminatorKind::Branch {
            then_bb: body_entry,
            ..
        } = func.blocks[header].term.kind
        else {
            unreachable!()
        };
        // The body along the `if` side only: header, body entry, then-block, latch.
        let TerminatorKind::Branch {
            then_bb: hot,
            else_bb: side,
            ..
        } = func.blocks[body_entry].term.kind
        else {
            panic!("the body starts with the `if`")
        };
        // From the `if` side, jumps lead back to the header: those blocks end the path.
        let mut body = vec![header, body_entry, hot];
        while let [next] = succs(&func, *body.last().unwrap())[..]
            && next != header
        {
            body.push(next);
        }
        let latch = *body.last().unwrap();
        assert!(body.len() >= 4 && !body.contains(&side));
        let coverage = guard::cover(&func, &body.repeat(3));
        build_chain(&mut func, &body, 3, &coverage);
        let guard = BlockId::new(n);
        let copy = |i: usize, j: usize| BlockId::new(n + 1 + i * body.len() + j);
        // No array access, but the loop test `i < n` of every copy is decided by the guard:
        // `i + 2 < n`, and `i <= i + 2` (no wrap-around), one test per block.
        assert_eq!(coverage.decided.len(), 3);
        assert_eq!(coverage.comparisons(), 1);
        assert_eq!(func.blocks.len(), n + 1 + 3 * body.len() + 1);
        let second_test = BlockId::new(n + 1 + 3 * body.len());
        for i in 0..3 {
            // Within a copy, the path's edges stay in the copy; the loop test is gone; the `else`
            // side is a side exit to the original block.
            assert_eq!(succs(&func, copy(i, 0)), vec![copy(i, 1)]);
            assert_eq!(succs(&func, copy(i, 1)), vec![copy(i, 2), side]);
            for j in 3..body.len() - 1 {
                assert_eq!(succs(&func, copy(i, j)), vec![copy(i, j + 1)]);
            }
        }
        // The back edge goes to the next copy's header, the last one's to the guard.
        assert_eq!(succs(&func, copy(0, body.len() - 1)), vec![copy(1, 0)]);
        assert_eq!(succs(&func, copy(2, body.len() - 1)), vec![guard]);
        // The guard's tests enter the chain or leave to the original header.
        assert_eq!(succs(&func, guard), vec![second_test, header]);
        assert_eq!(succs(&func, second_test), vec![copy(0, 0), header]);
        // The general loop's back edge at the end of the path (the latch both arms share)
        // enters the chain; the loop's entry still goes to the original header.
        assert_eq!(succs(&func, latch), vec![guard]);
        assert!((0..header.index()).any(|b| succs(&func, BlockId::new(b)).contains(&header)));
    }
}
