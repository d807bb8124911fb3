//! The interpreter's values: what a PL value is, without the runtime's memory layout.
//!
//! Strings are immutable byte strings compared by content; arrays and structs are shared,
//! mutable objects compared by identity (docs/CONVENTIONS.md), so they live behind `Rc` and
//! `==` on them is `Rc::ptr_eq`. Like compiled code, nothing is ever freed on purpose: cycles
//! through structs simply stay alive until the program ends.

use std::cell::RefCell;
use std::rc::Rc;

use pcc_stdlib::interp_support::{Printable, Shape};

use super::map::Map;
use crate::mir::{Program, StructId, Type};

#[derive(Clone, Debug)]
pub enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(Rc<[u8]>),
    Array(Rc<RefCell<Vec<Value>>>),
    Map(Rc<RefCell<Map>>),
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

/// Dropping an object drops its fields, and the default drop recursed once per link of a chain
/// (a list's `next`, a tree's children, a struct holding an array holding a struct ...): a long
/// one overflowed the Rust stack. So the children whose last reference this is are emptied into
/// a work list instead, each leaving an empty shell whose drop does not recurse; the others just
/// lose a reference. Arrays need no drop of their own: without a struct, types nest only as deep
/// as the source spells them, so every long chain passes through objects, and their drop empties
/// the arrays on the way.
impl Drop for Object {
    fn drop(&mut self) {
        let mut orphans = std::mem::take(self.fields.get_mut());
        while let Some(value) = orphans.pop() {
            match value {
                Value::Struct(object) => {
                    if let Some(mut object) = Rc::into_inner(object) {
                        orphans.append(object.fields.get_mut());
                    }
                }
                Value::Array(elements) => {
                    if let Some(elements) = Rc::into_inner(elements) {
                        orphans.extend(elements.into_inner());
                    }
                }
                Value::Map(map) => {
                    if let Some(map) = Rc::into_inner(map) {
                        map.into_inner().drain_into(&mut orphans);
                    }
                }
                _ => {}
            }
        }
    }
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
            Type::Map(..) => Value::Map(Rc::default()),
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
            (Value::Map(a), Value::Map(b)) => Rc::ptr_eq(a, b),
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
            Value::Map(_) => Shape::Map,
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

    fn entries(&self) -> Vec<(Self, Self)> {
        let Value::Map(map) = &self.value else {
            return Vec::new();
        };
        let shown = |value: &Value| Shown {
            program: self.program,
            value: value.clone(),
        };
        (map.borrow().entries())
            .map(|(key, value)| (shown(key), shown(value)))
            .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds and drops values on a thread with a small stack (256 KiB), which a drop that
    /// recursed once per link of these chains would overflow long before their end.
    fn on_a_small_stack(test: impl FnOnce() + Send + 'static) {
        let thread = std::thread::Builder::new().stack_size(256 << 10);
        thread.spawn(test).unwrap().join().unwrap();
    }

    fn object(fields: Vec<Value>) -> Value {
        Value::Struct(Rc::new(Object {
            strukt: StructId::new(0),
            fields: RefCell::new(fields),
        }))
    }

    /// The number of objects from `value` on, following field `field` (a list's length).
    fn length(mut value: Value, field: usize) -> usize {
        let mut n = 0;
        while let Value::Struct(object) = value {
            value = object.fields.borrow()[field].clone();
            n += 1;
        }
        n
    }

    /// `struct Node { v: int, next: Node }`, a million long.
    #[test]
    fn a_long_list_drops_without_recursing() {
        on_a_small_stack(|| {
            let mut head = Value::Null;
            for i in 0..1_000_000 {
                head = object(vec![Value::Int(i), head]);
            }
            drop(head);
        });
    }

    /// `struct Tree { left: Tree, right: Tree }`: a left spine 300,000 deep, each right child a
    /// leaf with two leaves.
    #[test]
    fn a_deep_tree_drops_without_recursing() {
        on_a_small_stack(|| {
            let leaf = || object(vec![Value::Null, Value::Null]);
            let mut root = Value::Null;
            for _ in 0..300_000 {
                root = object(vec![root, object(vec![leaf(), leaf()])]);
            }
            drop(root);
        });
    }

    /// `struct Link { v: int, next: [Link] }`, and `[[Link]]`: object, array, object, ...
    #[test]
    fn a_chain_through_arrays_drops_without_recursing() {
        on_a_small_stack(|| {
            let mut head = Value::array(Vec::new());
            for i in 0..500_000 {
                let link = object(vec![Value::Int(i), head]);
                head = Value::array(vec![Value::array(vec![link]), Value::array(Vec::new())]);
            }
            drop(head);
        });
    }

    /// A list that other references share: dropping its head frees only what nothing else holds,
    /// and the shared tails stay whole; arrays of lists and lists of arrays, mixed.
    #[test]
    fn shared_and_mixed_chains_drop_only_what_they_alone_hold() {
        on_a_small_stack(|| {
            let mut head = Value::Null;
            let mut kept = Vec::new();
            for i in 0..600_000 {
                let bag = Value::array(vec![
                    Value::str(b"x"),
                    Value::array(vec![Value::Float(0.5)]),
                ]);
                head = object(vec![Value::Int(i), head, bag]);
                if i % 100_000 == 0 {
                    kept.push(head.clone());
                }
            }
            let lists = Value::array(vec![head.clone(), Value::array(vec![head])]);
            drop(lists);
            for (k, tail) in kept.iter().enumerate() {
                assert_eq!(length(tail.clone(), 1), k * 100_000 + 1);
            }
            let Value::Struct(last) = &kept[kept.len() - 1] else {
                unreachable!()
            };
            assert_eq!(Rc::strong_count(last), 1);
            drop(kept);
        });
    }
}
