//! `block`: a counter on every basic block of the function as lowered, the naive placement that
//! `edge`'s spanning-tree placement improves on ([BL94]). Counter `b` counts the entries into
//! block `b`, so decoding is reading the table.

use serde::{Deserialize, Serialize};

use super::{Counters, Layout, counter_table, unnumbered};
use crate::cfg::NodeId;
use crate::profile::{BlockCount, BlockRecord, FunctionProfile, ModeRecord};
use crate::spec::FunctionSpec;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    pub num_blocks: usize,
}

/// One counter per block of a function of `num_blocks` blocks (EXIT not included).
pub fn plan(num_blocks: usize) -> Plan {
    Plan { num_blocks }
}

impl Plan {
    pub fn layout(&self) -> Layout {
        Layout::array(self.num_blocks as u64)
    }
}

pub fn decode(
    plan: &Plan,
    function: &FunctionSpec,
    counts: &Counters,
) -> Result<FunctionProfile, String> {
    let table = counter_table(plan.num_blocks, counts, "block")?;
    let blocks = table
        .into_iter()
        .enumerate()
        .map(|(block, count)| BlockCount {
            block,
            lines: function.block_lines(NodeId(block)),
            count,
        })
        .collect();
    let record = ModeRecord::Block(BlockRecord {
        num_blocks: plan.num_blocks,
        blocks,
    });
    Ok(unnumbered(function, record))
}
