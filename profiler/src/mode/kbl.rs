//! `kbl`: k-iteration path profiling ([KBLPP]). The paths are numbered as in `bl`; each path id
//! is streamed to the runtime's k-slab forest, whose k-IPF makes the record when the program
//! ends ([`with_forest`]). The k-IPF's first level counts each id streamed, which are the `bl`
//! counts: a function that streams counts nothing else.
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

/// For a function that does not stream, its paths and the k-IPF of its counts: a root per
/// executed path. A function that streams has no counts and gets its record from
/// [`with_forest`].
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

/// The `kbl` record of a function that streams, from the k-IPF of its forest: its paths are
/// the k-IPF's roots.
pub fn with_forest(
    plan: &Plan,
    function: &FunctionSpec,
    kipf: Vec<KipfNode>,
) -> Result<FunctionProfile, String> {
    let counts: Counters = kipf.iter().map(|root| (root.id, root.count)).collect();
    plan.record(function, &counts, ModeRecord::Kbl(KblRecord { kipf }))
}
