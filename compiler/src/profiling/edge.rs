//! `--profile=edge`: edge counters on the chords of a spanning tree ([BL94]), placed by the
//! profiler (`pcc_profiler::mode::edge`), with a virtual stop edge out of every block the
//! program may stop in, so that the activations still running when it ends are counted.

use pcc_profiler::cfg::{EdgeId, NodeId};
use pcc_profiler::mode::edge::{self, Plan};

use super::FunctionCfg;
use super::insert::{Inserter, count_const, stop_nodes};
use crate::mir::{self, Statement};

pub(super) fn plan(func: &mir::Function, fcfg: &FunctionCfg) -> Plan {
    edge::plan(&fcfg.cfg, &stop_nodes(func))
}

pub(super) fn instrument(func: &mut mir::Function, fcfg: &FunctionCfg, plan: &Plan, table: usize) {
    let counters = &plan.counters;
    if let Some(counter) = counters.entry_counter() {
        let span = func.blocks[mir::ENTRY].term.span;
        let kind = count_const(table, counter as u64);
        func.blocks[mir::ENTRY]
            .stmts
            .insert(0, Statement { kind, span });
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
