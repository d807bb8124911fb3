//! Removes assignments to locals that are never read, when computing the value has no effect
//! (no runtime check that could fail, no call).

use crate::mir::{BinOp, Function, Operand, Rvalue, StatementKind, StreamEvent, TerminatorKind};

pub fn remove_dead_assignments(func: &mut Function) {
    loop {
        let used = used_locals(func);
        let mut changed = false;
        for block in &mut func.blocks {
            let before = block.stmts.len();
            block.stmts.retain(|stmt| match &stmt.kind {
                StatementKind::Assign(dest, rvalue) => used[*dest] || !is_pure(rvalue),
                _ => true,
            });
            changed |= block.stmts.len() != before;
        }
        if !changed {
            break;
        }
    }
}

/// Whether evaluating the rvalue can neither fail nor be observed except through its result.
/// Integer division is conservatively impure (it checks for zero) whatever its operand types.
fn is_pure(rvalue: &Rvalue) -> bool {
    match rvalue {
        Rvalue::Binary(BinOp::Div | BinOp::Rem, ..) => false,
        Rvalue::Index { .. } | Rvalue::Field { .. } | Rvalue::ArrayRepeat { .. } => false,
        Rvalue::Use(_)
        | Rvalue::Unary(..)
        | Rvalue::Binary(..)
        | Rvalue::Global(_)
        | Rvalue::ArrayLit(_)
        | Rvalue::New { .. } => true,
    }
}

fn used_locals(func: &Function) -> Vec<bool> {
    let mut used = vec![false; func.locals.len()];
    let mut mark = |op: &Operand| {
        if let Operand::Local(l) = op {
            used[*l] = true;
        }
    };
    for block in &func.blocks {
        for stmt in &block.stmts {
            match &stmt.kind {
                StatementKind::Assign(_, rvalue) => {
                    rvalue.operands().into_iter().for_each(&mut mark)
                }
                StatementKind::SetGlobal(_, op) => mark(op),
                StatementKind::SetIndex {
                    array,
                    index,
                    value,
                } => [array, index, value].into_iter().for_each(&mut mark),
                StatementKind::SetField { object, value, .. } => {
                    mark(object);
                    mark(value);
                }
                StatementKind::Call { args, .. } => args.iter().for_each(&mut mark),
                StatementKind::Count { index, .. } | StatementKind::CountOrCold { index, .. } => {
                    mark(index)
                }
                StatementKind::CountPpp { ppp, bl, .. } => {
                    mark(ppp);
                    mark(bl);
                }
                StatementKind::Stream(StreamEvent::Path { id, .. }) => mark(id),
                StatementKind::Trace(_) | StatementKind::Stream(_) => {}
            }
        }
        match &block.term.kind {
            TerminatorKind::Branch { cond: op, .. }
            | TerminatorKind::Switch { value: op, .. }
            | TerminatorKind::Return(Some(op)) => mark(op),
            _ => {}
        }
    }
    used
}
