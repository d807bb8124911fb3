//! `--profile=edge`: edge counters on the chords of a spanning tree ([BL94]), placed by the
//! profiler (`pcc_profiler::mode::edge`), with a virtual stop edge out of every block the
//! program may stop in, so that the activations still running when it ends are counted. Where
//! only a failing check can stop it, the check's error path counts the stop ([`CountStop`]).
//!
//! [`CountStop`]: StatementKind::CountStop

use pcc_profiler::cfg::{EdgeId, NodeId};
use pcc_profiler::mode::edge::{self, Plan};

use super::FunctionCfg;
use super::insert::{Inserter, Quiet, count_const, statement_stop, stops};
use crate::mir::{self, Statement, StatementKind};
use pcc_profiler::edge_profile::Stop;

pub(super) fn plan(func: &mir::Function, fcfg: &FunctionCfg, quiet: &Quiet) -> Plan {
    edge::plan(&fcfg.cfg, &stops(func, quiet))
}

pub(super) fn instrument(
    func: &mut mir::Function,
    fcfg: &FunctionCfg,
    plan: &Plan,
    quiet: &Quiet,
    table: usize,
) {
    let counters = &plan.counters;
    if let Some(counter) = counters.entry_counter() {
        let span = func.blocks[mir::ENTRY].term.span;
        let kind = count_const(table, counter as u64);
        func.blocks[mir::ENTRY]
            .stmts
            .insert(0, Statement { kind, span });
    }
    for b in 0..fcfg.exit().0 {
        if let Some(counter) = counters.check_stop_counter(NodeId(b)) {
            count_stops_at_checks(func, super::block(NodeId(b)), quiet, table, counter as u64);
        }
    }
    let mut inserter = Inserter::new(func, fcfg, table);
    for e in 0..fcfg.edges.len() {
        if let Some(counter) = counters.edge_counter(EdgeId(e)) {
            inserter.on_edge(e, vec![count_const(table, counter as u64)]);
        }
    }
    for b in 0..fcfg.exit().0 {
        if let Some(counter) = counters.dead_end_counter(NodeId(b)) {
            inserter.at_dead_end(
                super::block(NodeId(b)),
                vec![count_const(table, counter as u64)],
            );
        }
    }
}

/// Puts a [`StatementKind::CountStop`] of counter `index` before each statement of `block` that
/// a failing check may stop.
fn count_stops_at_checks(
    func: &mut mir::Function,
    block: mir::BlockId,
    quiet: &Quiet,
    table: usize,
    index: u64,
) {
    let stmts = std::mem::take(&mut func.blocks[block].stmts);
    let mut counted = Vec::with_capacity(2 * stmts.len());
    for stmt in stmts {
        if statement_stop(func, &stmt.kind, quiet) == Stop::AtCheck {
            counted.push(Statement {
                kind: StatementKind::CountStop { table, index },
                span: stmt.span,
            });
        }
        counted.push(stmt);
    }
    func.blocks[block].stmts = counted;
}
