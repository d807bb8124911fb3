//! Profiling instrumentation: MIR passes that make a program profile itself in one of the
//! modes, and the [`ProfileSpec`] the program carries so that it can write its profile.
//!
//! Each mode has one module here and one in the profiler crate (`pcc_profiler::mode`). For each
//! function this pass gathers the mode's inputs from the MIR (where the program may stop, the
//! interesting paths, the edge profile...), asks the profiler for the function's plan, and puts
//! the plan's code into MIR (`<mode>::instrument`, through [`insert`]). The plan goes into the
//! spec unchanged, so the program decodes its counters with exactly what placed them.

mod bl;
mod block;
mod cfg;
mod edge;
mod insert;
mod kbl;
mod ppp;
mod stream;
mod tpp;
mod trace;
mod wpp;

pub use cfg::{FunctionCfg, block, cfg_hash, function_cfg, node, node_line, node_lines};
pub(crate) use insert::{Quiet, is_exit, quiet_functions, statement_stop};
pub use ppp::InterestingSource;
pub(crate) use ppp::interesting_ids;
pub use tpp::EdgeProfileSource;
pub(crate) use tpp::edge_counts;
pub use trace::trace_blocks;
pub use wpp::call_split;

use pcc_lang::LineIndex;
use pcc_profiler::mode::Plan;
use pcc_profiler::profile::Mode;
use pcc_profiler::spec::{FunctionSpec, ProfileSpec};

use crate::mir::{self, CounterTable};
use crate::notes::Notes;

/// The most counters an array table may have (128 MiB): past that a function counts its paths in
/// the hash table whatever `--hash-threshold` says, so no threshold can exhaust memory.
pub const MAX_ARRAY_COUNTERS: u64 = 1 << 24;

/// What to instrument and where the profile goes.
pub struct Instrumentation<'a> {
    pub mode: Mode,
    pub program_path: &'a str,
    /// `pcc_profiler::profile::content_hash` of the source file's bytes.
    pub source_hash: String,
    pub output: String,
    pub hash_threshold: u64,
    /// `ppp`: where the interesting paths come from (`None`: no path is interesting).
    pub interesting: Option<InterestingSource>,
    /// `kbl`: the longest sequences of path ids counted ([KBLPP]'s `k`).
    pub k: usize,
    /// `tpp`: the edge profile and thresholds the plan is made from.
    pub edge_profile: Option<EdgeProfileSource>,
}

/// Instruments every function of `program` but the global initializers (counter table `i` for
/// the spec's function `i`) and returns the spec the runtime needs to write the profile. `source`
/// gives the functions' source lines; warnings go to `notes`.
pub fn instrument(
    program: &mut mir::Program,
    how: &Instrumentation,
    source: &str,
    notes: &mut Notes,
) -> Result<ProfileSpec, String> {
    let lines = LineIndex::new(source);
    let array_limit = how.hash_threshold.min(MAX_ARRAY_COUNTERS);
    let mut functions = Vec::new();
    let mut window_budget = pcc_profiler::mode::kbl::MAX_PROGRAM_WINDOWS;
    if how.mode == Mode::Wpp {
        program.stream = mir::PathStream::Wpp;
    }
    let init = program.init;
    let facts = insert::ProgramFacts {
        quiet: insert::quiet_functions(program),
        array_limit,
    };
    // The code as lowered identifies the function, whatever the instrumentation changes.
    let hashes: Vec<String> = program
        .functions
        .iter()
        .map(|func| cfg_hash(program, func))
        .collect();
    // The global initializers run once, before `main`: they are not profiled.
    for (func, cfg_hash) in program
        .functions
        .iter_mut()
        .zip(hashes)
        .enumerate()
        .filter(|&(id, _)| id != init.index())
        .map(|(_, pair)| pair)
    {
        let table = functions.len();
        let continuations = match how.mode {
            Mode::Wpp => wpp::split_before_calls(func),
            _ => Vec::new(),
        };
        let fcfg = function_cfg(func);
        let key = (func.name.as_str(), cfg_hash.as_str());
        let plan = match how.mode {
            Mode::Block => Plan::Block(block::plan(func)),
            Mode::Edge => Plan::Edge(edge::plan(func, &fcfg, &facts.quiet)),
            Mode::Bl => Plan::Bl(bl::plan(func, &fcfg, &facts)?),
            Mode::Ppp => Plan::Ppp(ppp::plan(how, key, func, &fcfg, &facts, notes)?),
            Mode::Tpp => Plan::Tpp(tpp::plan(how, key, func, &fcfg, &facts, notes)?),
            Mode::Kbl => Plan::Kbl(pcc_profiler::mode::kbl::plan(
                bl::plan(func, &fcfg, &facts)?,
                how.k,
                &mut window_budget,
            )),
            Mode::Wpp => Plan::Wpp(wpp::plan(func, &fcfg, &continuations, &facts.quiet)?),
        };
        let spec = FunctionSpec {
            name: func.name.clone(),
            cfg_hash,
            num_nodes: fcfg.cfg.num_nodes(),
            entry: fcfg.cfg.entry().0,
            exit: fcfg.exit().0,
            edges: fcfg
                .edges
                .iter()
                .map(|&(b, s)| (node(b).0, s.map_or(fcfg.exit(), node).0))
                .collect(),
            node_lines: node_lines(func, source, &lines),
            node_line: node_line(func, &lines),
            plan,
        };
        match &spec.plan {
            Plan::Block(plan) => block::instrument(func, plan, table),
            Plan::Edge(plan) => edge::instrument(func, &fcfg, plan, &facts.quiet, table),
            Plan::Bl(plan) => bl::instrument(func, &fcfg, &plan.code, table),
            Plan::Ppp(plan) => ppp::instrument(func, &fcfg, plan, table),
            Plan::Tpp(plan) => tpp::instrument(func, &fcfg, plan, table),
            Plan::Kbl(plan) => kbl::instrument(func, &fcfg, plan, table),
            Plan::Wpp(plan) => wpp::instrument(func, &fcfg, plan, table),
        }
        program.counter_tables.push(counter_table(&spec.plan));
        functions.push(spec);
    }
    Ok(ProfileSpec {
        mode: how.mode,
        program: how.program_path.to_string(),
        source_hash: how.source_hash.clone(),
        output: how.output.clone(),
        array_limit,
        functions,
        k: how.k,
        tpp: how.edge_profile.as_ref().map(|source| source.config),
        merged: Vec::new(),
    })
}

/// The counter table the plan's code counts in.
fn counter_table(plan: &Plan) -> CounterTable {
    let layout = plan.layout();
    CounterTable {
        len: layout.len,
        hashed: layout.hashed,
        keyed: matches!(plan, Plan::Kbl(plan) if plan.sequences.keyed()),
        slots: match plan {
            Plan::Ppp(plan) => match plan.code {
                pcc_profiler::mode::ppp::Code::Ppp(_) => Some(plan.slots.clone()),
                pcc_profiler::mode::ppp::Code::BallLarus(_) => None,
            },
            _ => None,
        },
    }
}
