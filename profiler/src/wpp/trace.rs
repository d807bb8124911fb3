//! From the WPP trace events to SEQUITUR(1) input ([WPP] §2 and §3.3).
//!
//! The instrumented program reports `EnterRoutine(f)`, `NewPath(p)` and `LeaveRoutine()` (§2's
//! path-trace opcodes; paths are also cut before calls so a caller's path precedes its callee's).
//! The first time a (routine, path) pair is executed it gets the next dense terminal symbol
//! (§3.3), which the runtime pushes into the grammar builder ([`super::Sequitur`]). The symbol table
//! comes back with the grammar.

use super::blocks::MAX_PATH_SYMBOLS;
use super::grammar::Grammar;
use super::section::{PathSymbol, WppError, WppSection};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A (routine, Ball-Larus path id) pair, the identity of a terminal symbol.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PathKey {
    pub function: u32,
    pub path: u64,
}

/// The routine recorded for a `NewPath` that arrives with no routine entered.
pub const NO_ROUTINE: u32 = u32::MAX;

/// A fast hasher for small integer keys (path ids), where SipHash's DoS resistance is not needed.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(26) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }

    /// Eight bytes at a time: the block coder hashes a block's paths as one slice.
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

/// The runtime's WPP symbol table: call [`enter_routine`](Self::enter_routine),
/// [`new_path`](Self::new_path) and [`leave_routine`](Self::leave_routine) per event (or
/// [`path`](Self::path) when the routine is known); each path event returns the terminal symbol
/// to append to the SEQUITUR(1) input. [`trace`](Self::trace) pairs the table with the grammar.
#[derive(Clone, Debug)]
pub struct PathSymbols {
    ids: HashMap<PathKey, u32, BuildHasherDefault<KeyHasher>>,
    /// The symbols of recent keys, at a slot chosen by the key (`EMPTY`: none): a loop's few
    /// paths are found here without hashing, a few ns per path the runtime sees.
    recent: Box<[(PathKey, u32)]>,
    symbols: Vec<PathKey>,
    routines: Vec<u32>,
    unmatched_leaves: u64,
}

/// Slots of [`PathSymbols::recent`] (a power of two).
const RECENT: usize = 256;
/// The symbol of an empty slot of [`PathSymbols::recent`] (never a real one: symbols are below
/// [`MAX_PATH_SYMBOLS`]).
const EMPTY: u32 = u32::MAX;

impl Default for PathSymbols {
    fn default() -> Self {
        PathSymbols::new()
    }
}

impl PathSymbols {
    pub fn new() -> PathSymbols {
        let empty = (
            PathKey {
                function: NO_ROUTINE,
                path: 0,
            },
            EMPTY,
        );
        PathSymbols {
            ids: HashMap::default(),
            recent: vec![empty; RECENT].into_boxed_slice(),
            symbols: Vec::new(),
            routines: Vec::new(),
            unmatched_leaves: 0,
        }
    }

    /// `EnterRoutine(f)`: subsequent paths execute in routine `f`.
    pub fn enter_routine(&mut self, function: u32) {
        self.routines.push(function);
    }

    /// `LeaveRoutine()`: back to the caller. A leave with no routine entered is counted in
    /// [`WppTrace::unmatched_leaves`] and otherwise ignored.
    pub fn leave_routine(&mut self) {
        if self.routines.pop().is_none() {
            self.unmatched_leaves += 1;
        }
    }

    /// `NewPath(p)`: path `p` of the current routine executed; returns its symbol.
    #[inline]
    pub fn new_path(&mut self, path: u64) -> u32 {
        self.path(self.routine(), path)
    }

    /// The current routine ([`NO_ROUTINE`] before the first `EnterRoutine`).
    #[inline]
    pub fn routine(&self) -> u32 {
        self.routines.last().copied().unwrap_or(NO_ROUTINE)
    }

    /// The symbol of path `path` of routine `function`, a new one the first time (§3.3).
    #[inline]
    pub fn path(&mut self, function: u32, path: u64) -> u32 {
        let key = PathKey { function, path };
        let slot = (path as usize ^ (function as usize).wrapping_mul(31)) & (RECENT - 1);
        let (recent, symbol) = self.recent[slot];
        if recent == key && symbol != EMPTY {
            return symbol;
        }
        let next = self.symbols.len();
        let symbols = &mut self.symbols;
        let symbol = *self.ids.entry(key).or_insert_with(|| {
            // The block coder marks block numbers with the high bits.
            let id = u32::try_from(next)
                .ok()
                .filter(|&id| id < MAX_PATH_SYMBOLS)
                .expect("fewer than 2^28 distinct acyclic paths");
            symbols.push(key);
            id
        });
        self.recent[slot] = (key, symbol);
        symbol
    }

