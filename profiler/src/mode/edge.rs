//! `edge`: counters on the chords of a maximum spanning tree, the other edges' counts following
//! from flow conservation ([BL94]; [`EdgeProfilePlan`]), with a virtual stop edge out of every
//! block the program may stop in, so activations still running at the end are counted too (by
//! the failing check's error path where only a check can stop it).

use serde::{Deserialize, Serialize};

use super::{Counters, Layout, counter_table, unnumbered};
use crate::cfg::Cfg;
use crate::dag::Dag;
use crate::edge_profile::{EdgeProfilePlan, Stop};
use crate::estimate::static_edge_weights;
use crate::profile::{EdgeCount, EdgeRecord, FunctionProfile, ModeRecord};
use crate::spec::FunctionSpec;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    pub counters: EdgeProfilePlan,
}

/// Counters for `cfg`, placed where the static estimate expects the fewest executions;
/// `stops[v]` says whether, and how, the program may stop inside node `v`.
pub fn plan(cfg: &Cfg, stops: &[Stop]) -> Plan {
    let weights = static_edge_weights(cfg, &Dag::new(cfg));
    Plan {
        counters: EdgeProfilePlan::with_stops(cfg, &weights, stops),
    }
}

impl Plan {
    pub fn layout(&self) -> Layout {
        Layout::array(self.counters.num_counters() as u64)
    }
}

/// Edge counts rebuilt from the chords' counters. Paths are not numbered (`num_paths` is 0),
/// so a function of any size has one.
pub fn decode(
    plan: &Plan,
    function: &FunctionSpec,
    counts: &Counters,
) -> Result<FunctionProfile, String> {
    let cfg = function.cfg().map_err(|e| e.to_string())?;
    let table = counter_table(plan.counters.num_counters(), counts, "edge")?;
    let (edge_counts, unfinished) = plan.counters.reconstruct_with_stops(&table).map_err(|e| {
        format!(
            "{e}: an activation was still running where the run could not stop it at a \
             call or a check (a signal in a loop without calls); its edge counts are \
             left out"
        )
    })?;
    let edges = cfg
        .edges()
        .zip(edge_counts)
        .map(|((_, edge), count)| EdgeCount {
            from_block: edge.from.0,
            to_block: edge.to.0,
            from_line: *function.block_lines(edge.from).last().expect("one line"),
            to_line: function.block_lines(edge.to)[0],
            count,
        })
        .collect();
    let record = ModeRecord::Edge(EdgeRecord {
        num_blocks: function.exit,
        edges,
        unfinished,
    });
    Ok(unnumbered(function, record))
}
