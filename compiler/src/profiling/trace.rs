//! The block trace of `pcc run --trace-blocks` (docs/TESTING.md): a testing pass that makes every
//! function report its activations and the blocks it enters, so that tests can rebuild the paths
//! a run took without trusting the profiling instrumentation.
//!
//! It runs after instrumentation, so that it changes neither the CFG the profiler numbers nor
//! the code hash, and names blocks by their ids in the MIR as lowered.

use crate::mir::{
    self, BasicBlock, Builtin, Callee, ENTRY, Statement, StatementKind, Terminator, TerminatorKind,
    TraceEvent,
};

/// Adds the trace events to every function; `lowered[f]` is how many blocks function `f` had as
/// lowered (instrumentation appends blocks that split edges or, for `wpp`, blocks before calls:
/// those are not traced).
pub fn trace_blocks(program: &mut mir::Program, lowered: &[usize]) {
    for (f, func) in program.functions.iter_enumerated_mut() {
        for (b, block) in func.blocks.iter_enumerated_mut() {
            let span = block.stmts.first().map_or(block.term.span, |s| s.span);
            let event = |event| Statement {
                kind: StatementKind::Trace(event),
                span,
            };
            // A block `wpp` split off before a call holds the end of a lowered block: it reports
            // the activation's end, not itself.
            if b.index() < lowered[f.index()] {
                block.stmts.insert(0, event(TraceEvent::Block(f, b)));
            }
            match block.term.kind {
                TerminatorKind::Return(_) => block.stmts.push(event(TraceEvent::Leave(f))),
                TerminatorKind::Unreachable => {
                    // Before the call to `exit()` that ends the block, which never returns.
                    let ends_in_exit = block.stmts.last().is_some_and(|s| {
                        matches!(
                            s.kind,
                            StatementKind::Call {
                                callee: Callee::Builtin(Builtin::Exit),
                                ..
                            }
                        )
                    });
                    let at = block.stmts.len() - usize::from(ends_in_exit);
                    block.stmts.insert(at, event(TraceEvent::Leave(f)));
                }
                _ => {}
            }
        }
        // A new entry block reports the activation, then jumps to the old one, which may be a
        // loop header and so cannot report it itself.
        let old_entry = func.blocks.next_id();
        let enter = BasicBlock::new(
            vec![Statement {
                kind: StatementKind::Trace(TraceEvent::Enter(f)),
                span: func.name_span,
            }],
            Terminator {
                kind: TerminatorKind::Goto(old_entry),
                span: func.name_span,
            },
        );
        let entry = std::mem::replace(&mut func.blocks[ENTRY], enter);
        func.blocks.push(entry);
        for block in func.blocks.iter_mut().skip(1) {
            block.term.kind.retarget(ENTRY, old_entry);
        }
    }
}
