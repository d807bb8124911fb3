//! Block temperatures from the profile. Cold blocks out of line: a block the profile never saw
//! executed, in a function that did run, is marked cold, and code generation hands that to Cranelift (`set_cold_block`), which
//! sinks cold blocks to the end of the function: the hot blocks end up contiguous, in fewer
//! cache lines, and their branches to the cold code are the ones not taken (Pettis and Hansen's
//! "fluff" separation, the layout half of `--use-profile` in docs/CLI.md). Hot blocks:
//! those executed more often than their function was entered, i.e. in a loop, where a call's
//! cost is paid per iteration, calling a function that does little per call; `opt/inline.rs`
//! inlines calls there with a larger budget (Pettis and Hansen's and GCC's profile-driven
//! inlining: size limits by call-site frequency).

use crate::mir::{ENTRY, FnId, Function};

use super::frequencies::Frequencies;

/// Marks the never-executed blocks of `func` cold and returns how many; none if the function
/// never ran (then the profile says nothing about which of its blocks are hot).
pub fn mark_cold_blocks(func: &mut Function, freq: &Frequencies) -> usize {
    if freq.block[ENTRY] == 0 {
        return 0;
    }
    let mut marked = 0;
    for (block, &count) in func.blocks.iter_mut().zip(&freq.block) {
        if count == 0 {
            block.cold = true;
            marked += 1;
        }
    }
    marked
}

/// Marks, in each block of `func` that ran more often than `func` was entered, the calls of PL
/// functions `short(callee)` says do little work per call as hot call sites, and returns how many
/// blocks have one. A callee that loops pays for its call many times over: inlining it saves
/// little and makes the caller's loop harder to allocate registers for (`clbg_nbody`'s
/// `advance` in `main`'s loop; AWFY Bounce's `benchmark`, called next to a short check).
pub fn mark_hot_call_sites(
    func: &mut Function,
    freq: &Frequencies,
    short: &dyn Fn(FnId) -> bool,
) -> usize {
    let entries = freq.block[ENTRY];
    let mut marked = 0;
    for (block, &count) in func.blocks.iter_mut().zip(&freq.block) {
        if count <= entries {
            continue;
        }
        let mut hot: Vec<FnId> = (block.stmts.iter())
            .filter_map(|s| s.kind.called_function())
            .filter(|&f| short(f))
            .collect();
        hot.sort_unstable();
        hot.dedup();
        if !hot.is_empty() {
            block.hot_callees = hot;
            marked += 1;
        }
    }
    marked
}
