//! `bl`: Ball-Larus path profiling ([BL96]): the paths of the function's DAG numbered
//! ([`BallLarus`], [PFP] Fig. 11), the path register's code placed on the chords of a spanning
//! tree ([`PathPlan`], [PPP] §5), and each path counted where it ends, by id.

use serde::{Deserialize, Serialize};

use super::{Counters, Layout};
use crate::ball_larus::{BallLarus, NumberingError};
use crate::cfg::{Cfg, EdgeId};
use crate::collect::{executed_paths, function_profile};
use crate::estimate::static_edge_weights;
use crate::instrument::PathPlan;
use crate::profile::{FunctionProfile, ModeRecord, PathCount, Storage};
use crate::spec::FunctionSpec;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// The numbering, which decodes an id into its path.
    pub numbering: BallLarus,
    /// The path register's code on each edge.
    pub code: PathPlan,
    /// One counter per potential path.
    pub layout: Layout,
}

/// Numbers the paths of `cfg` with `cuts` ending and starting paths (`wpp`'s call cuts; none
/// for `bl`) and places the register code where the static estimate expects the fewest
/// executions, never counting a path before a node it may stop in (`may_stop`, by node).
/// Functions with more than `array_limit` paths count them in a hash table.
pub fn plan(
    cfg: &Cfg,
    cuts: &[EdgeId],
    may_stop: &[bool],
    array_limit: u64,
) -> Result<Plan, NumberingError> {
    let numbering = BallLarus::with_cuts(cfg, cuts, u64::MAX)?;
    Ok(plan_numbered(numbering, cfg, may_stop, array_limit))
}

/// [`plan`] for paths already numbered.
pub fn plan_numbered(numbering: BallLarus, cfg: &Cfg, may_stop: &[bool], array_limit: u64) -> Plan {
    let weights = static_edge_weights(cfg, numbering.dag());
    let code = PathPlan::with_stops(&numbering, &weights, may_stop);
    let num_paths = numbering.num_paths();
    Plan {
        numbering,
        code,
        layout: Layout {
            len: num_paths,
            hashed: num_paths > array_limit,
        },
    }
}

impl Plan {
    pub fn storage(&self) -> Storage {
        if self.layout.hashed {
            Storage::Hash
        } else {
            Storage::Array
        }
    }

    /// The executed paths of counters indexed by Ball-Larus id.
    pub fn paths(
        &self,
        function: &FunctionSpec,
        counts: &Counters,
    ) -> Result<Vec<PathCount>, String> {
        let cfg = function.cfg().map_err(|e| e.to_string())?;
        executed_paths(&self.numbering, &cfg, counts.iter().copied(), |v| {
            function.statement_lines(v)
        })
        .map_err(|e| e.to_string())
    }

    /// A record of `function` in `mode`'s shape with the executed paths of `counts`.
    pub fn record(
        &self,
        function: &FunctionSpec,
        counts: &Counters,
        record: ModeRecord,
    ) -> Result<FunctionProfile, String> {
        let mut profile = function_profile(
            &function.name,
            &function.cfg_hash,
            &self.numbering,
            self.storage(),
            record,
        );
        profile.paths = self.paths(function, counts)?;
        Ok(profile)
    }
}

pub fn decode(
    plan: &Plan,
    function: &FunctionSpec,
    counts: &Counters,
) -> Result<FunctionProfile, String> {
    plan.record(function, counts, ModeRecord::Bl)
}
