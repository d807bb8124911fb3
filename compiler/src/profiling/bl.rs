//! `--profile=bl`: Ball-Larus path profiling ([BL96]). The profiler numbers the paths and
//! places the path register's code on the chords of a spanning tree (`pcc_profiler::mode::bl`);
//! this module puts that code into MIR, each path counted where it ends. `kbl` and `wpp` put the
//! same code, with each count reported to the runtime instead ([`instrument_streamed`]).

use pcc_profiler::cfg::{EdgeId, NodeId};
use pcc_profiler::instrument::PathPlan;
use pcc_profiler::mode::bl::{self, Plan};

use super::FunctionCfg;
use super::insert::{Inserter, ProgramFacts, stop_nodes};
use crate::mir::{self, StatementKind, Type};

/// The plan of `func`: its paths numbered, with no cut edges and no limit.
pub(super) fn plan(
    func: &mir::Function,
    fcfg: &FunctionCfg,
    facts: &ProgramFacts,
) -> Result<Plan, String> {
    let stops = stop_nodes(func, &facts.quiet);
    bl::plan(&fcfg.cfg, &[], &stops, facts.array_limit)
        .map_err(|e| format!("cannot number the paths of `{}`: {e}", func.name))
}

/// Puts the path register's code of `code` on `func`'s edges, counting in table `table`.
pub(super) fn instrument(
    func: &mut mir::Function,
    fcfg: &FunctionCfg,
    code: &PathPlan,
    table: usize,
) {
    instrument_streamed(func, fcfg, code, table, |code| code);
}

/// [`instrument`], with `stream` rewriting the code of each edge.
pub(super) fn instrument_streamed(
    func: &mut mir::Function,
    fcfg: &FunctionCfg,
    code: &PathPlan,
    table: usize,
    stream: impl Fn(Vec<StatementKind>) -> Vec<StatementKind>,
) {
    let register = func.new_temp(Type::Int);
    let mut inserter = Inserter::new(func, fcfg, table);
    for e in 0..fcfg.edges.len() {
        let ops = inserter.path_code(register, code.edge_ops(EdgeId(e)));
        inserter.on_edge(e, stream(ops));
    }
    for b in 0..fcfg.exit().0 {
        let ops = inserter.path_code(register, code.dead_end_ops(NodeId(b)));
        inserter.at_dead_end(super::block(NodeId(b)), stream(ops));
    }
}
