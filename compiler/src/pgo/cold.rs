//! Block temperatures from the profile. Cold blocks out of line: a block the profile never saw executed, in a function that did
//! run, is marked cold, and code generation hands that to Cranelift (`set_cold_block`), which
//! sinks cold blocks to the end of the function: the hot blocks end up contiguous, in fewer
//! cache lines, and their branches to the cold code are the ones not taken (Pettis and Hansen's
//! "fluff" separation, the layout half of DESIGN.md "Profile-guided recompilation"). Hot blocks:
//! those executed more often than their function was entered, i.e. in a loop, where a call's
//! cost is paid per iteration; `opt/inline.rs` inlines calls there with a larger budget
//! (Pettis and Hansen's and GCC's profile-driven inlining: size limits by call-site frequency).

use crate::mir::{Callee, ENTRY, Function, StatementKind};

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

/// Marks the blocks of `func` that hold a call of a PL function and ran more often than `func`
/// was entered, and returns how many.
pub fn mark_hot_call_sites(func: &mut Function, freq: &Frequencies) -> usize {
    let entries = freq.block[ENTRY];
    let mut marked = 0;
    for (block, &count) in func.blocks.iter_mut().zip(&freq.block) {
        let calls = block.stmts.iter().any(|s| {
            matches!(
                s.kind,
                StatementKind::Call {
                    callee: Callee::Function(_),
                    ..
                }
            )
        });
        if calls && count > entries {
            block.hot = true;
            marked += 1;
        }
    }
    marked
}
