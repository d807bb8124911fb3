//! The path stream `kbl` and `wpp` report to the runtime ([`StreamEvent`]): each path id where
//! the path ends, and the start and end of each activation.

use crate::mir::{self, Statement, StatementKind, StreamEvent, TerminatorKind};

/// Each path count of `code` replaced by the same id reported to the stream: `kbl`'s forest
/// and `wpp`'s trace count the paths.
pub(super) fn path_events(code: Vec<StatementKind>) -> Vec<StatementKind> {
    (code.into_iter())
        .map(|kind| match kind {
            StatementKind::Count { table, index } => {
                StatementKind::Stream(StreamEvent::Path { table, id: index })
            }
            kind => kind,
        })
        .collect()
}

/// The `*` marker (EnterRoutine) where an activation starts (the entry block, which lowering
/// never makes a loop header), and the end of the activation (LeaveRoutine) at every `return`,
/// after the path counted there. A block ending in `exit()` needs no leave: the program ends.
pub(super) fn activations(func: &mut mir::Function, table: usize) {
    let span = func.blocks[mir::ENTRY].term.span;
    func.blocks[mir::ENTRY].stmts.insert(
        0,
        Statement {
            kind: StatementKind::Stream(StreamEvent::Enter { table }),
            span,
        },
    );
    for block in &mut func.blocks {
        if matches!(block.term.kind, TerminatorKind::Return(_)) {
            block.stmts.push(Statement {
                kind: StatementKind::Stream(StreamEvent::Leave { table }),
                span: block.term.span,
            });
        }
    }
}
