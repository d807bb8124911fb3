//! The interpreter's maps: entries in insertion order, found through a hash index. What
//! `stdlib/src/map.rs` does in the runtime's memory, with Rust's collections.

use std::collections::HashMap;
use std::rc::Rc;

use super::value::Value;

/// A key as the index hashes it: an `int`, or a `str`'s bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    Int(i64),
    Str(Rc<[u8]>),
}

impl Key {
    fn of(value: &Value) -> Key {
        match value {
            Value::Int(v) => Key::Int(*v),
            Value::Str(bytes) => Key::Str(bytes.clone()),
            other => panic!("interpreter: a map key {other:?}"),
        }
    }
}

#[derive(Debug, Default)]
pub struct Map {
    /// Key and value of each entry in insertion order; `None` once deleted.
    entries: Vec<Option<(Value, Value)>>,
    /// Each live key's position in `entries`.
    index: HashMap<Key, usize>,
}

impl Map {
    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn get(&self, key: &Value) -> Option<Value> {
        let &at = self.index.get(&Key::of(key))?;
        self.entries[at].as_ref().map(|(_, value)| value.clone())
    }

    pub fn has(&self, key: &Value) -> bool {
        self.index.contains_key(&Key::of(key))
    }

    /// Replaces the value of `key`'s entry (which keeps its place), or adds one at the end.
    pub fn set(&mut self, key: Value, value: Value) {
        match self.index.get(&Key::of(&key)) {
            Some(&at) => self.entries[at] = Some((key, value)),
            None => {
                self.index.insert(Key::of(&key), self.entries.len());
                self.entries.push(Some((key, value)));
            }
        }
    }

    pub fn delete(&mut self, key: &Value) {
        if let Some(at) = self.index.remove(&Key::of(key)) {
            self.entries[at] = None;
        }
        // Drop the holes once they outnumber the entries, so deleting stays amortized O(1) in
        // memory too.
        if self.entries.len() > 2 * self.index.len() + 8 {
            self.entries.retain(Option::is_some);
            for (at, (key, _)) in self.entries.iter().flatten().enumerate() {
                self.index.insert(Key::of(key), at);
            }
        }
    }

    /// The live entries, in insertion order.
    pub fn entries(&self) -> impl Iterator<Item = &(Value, Value)> {
        self.entries.iter().flatten()
    }

    /// Empties the map into `into` (its keys and values), for dropping without recursion.
    pub fn drain_into(&mut self, into: &mut Vec<Value>) {
        self.index.clear();
        for (key, value) in self.entries.drain(..).flatten() {
            into.push(key);
            into.push(value);
        }
    }
}
