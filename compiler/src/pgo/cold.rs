//! Cold blocks out of line: a block the profile never saw executed, in a function that did
//! run, is marked cold, and code generation hands that to Cranelift (`set_cold_block`), which
//! sinks cold blocks to the end of the function: the hot blocks end up contiguous, in fewer
//! cache lines, and their branches to the cold code are the ones not taken (Pettis and Hansen's
//! "fluff" separation, the layout half of DESIGN.md "Profile-guided recompilation").

use crate::mir::{ENTRY, Function};

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
