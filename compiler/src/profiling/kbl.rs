//! `--profile=kbl`: k-iteration path profiling ([KBLPP]). The paths are numbered as `bl` numbers
//! them; where `bl` counts a path, its id is reported to the runtime's k-slab forest of the
//! function instead, with the activations' starts and ends, so the forest follows the paths of
//! each activation (the forest's first level is the count of each path). A function without
//! back edges is only counted: its k-IPF is its counts (`pcc_profiler::mode::kbl::streams`).

use pcc_profiler::mode::bl::Plan;
use pcc_profiler::mode::kbl::streams;

use super::{FunctionCfg, bl, stream};
use crate::mir;

pub(super) fn instrument(func: &mut mir::Function, fcfg: &FunctionCfg, plan: &Plan, table: usize) {
    if !streams(plan) {
        return bl::instrument(func, fcfg, &plan.code, table);
    }
    bl::instrument_streamed(func, fcfg, &plan.code, table, stream::path_events);
    stream::activations(func, table);
}