    /// The (routine, path) of every symbol so far, symbol `t` at index `t`.
    pub fn symbols(&self) -> &[PathKey] {
        &self.symbols
    }

    /// The whole program path: this table with the grammar built from its symbols.
    pub fn trace(self, grammar: Grammar) -> WppTrace {
        WppTrace {
            grammar,
            symbols: self.symbols,
            unmatched_leaves: self.unmatched_leaves,
        }
    }
}

/// A finished whole program path.
#[derive(Clone, Debug, PartialEq)]
pub struct WppTrace {
    pub grammar: Grammar,
    /// Terminal `t` is `symbols[t]`.
    pub symbols: Vec<PathKey>,
    /// `LeaveRoutine` events with no routine to leave.
    pub unmatched_leaves: u64,
}

impl WppTrace {
    /// The profile's `"wpp"` field, with `symbols[t]` describing terminal `t`.
    pub fn section(&self, symbols: Vec<PathSymbol>) -> Result<WppSection, WppError> {
        WppSection::new(symbols, self.grammar.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wpp::Sequitur;

    #[test]
    fn events_become_dense_symbols() {
        let mut w = PathSymbols::new();
        let mut s = Sequitur::new();
        w.enter_routine(7);
        for _ in 0..3 {
            s.push(w.new_path(0));
            w.enter_routine(9);
            s.push(w.new_path(5));
            w.leave_routine();
            s.push(w.new_path(1));
        }
        w.leave_routine();
        w.leave_routine();
        s.push(w.new_path(2));
        assert_eq!(s.len(), 10);
        let trace = w.trace(s.finish());
        assert_eq!(trace.grammar.expand(), [0, 1, 2, 0, 1, 2, 0, 1, 2, 3]);
        assert_eq!(
            trace.symbols,
            [
                PathKey {
                    function: 7,
                    path: 0
                },
                PathKey {
                    function: 9,
                    path: 5
                },
                PathKey {
                    function: 7,
                    path: 1
                },
                PathKey {
                    function: NO_ROUTINE,
                    path: 2
                },
            ]
        );
        assert_eq!(trace.unmatched_leaves, 1);
        let symbols = trace
            .symbols
            .iter()
            .map(|k| PathSymbol {
                function: format!("f{}", k.function),
                path: k.path,
                cost: (k.function == 9).then_some(4),
                lines: vec![],
            })
            .collect();
        let section = trace.section(symbols).unwrap();
        let value = section.to_value();
        assert_eq!(value["trace_length"], 10);
        assert_eq!(value["symbols"][1]["function"], "f9");
        assert_eq!(value["symbols"][1]["cost"], 4);
        assert!(value["symbols"][0].get("cost").is_none());
        assert_eq!(WppSection::from_value(&value).unwrap(), section);
    }

    #[test]
    fn section_validation() {
        let trace = {
            let mut w = PathSymbols::new();
            let mut s = Sequitur::new();
            for p in [0, 1, 0, 1, 0, 1] {
                s.push(w.path(0, p));
            }
            w.trace(s.finish())
        };
        let symbols = trace
            .symbols
            .iter()
            .map(|k| PathSymbol {
                function: "main".into(),
                path: k.path,
                cost: None,
                lines: vec![],
            })
            .collect();
        let good = trace.section(symbols).unwrap().to_value();
        let mut v = good.clone();
        v["trace_length"] = 5.into();
        assert!(matches!(
            WppSection::from_value(&v),
            Err(WppError::TraceLength {
                recorded: 5,
                actual: 6
            })
        ));
        let mut v = good.clone();
        v["symbols"].as_array_mut().unwrap().pop();
        assert!(matches!(
            WppSection::from_value(&v),
            Err(WppError::UnknownSymbol {
                terminal: 1,
                symbols: 1
            })
        ));
        for bad in [
            serde_json::json!(null),
            serde_json::json!({ "symbols": [], "trace_length": 0, "rules": [["R1"]] }),
            serde_json::json!({ "symbols": [], "trace_length": 0, "rules": [[], ["R1", 0]] }),
            serde_json::json!({ "symbols": [], "trace_length": 0 }),
        ] {
            assert!(matches!(
                WppSection::from_value(&bad),
                Err(WppError::Malformed(_))
            ));
        }
    }
}
