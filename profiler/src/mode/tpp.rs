//! `tpp`: targeted path profiling ([TPP]). The plan is made from an edge profile of an earlier
//! run ([`Tpp`]: cold edges, loop disconnection, obvious paths); only the hot, non-obvious paths
//! are counted, and decoding rebuilds the rest from the edge counts ([TPP] §4.2.2). A function
//! the edge profile does not apply to is profiled like `bl` (its plan is a fallback).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Counters, Layout, bl};
use crate::cfg::Cfg;
use crate::collect::executed_paths_of;
use crate::profile::{FunctionProfile, ModeRecord, Storage, TppRecord};
use crate::spec::FunctionSpec;
use crate::tpp::{Tpp, TppConfig, TppCounters, TppError};

// One plan per function, made once: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Plan {
    /// Hot paths numbered from `edge_counts`, the input edge profile's count of each CFG edge.
    Targeted {
        tpp: Tpp,
        edge_counts: Vec<u64>,
        /// The hot paths' counters then the cold counter (none when every path is obvious).
        layout: Layout,
    },
    /// No usable edge profile: Ball-Larus ids, as `bl`.
    Fallback(bl::Plan),
}

/// The plan of a function of `cfg` whose edges ran `edge_counts` times.
pub fn plan(
    cfg: &Cfg,
    edge_counts: Vec<u64>,
    config: TppConfig,
    array_limit: u64,
) -> Result<Plan, TppError> {
    let tpp = Tpp::new(cfg, &edge_counts, config)?;
    let num_paths = tpp.num_paths();
    let layout = match tpp.needs_instrumentation() {
        true => Layout {
            len: num_paths + 1,
            hashed: num_paths > array_limit,
        },
        false => Layout::array(0),
    };
    Ok(Plan::Targeted {
        tpp,
        edge_counts,
        layout,
    })
}

impl Plan {
    pub fn num_paths(&self) -> u64 {
        match self {
            Plan::Targeted { tpp, .. } => tpp.num_paths(),
            Plan::Fallback(plan) => plan.numbering.num_paths(),
        }
    }

    pub fn layout(&self) -> Layout {
        match self {
            Plan::Targeted { layout, .. } => *layout,
            Plan::Fallback(plan) => plan.layout,
        }
    }
}

/// The measured paths, and the obvious ones from their defining edges ([TPP] §4.2.2).
pub fn decode(
    plan: &Plan,
    function: &FunctionSpec,
    counts: &Counters,
) -> Result<FunctionProfile, String> {
    let (tpp, edge_counts, layout) = match plan {
        Plan::Targeted {
            tpp,
            edge_counts,
            layout,
        } => (tpp, edge_counts, layout),
        Plan::Fallback(plan) => {
            let record = ModeRecord::Tpp(TppRecord {
                cold_count: 0,
                obvious: Vec::new(),
                edge_counts: None,
            });
            return plan.record(function, counts, record);
        }
    };
    let cfg = function.cfg().map_err(|e| e.to_string())?;
    let n = tpp.num_paths();
    let mut counters = TppCounters::default();
    for &(index, count) in counts {
        counters.add(n, index, count)?;
    }
    let rebuilt = tpp.rebuild(&counters, edge_counts);
    let paths = |counts: BTreeMap<u64, u64>| {
        let lines = |v| function.statement_lines(v);
        executed_paths_of(|id| tpp.path_record(id), n, &cfg, counts, lines)
            .map_err(|e| e.to_string())
    };
    let storage = match layout.len {
        0 => Storage::None,
        _ if layout.hashed => Storage::Hash,
        _ => Storage::Array,
    };
    let record = ModeRecord::Tpp(TppRecord {
        cold_count: rebuilt.cold,
        obvious: paths(rebuilt.obvious)?,
        edge_counts: Some(edge_counts.clone()),
    });
    let mut profile = FunctionProfile::new(&function.name, &function.cfg_hash, n, storage, record);
    profile.paths = paths(rebuilt.paths)?;
    Ok(profile)
}
