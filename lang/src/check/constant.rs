//! Named constants (`const N: int = 3;`): each initializer is checked as an expression, then
//! folded to its value at compile time. A use of a constant becomes that value as a literal, so
//! nothing after the front end knows constants exist.

use super::Checker;
use crate::ast;
use crate::diagnostics::Diagnostic;
use crate::index::SymbolKind;
use crate::span::Span;
use crate::typed::{BinOp, Expr, ExprKind, Type, UnOp};

/// Index into `Checker::consts`.
pub(super) type ConstId = usize;

/// The value of a constant.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(Vec<u8>),
}

impl Value {
    pub fn ty(&self) -> Type {
        match self {
            Value::Int(_) => Type::Int,
            Value::Float(_) => Type::Float,
            Value::Bool(_) => Type::Bool,
            Value::Str(_) => Type::Str,
        }
    }

    /// The value as PL source would write it.
    pub fn source(&self) -> String {
        match self {
            Value::Int(v) => v.to_string(),
            Value::Float(v) => format!("{v:?}"),
            Value::Bool(v) => v.to_string(),
            Value::Str(bytes) => format!("{:?}", String::from_utf8_lossy(bytes)),
        }
    }

    /// The value as a literal at `span` (where the constant is used).
    pub fn literal(&self, span: Span) -> Expr {
        let kind = match self {
            Value::Int(v) => ExprKind::Int(*v),
            Value::Float(v) => ExprKind::Float(*v),
            Value::Bool(v) => ExprKind::Bool(*v),
            Value::Str(v) => ExprKind::Str(v.clone()),
        };
        Expr {
            kind,
            ty: self.ty(),
            span,
        }
    }
}

pub(super) enum State {
    Pending,
    /// Its initializer is being evaluated: meeting it again is a cycle.
    InProgress,
    Done(Value),
    /// Its value could not be computed (already reported).
    Poisoned,
}

pub(super) struct ConstInfo<'a> {
    pub decl: &'a ast::ConstDecl,
    pub state: State,
    pub symbol: usize,
}

/// Why an expression has no value at compile time.
struct NotConstant {
    span: Span,
    message: &'static str,
    note: &'static str,
}

const OVERFLOW_NOTE: &str = "constants are computed when compiling, where overflow is an error (at run time `+`, `-` and `*` wrap)";

impl<'a> Checker<'a> {
    /// Declares every constant (duplicates are errors), before anything refers to one.
    pub(super) fn declare_constants(&mut self, program: &'a ast::Program) {
        for item in &program.items {
            let ast::Item::Const(decl) = item else {
                continue;
            };
            let name = &decl.name;
            if let Some(&first) = self.const_ids.get(name.name.as_str()) {
                let first = self.consts[first].decl.name.span;
                self.error(
                    Diagnostic::new(
                        format!("constant `{}` is defined more than once", name.name),
                        name.span,
                    )
                    .with_secondary(first, "first defined here"),
                );
            } else {
                self.const_ids.insert(&name.name, self.consts.len());
            }
            let symbol = self.record.symbol(SymbolKind::Const, name, decl.span);
            self.consts.push(ConstInfo {
                decl,
                state: State::Pending,
                symbol,
            });
        }
    }

    /// Computes every constant's value (each one once, those it names first).
    pub(super) fn evaluate_constants(&mut self) {
        for id in 0..self.consts.len() {
            self.const_value(id);
        }
    }

