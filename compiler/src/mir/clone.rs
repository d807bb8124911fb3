//! Block cloning shared by the passes that duplicate code: along hot paths (`pgo/unroll.rs`,
//! `pgo/superblock.rs`) and loops run without bounds checks (`opt/version.rs`). Copies go at the
//! end of the function, so the lowered ids the profile speaks of keep naming the original blocks.
//!
//! Why cloning keeps the semantics: a copy holds its original's statements unchanged, and if
//! every edge of a copy goes to a copy of, or the original of, the block its original went to,
//! then every execution of the new function, read through "copy ↦ original", is an execution
//! of the old one with the same locals at every step.

use crate::mir::{BlockId, Function, IdVec, LocalId};

/// Appends a copy of each of `blocks` to `func`, in order, and returns their ids; the edge of
/// the copy of `blocks[j]` to `target` goes to `redirect(j, target)` instead.
pub fn append_copies(
    func: &mut Function,
    blocks: &[BlockId],
    redirect: impl Fn(usize, BlockId) -> BlockId,
) -> Vec<BlockId> {
    blocks
        .iter()
        .enumerate()
        .map(|(j, &b)| {
            let mut copy = func.blocks[b].clone();
            for target in copy.term.kind.targets_mut() {
                *target = redirect(j, *target);
            }
            func.blocks.push(copy)
        })
        .collect()
}

/// The size of `blocks` as the code-growth budgets count it: the program's statements plus
/// terminators. Instrumentation (profiling statements and the arithmetic of the `profiling`
/// locals, [`Function::profiling_locals`]) is left out, so that instrumenting a function
/// changes no decision that a size limits.
pub fn size(
    func: &Function,
    blocks: impl IntoIterator<Item = BlockId>,
    profiling: &IdVec<LocalId, bool>,
) -> usize {
    (blocks.into_iter())
        .map(|b| func.blocks[b].program_statements(profiling) + 1)
        .sum()
}
