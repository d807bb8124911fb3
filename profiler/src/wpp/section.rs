//! The profile's top-level `"wpp"` field (docs/PROFILE-FORMAT.md): the symbol table, the grammar
//! rules and the trace length.
//!
//! ```json
//! "wpp": { "symbols": [ { "function": "main", "path": 3, "cost": 12, "lines": [4, 5] }, ... ],
//!          "trace_length": 1000000,
//!          "rules": [ ["R1", 0, "R1"], [1, 2, 2], ... ] }
//! ```
//! Terminal `t` of the grammar is the acyclic path `symbols[t]` ([WPP] §3.3: a symbol stands for an
//! executed (routine, path) pair); `"R<n>"` refers to rule `n`, and rule 0 is the start rule.

use super::grammar::Grammar;
use serde::{Deserialize, Serialize};

/// One executed acyclic path: Ball-Larus path `path` of function `function`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PathSymbol {
    pub function: String,
    pub path: u64,
    /// The path's cost for `pcc wpp hot` ([WPP] §5.2 uses its instruction count), when the
    /// compiler supplies it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<u64>,
    /// The source lines the path covers, in execution order (consecutive duplicates removed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<u32>,
}

/// The `"wpp"` field of a profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WppSection {
    /// Indexed by terminal symbol.
    pub symbols: Vec<PathSymbol>,
    /// Number of acyclic paths in the trace (the grammar's expansion length).
    pub trace_length: u64,
    pub rules: Grammar,
}

/// Why a `"wpp"` field is unusable.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WppError {
    /// Not the expected JSON shape, or an invalid grammar (see [`super::GrammarError`]).
    #[error("malformed wpp data: {0}")]
    Malformed(String),
    /// The grammar uses terminal `terminal` but the symbol table has only `symbols` entries.
    #[error("wpp grammar uses path symbol {terminal}, but the symbol table has {symbols}")]
    UnknownSymbol { terminal: u64, symbols: usize },
    /// `trace_length` disagrees with the grammar.
    #[error("wpp trace_length is {recorded}, but the grammar generates {actual} paths")]
    TraceLength { recorded: u64, actual: u64 },
}

impl WppSection {
    /// Builds the field from a finished grammar and its symbol table.
    pub fn new(symbols: Vec<PathSymbol>, rules: Grammar) -> Result<WppSection, WppError> {
        let section = WppSection {
            symbols,
            trace_length: rules.trace_length(),
            rules,
        };
        section.validate()?;
        Ok(section)
    }

    /// Checks what the grammar's own validation cannot: every terminal has a symbol, and the
    /// recorded trace length is the grammar's.
    pub fn validate(&self) -> Result<(), WppError> {
        let bound = self.rules.terminal_bound();
        if bound > self.symbols.len() as u64 {
            return Err(WppError::UnknownSymbol {
                terminal: bound - 1,
                symbols: self.symbols.len(),
            });
        }
        let actual = self.rules.trace_length();
        if actual != self.trace_length {
            return Err(WppError::TraceLength {
                recorded: self.trace_length,
                actual,
            });
        }
        Ok(())
    }

    /// The acyclic path of terminal `t`, if the table has it.
    pub fn symbol(&self, t: u32) -> Option<&PathSymbol> {
        self.symbols.get(t as usize)
    }

    /// The JSON value stored in `Profile::wpp`.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_else(|e| unreachable!("serializing wpp: {e}"))
    }

    /// Reads and validates `Profile::wpp`. Never panics, whatever the value.
    pub fn from_value(value: &serde_json::Value) -> Result<WppSection, WppError> {
        let section =
            WppSection::deserialize(value).map_err(|e| WppError::Malformed(e.to_string()))?;
        section.validate()?;
        Ok(section)
    }
}
