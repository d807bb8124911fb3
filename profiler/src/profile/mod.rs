//! The profile data model and its JSON file format (docs/PROFILE-FORMAT.md), with reading,
//! atomic writing, merging, path-spectra comparison and reports.
//!
//! Field names are the file format: do not rename them. Mode-specific fields are optional and
//! left out of the file when absent.

mod io;
mod source;
// What the commands do with profiles, not needed by a running program (feature `analysis`).
#[cfg(feature = "analysis")]
mod diff;
#[cfg(feature = "analysis")]
mod merge;
#[cfg(feature = "analysis")]
mod report;
#[cfg(feature = "analysis")]
mod text;

#[cfg(feature = "analysis")]
pub use diff::{
    BlockChange, CountChange, DiffError, EdgeChange, FunctionComparison, FunctionDiff, Spectra,
    SpectraDiff, diff,
};
pub use io::{ProfileError, ProfileErrorKind};
#[cfg(feature = "analysis")]
pub use merge::{MergeError, MergeRefusal, merge};
#[cfg(feature = "analysis")]
pub use report::{
    FunctionSummary, HotBlock, HotEdge, HotPath, HotSequence, PathRun, ShowReport, show,
};
pub use source::{Kinship, SourceFile, SourceState, content_hash, kinship};
#[cfg(feature = "analysis")]
pub use text::SourceLines;

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::tpp::TppConfig;

/// The value of the `format` field.
pub const FORMAT: &str = "pcc-profile";
/// The only `version` this code reads and writes (docs/PROFILE-FORMAT.md). Version 1 had no
/// `source`, no block ids on edges, and line 0 for blocks made by lowering.
pub const VERSION: u32 = 2;

/// The profiling mode (`--profile MODE`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Block,
    Edge,
    Bl,
    Ppp,
    Tpp,
    Kbl,
    Wpp,
}

impl Mode {
    pub const ALL: [Mode; 7] = [
        Mode::Block,
        Mode::Edge,
        Mode::Bl,
        Mode::Ppp,
        Mode::Tpp,
        Mode::Kbl,
        Mode::Wpp,
    ];

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Block => "block",
            Mode::Edge => "edge",
            Mode::Bl => "bl",
            Mode::Ppp => "ppp",
            Mode::Tpp => "tpp",
            Mode::Kbl => "kbl",
            Mode::Wpp => "wpp",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    fn from_str(name: &str) -> Result<Mode, String> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| format!("unknown profiling mode `{name}`"))
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the runtime keeps a function's path counters.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Storage {
    /// One counter per potential path, indexed by path id.
    Array,
    /// A hash table keyed by path id, for functions with too many potential paths.
    Hash,
    /// `tpp`: no counters, no code: every path is obvious ([TPP] §4.2.2).
    None,
}

impl Storage {
    /// An array when the function has at most `array_limit` potential paths ([PPP] §2.3).
    pub fn choose(num_paths: u64, array_limit: u64) -> Storage {
        if num_paths <= array_limit {
            Storage::Array
        } else {
            Storage::Hash
        }
    }
}

/// A whole profile file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub format: String,
    pub version: u32,
    pub mode: Mode,
    pub program: String,
    pub args: Vec<String>,
    /// The source file the profile was taken from.
    pub source: SourceFile,
    pub functions: Vec<FunctionProfile>,
    /// `wpp`: the symbol table, grammar rules and trace length; its shape belongs to the WPP
    /// implementation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wpp: Option<serde_json::Value>,
    /// `tpp`: the thresholds the paths were numbered with (with each function's
    /// `edge_counts`, what `pcc profile aodf` needs to rebuild the numbering).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpp: Option<TppConfig>,
}

impl Profile {
    /// An empty profile of the current format and version.
    pub fn new(mode: Mode, source: SourceFile, args: Vec<String>) -> Profile {
        Profile {
            format: FORMAT.to_string(),
            version: VERSION,
            mode,
            program: source.path.clone(),
            args,
            source,
            functions: Vec::new(),
            wpp: None,
            tpp: None,
        }
    }

