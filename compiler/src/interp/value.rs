//! The interpreter's values: what a PL value is, without the runtime's memory layout.
//!
//! Strings are immutable byte strings compared by content; arrays and structs are shared,
//! mutable objects compared by identity (docs/CONVENTIONS.md), so they live behind `Rc` and
//! `==` on them is `Rc::ptr_eq`. Like compiled code, nothing is ever freed on purpose: cycles
//! through structs simply stay alive until the program ends.

use std::cell::RefCell;
use std::rc::Rc;

use pcc_stdlib::interp_support::{Printable, Shape};

use crate::mir::{Program, StructId, Type};

#[derive(Clone, Debug)]
pub enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(Rc<[u8]>),
    Array(Rc<RefCell<Vec<Value>>>),
    Struct(Rc<Object>),
    /// `null`, also the value of a struct reference that points nowhere.
    Null,
}

/// A struct instance: its declaration and its fields in declaration order.
#[derive(Debug)]
pub struct Object {
    pub strukt: StructId,
    pub fields: RefCell<Vec<Value>>,
}

impl Value {
    /// The value a variable of type `ty` holds before anything is stored in it: what the zeroed
    /// slot of compiled code means (a global's `str` and arrays start empty, not null).
    pub fn zero(ty: &Type) -> Value {
        match ty {
            Type::Int => Value::Int(0),
            Type::Float => Value::Float(0.0),
            Type::Bool => Value::Bool(false),
            Type::Str => Value::Str(Rc::from(&b""[..])),
            Type::Array(_) => Value::array(Vec::new()),
            Type::Struct(_) | Type::Null | Type::Void => Value::Null,
        }
    }

    pub fn array(elements: Vec<Value>) -> Value {
        Value::Array(Rc::new(RefCell::new(elements)))
    }

    pub fn str(bytes: &[u8]) -> Value {
        Value::Str(Rc::from(bytes))
    }

    /// The int inside; the MIR verifier guarantees the types, so anything else is an
    /// interpreter bug.
    pub fn int(&self) -> i64 {
        match self {
            Value::Int(v) => *v,
            other => panic!("interpreter: expected an int, found {other:?}"),
        }
    }

    pub fn float(&self) -> f64 {
        match self {
            Value::Float(v) => *v,
            other => panic!("interpreter: expected a float, found {other:?}"),
        }
    }

    pub fn bool(&self) -> bool {
        match self {
            Value::Bool(v) => *v,
            other => panic!("interpreter: expected a bool, found {other:?}"),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            Value::Str(v) => v,
            other => panic!("interpreter: expected a str, found {other:?}"),
        }
    }

    /// Identity of a reference (arrays, structs, null), for `==` and `!=`.
    pub fn same_object(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Array(a), Value::Array(b)) => Rc::ptr_eq(a, b),
            (Value::Struct(a), Value::Struct(b)) => Rc::ptr_eq(a, b),
            (Value::Null, Value::Null) => true,
            _ => false,
        }
    }
}

/// A value with the program's struct declarations, which printing needs for names.
pub struct Shown<'a> {
    pub program: &'a Program,
    pub value: Value,
}

impl Printable for Shown<'_> {
    fn shape(&self) -> Shape<'_> {
        match &self.value {
            Value::Int(v) => Shape::Int(*v),
            Value::Float(v) => Shape::Float(*v),
            Value::Bool(v) => Shape::Bool(*v),
            Value::Str(bytes) => Shape::Str(bytes),
            Value::Array(_) => Shape::Array,
            Value::Struct(object) => Shape::Struct(&self.program.structs[object.strukt].name),
            Value::Null => Shape::Null,
        }
    }

    fn elements(&self) -> Vec<Self> {
        match &self.value {
            Value::Array(elements) => (elements.borrow().iter())
                .map(|value| Shown {
                    program: self.program,
                    value: value.clone(),
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    fn fields(&self) -> Vec<(&str, Self)> {
        let Value::Struct(object) = &self.value else {
            return Vec::new();
        };
        let decl = &self.program.structs[object.strukt];
        (decl.fields.iter().zip(object.fields.borrow().iter()))
            .map(|(field, value)| {
                let shown = Shown {
                    program: self.program,
                    value: value.clone(),
                };
                (field.name.as_str(), shown)
            })
            .collect()
    }
}
