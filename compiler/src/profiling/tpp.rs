//! `--profile=tpp`: targeted path profiling ([TPP], Joshi, Bond, Zilles). The profiler's
//! [`Tpp`] plans each function from an edge profile of an earlier run (cold edges, Fig. 6 cold
//! back edges, loop disconnection, obvious paths of Fig. 8); this pass turns its
//! [`TppOp`]s into MIR. The path register is a MIR local; a poisoned register holds
//! [`POISON`], and a path ends in a [`StatementKind::CountOrCold`] whose clamped index sends
//! poisoned paths to the cold counter at the end of the function's table ([TPP] Appendix A).
//!
//! A function the edge profile cannot be applied to (absent from it: its run was cut short or
//! the code is new; stale: another `cfg_hash`; or more than 2^63 hot paths) gets a warning and
//! is profiled like `bl`: its plan is a fallback, which tells the runtime so.

use pcc_profiler::cfg::{EdgeId, NodeId};
use pcc_profiler::mode::tpp::{self, Plan};
use pcc_profiler::profile::{ModeRecord, Profile};
use pcc_profiler::tpp::{POISON, TppConfig, TppOp};

use super::insert::{Inserter, ProgramFacts, count_const};
use super::{FunctionCfg, Instrumentation, bl};
use crate::mir::{self, BinOp, Const, Operand, Rvalue, StatementKind, Type};
use crate::notes::Notes;

/// The edge profile `--profile=tpp` plans from, and the thresholds.
pub struct EdgeProfileSource {
    pub profile: Profile,
    /// Where the profile came from, for warnings.
    pub name: String,
    pub config: TppConfig,
}

/// The plan of `func` (named and hashed as `key`): hot paths numbered from the edge profile
/// `how` gives, or, after a warning in `notes` when that profile does not apply to it, a `bl`
/// plan.
pub(super) fn plan(
    how: &Instrumentation,
    key: (&str, &str),
    func: &mir::Function,
    fcfg: &FunctionCfg,
    facts: &ProgramFacts,
    notes: &mut Notes,
) -> Result<Plan, String> {
    let source = how
        .edge_profile
        .as_ref()
        .ok_or("--profile=tpp needs an edge profile")?;
    if let Some(counts) = edge_counts(key, fcfg, source, notes) {
        match tpp::plan(&fcfg.cfg, counts, source.config, facts.array_limit) {
            Ok(plan) => return Ok(plan),
            Err(error) => notes.warn(format!(
                "tpp: cannot plan function `{}` ({error}); it is profiled like bl",
                key.0
            )),
        }
    }
    Ok(Plan::Fallback(bl::plan(func, fcfg, facts)?))
}

/// Puts the plan's code into `func`: TPP's register operations, each hot path counted where it
/// ends and a poisoned register sent to the cold counter; nothing when every path is obvious.
pub(super) fn instrument(func: &mut mir::Function, fcfg: &FunctionCfg, plan: &Plan, table: usize) {
    let tpp = match plan {
        Plan::Targeted { tpp, .. } => tpp,
        Plan::Fallback(plan) => return bl::instrument(func, fcfg, &plan.code, table),
    };
    if !tpp.needs_instrumentation() {
        return;
    }
    let num_paths = tpp.num_paths();
    let register = func.new_temp(Type::Int);
    let span = func.blocks[mir::ENTRY].term.span;
    let entry = tpp_code(table, register, num_paths, tpp.entry_ops(), &mut |ty| {
        func.new_temp(ty)
    });
    let stmts = entry.into_iter().map(|kind| mir::Statement { kind, span });
    func.blocks[mir::ENTRY].stmts.splice(0..0, stmts);
    let mut inserter = Inserter::new(func, fcfg, table);
    for e in 0..fcfg.edges.len() {
        let ops = tpp.edge_ops(EdgeId(e));
        let code = tpp_code(table, register, num_paths, ops, &mut |ty| {
            inserter.func.new_temp(ty)
        });
        inserter.on_edge(e, code);
    }
    for b in 0..fcfg.exit().0 {
        let ops = tpp.dead_end_ops(NodeId(b));
        let code = tpp_code(table, register, num_paths, ops, &mut |ty| {
            inserter.func.new_temp(ty)
        });
        inserter.at_dead_end(super::block(NodeId(b)), code);
    }
}

/// The edge profile's counts of the function's CFG edges, or `None` after a warning in `notes`
/// when the profile has none that fit the current code.
pub(crate) fn edge_counts(
    (name, cfg_hash): (&str, &str),
    fcfg: &FunctionCfg,
    source: &EdgeProfileSource,
    notes: &mut Notes,
) -> Option<Vec<u64>> {
    let file = &source.name;
    let Some(record) = source.profile.function(name) else {
        notes.warn(format!(
            "tpp: the edge profile `{file}` has no counts for function `{name}`; `{name}` is \
             profiled like bl"
        ));
        return None;
    };
    let (counts, unfinished) = match &record.record {
        ModeRecord::Edge(edges) if edges.edges.len() == fcfg.cfg.num_edges() => {
            let counts: Vec<u64> = edges.edges.iter().map(|e| e.count).collect();
            (Some(counts), edges.unfinished)
        }
        _ => (None, 0),
    };
    match counts {
        // Obvious paths get their counts from the edges ([TPP] §4.2.2): the edges an unfinished
        // activation took would count a path that never ended.
        Some(_) if unfinished > 0 => {
            notes.warn(format!(
                "tpp: the edge profile `{file}` has {} activation(s) of `{name}` still running \
                 when its run ended (exit() or a runtime error inside it), whose paths did not \
                 end; `{name}` is profiled like bl",
                unfinished
            ));
            None
        }
        Some(counts) if record.cfg_hash == cfg_hash => Some(counts),
        _ => {
            notes.warn(format!(
                "tpp: the edge profile `{file}` is stale for function `{name}` (its CFG hash \
                 differs from the current code's); `{name}` is profiled like bl"
            ));
            None
        }
    }
}

/// MIR statements for TPP operations on register `r` in counter table `table` of
/// `num_paths + 1` counters; `new_temp` makes a temporary for a path id.
fn tpp_code(
    table: usize,
    r: mir::LocalId,
    num_paths: u64,
    ops: &[TppOp],
    new_temp: &mut dyn FnMut(Type) -> mir::LocalId,
) -> Vec<StatementKind> {
    let reg = Operand::Local(r);
    let int = |c: u64| Operand::Const(Const::Int(c as i64));
    let mut code = Vec::new();
    for &op in ops {
        match op {
            TppOp::Set(c) => code.push(StatementKind::Assign(r, Rvalue::Use(int(c)))),
            TppOp::Add(c) => code.push(StatementKind::Assign(
                r,
                Rvalue::Binary(BinOp::Add, reg.clone(), int(c)),
            )),
            TppOp::Poison => code.push(StatementKind::Assign(r, Rvalue::Use(int(POISON)))),
            TppOp::Count(0) => code.push(StatementKind::CountOrCold {
                table,
                index: reg.clone(),
            }),
            TppOp::Count(c) => {
                let id = new_temp(Type::Int);
                code.push(StatementKind::Assign(
                    id,
                    Rvalue::Binary(BinOp::Add, reg.clone(), int(c)),
                ));
                code.push(StatementKind::CountOrCold {
                    table,
                    index: Operand::Local(id),
                });
            }
            TppOp::CountCold => code.push(count_const(table, num_paths)),
        }
    }
    code
}
