//! `kbl`: k-iteration path profiling ([KBLPP]). The paths are numbered as in `bl`; how a
//! function's sequences of paths are counted depends on its paths ([`Sequences`]), and every
//! way gives the same k-IPF, whose first level counts each path executed: the `bl` counts.
//!
//! - A function without back edges runs at most one path per activation, so its k-IPF is known
//!   from the counts alone: each activation is `*` then its path, and the k-SF only ever gets
//!   roots, counting the paths exactly as `bl` does. It counts its paths as `bl` does.
//! - A function with few paths counts *windows*: the generated code keeps the last `k` path ids
//!   of the activation packed in one integer, and counts that integer in a table, as `bl`
//!   counts a path id ([`Sequences::Windows`]). This departs from [KBLPP], whose k-slab forest
//!   ([`crate::kbl::KSlabForest`]) is built from a stream of ids by the runtime: a window costs
//!   the program three instructions and a counter per path, where streaming an id and walking
//!   the forest with it cost several times the path itself in a call-heavy program. The k-IPF
//!   is made from the window counts when the program ends
//!   ([`crate::kbl::k_ipf_of_windows`]), the same forest as the k-SF's.
//! - A function with more paths, whose windows would not fit a table indexed by window, counts
//!   them in a table keyed by window ([`Sequences::KeyedWindows`]): one probe of the generated
//!   code finds a window at its home slot; the runtime finds or adds the others.
//! - Any other function streams its ids to the runtime's k-slab forest, whose k-IPF makes the
//!   record when the program ends ([`with_forest`]).

use serde::{Deserialize, Serialize};

use super::{Counters, Layout, bl};
use crate::cfg::EdgeId;
use crate::dag::EdgeRole;
use crate::kbl::k_ipf_of_windows;
use crate::profile::{FunctionProfile, KblRecord, KipfNode, ModeRecord};
use crate::spec::FunctionSpec;

/// A window table has at most `2^MAX_WINDOW_BITS` counters (8 MiB), and a program's window tables
/// at most [`MAX_PROGRAM_WINDOWS`] (64 MiB, which the JIT zeroes); the other functions stream.
pub const MAX_WINDOW_BITS: u32 = 20;
pub const MAX_PROGRAM_WINDOWS: u64 = 1 << 23;

/// A keyed window table has `2^KEYED_SLOTS_LOG2` slots of two words: the window plus one (0 in
/// an empty slot) and its count.
pub const KEYED_SLOTS_LOG2: u32 = 14;

/// The home slot of `window` in a keyed window table (Fibonacci hashing: the top bits of the
/// product); the generated code computes the same.
pub fn keyed_home_slot(window: u64) -> u64 {
    window.wrapping_mul(FIBONACCI) >> (u64::BITS - KEYED_SLOTS_LOG2)
}

/// 2^64 divided by the golden ratio, odd.
pub const FIBONACCI: u64 = 0x9E37_79B9_7F4A_7C15;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// The paths, numbered and placed as `bl` does.
    pub paths: bl::Plan,
    pub sequences: Sequences,
}

/// How a function's sequences of paths are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sequences {
    /// One path per activation (no back edge): the path counts are the k-IPF's roots.
    Single,
    /// The packed windows of the last `k` ids are counted: an activation starts with every
    /// `bits`-bit digit all ones (`*`, no path), and a path `r` shifts in its digit,
    /// `window = ((window << bits) | r) & mask`, then counts `window`. Ids are below
    /// `2^bits − 1`, so the all-ones digit is never an id.
    Windows { bits: u32, k: u32 },
    /// The same windows, counted in a keyed table (`bits · k` ≤ 62, so the window plus one
    /// fits and is never 0).
    KeyedWindows { bits: u32, k: u32 },
    /// The ids are streamed to the runtime's k-slab forest.
    Stream,
}

impl Sequences {
    /// All ones in each of the window's digits: the window at an activation's start.
    pub fn window_mask(bits: u32, k: u32) -> u64 {
        (1u64 << (bits * k)) - 1
    }

    /// Whether the counter table is keyed by window.
    pub fn keyed(self) -> bool {
        matches!(self, Sequences::KeyedWindows { .. })
    }
}

