//! `--profile=block`: a counter on every basic block of the MIR as lowered, the naive placement
//! that the spanning-tree placement of `edge` improves on ([BL94]: counters on the chords only,
//! the other counts following from flow conservation). Counter `b` of the function's table
//! counts the entries into block `b`; it is incremented first thing in the block, so the block
//! a run ends in (`exit()`, a runtime error) is counted too, and the counts need no flow
//! conservation to be read back.

use pcc_profiler::mode::block::{self, Plan};

use super::insert::count_const;
use crate::mir::{self, Statement};

pub(super) fn plan(func: &mir::Function) -> Plan {
    block::plan(func.blocks.len())
}

/// Puts block `b`'s counter of table `table` first in block `b`.
pub(super) fn instrument(func: &mut mir::Function, plan: &Plan, table: usize) {
    debug_assert_eq!(plan.num_blocks, func.blocks.len());
    for (b, block) in func.blocks.iter_mut().enumerate() {
        let span = block.stmts.first().map_or(block.term.span, |s| s.span);
        let kind = count_const(table, b as u64);
        block.stmts.insert(0, Statement { kind, span });
    }
}
