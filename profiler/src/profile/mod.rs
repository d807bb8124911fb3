//! The profile data model and its JSON file format (docs/PROFILE-FORMAT.md), with reading,
//! atomic writing, merging, path-spectra comparison and reports.
//!
//! In memory a function's mode-specific data is a typed [`ModeRecord`]; in the file its fields sit
//! beside the common ones, as docs/PROFILE-FORMAT.md documents (`wire` translates). Field names
//! are the file format: do not rename them.

mod io;
mod layout;
mod printable;
mod source;
mod wire;
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
pub use merge::{MergeError, MergeRefusal, Merged, Merger, merge, merge_saturating};
pub use printable::{clipped, printable, printable_line, printable_path};
#[cfg(feature = "analysis")]
pub use report::{
    Coverage, Covering, FunctionSummary, HotBlock, HotEdge, HotPath, HotSequence, PathRun,
    ShowReport, show,
};
pub use source::{
    Kinship, MAX_SOURCE_BYTES, SourceFile, SourceState, content_hash, kinship, open_regular,
    read_regular, read_source,
};
#[cfg(feature = "analysis")]
pub use text::{MAX_COLUMN, SourceLines};

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::tpp::TppConfig;
use crate::wpp::WppSection;

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

    /// What a profile of this mode counts in all, as views name it.
    pub fn unit(self) -> &'static str {
        match self {
            Mode::Edge => "edge executions",
            Mode::Block => "block executions",
            _ => "path executions",
        }
    }

    /// Whether a profile of this mode lists Ball-Larus paths by their ids ([PFP] numbering):
    /// `bl`, and `ppp`, `kbl` and `wpp`, which decode their own counters back to those paths.
    /// Profiles of any two of these modes can be compared path by path.
    pub fn lists_ball_larus_paths(self) -> bool {
        matches!(self, Mode::Bl | Mode::Ppp | Mode::Kbl | Mode::Wpp)
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
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    pub format: String,
    pub version: u32,
    pub mode: Mode,
    pub program: String,
    pub args: Vec<String>,
    /// The source file the profile was taken from.
    pub source: SourceFile,
    pub functions: Vec<FunctionProfile>,
    /// `wpp`: the symbol table, grammar rules and trace length.
    pub wpp: Option<WppSection>,
    /// `tpp`: the thresholds the paths were numbered with (with each function's
    /// `edge_counts`, what `pcc profile aodf` needs to rebuild the numbering).
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

/// One function's part of a profile: what every mode records, and the mode's own record.
/// The file keeps the mode's fields next to the common ones (docs/PROFILE-FORMAT.md); `wire`
/// translates.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionProfile {
    pub name: String,
    /// Hash of the function's CFG before instrumentation; a profile only applies to the same code.
    pub cfg_hash: String,
    /// Potential acyclic paths of the function's DAG (0 where paths are not numbered).
    pub num_paths: u64,
    pub storage: Storage,
    /// Whether edges were cut to bound `num_paths` (paths end and start at the cut edges).
    pub truncated: bool,
    /// Executed paths only (for `ppp`, the interesting ones).
    pub paths: Vec<PathCount>,
    pub record: ModeRecord,
}

/// What one mode records of a function beyond its paths.
#[derive(Clone, Debug, PartialEq)]
pub enum ModeRecord {
    Block(BlockRecord),
    Edge(EdgeRecord),
    Bl,
    Ppp(PppRecord),
    Tpp(TppRecord),
    Kbl(KblRecord),
    /// `wpp` keeps its whole-program data in [`Profile::wpp`].
    Wpp,
}

/// `block`: one entry per basic block, in id order (block ids are `0..num_blocks`).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockRecord {
    pub num_blocks: usize,
    pub blocks: Vec<BlockCount>,
}

/// `edge`: one entry per CFG edge; `num_blocks` names EXIT, where every `return` goes.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeRecord {
    pub num_blocks: usize,
    pub edges: Vec<EdgeCount>,
    /// Activations still running when the profile was written (`exit()` or a runtime error
    /// below them, a signal); `edges` has the edges they took.
    pub unfinished: u64,
}

