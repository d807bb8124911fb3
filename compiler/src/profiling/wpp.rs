//! `--profile=wpp` (Larus, *Whole Program Paths*, [WPP] §2): Ball-Larus instrumentation whose paths
//! also end before every call, so that a caller's path is in the trace before its callee's, and
//! which reports each path to the runtime's trace instead of counting it.
//!
//! Before numbering, every block is split before each call of a PL function (builtins run no
//! paths): the call starts a new block, appended after the function's blocks, and the `goto`
//! into it is a *call cut*, numbered like a truncated edge (`BallLarus::with_cuts`). The plan
//! (`pcc_profiler::mode::wpp`) holds both numberings, of the split CFG and of the CFG as
//! lowered (`pcc_profiler::wpp::CallSplit`). The path code is `bl`'s, with each count replaced
//! by a `NewPath` event, and `EnterRoutine` / `LeaveRoutine` events around each activation.

use pcc_profiler::mode::wpp::{self, Plan};
use pcc_profiler::wpp::{CallSplit, SplitError};

use super::insert::{Quiet, stop_nodes};
use super::{FunctionCfg, bl, function_cfg, stream};
use crate::mir::{self, BasicBlock, BlockId, ENTRY, Terminator, TerminatorKind};

/// The plan of `func`, already split before calls ([`split_before_calls`] returned
/// `continuations`).
pub(super) fn plan(
    func: &mir::Function,
    fcfg: &FunctionCfg,
    continuations: &[BlockId],
    quiet: &Quiet,
) -> Result<Plan, String> {
    let cuts = call_cuts(fcfg, continuations);
    wpp::plan(
        fcfg.cfg.clone(),
        &cuts,
        &stop_nodes(func, quiet),
        node_costs(func),
    )
    .map_err(|e| format!("cannot number the paths of `{}`: {e}", func.name))
}

pub(super) fn instrument(func: &mut mir::Function, fcfg: &FunctionCfg, plan: &Plan, table: usize) {
    bl::instrument_streamed(func, fcfg, &plan.code, table, stream::path_events);
    stream::activations(func, table);
}

/// The split `--profile=wpp` numbers `func`'s pieces on (`func` as lowered), to decode the
/// symbols of its trace: which pieces start and end an activation.
pub fn call_split(func: &mir::Function) -> Result<CallSplit, SplitError> {
    let mut split = func.clone();
    let continuations = split_before_calls(&mut split);
    let fcfg = function_cfg(&split);
    let cuts = call_cuts(&fcfg, &continuations);
    CallSplit::new(fcfg.cfg, &cuts)
}

/// Splits every block before each call of a PL function; returns the blocks that start with one
/// (each reached only by the `goto` from the block it was split from).
pub(super) fn split_before_calls(func: &mut mir::Function) -> Vec<BlockId> {
    let lowered = func.blocks.len();
    let mut continuations = Vec::new();
    let mut b = ENTRY;
    while b.index() < func.blocks.len() {
        // A block added here starts with its call: look for the next one after it.
        let from = usize::from(b.index() >= lowered);
        let call = func.blocks[b].stmts[from.min(func.blocks[b].stmts.len())..]
            .iter()
            .position(|s| s.kind.called_function().is_some());
        if let Some(at) = call {
            let rest = func.blocks[b].stmts.split_off(from + at);
            let span = rest[0].span;
            let next = func.blocks.next_id();
            let goto = Terminator {
                kind: TerminatorKind::Goto(next),
                span,
            };
            let term = std::mem::replace(&mut func.blocks[b].term, goto);
            func.blocks.push(BasicBlock::new(rest, term));
            continuations.push(next);
        }
        // The new block is scanned when its turn comes.
        b = BlockId::new(b.index() + 1);
    }
    continuations
}

/// The call cuts: the CFG edges into the blocks [`split_before_calls`] made.
fn call_cuts(fcfg: &FunctionCfg, continuations: &[BlockId]) -> Vec<usize> {
    (0..fcfg.edges.len())
        .filter(|&e| {
            fcfg.edges[e]
                .1
                .is_some_and(|to| continuations.contains(&to))
        })
        .collect()
}

/// The cost of each CFG node for `pcc wpp hot`: its MIR statements and terminator (EXIT: 0).
fn node_costs(func: &mir::Function) -> Vec<u64> {
    let mut costs: Vec<u64> = func
        .blocks
        .iter()
        .map(|b| b.stmts.len() as u64 + 1)
        .collect();
    costs.push(0);
    costs
}
