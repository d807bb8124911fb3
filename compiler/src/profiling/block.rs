//! `--profile=block`: a counter on every basic block of the MIR as lowered, the naive placement
//! that the spanning-tree placement of `edge` improves on ([BL94]: counters on the chords only,
//! the other counts following from flow conservation). Counter `b` of the function's table
//! counts the entries into block `b`; it is incremented first thing in the block, so the block
//! a run ends in (`exit()`, a runtime error) is counted too, and the counts need no flow
//! conservation to be read back.

use super::count_const;
use crate::mir::{self, CounterTable, Statement};

/// Instruments every block of `func` (as lowered) with its counter in table `table`.
pub(super) fn instrument_function(func: &mut mir::Function, table: usize) -> CounterTable {
    for (b, block) in func.blocks.iter_mut().enumerate() {
        let span = block.stmts.first().map_or(block.term.span, |s| s.span);
        let kind = count_const(table, b as u64);
        block.stmts.insert(0, Statement { kind, span });
    }
    CounterTable {
        len: func.blocks.len() as u64,
        hashed: false,
        slots: None,
    }
}
