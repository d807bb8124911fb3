//! One module per profiling mode, each with the same two halves of one small interface:
//!
//! - `plan(...)`, run once by the compiler on a function's CFG and the mode's inputs: a [`Plan`]
//!   holding the counter table's layout, the code to put on each CFG edge (the compiler's
//!   `profiling::<mode>` turns it into MIR), and the tables that decoding needs. The plan is
//!   shipped with the program (inside its [`crate::spec::ProfileSpec`]), so the runtime never
//!   numbers or places anything itself.
//! - `decode(...)`, run by the program when it ends: the function's [`FunctionProfile`] from the
//!   plan and the counters the run left. `wpp` decodes the whole-program trace instead of
//!   counters ([`wpp::decode`]).
//!
//! A new mode is a module here, a module in the compiler's `profiling`, and one variant in
//! [`Plan`] and in the profile's [`crate::profile::ModeRecord`].

pub mod bl;
pub mod block;
pub mod edge;
pub mod kbl;
pub mod ppp;
pub mod tpp;
pub mod wpp;

use serde::{Deserialize, Serialize};

use crate::profile::{FunctionProfile, Mode, ModeRecord, Storage};
use crate::spec::FunctionSpec;

/// One function's plan, in the mode the program was instrumented for.
// One plan per function, made once: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Plan {
    Block(block::Plan),
    Edge(edge::Plan),
    Bl(bl::Plan),
    Ppp(ppp::Plan),
    Tpp(tpp::Plan),
    /// `kbl` numbers its paths as `bl` does, and counts their sequences.
    Kbl(kbl::Plan),
    Wpp(wpp::Plan),
}

/// A function's counter table: `len` 64-bit counters, kept in the runtime's hash table
/// instead of an array when `hashed`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    pub len: u64,
    pub hashed: bool,
}

/// The counters one table held when the program ended, as (index, count) pairs with nonzero
/// counts.
pub type Counters = Vec<(u64, u64)>;

/// What a function's tables held: its own, and for `ppp` the residual paths by Ball-Larus id.
#[derive(Clone, Copy, Debug)]
pub struct FunctionCounters<'a> {
    pub counts: &'a Counters,
    pub residual: &'a Counters,
}

impl Layout {
    /// An array of `len` counters in the program's memory.
    pub fn array(len: u64) -> Layout {
        Layout { len, hashed: false }
    }
}

impl Plan {
    pub fn mode(&self) -> Mode {
        match self {
            Plan::Block(_) => Mode::Block,
            Plan::Edge(_) => Mode::Edge,
            Plan::Bl(_) => Mode::Bl,
            Plan::Ppp(_) => Mode::Ppp,
            Plan::Tpp(_) => Mode::Tpp,
            Plan::Kbl(_) => Mode::Kbl,
            Plan::Wpp(_) => Mode::Wpp,
        }
    }

    /// The potential paths the function's counters are indexed by (0 for `edge` and `block`,
    /// whose paths are not numbered).
    pub fn num_paths(&self) -> u64 {
        match self {
            Plan::Block(_) | Plan::Edge(_) => 0,
            Plan::Bl(plan) | Plan::Kbl(kbl::Plan { paths: plan, .. }) => plan.numbering.num_paths(),
            Plan::Ppp(plan) => plan.ppp.ball_larus().num_paths(),
            Plan::Tpp(plan) => plan.num_paths(),
            Plan::Wpp(plan) => plan.split.pieces.num_paths(),
        }
    }

    /// The function's counter table.
    pub fn layout(&self) -> Layout {
        match self {
            Plan::Block(plan) => plan.layout(),
            Plan::Edge(plan) => plan.layout(),
            Plan::Bl(plan) => plan.layout,
            Plan::Kbl(plan) => plan.layout(),
            Plan::Ppp(plan) => plan.layout,
            Plan::Tpp(plan) => plan.layout(),
            // `wpp` streams its paths instead of counting them.
            Plan::Wpp(_) => Layout::array(0),
        }
    }

    /// The function's record from its counters.
    pub fn decode(
        &self,
        function: &FunctionSpec,
        counters: FunctionCounters,
    ) -> Result<FunctionProfile, String> {
        match self {
            Plan::Block(plan) => block::decode(plan, function, counters.counts),
            Plan::Edge(plan) => edge::decode(plan, function, counters.counts),
            Plan::Bl(plan) => bl::decode(plan, function, counters.counts),
            Plan::Ppp(plan) => ppp::decode(plan, function, counters),
            Plan::Tpp(plan) => tpp::decode(plan, function, counters.counts),
            Plan::Kbl(plan) => kbl::decode(plan, function, counters.counts),
            Plan::Wpp(_) => Err("a wpp profile is decoded from its trace".to_string()),
        }
    }
}

/// The record of a function whose paths are not numbered (`edge`, `block`): its counters are an
/// array whatever its size.
fn unnumbered(function: &FunctionSpec, record: ModeRecord) -> FunctionProfile {
    FunctionProfile::new(
        &function.name,
        &function.cfg_hash,
        0,
        Storage::Array,
        record,
    )
}

/// A dense table of `len` counters from the (index, count) pairs a run left.
fn counter_table(len: usize, counts: &Counters, what: &str) -> Result<Vec<u64>, String> {
    let mut table = vec![0u64; len];
    for &(index, count) in counts {
        let slot = usize::try_from(index)
            .ok()
            .and_then(|i| table.get_mut(i))
            .ok_or_else(|| format!("{what} counter {index} out of range"))?;
        *slot = count;
    }
    Ok(table)
}