    pub fn function(&self, name: &str) -> Option<&FunctionProfile> {
        self.functions.iter().find(|f| f.name == name)
    }
}

/// One function's part of a profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionProfile {
    pub name: String,
    /// Hash of the function's CFG before instrumentation; a profile only applies to the same code.
    pub cfg_hash: String,
    /// Potential acyclic paths of the function's DAG.
    pub num_paths: u64,
    pub storage: Storage,
    /// Whether edges were cut to bound `num_paths` (paths end and start at the cut edges).
    #[serde(default, skip_serializing_if = "is_false")]
    pub truncated: bool,
    /// Executed paths only.
    pub paths: Vec<PathCount>,
    /// `edge`, `block`: how many basic blocks the function has; block ids are
    /// `0..num_blocks`, and `num_blocks` itself names EXIT, where every `return` goes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_blocks: Option<usize>,
    /// `edge`: one entry per CFG edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edges: Option<Vec<EdgeCount>>,
    /// `block`: one entry per basic block, in id order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<BlockCount>>,
    /// `edge`: activations still running when the profile was written (`exit()` or a runtime
    /// error below them, a signal); `edges` has the edges they took.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unfinished: u64,
    /// `ppp`: Ball-Larus ids of the interesting paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interesting: Option<Vec<u64>>,
    /// `ppp`: size of the interval of PPP ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<u64>,
    /// `ppp`: compactness, range / number of interesting paths ([PPP] Problem A).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rho: Option<f64>,
    /// `ppp`: executed paths outside the interesting set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residual: Option<Vec<PathCount>>,
    /// `tpp`: executions of cold paths (poisoned path register).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_count: Option<u64>,
    /// `tpp`: paths whose counts come from the edge profile (they are in `paths` too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub obvious: Option<Vec<PathCount>>,
    /// `tpp`: the input edge profile's count of each CFG edge, which the hot paths are
    /// numbered from ([TPP] §4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge_counts: Option<Vec<u64>>,
    /// `tpp`: no usable edge profile for this function (missing or stale), so it was
    /// profiled like `bl`: its ids are Ball-Larus ids.
    #[serde(default, skip_serializing_if = "is_false")]
    pub bl_fallback: bool,
    /// `kbl`: the k-iteration path forest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kipf: Option<Vec<KipfNode>>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl FunctionProfile {
    /// A function with no executed paths and no mode-specific data.
    pub fn new(
        name: impl Into<String>,
        cfg_hash: impl Into<String>,
        num_paths: u64,
        storage: Storage,
    ) -> FunctionProfile {
        FunctionProfile {
            name: name.into(),
            cfg_hash: cfg_hash.into(),
            num_paths,
            storage,
            truncated: false,
            paths: Vec::new(),
            num_blocks: None,
            edges: None,
            blocks: None,
            unfinished: 0,
            interesting: None,
            range: None,
            rho: None,
            residual: None,
            cold_count: None,
            obvious: None,
            edge_counts: None,
            bl_fallback: false,
            kipf: None,
        }
    }
}

/// An executed path: its id, how often it ran, and its source lines in execution order
/// (consecutive duplicates removed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathCount {
    pub id: u64,
    pub count: u64,
    pub lines: Vec<u32>,
}

/// An edge-profile entry: the blocks it joins (`to_block` is the function's `num_blocks` for an
/// edge into EXIT), the last line of `from_block` and the first of `to_block` (for EXIT, the
/// function's closing brace), and how often it was taken.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeCount {
    pub from_block: usize,
    pub to_block: usize,
    pub from_line: u32,
    pub to_line: u32,
    pub count: u64,
}

/// A block-profile entry: the block, its source lines (its statements' lines in execution
/// order, or the block's own line when it has no statement) and how often control entered it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockCount {
    pub block: usize,
    pub lines: Vec<u32>,
    pub count: u64,
}

/// A node of a k-iteration path forest ([KBLPP]): a path id, the count of the sequence of ids from
/// the root to here, and the sequences extending it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KipfNode {
    pub id: u64,
    pub count: u64,
    #[serde(default)]
    pub children: Vec<KipfNode>,
}