/// How `paths` (`kbl` with sequences of `k` paths) counts its sequences; a window table is taken
/// out of the program's `budget` of counters.
pub fn plan(paths: bl::Plan, k: usize, budget: &mut u64) -> Plan {
    let dag = paths.numbering.dag();
    let loops =
        (0..dag.num_cfg_edges()).any(|e| matches!(dag.role(EdgeId(e)), EdgeRole::Closing { .. }));
    // Digits wide enough for every id and the all-ones `*`.
    let bits = u64::BITS - paths.numbering.num_paths().leading_zeros();
    let k = u32::try_from(k.max(1)).unwrap_or(u32::MAX);
    let digits = bits.saturating_mul(k);
    let keyed = 2 << KEYED_SLOTS_LOG2;
    let sequences = match () {
        _ if !loops => Sequences::Single,
        _ if paths.layout.hashed => Sequences::Stream,
        _ if digits <= MAX_WINDOW_BITS && 1 << digits <= *budget => {
            *budget -= 1 << digits;
            Sequences::Windows { bits, k }
        }
        _ if digits <= 62 && keyed <= *budget => {
            *budget -= keyed;
            Sequences::KeyedWindows { bits, k }
        }
        _ => Sequences::Stream,
    };
    Plan { paths, sequences }
}

impl Plan {
    /// Whether the function streams its path ids to its forest.
    pub fn streams(&self) -> bool {
        self.sequences == Sequences::Stream
    }

    /// The counter table: one counter per path, or per window.
    pub fn layout(&self) -> Layout {
        match self.sequences {
            Sequences::Windows { bits, k } => Layout::array(1 << (bits * k)),
            Sequences::KeyedWindows { .. } => Layout::array(2 << KEYED_SLOTS_LOG2),
            Sequences::Single | Sequences::Stream => self.paths.layout,
        }
    }
}

/// The record of a function that does not stream, from its counters: a root per executed path,
/// or the k-IPF of its windows. A function that streams has no counts and gets its record from
/// [`with_forest`].
pub fn decode(
    plan: &Plan,
    function: &FunctionSpec,
    counts: &Counters,
) -> Result<FunctionProfile, String> {
    match plan.sequences {
        Sequences::Single => with_forest(plan, function, roots(counts)),
        Sequences::Windows { bits, k } | Sequences::KeyedWindows { bits, k } => {
            let windows = (counts.iter()).map(|&(window, count)| (unpack(window, bits, k), count));
            with_forest(plan, function, k_ipf_of_windows(windows))
        }
        Sequences::Stream => with_forest(plan, function, Vec::new()),
    }
}

/// A root per path counted.
fn roots(counts: &Counters) -> Vec<KipfNode> {
    let mut kipf: Vec<KipfNode> = (counts.iter())
        .filter(|&&(_, count)| count > 0)
        .map(|&(id, count)| KipfNode {
            id,
            count,
            children: Vec::new(),
        })
        .collect();
    kipf.sort_unstable_by_key(|node| node.id);
    kipf
}

/// The ids of a packed window, oldest first, without its leading `*` digits.
fn unpack(window: u64, bits: u32, k: u32) -> Vec<u64> {
    let star = (1u64 << bits) - 1;
    (0..k)
        .rev()
        .map(|digit| (window >> (digit * bits)) & star)
        .skip_while(|&id| id == star)
        .collect()
}

/// The `kbl` record of a function from its k-IPF: its paths are the k-IPF's roots.
pub fn with_forest(
    plan: &Plan,
    function: &FunctionSpec,
    kipf: Vec<KipfNode>,
) -> Result<FunctionProfile, String> {
    let counts: Counters = kipf.iter().map(|root| (root.id, root.count)).collect();
    (plan.paths).record(function, &counts, ModeRecord::Kbl(KblRecord { kipf }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window packs its ids oldest first below the `*` digits of an activation's start.
    #[test]
    fn windows_unpack_oldest_first_without_stars() {
        let (bits, k) = (3, 4);
        let mut window = Sequences::window_mask(bits, k);
        assert_eq!(unpack(window, bits, k), Vec::<u64>::new());
        for (r, expected) in [(5, vec![5]), (0, vec![5, 0]), (6, vec![5, 0, 6])] {
            window = ((window << bits) | r) & Sequences::window_mask(bits, k);
            assert_eq!(unpack(window, bits, k), expected);
        }
        for r in [1, 2] {
            window = ((window << bits) | r) & Sequences::window_mask(bits, k);
        }
        assert_eq!(unpack(window, bits, k), vec![0, 6, 1, 2]);
    }
}
