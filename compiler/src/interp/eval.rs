//! Statements and expressions: what each MIR statement and rvalue does to the locals, the
//! globals and the heap, with the checks compiled code makes (bounds, null, division).

use std::rc::Rc;

use pcc_stdlib::interp_support::{BOOL_SIZE, HEADER, RuntimeError, array_size, object_fits};

use super::machine::{Machine, Stop};
use super::value::{Object, Value};
use crate::mir::{BinOp, Const, Operand, Rvalue, Statement, StatementKind, StructId, UnOp};
use pcc_lang::Span;

impl Machine<'_> {
    pub fn operand(&self, op: &Operand) -> Value {
        match op {
            Operand::Local(local) => self.frame().locals[*local].clone(),
            Operand::Const(c) => match c {
                Const::Int(v) => Value::Int(*v),
                Const::Float(v) => Value::Float(*v),
                Const::Bool(v) => Value::Bool(*v),
                Const::Str(bytes) => Value::str(bytes),
                Const::Null => Value::Null,
            },
        }
    }

    pub fn operands(&self, ops: &[Operand]) -> Vec<Value> {
        ops.iter().map(|op| self.operand(op)).collect()
    }

    /// Every statement but calls, which the driver loop handles (they push a frame).
    pub fn statement(&mut self, stmt: &Statement) -> Result<(), Stop> {
        match &stmt.kind {
            StatementKind::Assign(local, rvalue) => {
                let value = self.rvalue(rvalue, stmt.span)?;
                self.frame_mut().locals[*local] = value;
            }
            StatementKind::SetGlobal(global, value) => {
                self.globals[*global] = self.operand(value);
            }
            StatementKind::SetIndex {
                array,
                index,
                value,
                ..
            } => {
                // `checked` is only ever cleared by `-O 2`, on code this interpreter never sees.
                let (array, index) = (self.operand(array), self.operand(index).int());
                let value = self.operand(value);
                let Value::Array(elements) = array else {
                    panic!("interpreter: indexing a non-array");
                };
                let mut elements = elements.borrow_mut();
                let slot = self.element(elements.len(), index, stmt.span)?;
                elements[slot] = value;
            }
            StatementKind::SetField {
                object,
                strukt,
                field,
                value,
            } => {
                let (object, value) = (self.operand(object), self.operand(value));
                self.object(&object, *strukt, *field, stmt.span)?
                    .fields
                    .borrow_mut()[*field] = value;
            }
            StatementKind::Call { .. } => unreachable!("the driver loop makes calls"),
            // Instrumentation and tracing statements only exist after the passes this
            // interpreter runs before.
            StatementKind::Count { .. }
            | StatementKind::CountBy { .. }
            | StatementKind::CountOrCold { .. }
            | StatementKind::CountPpp { .. }
            | StatementKind::CountStop { .. }
            | StatementKind::Trace(_)
            | StatementKind::Stream(_) => {
                panic!("interpreter: MIR as lowered has no profiling statements")
            }
        }
        Ok(())
    }

    fn rvalue(&self, rvalue: &Rvalue, span: Span) -> Result<Value, Stop> {
        Ok(match rvalue {
            Rvalue::Use(op) => self.operand(op),
            Rvalue::Unary(op, x) => unary(*op, self.operand(x)),
            Rvalue::Binary(op, x, y) => self.binary(*op, self.operand(x), self.operand(y), span)?,
            Rvalue::Global(global) => self.globals[*global].clone(),
            Rvalue::Index { base, index, .. } => {
                let index = self.operand(index).int();
                match self.operand(base) {
                    Value::Str(bytes) => {
                        let at = self.element(bytes.len(), index, span)?;
                        Value::Int(i64::from(bytes[at]))
                    }
                    Value::Array(elements) => {
                        let elements = elements.borrow();
                        elements[self.element(elements.len(), index, span)?].clone()
                    }
                    other => panic!("interpreter: indexing {other:?}"),
                }
            }
            Rvalue::Field {
                object,
                strukt,
                field,
            } => {
                let object = self.operand(object);
                self.object(&object, *strukt, *field, span)?.fields.borrow()[*field].clone()
            }
            Rvalue::ArrayLit(elements) => Value::array(self.operands(elements)),
            Rvalue::ArrayRepeat { value, count } => {
                let (value, count) = (self.operand(value), self.operand(count).int());
                let Ok(len) = usize::try_from(count) else {
                    return Err(self.error(RuntimeError::NegativeArrayLength(count), span));
                };
                // What the runtime cannot allocate, neither can we: out of memory, no abort.
                let element = if matches!(value, Value::Bool(_)) {
                    BOOL_SIZE
                } else {
                    8
                };
                let bytes = array_size(len, element);
                let mut elements = Vec::new();
                if !bytes.is_some_and(object_fits) || elements.try_reserve_exact(len).is_err() {
                    return Err(self.error(RuntimeError::OutOfMemory, span));
                }
                elements.resize(len, value);
                Value::array(elements)
            }
            Rvalue::Window { .. } => {
                panic!("interpreter: MIR as lowered has no profiling statements")
            }
            Rvalue::New { strukt, fields } => Value::Struct(std::rc::Rc::new(Object {
                strukt: *strukt,
                fields: std::cell::RefCell::new(self.operands(fields)),
            })),
        })
    }

    /// `index` as a position in a string or array of `len` elements, or the bounds error.
    pub(super) fn element(&self, len: usize, index: i64, span: Span) -> Result<usize, Stop> {
        match usize::try_from(index) {
            Ok(at) if at < len => Ok(at),
            _ => Err(self.error(
                RuntimeError::IndexOutOfBounds {
                    index,
                    len: len as i64,
                },
                span,
            )),
        }
    }

    /// The struct `object` refers to, or the null error naming `field` of `strukt`.
    fn object<'v>(
        &self,
        object: &'v Value,
        strukt: StructId,
        field: usize,
        span: Span,
    ) -> Result<&'v Object, Stop> {
        match object {
            Value::Struct(object) => Ok(object),
            _ => {
                let decl = &self.program.structs[strukt];
                let error = RuntimeError::NullFieldAccess {
                    struct_name: decl.name.clone(),
                    field: decl.fields[field].name.clone(),
                };
                Err(self.error(error, span))
            }
        }
    }

    fn binary(&self, op: BinOp, x: Value, y: Value, span: Span) -> Result<Value, Stop> {
        Ok(match (x, y) {
            (Value::Int(x), Value::Int(y)) => match op {
                BinOp::Div | BinOp::Rem => self.div_rem(op, x, y, span)?,
                _ => int_binary(op, x, y),
            },
            (Value::Float(x), Value::Float(y)) => float_binary(op, x, y),
            (Value::Str(x), Value::Str(y)) => match op {
                // As in the runtime, an empty side shares the other.
                BinOp::Add if y.is_empty() => Value::Str(x),
                BinOp::Add if x.is_empty() => Value::Str(y),
                BinOp::Add => match concat(&x, &y) {
                    Some(bytes) => Value::Str(bytes),
                    None => return Err(self.error(RuntimeError::OutOfMemory, span)),
                },
                _ => Value::Bool(compare(op, x.cmp(&y))),
            },
            (Value::Bool(x), Value::Bool(y)) => match op {
                BinOp::BitAnd => Value::Bool(x & y),
                BinOp::BitOr => Value::Bool(x | y),
                BinOp::BitXor => Value::Bool(x ^ y),
                // false < true, as the unsigned bytes 0 and 1.
                _ => Value::Bool(compare(op, x.cmp(&y))),
            },
            // References: only `==` and `!=`, by identity.
            (x, y) => {
                let same = x.same_object(&y);
                match op {
                    BinOp::Eq => Value::Bool(same),
                    BinOp::Ne => Value::Bool(!same),
                    _ => panic!("interpreter: {op:?} on references"),
                }
            }
        })
    }

    /// Int `/` and `%`: by zero is an error; `MIN / -1` wraps to `MIN`, `MIN % -1` is 0.
    fn div_rem(&self, op: BinOp, x: i64, y: i64, span: Span) -> Result<Value, Stop> {
        let is_div = op == BinOp::Div;
        if y == 0 {
            let error = if is_div {
                RuntimeError::DivisionByZero
            } else {
                RuntimeError::RemainderByZero
            };
            return Err(self.error(error, span));
        }
        Ok(Value::Int(if is_div {
            x.wrapping_div(y)
        } else {
            x.wrapping_rem(y)
        }))
    }
}

