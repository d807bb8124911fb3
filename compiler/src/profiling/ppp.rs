//! `--profile=ppp`: preferential path profiling ([PPP]). The interesting paths come from a
//! profile of an earlier run or from a static estimate; the profiler numbers them compactly and
//! places the code of two registers, one for the PPP id and one for the Ball-Larus id
//! (`pcc_profiler::mode::ppp`); a path ends in one `CountPpp`, which counts an interesting path
//! by PPP id and any other one as residual by its Ball-Larus id. A function whose Ball-Larus
//! paths all fit the array is instrumented as `bl` instruments it (the plan's
//! `Code::BallLarus`).

use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::cfg::{EdgeId, NodeId};
use pcc_profiler::estimate::estimated_hot_paths;
use pcc_profiler::mode::ppp::{self, Code, Plan};
use pcc_profiler::ppp::{PppOp, PppPlan};
use pcc_profiler::profile::Profile;

use super::insert::{Inserter, ProgramFacts, stop_nodes};
use super::{FunctionCfg, Instrumentation};
use crate::mir::{self, StatementKind, Type};
use crate::notes::Notes;

/// Where `--profile=ppp` takes its interesting paths from.
pub enum InterestingSource {
    /// The executed paths of a path profile (`bl`; of a `ppp` one, its interesting and residual
    /// paths), per function the hottest ones that cover `share` (0–1] of its path executions.
    /// `name` says where the profile came from, for warnings.
    Profile {
        profile: Box<Profile>,
        name: String,
        share: f64,
    },
    /// A static Wu-Larus-style estimate: the estimated hottest paths that cover `coverage` of
    /// the estimated path executions.
    Estimate { coverage: f64 },
}

/// At most this many interesting paths per function come from the static estimate.
const MAX_ESTIMATED_PATHS: usize = 256;

/// The plan of `func` (named and hashed as `key`), with the interesting paths `how` says.
pub(super) fn plan(
    how: &Instrumentation,
    key: (&str, &str),
    func: &mir::Function,
    fcfg: &FunctionCfg,
    facts: &ProgramFacts,
    notes: &mut Notes,
) -> Result<Plan, String> {
    let error =
        |e: &dyn std::fmt::Display| format!("cannot number the paths of `{}`: {e}", func.name);
    let numbering = BallLarus::new(&fcfg.cfg).map_err(|e| error(&e))?;
    let ids = interesting_ids(how.interesting.as_ref(), key, &numbering, fcfg, notes);
    let stops = stop_nodes(func, &facts.quiet);
    ppp::plan(&numbering, &fcfg.cfg, ids, &stops, facts.array_limit).map_err(|e| error(&e))
}

pub(super) fn instrument(func: &mut mir::Function, fcfg: &FunctionCfg, plan: &Plan, table: usize) {
    match &plan.code {
        Code::BallLarus(code) => super::bl::instrument(func, fcfg, code, table),
        Code::Ppp(code) => instrument_two_registers(func, fcfg, code, table),
    }
}

fn instrument_two_registers(
    func: &mut mir::Function,
    fcfg: &FunctionCfg,
    code: &PppPlan,
    table: usize,
) {
    let registers = PppRegisters {
        bl: func.new_temp(Type::Int),
        ppp: func.new_temp(Type::Int),
    };
    let mut inserter = Inserter::new(func, fcfg, table);
    for e in 0..fcfg.edges.len() {
        let code = ppp_code(&mut inserter, registers, code.edge_ops(EdgeId(e)));
        inserter.on_edge(e, code);
    }
    for b in 0..fcfg.exit().0 {
        let code = ppp_code(&mut inserter, registers, code.dead_end_ops(NodeId(b)));
        inserter.at_dead_end(super::block(NodeId(b)), code);
    }
}

/// The Ball-Larus ids of the interesting paths of one function (`name`, whose code has
/// `cfg_hash`, numbered by `numbering`), with a warning in `notes` when the profile is stale
/// for it.
pub(crate) fn interesting_ids(
    source: Option<&InterestingSource>,
    (name, cfg_hash): (&str, &str),
    numbering: &BallLarus,
    fcfg: &FunctionCfg,
    notes: &mut Notes,
) -> Vec<u64> {
    match source {
        None => Vec::new(),
        Some(InterestingSource::Estimate { coverage }) => {
            estimated_hot_paths(numbering, &fcfg.cfg, *coverage, MAX_ESTIMATED_PATHS)
        }
        Some(InterestingSource::Profile {
            profile,
            name: file,
            share,
        }) => {
            let Some(function) = profile.function(name) else {
                return Vec::new();
            };
            if function.cfg_hash != cfg_hash {
                notes.warn(format!(
                    "the interesting-path profile `{file}` is stale for function `{name}` (its \
                     CFG hash differs from the current code's); no path of `{name}` is \
                     interesting"
                ));
                return Vec::new();
            }
            let mut paths: Vec<(u64, u64)> = function
                .executed_paths()
                .filter(|p| p.count > 0 && p.id < numbering.num_paths())
                .map(|p| (p.id, p.count))
                .collect();
            hottest_covering(&mut paths, *share)
        }
    }
}

/// The ids of the hottest `(id, count)` paths that together cover `share` of all the counts
/// (ties: smaller ids first); all of them when `share` is 1.
fn hottest_covering(paths: &mut [(u64, u64)], share: f64) -> Vec<u64> {
    paths.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let total: u128 = paths.iter().map(|&(_, c)| u128::from(c)).sum();
    let needed = if share >= 1.0 {
        total
    } else {
        ((share.max(0.0) * total as f64).ceil() as u128).min(total)
    };
    let mut covered = 0u128;
    let mut ids = Vec::new();
    for &(id, count) in paths.iter() {
        if covered >= needed {
            break;
        }
        covered += u128::from(count);
        ids.push(id);
    }
    ids
}

/// The two path registers of `ppp` ([PPP] §5 "Register usage").
#[derive(Clone, Copy)]
struct PppRegisters {
    bl: mir::LocalId,
    ppp: mir::LocalId,
}

/// MIR statements for the two-register code of `ppp`: each register's own operations, and
/// one `CountPpp` where a path ends.
fn ppp_code(inserter: &mut Inserter, r: PppRegisters, ops: &[PppOp]) -> Vec<StatementKind> {
    let mut code = Vec::new();
    for &op in ops {
        match op {
            PppOp::Bl(op) => code.extend(inserter.path_code(r.bl, &[op])),
            PppOp::Ppp(op) => code.extend(inserter.path_code(r.ppp, &[op])),
            PppOp::End { bl, ppp } => {
                let bl = inserter.path_id(r.bl, bl, &mut code);
                let ppp = inserter.path_id(r.ppp, ppp, &mut code);
                code.push(StatementKind::CountPpp {
                    table: inserter.table,
                    ppp,
                    bl,
                });
            }
        }
    }
    code
}
