//! Block-local constant propagation and folding, with PL's exact semantics (wrapping integer
//! arithmetic, shifts modulo 64). Operations that can fail at run time are never folded, so a
//! division by a constant zero still reports its runtime error.

use std::collections::HashMap;

use crate::mir::{
    BinOp, Const, Function, LocalId, Operand, Rvalue, StatementKind, TerminatorKind, UnOp,
};

pub fn fold_constants(func: &mut Function) {
    for block in &mut func.blocks {
        // Values of locals known in this block so far; nothing is assumed across blocks.
        let mut known: HashMap<LocalId, Const> = HashMap::new();
        for stmt in &mut block.stmts {
            substitute_statement(&mut stmt.kind, &known);
            match &mut stmt.kind {
                StatementKind::Assign(dest, rvalue) => {
                    if let Some(value) = evaluate(rvalue) {
                        *rvalue = Rvalue::Use(Operand::Const(value.clone()));
                        known.insert(*dest, value);
                    } else {
                        known.remove(dest);
                    }
                }
                StatementKind::Call {
                    dest: Some(dest), ..
                } => {
                    known.remove(dest);
                }
                _ => {}
            }
        }
        let term = &mut block.term.kind;
        match term {
            TerminatorKind::Branch {
                cond,
                then_bb,
                else_bb,
            } => {
                substitute(cond, &known);
                if let Operand::Const(Const::Bool(value)) = cond {
                    *term = TerminatorKind::Goto(if *value { *then_bb } else { *else_bb });
                }
            }
            TerminatorKind::Switch {
                value,
                cases,
                default,
            } => {
                substitute(value, &known);
                if let Operand::Const(Const::Int(v)) = value {
                    let target = cases
                        .iter()
                        .find(|(case, _)| case == v)
                        .map_or(*default, |&(_, b)| b);
                    *term = TerminatorKind::Goto(target);
                }
            }
            TerminatorKind::Return(Some(op)) => substitute(op, &known),
            _ => {}
        }
    }
}

fn substitute(op: &mut Operand, known: &HashMap<LocalId, Const>) {
    if let Operand::Local(l) = op
        && let Some(value) = known.get(l)
    {
        *op = Operand::Const(value.clone());
    }
}

fn substitute_statement(kind: &mut StatementKind, known: &HashMap<LocalId, Const>) {
    for op in kind.operands_mut() {
        substitute(op, known);
    }
}

/// The value of an rvalue whose operands are all constants, if it can be computed safely.
fn evaluate(rvalue: &Rvalue) -> Option<Const> {
    match rvalue {
        Rvalue::Use(Operand::Const(c)) if !matches!(c, Const::Str(_)) => Some(c.clone()),
        Rvalue::Unary(op, Operand::Const(c)) => match (op, c) {
            (UnOp::Neg, Const::Int(v)) => Some(Const::Int(v.wrapping_neg())),
            (UnOp::Neg, Const::Float(v)) => Some(Const::Float(-v)),
            (UnOp::Not, Const::Bool(v)) => Some(Const::Bool(!v)),
            (UnOp::BitNot, Const::Int(v)) => Some(Const::Int(!v)),
            _ => None,
        },
        Rvalue::Binary(op, Operand::Const(a), Operand::Const(b)) => binary(*op, a, b),
        _ => None,
    }
}

fn binary(op: BinOp, a: &Const, b: &Const) -> Option<Const> {
    use BinOp::*;
    match (a, b) {
        (Const::Int(a), Const::Int(b)) => {
            let (a, b) = (*a, *b);
            Some(match op {
                Add => Const::Int(a.wrapping_add(b)),
                Sub => Const::Int(a.wrapping_sub(b)),
                Mul => Const::Int(a.wrapping_mul(b)),
                // Division by zero is left for the runtime error.
                Div if b != 0 => Const::Int(a.wrapping_div(b)),
                Rem if b != 0 => Const::Int(a.wrapping_rem(b)),
                Div | Rem => return None,
                Shl => Const::Int(a.wrapping_shl(b as u32 & 63)),
                Shr => Const::Int(a.wrapping_shr(b as u32 & 63)),
                BitAnd => Const::Int(a & b),
                BitXor => Const::Int(a ^ b),
                BitOr => Const::Int(a | b),
                Eq => Const::Bool(a == b),
                Ne => Const::Bool(a != b),
                Lt => Const::Bool(a < b),
                Le => Const::Bool(a <= b),
                Gt => Const::Bool(a > b),
                Ge => Const::Bool(a >= b),
            })
        }
        (Const::Float(a), Const::Float(b)) => {
            let (a, b) = (*a, *b);
            Some(match op {
                Add => Const::Float(a + b),
                Sub => Const::Float(a - b),
                Mul => Const::Float(a * b),
                Div => Const::Float(a / b),
                Rem => Const::Float(a % b),
                Eq => Const::Bool(a == b),
                Ne => Const::Bool(a != b),
                Lt => Const::Bool(a < b),
                Le => Const::Bool(a <= b),
                Gt => Const::Bool(a > b),
                Ge => Const::Bool(a >= b),
                _ => return None,
            })
        }
        (Const::Bool(a), Const::Bool(b)) => match op {
            Eq => Some(Const::Bool(a == b)),
            Ne => Some(Const::Bool(a != b)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_with_pl_semantics() {
        let int = |v| Const::Int(v);
        assert_eq!(
            binary(BinOp::Div, &int(i64::MIN), &int(-1)),
            Some(int(i64::MIN))
        );
        assert_eq!(binary(BinOp::Rem, &int(i64::MIN), &int(-1)), Some(int(0)));
        assert_eq!(binary(BinOp::Div, &int(-7), &int(2)), Some(int(-3)));
        assert_eq!(binary(BinOp::Rem, &int(-7), &int(2)), Some(int(-1)));
        assert_eq!(binary(BinOp::Div, &int(1), &int(0)), None);
        assert_eq!(binary(BinOp::Shl, &int(1), &int(65)), Some(int(2)));
        assert_eq!(binary(BinOp::Shr, &int(-8), &int(1)), Some(int(-4)));
        assert_eq!(
            binary(BinOp::Add, &int(i64::MAX), &int(1)),
            Some(int(i64::MIN))
        );
    }
}