/// `x` followed by `y`, or `None` where the runtime runs out of memory. There is no fallible
/// `Rc` allocation, so a probe reserves the string's bytes and gives them back; collecting an
/// iterator of exact length then allocates the string once, rather than copying it out of a `Vec`
/// and needing its bytes twice.
fn concat(x: &[u8], y: &[u8]) -> Option<Rc<[u8]>> {
    let len = x.len().saturating_add(y.len());
    if !object_fits(len.saturating_add(HEADER)) {
        return None;
    }
    let mut probe = Vec::<u8>::new();
    probe.try_reserve_exact(len).ok()?;
    // Through `black_box`: an allocation that nothing uses may be optimized out.
    drop(std::hint::black_box(probe));
    Some(x.iter().chain(y).copied().collect())
}

fn unary(op: UnOp, x: Value) -> Value {
    match (op, x) {
        (UnOp::Neg, Value::Int(v)) => Value::Int(v.wrapping_neg()),
        (UnOp::Neg, Value::Float(v)) => Value::Float(-v),
        (UnOp::Not, Value::Bool(v)) => Value::Bool(!v),
        (UnOp::BitNot, Value::Int(v)) => Value::Int(!v),
        (op, x) => panic!("interpreter: {op:?} on {x:?}"),
    }
}

/// Int arithmetic wraps around; shift amounts are taken modulo 64 (`wrapping_shl` masks them).
fn int_binary(op: BinOp, x: i64, y: i64) -> Value {
    Value::Int(match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Shl => x.wrapping_shl(y as u32),
        BinOp::Shr => x.wrapping_shr(y as u32),
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        _ => return Value::Bool(compare(op, x.cmp(&y))),
    })
}

/// Float arithmetic is IEEE's; `%` is C's `fmod`; comparisons with NaN are false but `!=`.
fn float_binary(op: BinOp, x: f64, y: f64) -> Value {
    match op {
        BinOp::Add => Value::Float(x + y),
        BinOp::Sub => Value::Float(x - y),
        BinOp::Mul => Value::Float(x * y),
        BinOp::Div => Value::Float(x / y),
        BinOp::Rem => Value::Float(x % y),
        BinOp::Eq => Value::Bool(x == y),
        BinOp::Ne => Value::Bool(x != y),
        BinOp::Lt => Value::Bool(x < y),
        BinOp::Le => Value::Bool(x <= y),
        BinOp::Gt => Value::Bool(x > y),
        BinOp::Ge => Value::Bool(x >= y),
        _ => panic!("interpreter: {op:?} on floats"),
    }
}

/// A comparison operator applied to an ordering.
fn compare(op: BinOp, ordering: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        BinOp::Eq => ordering == Equal,
        BinOp::Ne => ordering != Equal,
        BinOp::Lt => ordering == Less,
        BinOp::Le => ordering != Greater,
        BinOp::Gt => ordering == Greater,
        BinOp::Ge => ordering != Less,
        _ => panic!("interpreter: {op:?} is not a comparison"),
    }
}
