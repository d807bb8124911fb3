//! The builtins, with the runtime's own code wherever the runtime has a function for the job
//! (formatting, parsing, `fixed`, `substr`'s bounds, the text functions, the input reader), so
//! their results and errors are those of compiled code by construction.

use std::borrow::Cow;
use std::cmp::Ordering;

use pcc_stdlib::interp_support::{
    BOOL_SIZE, RuntimeError, array_size, find, fixed, join, object_fits, parse_float, parse_int,
    print_bytes, print_newline, put_float, put_shown, replace, split, substr_range, trim,
};

use super::machine::{Machine, Stop};
use super::value::{Shown, Value};
use crate::mir::Builtin;
use pcc_lang::Span;

impl Machine<'_> {
    /// Calls `builtin` with `args`; its result, if it has one.
    pub fn builtin(
        &mut self,
        builtin: Builtin,
        args: Vec<Value>,
        span: Span,
    ) -> Result<Option<Value>, Stop> {
        let float = |i: usize| args[i].float();
        let int = |i: usize| args[i].int();
        let is_float = matches!(args.first(), Some(Value::Float(_)));
        let map = |i: usize| match &args[i] {
            Value::Map(map) => map.clone(),
            other => panic!("interpreter: expected a map, found {other:?}"),
        };
        let value = match builtin {
            Builtin::Print | Builtin::Println => {
                let mut text = Vec::new();
                for (i, value) in args.into_iter().enumerate() {
                    if i > 0 {
                        text.push(b' ');
                    }
                    let shown = Shown {
                        program: self.program,
                        value,
                    };
                    put_shown(&mut text, &shown, false);
                }
                // A closed stdout is reported at the `print`, as compiled code reports it.
                print_bytes(&text).map_err(|error| self.error(error, span))?;
                if builtin == Builtin::Println {
                    print_newline().map_err(|error| self.error(error, span))?;
                }
                return Ok(None);
            }
            Builtin::Assert => {
                if !args[0].bool() {
                    let message = args
                        .get(1)
                        .map(|m| String::from_utf8_lossy(m.bytes()).into_owned());
                    return Err(self.error(RuntimeError::AssertionFailed(message), span));
                }
                return Ok(None);
            }
            Builtin::Exit => return Err(Stop::Exit(int(0) as i32)),
            Builtin::Len => Value::Int(match &args[0] {
                Value::Str(bytes) => bytes.len() as i64,
                Value::Array(elements) => elements.borrow().len() as i64,
                other => panic!("interpreter: len of {other:?}"),
            }),
            Builtin::Push | Builtin::Insert => {
                let Value::Array(elements) = &args[0] else {
                    panic!("interpreter: {builtin:?} on {:?}", args[0]);
                };
                let mut elements = elements.borrow_mut();
                let len = elements.len();
                let at = match builtin {
                    Builtin::Push => len,
                    _ => match usize::try_from(int(1)) {
                        Ok(at) if at <= len => at,
                        _ => {
                            let error = RuntimeError::IndexOutOfBounds {
                                index: int(1),
                                len: len as i64,
                            };
                            return Err(self.error(error, span));
                        }
                    },
                };
                let value = args.last().expect("an element").clone();
                // The runtime's rule: out of memory when an array of the new length could not
                // be made.
                let size = if matches!(value, Value::Bool(_)) {
                    BOOL_SIZE
                } else {
                    8
                };
                if !array_size(len + 1, size).is_some_and(object_fits)
                    || elements.try_reserve(1).is_err()
                {
                    return Err(self.error(RuntimeError::OutOfMemory, span));
                }
                elements.insert(at, value);
                return Ok(None);
            }
            Builtin::Pop | Builtin::Remove => {
                let Value::Array(elements) = &args[0] else {
                    panic!("interpreter: {builtin:?} on {:?}", args[0]);
                };
                let mut elements = elements.borrow_mut();
                let at = match builtin {
                    Builtin::Pop if elements.is_empty() => {
                        return Err(self.error(RuntimeError::PopFromEmpty, span));
                    }
                    Builtin::Pop => elements.len() - 1,
                    _ => self.element(elements.len(), int(1), span)?,
                };
                elements.remove(at)
            }
            Builtin::MapNew => Value::Map(Default::default()),
            Builtin::MapLen => Value::Int(map(0).borrow().len() as i64),
            Builtin::MapGet => map(0)
                .borrow()
                .get(&args[1])
                .unwrap_or_else(|| args[2].clone()),
            Builtin::MapSet => {
                map(0).borrow_mut().set(args[1].clone(), args[2].clone());
                return Ok(None);
            }
            Builtin::MapHas => Value::Bool(map(0).borrow().has(&args[1])),
            Builtin::MapDelete => {
                map(0).borrow_mut().delete(&args[1]);
                return Ok(None);
            }
            Builtin::MapKeys => {
                let keys = map(0).borrow().entries().map(|(k, _)| k.clone()).collect();
                Value::array(keys)
            }
            Builtin::ToFloat => Value::Float(int(0) as f64),
            // Saturating, NaN to 0: Rust's `as` is Cranelift's `fcvt_to_sint_sat`.
            Builtin::ToInt => Value::Int(float(0) as i64),
            Builtin::ToStr => match &args[0] {
                Value::Float(v) => {
                    let mut text = Vec::new();
                    put_float(&mut text, *v);
                    Value::str(&text)
                }
                Value::Int(v) => Value::str(v.to_string().as_bytes()),
                Value::Bool(v) => Value::str(v.to_string().as_bytes()),
                other => other.clone(),
            },
            Builtin::Fixed => match fixed(float(0), int(1)) {
                Ok(text) => Value::str(text.as_bytes()),
                Err(error) => return Err(self.error(error, span)),
            },
            Builtin::Chr => match u8::try_from(int(0)) {
                Ok(byte) => Value::str(&[byte]),
                Err(_) => return Err(self.error(RuntimeError::ChrOutOfRange(int(0)), span)),
            },
            Builtin::Substr => {
                let bytes = args[0].bytes();
                match substr_range(bytes.len(), int(1), int(2)) {
                    Ok(range) => Value::str(&bytes[range]),
                    Err(error) => return Err(self.error(error, span)),
                }
            }
            Builtin::Split => match split(args[0].bytes(), args[1].bytes()) {
                Ok(ranges) => {
                    // The runtime's limits on the array (the pieces fit in the memory of `s`).
                    let mut pieces = Vec::new();
                    let fits = array_size(ranges.len(), 8).is_some_and(object_fits);
                    if !fits || pieces.try_reserve_exact(ranges.len()).is_err() {
                        return Err(self.error(RuntimeError::OutOfMemory, span));
                    }
                    let s = args[0].bytes();
                    pieces.extend(ranges.into_iter().map(|r| Value::str(&s[r])));
                    Value::array(pieces)
                }
                Err(error) => return Err(self.error(error, span)),
            },
            Builtin::Join => {
                let Value::Array(parts) = &args[0] else {
                    panic!("interpreter: join of {:?}", args[0]);
                };
                match join(parts.borrow().iter().map(Value::bytes), args[1].bytes()) {
                    Ok(text) => Value::str(&text),
                    Err(error) => return Err(self.error(error, span)),
                }
            }
            Builtin::Find => match find(args[0].bytes(), args[1].bytes(), int(2)) {
                Ok(at) => Value::Int(at),
                Err(error) => return Err(self.error(error, span)),
            },
            Builtin::Replace => match replace(args[0].bytes(), args[1].bytes(), args[2].bytes()) {
                Ok(Cow::Borrowed(_)) => args[0].clone(),
                Ok(Cow::Owned(text)) => Value::str(&text),
                Err(error) => return Err(self.error(error, span)),
            },
            Builtin::Trim => Value::str(&args[0].bytes()[trim(args[0].bytes())]),
            Builtin::StartsWith => Value::Bool(args[0].bytes().starts_with(args[1].bytes())),
            Builtin::EndsWith => Value::Bool(args[0].bytes().ends_with(args[1].bytes())),
            Builtin::ToUpper => Value::str(&args[0].bytes().to_ascii_uppercase()),
            Builtin::ToLower => Value::str(&args[0].bytes().to_ascii_lowercase()),
            Builtin::Sort => {
                let Value::Array(elements) = &args[0] else {
                    panic!("interpreter: sort of {:?}", args[0]);
                };
                // Stable, as the runtime's `pcc_sort`.
                elements.borrow_mut().sort_by(compare);
                return Ok(None);
            }
            Builtin::ParseInt => match parse_int(args[0].bytes()) {
                Ok(v) => Value::Int(v),
                Err(error) => return Err(self.error(error, span)),
            },
            Builtin::ParseFloat => match parse_float(args[0].bytes()) {
                Ok(v) => Value::Float(v),
                Err(error) => return Err(self.error(error, span)),
            },
            Builtin::Abs if is_float => Value::Float(float(0).abs()),
            Builtin::Abs => Value::Int(int(0).wrapping_abs()),
            // Like C's `fmin`/`fmax`: a NaN argument is ignored unless both are NaN.
            Builtin::Min if is_float => Value::Float(float(0).min(float(1))),
            Builtin::Max if is_float => Value::Float(float(0).max(float(1))),
            Builtin::Min => Value::Int(int(0).min(int(1))),
            Builtin::Max => Value::Int(int(0).max(int(1))),
            Builtin::Sqrt => Value::Float(float(0).sqrt()),
            Builtin::Floor => Value::Float(float(0).floor()),
            Builtin::Ceil => Value::Float(float(0).ceil()),
            Builtin::Sin => Value::Float(float(0).sin()),
            Builtin::Cos => Value::Float(float(0).cos()),
            Builtin::Tan => Value::Float(float(0).tan()),
            Builtin::Atan => Value::Float(float(0).atan()),
            Builtin::Exp => Value::Float(float(0).exp()),
            Builtin::Log => Value::Float(float(0).ln()),
            Builtin::Pow => Value::Float(float(0).powf(float(1))),
            Builtin::Atan2 => Value::Float(float(0).atan2(float(1))),
            Builtin::Argc => Value::Int(self.args.len() as i64),
            Builtin::Arg => match usize::try_from(int(0)).ok().and_then(|i| self.args.get(i)) {
                Some(arg) => Value::str(arg.as_bytes()),
                None => {
                    let error = RuntimeError::ArgOutOfRange {
                        index: int(0),
                        count: self.args.len(),
                    };
                    return Err(self.error(error, span));
                }
            },
            Builtin::ReadLine => Value::str(&self.input.read_line()),
            Builtin::Eof => Value::Bool(self.input.at_eof()),
            Builtin::ReadInt => match self.input.read_int() {
                Ok(v) => Value::Int(v),
                Err(error) => return Err(self.error(error, span)),
            },
            Builtin::ClockNs => Value::Int(self.started.elapsed().as_nanos() as i64),
        };
        Ok(Some(value))
    }
}

/// The order of `sort`: ints by value, floats in IEEE 754 totalOrder, strings by their bytes.
fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Float(x), Value::Float(y)) => x.total_cmp(y),
        _ => a.bytes().cmp(b.bytes()),
    }
}
