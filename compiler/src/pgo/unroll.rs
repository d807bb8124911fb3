//! Selective loop unrolling guided by a k-iteration path profile (001, §"Selective loop
//! unrolling", the masked-convolution case study): where the body of an innermost loop takes
//! the same path many iterations in a row, the loop is replaced by `U` copies of the blocks of
//! those paths, copy `i`'s back edge going to copy `i + 1`'s header (the last one's to the
//! first's), so that `U` consecutive iterations are one straight-line superblock that Cranelift
//! optimizes as a whole (values and array lengths computed once for several iterations, no jump
//! between iterations). Every edge out of the copied blocks is a side exit to the original block
//! it targeted, the general loop, whose back edges come back to the first copy's header.
//!
//! Why this keeps the semantics: every edge of a copy goes to a copy of, or the original of,
//! the block its original went to (`clone.rs`), so a side exit re-enters the general loop at
//! exactly the block and state the original loop would have been in.

use crate::mir::{BlockId, ENTRY, Function};

use super::clone::{append_copies, size};
use super::frequencies::Frequencies;

/// A path counts as running long when at least this share of its executions start a run of
/// the length considered.
pub const RUN_SHARE: f64 = 0.5;
/// The shortest run worth unrolling for (two copies at least pay off only from there).
pub const MIN_RUN: usize = 4;
/// At most this many copies of a loop body.
pub const MAX_COPIES: usize = 8;
/// At most this many statements in all the copies together: unrolling stops paying when the
/// loop no longer fits the instruction cache and the register allocator's reach.
pub const MAX_UNROLLED_STATEMENTS: usize = 600;
/// Loops iterating fewer times than this in the whole profile are left alone.
pub const MIN_ITERATIONS: u64 = 64;

/// A loop that was unrolled: its header and the blocks copied (lowered ids), the paths it was
/// unrolled along with their run lengths, how many copies, and the share of the loop's
/// iterations those paths are.
#[derive(Debug, PartialEq)]
pub struct Unrolled {
    pub header: BlockId,
    pub body: Vec<BlockId>,
    pub paths: Vec<(u64, usize)>,
    pub copies: usize,
    pub iterations_share: f64,
}

/// The innermost loop whose iteration paths (from its header back to it) run long, the one
/// iterating most if several do, unrolled along those paths; `None` if no loop qualifies.
/// `freq` is the profile of `func` as lowered; block ids below the lowered count are kept.
pub fn unroll_hot_loop(func: &mut Function, freq: &Frequencies) -> Option<Unrolled> {
    let headers: Vec<BlockId> = {
        let mut h: Vec<BlockId> = freq.paths.iter().filter_map(|p| p.back_to).collect();
        h.sort_unstable();
        h.dedup();
        h
    };
    let mut best: Option<(u64, Unrolled)> = None;
    for &header in &headers {
        // ENTRY is also where the prologue jumps; a loop there is left alone.
        if header == ENTRY {
            continue;
        }
        let iteration_paths = freq
            .paths
            .iter()
            .filter(|p| p.back_to == Some(header) && p.blocks[0] == header);
        let iterations: u64 = iteration_paths.clone().map(|p| p.count).sum();
        let long: Vec<_> = iteration_paths
            .map(|p| (p, freq.run_length(p.id, RUN_SHARE)))
            .filter(|&(_, run)| run >= MIN_RUN)
            .collect();
        if long.is_empty() || iterations < MIN_ITERATIONS {
            continue;
        }
        let mut body: Vec<BlockId> = long.iter().flat_map(|(p, _)| p.blocks.clone()).collect();
        body.sort_unstable();
        body.dedup();
        // Innermost only: no other loop's header among the copied blocks.
        if body.iter().any(|b| *b != header && headers.contains(b)) {
            continue;
        }
        let statements = size(func, body.iter().copied());
        let run = long.iter().map(|&(_, run)| run).max().unwrap_or(0);
        let copies = run
            .min(MAX_COPIES)
            .min(MAX_UNROLLED_STATEMENTS / statements.max(1));
        if copies < 2 {
            continue;
        }
        let long_count: u64 = long.iter().map(|(p, _)| p.count).sum();
        let unrolled = Unrolled {
            header,
            body,
            paths: long.iter().map(|(p, run)| (p.id, *run)).collect(),
            copies,
            iterations_share: long_count as f64 / iterations as f64,
        };
        if best.as_ref().is_none_or(|(n, _)| long_count > *n) {
            best = Some((long_count, unrolled));
        }
    }
    let (_, unrolled) = best?;
    unroll(func, unrolled.header, &unrolled.body, unrolled.copies);
    Some(unrolled)
}

