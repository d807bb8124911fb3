//! `kbl`: k-iteration path profiling ([KBLPP]). The paths are numbered and counted as in `bl`
//! (so the forest's first level equals the `bl` counts); each path id is also streamed to the
//! runtime's k-slab forest, whose k-IPF joins the record when the program ends ([`with_forest`]).

use super::Counters;
use super::bl::Plan;
use crate::profile::{FunctionProfile, KblRecord, KipfNode, ModeRecord};
use crate::spec::FunctionSpec;

/// The function's paths, with an empty forest until [`with_forest`].
pub fn decode(
    plan: &Plan,
    function: &FunctionSpec,
    counts: &Counters,
) -> Result<FunctionProfile, String> {
    plan.record(
        function,
        counts,
        ModeRecord::Kbl(KblRecord { kipf: Vec::new() }),
    )
}

/// Gives a `kbl` record the k-IPF of its function's forest.
pub fn with_forest(record: &mut FunctionProfile, kipf: Vec<KipfNode>) {
    record.record = ModeRecord::Kbl(KblRecord { kipf });
}
