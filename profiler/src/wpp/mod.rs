//! Whole program paths (Larus, PLDI 1999; seed [WPP]).
//!
//! The WPP runtime turns the program's stream of executed acyclic paths, cut also before calls
//! ([`pieces`]), into terminal symbols ([`PathSymbols`]) and compresses it online with
//! SEQUITUR(1) ([`Sequitur`]). The result is a
//! [`Grammar`], whose DAG is the whole program path; it goes into the profile's `"wpp"` field as a
//! [`WppSection`], from which `pcc wpp expand` regenerates the trace and `pcc wpp hot` finds the
//! minimal hot subpaths ([`hot_subpaths`], Fig. 7).

pub mod blocks;
mod digrams;
pub mod grammar;
#[cfg(feature = "analysis")]
pub mod hot;
pub mod pieces;
pub mod section;
pub mod sequitur;
pub mod trace;

pub use blocks::BlockSequitur;
pub use grammar::{
    Expansion, Grammar, GrammarError, IndexTooLarge, MAX_INDEX_ENTRIES, Occurrences, Symbol,
};
#[cfg(feature = "analysis")]
pub use hot::{HotParams, HotSubpath, hot_subpaths};
pub use pieces::{CallSplit, JoinedCounts, PieceEffect, Rejoin, RejoinError, SplitError};
pub use section::{PathSymbol, WppError, WppSection};
pub use sequitur::Sequitur;
pub use trace::{KeyHasher, PathKey, PathSymbols, WppTrace};