/// Replaces the loop at `header` by `copies` copies of the blocks `body` (which holds the
/// header), chained by their back edges; see the module comment.
pub fn unroll(func: &mut Function, header: BlockId, body: &[BlockId], copies: usize) {
    let original_len = func.blocks.len();
    // copy_of[i][j]: the id of copy i of body[j].
    let copy_of: Vec<Vec<BlockId>> = (0..copies)
        .map(|i| {
            (0..body.len())
                .map(|j| original_len + i * body.len() + j)
                .collect()
        })
        .collect();
    let index_in_body = |b: BlockId| body.iter().position(|&x| x == b);
    let first_header = copy_of[0][index_in_body(header).expect("the header is in the body")];
    // The general loop (and the loop's entry) now jump to the first copy's header.
    for block in &mut func.blocks {
        block.term.kind.retarget(header, first_header);
    }
    for (i, ids) in copy_of.iter().enumerate() {
        let next = &copy_of[(i + 1) % copies];
        let copied = append_copies(func, body, |_, target| {
            // The retargeting above already pointed edges to the header at the first copy.
            let original = if target == first_header {
                header
            } else {
                target
            };
            if original == header {
                next[index_in_body(header).expect("the header is in the body")]
            } else if let Some(j) = index_in_body(original) {
                ids[j]
            } else {
                original
            }
        });
        debug_assert_eq!(&copied, ids);
    }
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
        crate::lower::lower_program(&program).functions[0].clone()
    }

    fn succs(func: &Function, b: BlockId) -> Vec<BlockId> {
        func.blocks[b].term.kind.successors()
    }

    #[test]
    fn copies_chain_their_back_edges_and_exit_to_the_originals() {
        let mut func = lowered_loop();
        let n = func.blocks.len();
        // The header: the block with a branch whose target jumps back to it eventually; find it
        // as the target of the `goto` that ends the increment block (the only back edge).
        let header = (0..n)
            .find(|&h| {
                matches!(func.blocks[h].term.kind, TerminatorKind::Branch { .. })
                    && (0..n).any(|b| b > h && succs(&func, b) == vec![h])
            })
            .expect("a loop header");
        let TerminatorKind::Branch {
            then_bb, else_bb, ..
        } = func.blocks[header].term.kind
        else {
            unreachable!()
        };
        let (body_entry, exit) = (then_bb, else_bb);
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
        unroll(&mut func, header, &body, 3);
        assert_eq!(func.blocks.len(), n + 3 * body.len());
        let copy = |i: usize, j: usize| n + i * body.len() + j;
        for i in 0..3 {
            // Within a copy, the path's edges stay in the copy; the loop exit and the `else`
            // side are side exits to the original blocks.
            assert_eq!(succs(&func, copy(i, 0)), vec![copy(i, 1), exit]);
            assert_eq!(succs(&func, copy(i, 1)), vec![copy(i, 2), side]);
            for j in 3..body.len() - 1 {
                assert_eq!(succs(&func, copy(i, j)), vec![copy(i, j + 1)]);
            }
            // The back edge goes to the next copy's header, the last one's to the first's.
            assert_eq!(
                succs(&func, copy(i, body.len() - 1)),
                vec![copy((i + 1) % 3, 0)]
            );
        }
        // The general loop (the `else` side's way back) and the loop's entry go to copy 0.
        assert_eq!(succs(&func, latch), vec![copy(0, 0)]);
        assert!((0..n).all(|b| !succs(&func, b).contains(&header)));
    }
}