    /// The value of constant `id` (`None` after an error, already reported), computed on the
    /// first request.
    pub(super) fn const_value(&mut self, id: ConstId) -> Option<Value> {
        match &self.consts[id].state {
            State::Done(value) => return Some(value.clone()),
            State::Poisoned => return None,
            State::InProgress => {
                let name = &self.consts[id].decl.name;
                let diagnostic = Diagnostic::new(
                    format!("constant `{}` is defined in terms of itself", name.name),
                    name.span,
                );
                self.error(diagnostic);
                self.consts[id].state = State::Poisoned;
                return None;
            }
            State::Pending => {}
        }
        self.consts[id].state = State::InProgress;
        let decl = self.consts[id].decl;
        // A constant's initializer sees no locals, whatever the body being checked.
        let constant = super::Body {
            constant: true,
            ..super::Body::default()
        };
        let body = std::mem::replace(&mut self.body, constant);
        let value = self.evaluate(decl);
        self.body = body;
        // A cycle through this constant has already poisoned it.
        if let State::InProgress = self.consts[id].state {
            self.consts[id].state = match &value {
                Some(value) => State::Done(value.clone()),
                None => State::Poisoned,
            };
        }
        // What hover shows after `const NAME: `: the type and the value.
        let detail = match &value {
            Some(value) => format!("{} = {}", self.type_name(&value.ty()), value.source()),
            None => "?".to_string(),
        };
        self.record.index.symbols[self.consts[id].symbol].detail = detail;
        value
    }

    fn evaluate(&mut self, decl: &ast::ConstDecl) -> Option<Value> {
        let init = match &decl.ty {
            Some(ty) => {
                let ty = self.resolve_type(ty);
                match ty {
                    Some(ty @ (Type::Int | Type::Float | Type::Bool | Type::Str)) => {
                        self.expect(&decl.init, &ty)
                    }
                    Some(other) => {
                        let other = self.type_name(&other);
                        let span = decl.ty.as_ref().map_or(decl.name.span, |t| t.span);
                        self.error(
                            Diagnostic::new(format!("a constant cannot be of type `{other}`"), span)
                                .with_note("constants are of type `int`, `float`, `bool` or `str`; use `let` for a global"),
                        );
                        self.skim(&decl.init);
                        None
                    }
                    None => {
                        self.skim(&decl.init);
                        None
                    }
                }
            }
            None => self.value(&decl.init, None),
        }?;
        match fold(&init) {
            Ok(value) => Some(value),
            Err(NotConstant {
                span,
                message,
                note,
            }) => {
                self.error(Diagnostic::new(message, span).with_note(note));
                None
            }
        }
    }

    /// The constant a name refers to, recorded as a use of it.
    pub(super) fn lookup_const(&mut self, name: &str, span: Span) -> Option<Option<Value>> {
        let &id = self.const_ids.get(name)?;
        self.record.use_of(span, self.consts[id].symbol);
        Some(self.const_value(id))
    }

    /// The value of a constant named as a `match` pattern.
    pub(super) fn const_pattern(&mut self, name: &ast::Ident) -> Option<i64> {
        match self.lookup_const(&name.name, name.span) {
            Some(Some(Value::Int(value))) => Some(value),
            Some(Some(other)) => {
                self.mismatch(&Type::Int, &other.ty(), name.span);
                None
            }
            Some(None) => None,
            None => {
                let is_variable = self.body.scopes.iter().any(|s| s.contains_key(&name.name))
                    || self.global_ids.contains_key(name.name.as_str());
                let message = if is_variable {
                    format!("`{}` is a variable, not a constant", name.name)
                } else {
                    let consts: Vec<&str> = self.const_ids.keys().copied().collect();
                    let hint = self.suggest.did_you_mean(&name.name, consts);
                    format!("cannot find constant `{}`{hint}", name.name)
                };
                self.error(
                    Diagnostic::new(message, name.span)
                        .with_note("match patterns are integer literals (optionally negative), constants or `_`; a name does not bind the value, which `_ => { ... }` can read from the expression matched"),
                );
                None
            }
        }
    }
}

