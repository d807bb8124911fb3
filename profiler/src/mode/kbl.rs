//! `kbl`: k-iteration path profiling ([KBLPP]). The paths are numbered and counted as in `bl`
//! (so the forest's first level equals the `bl` counts); each path id is also streamed to the
//! runtime's k-slab forest, whose k-IPF joins the record when the program ends ([`with_forest`]).
//!
//! A function without back edges runs at most one path per activation, so its k-IPF is known
//! from the counts alone: each activation is the sequence `*` then its path, and the k-SF only
//! ever gets roots, counting the paths exactly as `bl` does. Such a function streams nothing
//! ([`streams`]): no path ids, no enter and leave markers, no forest walk, and its k-IPF is
//! made from its counters when they are decoded.

use super::Counters;
use super::bl::Plan;
use crate::cfg::EdgeId;
use crate::dag::EdgeRole;
use crate::profile::{FunctionProfile, KblRecord, KipfNode, ModeRecord};
use crate::spec::FunctionSpec;

/// Whether the function streams its path ids to its forest: only if an activation can run more
/// than one path, through a back edge (the numbering's paths close there).
pub fn streams(plan: &Plan) -> bool {
    let dag = plan.numbering.dag();
    (0..dag.num_cfg_edges()).any(|e| matches!(dag.role(EdgeId(e)), EdgeRole::Closing { .. }))
}

/// The function's paths, with an empty forest until [`with_forest`], or, for a function that
/// does not stream, the k-IPF of its counts: a root per executed path.
pub fn decode(
    plan: &Plan,
    function: &FunctionSpec,
    counts: &Counters,
) -> Result<FunctionProfile, String> {
    let mut kipf = Vec::new();
    if !streams(plan) {
        kipf = counts
            .iter()
            .filter(|&&(_, count)| count > 0)
            .map(|&(id, count)| KipfNode {
                id,
                count,
                children: Vec::new(),
            })
            .collect();
        kipf.sort_unstable_by_key(|node| node.id);
    }
    plan.record(function, counts, ModeRecord::Kbl(KblRecord { kipf }))
}

/// Gives a `kbl` record the k-IPF of its function's forest.
pub fn with_forest(record: &mut FunctionProfile, kipf: Vec<KipfNode>) {
    record.record = ModeRecord::Kbl(KblRecord { kipf });
}