/// `ppp` ([PPP]): the interesting paths' numbering, and the executed paths outside it.
#[derive(Clone, Debug, PartialEq)]
pub struct PppRecord {
    /// Ball-Larus ids of the interesting paths.
    pub interesting: Vec<u64>,
    /// Size of the interval of PPP ids.
    pub range: u64,
    /// Compactness, range / number of interesting paths ([PPP] Problem A).
    pub rho: Option<f64>,
    /// Executed paths outside the interesting set.
    pub residual: Vec<PathCount>,
}

/// `tpp` ([TPP]): what the hot-path numbering left to the edge profile.
#[derive(Clone, Debug, PartialEq)]
pub struct TppRecord {
    /// Executions of cold paths (poisoned path register).
    pub cold_count: u64,
    /// Paths whose counts come from the edge profile (they are in `paths` too).
    pub obvious: Vec<PathCount>,
    /// The input edge profile's count of each CFG edge, which the hot paths are numbered from
    /// ([TPP] §4); `None` when the function had no usable edge profile (missing or stale) and
    /// was profiled like `bl`: its ids are then Ball-Larus ids.
    pub edge_counts: Option<Vec<u64>>,
}

impl TppRecord {
    pub fn bl_fallback(&self) -> bool {
        self.edge_counts.is_none()
    }
}

/// `kbl` ([KBLPP]): the k-iteration path forest.
#[derive(Clone, Debug, PartialEq)]
pub struct KblRecord {
    pub kipf: Vec<KipfNode>,
}

impl FunctionProfile {
    /// A function with no executed paths and `record` as its mode's data.
    pub fn new(
        name: impl Into<String>,
        cfg_hash: impl Into<String>,
        num_paths: u64,
        storage: Storage,
        record: ModeRecord,
    ) -> FunctionProfile {
        FunctionProfile {
            name: name.into(),
            cfg_hash: cfg_hash.into(),
            num_paths,
            storage,
            truncated: false,
            paths: Vec::new(),
            record,
        }
    }

    /// Every executed path: for `ppp` the interesting ones then the residual ones.
    pub fn executed_paths(&self) -> impl Iterator<Item = &PathCount> {
        self.paths.iter().chain(self.residual())
    }

    /// `ppp`'s residual paths (none in other modes).
    pub fn residual(&self) -> &[PathCount] {
        match &self.record {
            ModeRecord::Ppp(ppp) => &ppp.residual,
            _ => &[],
        }
    }

    /// The blocks of an `edge` or `block` record (EXIT is this number).
    pub fn num_blocks(&self) -> Option<usize> {
        match &self.record {
            ModeRecord::Block(b) => Some(b.num_blocks),
            ModeRecord::Edge(e) => Some(e.num_blocks),
            _ => None,
        }
    }

    /// The edge counts of an `edge` record.
    pub fn edges(&self) -> Option<&[EdgeCount]> {
        match &self.record {
            ModeRecord::Edge(e) => Some(&e.edges),
            _ => None,
        }
    }

    /// The block counts of a `block` record.
    pub fn blocks(&self) -> Option<&[BlockCount]> {
        match &self.record {
            ModeRecord::Block(b) => Some(&b.blocks),
            _ => None,
        }
    }
}

impl ModeRecord {
    /// The mode whose record this is.
    pub fn mode(&self) -> Mode {
        match self {
            ModeRecord::Block(_) => Mode::Block,
            ModeRecord::Edge(_) => Mode::Edge,
            ModeRecord::Bl => Mode::Bl,
            ModeRecord::Ppp(_) => Mode::Ppp,
            ModeRecord::Tpp(_) => Mode::Tpp,
            ModeRecord::Kbl(_) => Mode::Kbl,
            ModeRecord::Wpp => Mode::Wpp,
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