/// The value of a checked expression made of literals and operators (constants were already
/// replaced by their values).
fn fold(expr: &Expr) -> Result<Value, NotConstant> {
    let overflow = || NotConstant {
        span: expr.span,
        message: "this constant expression overflows `int`",
        note: OVERFLOW_NOTE,
    };
    Ok(match &expr.kind {
        ExprKind::Int(v) => Value::Int(*v),
        ExprKind::Float(v) => Value::Float(*v),
        ExprKind::Bool(v) => Value::Bool(*v),
        ExprKind::Str(v) => Value::Str(v.clone()),
        ExprKind::Unary { op, operand } => match (op, fold(operand)?) {
            (UnOp::Neg, Value::Int(v)) => Value::Int(v.checked_neg().ok_or_else(overflow)?),
            (UnOp::Neg, Value::Float(v)) => Value::Float(-v),
            (UnOp::Not, Value::Bool(v)) => Value::Bool(!v),
            (UnOp::BitNot, Value::Int(v)) => Value::Int(!v),
            _ => unreachable!("the checker accepted the operand"),
        },
        ExprKind::And(lhs, rhs) | ExprKind::Or(lhs, rhs) => {
            let is_and = matches!(expr.kind, ExprKind::And(..));
            match (fold(lhs)?, fold(rhs)?) {
                (Value::Bool(a), Value::Bool(b)) => {
                    Value::Bool(if is_and { a && b } else { a || b })
                }
                _ => unreachable!("the checker accepted the operands"),
            }
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let (lhs, rhs) = (fold(lhs)?, fold(rhs)?);
            if op.is_comparison() {
                let order = match (&lhs, &rhs) {
                    (Value::Int(a), Value::Int(b)) => a.partial_cmp(b),
                    (Value::Float(a), Value::Float(b)) => a.partial_cmp(b),
                    (Value::Bool(a), Value::Bool(b)) => a.partial_cmp(b),
                    (Value::Str(a), Value::Str(b)) => a.partial_cmp(b),
                    _ => unreachable!("the checker compared values of one type"),
                };
                return Ok(Value::Bool(compare(*op, order)));
            }
            match (lhs, rhs) {
                (Value::Int(a), Value::Int(b)) => {
                    if matches!(op, BinOp::Div | BinOp::Rem) && b == 0 {
                        return Err(NotConstant {
                            span: expr.span,
                            message: "division by zero in a constant expression",
                            note: "constants are computed when compiling",
                        });
                    }
                    Value::Int(int_operation(*op, a, b).ok_or_else(overflow)?)
                }
                (Value::Float(a), Value::Float(b)) => Value::Float(match op {
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div => a / b,
                    BinOp::Rem => a % b,
                    _ => unreachable!("the checker accepted the operator"),
                }),
                (Value::Str(mut a), Value::Str(b)) => {
                    a.extend(b);
                    Value::Str(a)
                }
                _ => unreachable!("the checker accepted the operands"),
            }
        }
        _ => {
            return Err(NotConstant {
                span: expr.span,
                message: "this is not a constant expression",
                note: "a constant is made of literals, other constants and operators; use `let` for a global computed at run time",
            });
        }
    })
}

/// `a op b` on ints as the program would compute it, `None` when it overflows.
fn int_operation(op: BinOp, a: i64, b: i64) -> Option<i64> {
    // The shift amount is taken modulo 64, as at run time.
    let amount = (b & 63) as u32;
    match op {
        BinOp::Add => a.checked_add(b),
        BinOp::Sub => a.checked_sub(b),
        BinOp::Mul => a.checked_mul(b),
        BinOp::Div => a.checked_div(b),
        BinOp::Rem => a.checked_rem(b),
        BinOp::Shl => Some(a << amount),
        BinOp::Shr => Some(a >> amount),
        BinOp::BitAnd => Some(a & b),
        BinOp::BitXor => Some(a ^ b),
        BinOp::BitOr => Some(a | b),
        _ => unreachable!("comparisons are folded apart"),
    }
}

/// Whether `op` holds for two values in `order` (`None`: a NaN is involved).
fn compare(op: BinOp, order: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    match op {
        BinOp::Eq => order == Some(Equal),
        BinOp::Ne => order != Some(Equal),
        BinOp::Lt => order == Some(Less),
        BinOp::Le => matches!(order, Some(Less | Equal)),
        BinOp::Gt => order == Some(Greater),
        BinOp::Ge => matches!(order, Some(Greater | Equal)),
        _ => unreachable!("not a comparison"),
    }
}
