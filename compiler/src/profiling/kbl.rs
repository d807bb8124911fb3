//! `--profile=kbl`: k-iteration path profiling ([KBLPP]). The paths are numbered as `bl` numbers
//! them; where `bl` counts a path, a function counts what its plan's
//! [`Sequences`] say: the path (no loop: its k-IPF is its counts), the window of its last k
//! paths, packed in a local, or nothing, reporting the id to the runtime's k-slab forest of
//! the function instead, with the activations' starts and ends, so the forest follows the paths
//! of each activation (the forest's first level is the count of each path).

use pcc_profiler::mode::kbl::{Plan, Sequences};

use super::{FunctionCfg, bl, stream};
use crate::mir::{self, Const, Operand, Rvalue, Statement, StatementKind, Type};

pub(super) fn instrument(func: &mut mir::Function, fcfg: &FunctionCfg, plan: &Plan, table: usize) {
    let code = &plan.paths.code;
    match plan.sequences {
        Sequences::Single => bl::instrument(func, fcfg, code, table),
        Sequences::Windows { bits, k } | Sequences::KeyedWindows { bits, k } => {
            let window = func.new_temp(Type::Int);
            let mask = Sequences::window_mask(bits, k);
            let start = Rvalue::Use(Operand::Const(Const::Int(mask as i64)));
            let span = func.blocks[mir::ENTRY].term.span;
            // The entry block is never a loop header: this runs once per activation.
            func.blocks[mir::ENTRY].stmts.insert(
                0,
                Statement {
                    kind: StatementKind::Assign(window, start),
                    span,
                },
            );
            let count_windows = |code| count_windows(code, window, bits, mask);
            bl::instrument_streamed(func, fcfg, code, table, count_windows);
        }
        Sequences::Stream => {
            bl::instrument_streamed(func, fcfg, code, table, stream::path_events);
            stream::activations(func, table);
        }
    }
}

/// Each path count of `code` replaced by the window with the id shifted in
/// ([`Rvalue::Window`]) and a count of the window ([`Sequences::Windows`]).
fn count_windows(
    code: Vec<StatementKind>,
    window: mir::LocalId,
    bits: u32,
    mask: u64,
) -> Vec<StatementKind> {
    (code.into_iter())
        .flat_map(|kind| match kind {
            StatementKind::Count { table, index } => {
                let shifted = Rvalue::Window {
                    window: Operand::Local(window),
                    id: index,
                    bits,
                    mask,
                };
                vec![
                    StatementKind::Assign(window, shifted),
                    StatementKind::Count {
                        table,
                        index: Operand::Local(window),
                    },
                ]
            }
            kind => vec![kind],
        })
        .collect()
}
