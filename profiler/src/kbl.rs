//! Multi-iteration path profiling (k-BLPP, [KBLPP]): the k-slab forest (k-SF), built online from the
//! stream of Ball-Larus path ids of one function, and its conversion into the k-iteration path
//! forest (k-IPF) at exit.
//!
//! The k-IPF of a stream is the prefix forest of every run of `1..=k` consecutive path ids that
//! contains no `*` (routine entry) marker ([KBLPP], Definition "k-Iteration Path Forest"): a
//! sequence never spans two activations. Its first level holds the plain Ball-Larus counts.
//!
//! # How the runtime drives it
//!
//! Path ids are numbered per function, so the runtime keeps one [`KSlabForest`] per function.
//! The paper keeps the stream position (`n`, `τ`, `β`) in globals; here it is a [`Cursor`], a
//! 12-byte `Copy` value that belongs to one *activation* of the function:
//!
//! | event | call |
//! |---|---|
//! | routine entry (`*`) | `let mut cursor = Cursor::ROUTINE_ENTRY;` (or [`Cursor::routine_entry`]) |
//! | path id `r` emitted | [`KSlabForest::process_bl_path_id`]`(&mut cursor, r)` |
//! | call | nothing, if the cursor lives with the activation (e.g. a stack of cursors pushed at entry and popped at return); a runtime that keeps one current cursor per function saves it before the call and restores it after |
//! | return | drop the activation's cursor (the forest is always up to date) |
//! | program exit | [`KSlabForest::make_k_ipf`] → the function's `kipf` |
//!
//! Keeping the cursor per activation is what makes a call transparent: the callee, even a
//! recursive activation of the same function sharing the same forest, starts from its own
//! `*` state and never touches the caller's cursor, so the caller's sequence resumes after the
//! call exactly where it stopped. Interleaving the updates of several cursors on one forest
//! gives the same forest as processing each activation's ids as one stream segment: the forest
//! only gains nodes and counts, and nodes never move.
//!
//! # Differences from the pseudocode
//!
//! - The cursor keeps `n mod (k−1)` rather than `n`, its only use (no division per id).
//! - Children are not found by scanning them (`O(δ)`, and a mispredicted comparison whenever
//!   a loop's path changes between iterations), but in constant time: while a function has run
//!   few distinct paths ([`DENSE_MAX_IDS`]) each node has a row of child slots, one per id seen
//!   (and so has `R`); otherwise a hash table keyed by `(parent, id)`, plus the child each node
//!   last went to, so that a loop repeating a path skips the table.
//! - `k = 1` (the paper needs `k ≥ 2`) uses chunks of one id; the 1-IPF is then the BL counts.
//! - The k-IPF lists roots and children in id order.

use std::collections::BTreeMap;

use crate::profile::KipfNode;

/// No node (`null` in the paper).
const NIL: u32 = u32::MAX;

/// An item of the stream Σ ([KBLPP] §"Ball-Larus Path Tracing Algorithm"): a path id, or the `*`
/// marker emitted at routine entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum StreamItem {
    /// `*`: a new activation of the routine starts.
    RoutineEntry,
    /// A Ball-Larus path id.
    PathId(u64),
}

/// One activation's position in the k-SF: the paper's `n`, `τ` (top) and `β` (bottom).
///
/// A cursor is only meaningful for the forest it was used with.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// `n mod (k − 1)`: ids since the last `*`, modulo the chunk length.
    n: u32,
    /// Current node in the upper slab (levels `0..=k−2`), or [`NIL`].
    tau: u32,
    /// Current node in the lower slab (levels `k−1..=2k−3`), or [`NIL`].
    beta: u32,
}

impl Cursor {
    /// The state right after a `*` marker: the cursor of a new activation.
    pub const ROUTINE_ENTRY: Cursor = Cursor {
        n: 0,
        tau: NIL,
        beta: NIL,
    };

    /// Handles the `*` marker (`process_bl_path_id`, lines 1–5): `n ← 0`, `τ ← null`.
    ///
    /// The paper leaves `β` alone here, since the next id overwrites it with `τ = null`
    /// (line 7); clearing it too makes the state equal to [`Cursor::ROUTINE_ENTRY`].
    pub fn routine_entry(&mut self) {
        *self = Cursor::ROUTINE_ENTRY;
    }
}

impl Default for Cursor {
    fn default() -> Cursor {
        Cursor::ROUTINE_ENTRY
    }
}

/// A k-SF node: label `ℓ` and counter `c`. Its children are found through the forest's
/// [`ChildIndex`].
#[derive(Clone, Debug)]
struct Node {
    label: u64,
    count: u64,
}

/// A forest keeps dense rows (4-byte slots, 128 bytes per node at most) while its function has
/// run at most this many distinct path ids (a power of two); the next new id moves it to hash
/// tables.
pub const DENSE_MAX_IDS: u64 = 32;

/// After this many repeats of one id, the rest of its run goes to [`KSlabForest::skip_run`].
const RUN: usize = 16;

/// Functions with at most this many potential paths start with dense rows (the table from id to
/// slot takes 4 bytes per potential path).
const DENSE_MAX_POTENTIAL_IDS: u64 = 4096;

/// How the forest finds the child of a node (or the root) labelled `r`: the paper scans the
/// children (`O(δ)`); here a lookup costs no scan and, in a loop whose path varies from one
/// iteration to the next, no mispredicted comparison.
#[derive(Clone, Debug)]
enum ChildIndex {
    /// Rows of `2^shift` slots: row 0 is `R`, row `v + 1` holds the children of node `v`; id
    /// `r` has slot `slot_of[r]`, given in the order ids are first seen. A lookup is two loads.
    Dense {
        /// The slot of each potential id, [`NIL`] until it is seen.
        slot_of: Vec<u32>,
        /// Slots per row: the potential ids, at most [`DENSE_MAX_IDS`], rounded up to a power
        /// of two (a shift, not a multiplication, finds a row).
        shift: u32,
        /// Ids seen so far: their slots are `0..seen`.
        seen: usize,
        rows: Vec<u32>,
    },
    /// Any ids: hash tables keyed by `(parent, id)`, `R` keyed with parent [`NIL`]; each node
    /// (and `R`) remembers the child it last went to, so a loop repeating a path skips the
    /// tables.
    Hashed {
        roots: ArcTable,
        arcs: ArcTable,
        /// At [`parent_index`]`(v)`: the label and index of the child of `v` last found, or
        /// [`NIL`].
        hints: Vec<(u64, u32)>,
    },
}

/// Where the index keeps the dense row or the hint of node `parent`: `R` ([`NIL`]) first, then
/// the nodes.
#[inline(always)]
fn parent_index(parent: u32) -> usize {
    parent.wrapping_add(1) as usize
}

/// Where [`ChildIndex::Dense`] keeps the child of `parent` in slot `slot`.
#[inline(always)]
fn dense_index(shift: u32, parent: u32, slot: usize) -> usize {
    (parent_index(parent) << shift) | slot
}

/// The k-slab forest of one function ([KBLPP] §"Algorithms", Definition "k-slab forest"): an arena
/// of nodes and an index of its roots `R` and arcs.
#[derive(Clone, Debug)]
pub struct KSlabForest {
    k: usize,
    /// Path ids are below this.
    num_ids: u64,
    /// Chunk length: `k − 1` (1 when `k = 1`).
    chunk: u32,
    nodes: Vec<Node>,
    index: ChildIndex,
}

impl KSlabForest {
    /// An empty k-SF for sequences of up to `k` path ids, each below `num_ids` (the function's
    /// potential paths; `u64::MAX` for any id).
    ///
    /// # Panics
    /// If `k` is 0 or does not fit in 32 bits.
    pub fn new(k: usize, num_ids: u64) -> KSlabForest {
        assert!(k >= 1, "k-iteration paths need k ≥ 1");
        let chunk = u32::try_from(k.saturating_sub(1).max(1)).expect("k fits in 32 bits");
        let index = if num_ids <= DENSE_MAX_POTENTIAL_IDS {
            let width = num_ids.min(DENSE_MAX_IDS).next_power_of_two();
            ChildIndex::Dense {
                slot_of: vec![NIL; num_ids as usize],
                shift: width.trailing_zeros(),
                seen: 0,
                rows: vec![NIL; width as usize],
            }
        } else {
            ChildIndex::Hashed {
                roots: ArcTable::new(),
                arcs: ArcTable::new(),
                hints: vec![(0, NIL)],
            }
        };
        KSlabForest {
            k,
            num_ids,
            chunk,
            nodes: Vec::new(),
            index,
        }
    }

    /// The `k` this forest counts sequences for.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Number of nodes of the k-SF.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether no path id has been processed.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Processes one item of the stream with `cursor` as the paper's `n`, `τ`, `β` ([KBLPP],
    /// Algorithm "Stream processing algorithm for k-SF construction").
    pub fn process(&mut self, cursor: &mut Cursor, item: StreamItem) {
        match item {
            StreamItem::RoutineEntry => cursor.routine_entry(),
            StreamItem::PathId(r) => self.process_bl_path_id(cursor, r),
        }
    }

    /// Processes a whole stream with one cursor, as the paper does with its globals.
    pub fn process_stream(
        &mut self,
        cursor: &mut Cursor,
        stream: impl IntoIterator<Item = StreamItem>,
    ) {
        for item in stream {
            self.process(cursor, item);
        }
    }

    /// `process_bl_path_id(r)` for a path id `r` ([KBLPP], Algorithm "Stream processing algorithm
    /// for k-SF construction", lines 6–31; the `*` case, lines 1–5, is
    /// [`Cursor::routine_entry`]). Line numbers below are those the chapter's text uses.
    ///
    /// Adds or updates at most two nodes: one in the upper slab under `τ`, one in the lower
    /// slab under `β`; only one of them is counted, so the counters sum to the number of ids.
    ///
    /// # Panics
    /// If `r` is not below the `num_ids` the forest was made for.
    #[inline]
    pub fn process_bl_path_id(&mut self, cursor: &mut Cursor, r: u64) {
        self.step(cursor, r, 1);
    }

    /// An activation that ran `ids` (from `*` to its return), `times` times: the forest
    /// becomes what processing each of them from [`Cursor::ROUTINE_ENTRY`] makes it, each
    /// node found once.
    ///
    /// # Panics
    /// If an id is not below the `num_ids` the forest was made for.
    pub fn process_activation(&mut self, ids: &[u64], times: u64) {
        let mut cursor = Cursor::ROUTINE_ENTRY;
        for &r in ids {
            self.step(&mut cursor, r, times);
        }
    }

    /// [`Self::process_bl_path_id`], counting `times` ids `r`; returns the node counted.
    #[inline(always)]
    fn step(&mut self, cursor: &mut Cursor, r: u64, times: u64) -> u32 {
        debug_assert!(cursor.tau == NIL || (cursor.tau as usize) < self.nodes.len());
        debug_assert!(cursor.beta == NIL || (cursor.beta as usize) < self.nodes.len());
        if cursor.n == 0 {
            // Lines 6–11: a new chunk starts; the previous chunk's last node becomes the
            // parent of the lower slab, and the chunk starts at the root labelled r.
            cursor.beta = cursor.tau;
            cursor.tau = self.find_or_add_child(NIL, r);
        } else {
            // Lines 12–19: extend the upper slab.
            cursor.tau = self.find_or_add_child(cursor.tau, r);
        }
        let counted = if cursor.beta != NIL {
            // Lines 20–27: extend the lower slab and count there.
            cursor.beta = self.find_or_add_child(cursor.beta, r);
            cursor.beta
        } else {
            // Line 29: the first chunk after `*` is counted in the upper slab.
            cursor.tau
        };
        self.nodes[counted as usize].count += times;
        // Line 31: n ← n + 1, kept modulo k − 1.
        cursor.n += 1;
        if cursor.n == self.chunk {
            cursor.n = 0;
        }
        counted
    }

    /// [`Self::process_bl_path_id`] for each of the leading `ids` below the forest's
    /// `num_ids`, returning how many: the runtime's hot loop, which stops at the first word of
    /// its stream that is not a path id. Inlined, so that a short run costs no call. A long run
    /// of one id (a loop repeating its path) goes to [`Self::skip_run`].
    #[inline(always)]
    pub fn process_bl_path_ids(&mut self, cursor: &mut Cursor, ids: &[u64]) -> usize {
        // No id (as between two markers): nothing to set up.
        if ids.first().is_none_or(|&r| r >= self.num_ids) {
            return 0;
        }
        let mut done = 0;
        // How many ids before `done` equal the one just before it.
        let mut same = 0;
        loop {
            let (steps, in_run) = self.dense_steps(cursor, &ids[done..]);
            done += steps;
            if in_run {
                done += self.skip_run(cursor, &ids[done..]);
                same = 0;
                continue;
            }
            match ids.get(done) {
                Some(&r) if r < self.num_ids => {
                    same = if done > 0 && ids[done - 1] == r {
                        same + 1
                    } else {
                        0
                    };
                    self.process_bl_path_id(cursor, r);
                    done += 1;
                    if same >= RUN {
                        done += self.skip_run(cursor, &ids[done..]);
                        same = 0;
                    }
                }
                _ => return done,
            }
        }
    }

    /// The ids at the start of `ids` that continue a run of one id `r` (the cursor has just
    /// processed some): once `chunk` steps bring the cursor back to where they started, the
    /// rest of the run repeats them, node for node, so each of its whole periods adds one to
    /// the nodes one period counted. Returns how many ids it processed (it leaves fewer than
    /// two periods of the run, or all of it if the cursor never comes back, to the caller).
    #[inline(never)]
    fn skip_run(&mut self, cursor: &mut Cursor, ids: &[u64]) -> usize {
        let Some(&r) = ids.first() else { return 0 };
        let len = ids.iter().position(|&id| id != r).unwrap_or(ids.len());
        let chunk = self.chunk as usize;
        let mut done = 0;
        let mut counted = Vec::with_capacity(chunk);
        // A run settles into its period within a few chunks, once both slabs hold only `r`.
        for _ in 0..4 {
            if len - done < 2 * chunk {
                break;
            }
            let start = *cursor;
            counted.clear();
            for _ in 0..chunk {
                counted.push(self.step(cursor, r, 1));
            }
            done += chunk;
            if *cursor == start {
                let periods = (len - done) / chunk;
                for &node in &counted {
                    self.nodes[node as usize].count += periods as u64;
                }
                return done + periods * chunk;
            }
        }
        done
    }

    /// [`Self::process_bl_path_id`] for the longest prefix of `ids` that only meets nodes a
    /// dense index already has and does not end [`RUN`] repeats of one id into a run, returning
    /// its length (0 with the hashed index) and whether it ends so: the same steps, with the
    /// index's kind, the cursor and the rows' bounds in registers.
    #[inline(always)]
    fn dense_steps(&mut self, cursor: &mut Cursor, ids: &[u64]) -> (usize, bool) {
        let Self {
            chunk,
            nodes,
            index,
            ..
        } = self;
        let ChildIndex::Dense {
            slot_of,
            shift,
            rows,
            ..
        } = index
        else {
            return (0, false);
        };
        let (chunk, shift) = (*chunk, *shift);
        let child = |parent: u32, slot: usize| rows[dense_index(shift, parent, slot)];
        let Cursor {
            mut n,
            mut tau,
            mut beta,
        } = *cursor;
        let mut done = 0;
        let (mut previous, mut same) = (u64::MAX, 0);
        for &r in ids {
            if r == previous {
                same += 1;
                if same == RUN {
                    break;
                }
            } else {
                (previous, same) = (r, 0);
            }
            let slot = match slot_of.get(r as usize) {
                Some(&slot) if slot != NIL => slot as usize,
                _ => break,
            };
            // Branches, not selects: `n` cycles predictably, and a select would make each
            // step's lookup wait for the previous one's.
            let (next_tau, lower) = if n == 0 {
                (child(NIL, slot), tau)
            } else {
                (child(tau, slot), beta)
            };
            if next_tau == NIL {
                break;
            }
            let next_beta = if lower == NIL {
                NIL
            } else {
                let below = child(lower, slot);
                if below == NIL {
                    break;
                }
                below
            };
            let counted = if next_beta == NIL {
                next_tau
            } else {
                next_beta
            };
            nodes[counted as usize].count += 1;
            n += 1;
            if n == chunk {
                n = 0;
            }
            (tau, beta) = (next_tau, next_beta);
            done += 1;
        }
        *cursor = Cursor { n, tau, beta };
        (done, same == RUN)
    }

    /// "find child of `parent` labelled `r`; if null, add node and arc" (lines 13–16, 21–24);
    /// for `parent` [`NIL`], `τ ← find(R, r)`, adding a root if null (lines 8–10).
    ///
    /// The lookup of an existing node in the dense rows or the hint is the whole fast path;
    /// the rest is out of line.
    #[inline(always)]
    fn find_or_add_child(&mut self, parent: u32, r: u64) -> u32 {
        let found = match &self.index {
            ChildIndex::Dense {
                slot_of,
                shift,
                rows,
                ..
            } => match slot_of.get(r as usize) {
                Some(&slot) if slot != NIL => rows[dense_index(*shift, parent, slot as usize)],
                _ => NIL,
            },
            ChildIndex::Hashed { hints, .. } => match hints[parent_index(parent)] {
                (label, child) if label == r => child,
                _ => NIL,
            },
        };
        if found != NIL {
            return found;
        }
        self.find_or_add_child_slowly(parent, r)
    }

    /// [`Self::find_or_add_child`] for an id the dense rows have no slot for yet (giving it
    /// one, or moving the forest to hash tables when every slot is taken), through the hash
    /// tables, or adding a node.
    #[inline(never)]
    fn find_or_add_child_slowly(&mut self, parent: u32, r: u64) -> u32 {
        let rows_full = match &mut self.index {
            ChildIndex::Dense {
                slot_of,
                shift,
                seen,
                ..
            } => {
                let potential = slot_of.len();
                let slot = slot_of
                    .get_mut(r as usize)
                    .unwrap_or_else(|| panic!("path id {r} out of range 0..{potential}"));
                let full = *slot == NIL && *seen == 1 << *shift;
                if *slot == NIL && !full {
                    *slot = *seen as u32;
                    *seen += 1;
                }
                full
            }
            ChildIndex::Hashed { .. } => false,
        };
        if rows_full {
            self.index = self.hashed_index();
        }
        let found = match &self.index {
            // The dense lookup found no child.
            ChildIndex::Dense { .. } => None,
            ChildIndex::Hashed { roots, .. } if parent == NIL => roots.find(NIL, r),
            ChildIndex::Hashed { arcs, .. } => arcs.find(parent, r),
        };
        let child = found.unwrap_or_else(|| self.add_node(parent, r));
        if let ChildIndex::Hashed { hints, .. } = &mut self.index {
            hints[parent_index(parent)] = (r, child);
        }
        child
    }

    /// The hash tables holding the arcs of the forest, with no hints yet.
    #[cold]
    fn hashed_index(&self) -> ChildIndex {
        let (mut roots, mut arcs) = (ArcTable::new(), ArcTable::new());
        for (parent, child) in self.arcs() {
            let table = if parent == NIL { &mut roots } else { &mut arcs };
            table.insert(parent, self.nodes[child as usize].label, child);
        }
        ChildIndex::Hashed {
            roots,
            arcs,
            hints: vec![(0, NIL); self.nodes.len() + 1],
        }
    }

    /// Makes room for `ids` more path ids (at most two nodes each, with their arcs), so that
    /// processing them allocates nothing, or says that memory ran out (the forest unchanged,
    /// and still usable): the runtime reports the program's `out of memory` error and writes
    /// the profile of what was counted, instead of aborting inside an allocation. The one
    /// allocation it cannot cover is the move of a dense forest to hash tables.
    pub fn try_reserve(&mut self, ids: usize) -> Result<(), std::collections::TryReserveError> {
        let nodes = ids.saturating_mul(2);
        self.nodes.try_reserve(nodes)?;
        match &mut self.index {
            ChildIndex::Dense { shift, rows, .. } => rows.try_reserve(nodes << *shift)?,
            ChildIndex::Hashed { roots, arcs, hints } => {
                hints.try_reserve(nodes)?;
                roots.try_reserve(nodes)?;
                arcs.try_reserve(nodes)?;
            }
        }
        Ok(())
    }

    /// The bytes the forest has allocated (its nodes and its index, by capacity).
    pub fn memory(&self) -> usize {
        use std::mem::size_of;
        let index = match &self.index {
            ChildIndex::Dense { slot_of, rows, .. } => (slot_of.capacity() + rows.capacity()) * 4,
            ChildIndex::Hashed { roots, arcs, hints } => {
                (roots.slots.capacity() + arcs.slots.capacity()) * size_of::<Slot>()
                    + hints.capacity() * size_of::<(u64, u32)>()
            }
        };
        self.nodes.capacity() * size_of::<Node>() + index
    }

    #[cold]
    fn add_node(&mut self, parent: u32, r: u64) -> u32 {
        let node = u32::try_from(self.nodes.len())
            .ok()
            .filter(|&n| n != NIL)
            .expect("k-slab forest exceeds 2^32 − 1 nodes");
        self.nodes.push(Node { label: r, count: 0 });
        match &mut self.index {
            ChildIndex::Dense {
                slot_of,
                shift,
                rows,
                ..
            } => {
                rows.resize(rows.len() + (1 << *shift), NIL);
                rows[dense_index(*shift, parent, slot_of[r as usize] as usize)] = node;
            }
            ChildIndex::Hashed { roots, arcs, hints } => {
                hints.push((0, NIL));
                if parent == NIL {
                    roots.insert(NIL, r, node);
                } else {
                    arcs.insert(parent, r, node);
                }
            }
        }
        node
    }

    /// Every arc of the forest as `(parent, child)`, the roots with parent [`NIL`].
    fn arcs(&self) -> Vec<(u32, u32)> {
        match &self.index {
            ChildIndex::Dense { shift, rows, .. } => rows
                .iter()
                .enumerate()
                .filter(|&(_, &child)| child != NIL)
                .map(|(slot, &child)| (((slot >> *shift) as u32).wrapping_sub(1), child))
                .collect(),
            ChildIndex::Hashed { roots, arcs, .. } => roots
                .iter()
                .chain(arcs.iter())
                .map(|(parent, _, child)| (parent, child))
                .collect(),
        }
    }

    /// The roots and the children of every node, gathered from the index.
    fn children(&self) -> Children {
        let arcs = self.arcs();
        let mut first = vec![0u32; self.nodes.len() + 1];
        let mut roots = Vec::new();
        for &(parent, child) in &arcs {
            match parent {
                NIL => roots.push(child),
                _ => first[parent as usize + 1] += 1,
            }
        }
        for v in 0..self.nodes.len() {
            first[v + 1] += first[v];
        }
        let mut next = first.clone();
        let mut kids = vec![NIL; arcs.len() - roots.len()];
        for &(parent, child) in arcs.iter().filter(|&&(parent, _)| parent != NIL) {
            kids[next[parent as usize] as usize] = child;
            next[parent as usize] += 1;
        }
        Children { roots, first, kids }
    }

    /// The k-SF itself as a forest (roots and children in id order), for tests and inspection.
    pub fn slabs(&self) -> Vec<KipfNode> {
        let children = self.children();
        let mut forest: Vec<KipfNode> = children
            .roots
            .iter()
            .map(|&root| self.subtree(root, &children))
            .collect();
        forest.sort_unstable_by_key(|n| n.id);
        forest
    }

    fn subtree(&self, v: u32, children: &Children) -> KipfNode {
        let node = &self.nodes[v as usize];
        let mut below: Vec<KipfNode> = children
            .of(v)
            .iter()
            .map(|&c| self.subtree(c, children))
            .collect();
        below.sort_unstable_by_key(|c| c.id);
        KipfNode {
            id: node.label,
            count: node.count,
            children: below,
        }
    }

    /// `make_k_ipf()` ([KBLPP], Algorithm "converting a k-SF into a k-IPF"): joins, for every
    /// path id `r` of the forest, the subtrees of depth up to `k` rooted at the nodes labelled
    /// `r` under a dummy root, adding up their counters.
    pub fn make_k_ipf(&self) -> Vec<KipfNode> {
        // Lines 1–7: the distinct ids I, and s(r) = the nodes labelled r.
        let mut s: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
        for (rho, node) in self.nodes.iter().enumerate() {
            s.entry(node.label).or_default().push(rho as u32);
        }
        // Line 8: the k-IPF starts as a dummy root φ.
        let mut kipf = KipfBuilder::new();
        // Lines 9–13.
        let children = self.children();
        for nodes in s.values() {
            for &rho in nodes {
                self.join_subtree(rho, KipfBuilder::PHI, self.k, &children, &mut kipf);
            }
        }
        // Line 14: remove φ; its children are the k-IPF's roots.
        kipf.into_forest()
    }

    /// `join_subtree(ρ, γ, d)` ([KBLPP], Algorithm "Subroutine for joining trees during k-SF
    /// conversion"): adds the paths of depth up to `d` of the k-SF subtree at `rho` below the
    /// k-IPF node `gamma`, each only once, accumulating counters.
    fn join_subtree(
        &self,
        rho: u32,
        gamma: u32,
        d: usize,
        children: &Children,
        kipf: &mut KipfBuilder,
    ) {
        let node = &self.nodes[rho as usize];
        // Lines 1–7: δ is γ's child labelled ℓ(ρ), added with c(ρ) or increased by c(ρ).
        let delta = kipf.add_to_child(gamma, node.label, node.count);
        // Lines 8–12.
        if d > 1 {
            for &sigma in children.of(rho) {
                self.join_subtree(sigma, delta, d - 1, children, kipf);
            }
        }
    }
}

/// The roots of the k-SF, and the children of each node (compressed rows): those of `v` are
/// `kids[first[v]..first[v + 1]]`.
struct Children {
    roots: Vec<u32>,
    first: Vec<u32>,
    kids: Vec<u32>,
}

impl Children {
    fn of(&self, v: u32) -> &[u32] {
        &self.kids[self.first[v as usize] as usize..self.first[v as usize + 1] as usize]
    }
}

/// The k-IPF under construction: an arena under the dummy root φ.
struct KipfBuilder {
    /// Node 0 is φ.
    nodes: Vec<IpfNode>,
    arcs: ArcTable,
}

struct IpfNode {
    label: u64,
    count: u64,
    first_child: u32,
    next_sibling: u32,
}

impl KipfBuilder {
    const PHI: u32 = 0;

    fn new() -> KipfBuilder {
        KipfBuilder {
            nodes: vec![IpfNode {
                label: 0,
                count: 0,
                first_child: NIL,
                next_sibling: NIL,
            }],
            arcs: ArcTable::new(),
        }
    }

    /// Adds `count` to the child of `gamma` labelled `label`, creating it if needed.
    fn add_to_child(&mut self, gamma: u32, label: u64, count: u64) -> u32 {
        match self.arcs.find(gamma, label) {
            Some(delta) => {
                let c = &mut self.nodes[delta as usize].count;
                *c = c.saturating_add(count);
                delta
            }
            None => {
                let delta = u32::try_from(self.nodes.len())
                    .ok()
                    .filter(|&n| n != NIL)
                    .expect("k-IPF exceeds 2^32 − 1 nodes");
                let next_sibling =
                    std::mem::replace(&mut self.nodes[gamma as usize].first_child, delta);
                self.nodes.push(IpfNode {
                    label,
                    count,
                    first_child: NIL,
                    next_sibling,
                });
                self.arcs.insert(gamma, label, delta);
                delta
            }
        }
    }

    fn into_forest(self) -> Vec<KipfNode> {
        self.forest_below(Self::PHI)
    }

    /// The children of `v` as a forest in id order.
    fn forest_below(&self, v: u32) -> Vec<KipfNode> {
        let mut forest = Vec::new();
        let mut c = self.nodes[v as usize].first_child;
        while c != NIL {
            let node = &self.nodes[c as usize];
            forest.push(KipfNode {
                id: node.label,
                count: node.count,
                children: self.forest_below(c),
            });
            c = node.next_sibling;
        }
        forest.sort_unstable_by_key(|n| n.id);
        forest
    }
}

/// The k-IPF from sliding windows, a departure from [KBLPP]'s k-slab forest for functions with
/// few paths (`crate::mode::kbl::Sequences::Windows`): each item of `windows` is the run of
/// ids ending at some position of an activation, `k` long (shorter only near the activation's
/// start), with the number of positions it ended. Every run of `1..=k` ids that ends at a
/// position is a suffix of that position's window, so adding each window's count to the node
/// of each of its suffixes counts every run exactly once: the forest of
/// [`KSlabForest::make_k_ipf`] on the same activations.
pub fn k_ipf_of_windows<W: AsRef<[u64]>>(
    windows: impl IntoIterator<Item = (W, u64)>,
) -> Vec<KipfNode> {
    let mut kipf = KipfBuilder::new();
    for (window, count) in windows {
        let window = window.as_ref();
        for start in 0..window.len() {
            // The suffix's prefixes are runs ending earlier, counted by their own windows.
            let (&last, prefix) = window[start..].split_last().expect("a nonempty suffix");
            let parent =
                (prefix.iter()).fold(KipfBuilder::PHI, |node, &r| kipf.add_to_child(node, r, 0));
            kipf.add_to_child(parent, last, count);
        }
    }
    kipf.into_forest()
}

/// An open-addressing hash table (linear probing, load ≤ 1/2) from `(parent, label)` to a node.
#[derive(Clone, Debug)]
struct ArcTable {
    slots: Vec<Slot>,
    /// `64 − log2(slots.len())`: the index is the top bits of the hash.
    shift: u32,
    len: usize,
}

#[derive(Copy, Clone, Debug)]
struct Slot {
    label: u64,
    parent: u32,
    /// [`NIL`] for an empty slot.
    child: u32,
}

const EMPTY: Slot = Slot {
    label: 0,
    parent: NIL,
    child: NIL,
};

impl ArcTable {
    const INITIAL_BITS: u32 = 6;

    fn new() -> ArcTable {
        ArcTable {
            slots: vec![EMPTY; 1 << Self::INITIAL_BITS],
            shift: 64 - Self::INITIAL_BITS,
            len: 0,
        }
    }

    #[inline]
    fn index(&self, parent: u32, label: u64) -> usize {
        let x = label.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ u64::from(parent);
        (x.wrapping_mul(0xd6e8_feb8_6659_fd93) >> self.shift) as usize
    }

    #[inline]
    fn find(&self, parent: u32, label: u64) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut i = self.index(parent, label);
        loop {
            let slot = self.slots[i];
            if slot.child == NIL {
                return None;
            }
            if slot.label == label && slot.parent == parent {
                return Some(slot.child);
            }
            i = (i + 1) & mask;
        }
    }

    /// Inserts a key known to be absent.
    fn insert(&mut self, parent: u32, label: u64, child: u32) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        self.put(Slot {
            label,
            parent,
            child,
        });
        self.len += 1;
    }

    fn put(&mut self, slot: Slot) {
        let mask = self.slots.len() - 1;
        let mut i = self.index(slot.parent, slot.label);
        while self.slots[i].child != NIL {
            i = (i + 1) & mask;
        }
        self.slots[i] = slot;
    }

    /// Every entry, as `(parent, label, child)`.
    fn iter(&self) -> impl Iterator<Item = (u32, u64, u32)> + '_ {
        self.slots
            .iter()
            .filter(|s| s.child != NIL)
            .map(|s| (s.parent, s.label, s.child))
    }

    /// Room for `additional` more entries without growing, or an error (the table unchanged).
    fn try_reserve(&mut self, additional: usize) -> Result<(), std::collections::TryReserveError> {
        let need = self.len.saturating_add(additional).saturating_mul(2);
        let mut len = self.slots.len();
        if need <= len {
            return Ok(());
        }
        while len < need {
            len = len.saturating_mul(2);
        }
        let mut slots = Vec::new();
        slots.try_reserve_exact(len)?;
        slots.resize(len, EMPTY);
        let old = std::mem::replace(&mut self.slots, slots);
        self.shift = 64 - len.trailing_zeros();
        for slot in old.into_iter().filter(|s| s.child != NIL) {
            self.put(slot);
        }
        Ok(())
    }

    fn grow(&mut self) {
        let doubled = vec![EMPTY; 2 * self.slots.len()];
        let old = std::mem::replace(&mut self.slots, doubled);
        self.shift -= 1;
        for slot in old.into_iter().filter(|s| s.child != NIL) {
            self.put(slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use StreamItem::{PathId, RoutineEntry};

    fn node(id: u64, count: u64, children: Vec<KipfNode>) -> KipfNode {
        KipfNode {
            id,
            count,
            children,
        }
    }

    fn leaf(id: u64, count: u64) -> KipfNode {
        node(id, count, Vec::new())
    }

    /// A single path: `ids` from a root, each node with `count`, the last one with `last`.
    fn chain(ids: &[u64], counts: &[u64], tail: Vec<KipfNode>) -> KipfNode {
        match ids {
            [id] => node(*id, counts[0], tail),
            [id, rest @ ..] => node(*id, counts[0], vec![chain(rest, &counts[1..], tail)]),
            [] => unreachable!(),
        }
    }

    /// The stream of the example in [KBLPP] §"k-SF": `*` then chunks
    /// `6,2,0 | 0,2,2 | 0,0,2 | 2,0,0 | 2,3` (k = 4).
    fn thesis_stream() -> Vec<StreamItem> {
        std::iter::once(RoutineEntry)
            .chain(
                [6, 2, 0, 0, 2, 2, 0, 0, 2, 2, 0, 0, 2, 3]
                    .into_iter()
                    .map(PathId),
            )
            .collect()
    }

    /// The k-SF of `stream`, checked to be the same with both child indexes.
    fn forest_of(k: usize, stream: &[StreamItem]) -> KSlabForest {
        let build = |num_ids| {
            let mut forest = KSlabForest::new(k, num_ids);
            let mut cursor = Cursor::ROUTINE_ENTRY;
            forest.process_stream(&mut cursor, stream.iter().copied());
            forest
        };
        let (dense, hashed) = (build(DENSE_MAX_IDS), build(u64::MAX));
        assert!(matches!(dense.index, ChildIndex::Dense { .. }));
        assert!(matches!(hashed.index, ChildIndex::Hashed { .. }));
        assert_eq!(dense.slabs(), hashed.slabs());
        assert_eq!(dense.make_k_ipf(), hashed.make_k_ipf());
        dense
    }

    /// The 4-SF of the example ([KBLPP], Figure "kblpp-ksf", given in the text as the list L):
    /// ⟨6,2,0,0,2,2⟩, ⟨0,2,2,0,0,2⟩, ⟨0,0,2,2,0,0⟩, ⟨2,0,0,2,3⟩ and their prefixes. Only the
    /// first chunk 6,2,0 is counted in the upper slab; every later id is counted in the lower
    /// slab of the previous chunk's tree.
    #[test]
    fn thesis_example_k_slab_forest() {
        let forest = forest_of(4, &thesis_stream());
        let expected = vec![
            node(
                0,
                0,
                vec![
                    chain(
                        &[0, 2],
                        &[0, 0],
                        vec![chain(&[2, 0, 0], &[1, 1, 1], vec![])],
                    ),
                    chain(
                        &[2, 2],
                        &[0, 0],
                        vec![chain(&[0, 0, 2], &[1, 1, 1], vec![])],
                    ),
                ],
            ),
            node(
                2,
                0,
                vec![
                    chain(&[0, 0], &[0, 0], vec![chain(&[2, 3], &[1, 1], vec![])]),
                    leaf(3, 0),
                ],
            ),
            chain(&[6, 2, 0, 0, 2, 2], &[1, 1, 1, 1, 1, 1], vec![]),
        ];
        assert_eq!(forest.slabs(), expected);
        assert_eq!(forest.len(), 23);
        // "2-gram ⟨0,0⟩ occurs three times in Σ and five times in the 4-SF; only three of them
        // end in the bottom slab" (levels k−1 = 3 and below) "and are counted".
        let mut arcs_0_0 = Vec::new();
        fn walk(n: &KipfNode, level: usize, out: &mut Vec<(usize, u64)>) {
            for c in &n.children {
                if n.id == 0 && c.id == 0 {
                    out.push((level + 1, c.count));
                }
                walk(c, level + 1, out);
            }
        }
        for root in &forest.slabs() {
            walk(root, 0, &mut arcs_0_0);
        }
        assert_eq!(arcs_0_0.len(), 5);
        let bottom: Vec<_> = arcs_0_0.iter().filter(|&&(level, _)| level >= 3).collect();
        assert_eq!(bottom.len(), 3);
        assert!(bottom.iter().all(|&&(_, count)| count == 1));
        // The counters add up to the length of the stream.
        fn total(n: &KipfNode) -> u64 {
            n.count + n.children.iter().map(total).sum::<u64>()
        }
        assert_eq!(expected.iter().map(total).sum::<u64>(), 14);
    }

    /// The 4-IPF of the example ([KBLPP], Figure "kblpp-example"): one tree per distinct id
    /// (0, 2, 3, 6), BL counts on the first level, ⟨2,0,0,2⟩ taken 3 times. The figure itself
    /// is not in the text; the rest of the forest is every n-gram (n ≤ 4) of
    /// 6,2,0,0,2,2,0,0,2,2,0,0,2,3 counted by hand.
    #[test]
    fn thesis_example_k_iteration_path_forest() {
        let kipf = forest_of(4, &thesis_stream()).make_k_ipf();
        let expected = vec![
            node(
                0,
                6,
                vec![
                    node(0, 3, vec![node(2, 3, vec![leaf(2, 2), leaf(3, 1)])]),
                    node(2, 3, vec![node(2, 2, vec![leaf(0, 2)]), leaf(3, 1)]),
                ],
            ),
            node(
                2,
                6,
                vec![
                    node(0, 3, vec![node(0, 3, vec![leaf(2, 3)])]),
                    node(2, 2, vec![node(0, 2, vec![leaf(0, 2)])]),
                    leaf(3, 1),
                ],
            ),
            leaf(3, 1),
            node(6, 1, vec![node(2, 1, vec![node(0, 1, vec![leaf(0, 1)])])]),
        ];
        assert_eq!(kipf, expected);
        let roots: Vec<u64> = kipf.iter().map(|n| n.id).collect();
        assert_eq!(roots, [0, 2, 3, 6]);
        let two_0_0_2 = &kipf[1].children[0].children[0].children[0];
        assert_eq!((two_0_0_2.id, two_0_0_2.count), (2, 3));
    }

    /// The windows of each activation in `activations`, `k` long at most, counted.
    fn windows(k: usize, activations: &[Vec<u64>]) -> Vec<(Vec<u64>, u64)> {
        let mut counts: BTreeMap<Vec<u64>, u64> = BTreeMap::new();
        for ids in activations {
            for end in 1..=ids.len() {
                *counts
                    .entry(ids[end.saturating_sub(k)..end].to_vec())
                    .or_default() += 1;
            }
        }
        counts.into_iter().collect()
    }

    /// The example's 4-IPF ([KBLPP], Figure "kblpp-example") from its windows is the forest's.
    #[test]
    fn thesis_example_from_windows() {
        let ids = vec![6, 2, 0, 0, 2, 2, 0, 0, 2, 2, 0, 0, 2, 3];
        let kipf = forest_of(4, &thesis_stream()).make_k_ipf();
        assert_eq!(k_ipf_of_windows(windows(4, &[ids])), kipf);
    }

    /// Windows and the k-slab forest agree on many activations of varied lengths and ids, for
    /// each k, including activations shorter than k.
    #[test]
    fn windows_give_the_forests_k_ipf() {
        let activations: Vec<Vec<u64>> = (0..400u64)
            .map(|a| (0..a % 13).map(|i| (a * 31 + i * i * 7 + i) % 6).collect())
            .collect();
        for k in 1..=6 {
            let stream: Vec<StreamItem> = (activations.iter())
                .flat_map(|ids| std::iter::once(RoutineEntry).chain(ids.iter().map(|&r| PathId(r))))
                .collect();
            let kipf = forest_of(k, &stream).make_k_ipf();
            assert_eq!(k_ipf_of_windows(windows(k, &activations)), kipf, "k = {k}");
        }
    }

    #[test]
    fn sequences_do_not_cross_routine_entry() {
        let stream = [PathId(1), PathId(2), RoutineEntry, PathId(3), PathId(1)];
        let kipf = forest_of(3, &stream).make_k_ipf();
        assert_eq!(
            kipf,
            vec![
                node(1, 2, vec![leaf(2, 1)]),
                leaf(2, 1),
                node(3, 1, vec![leaf(1, 1)]),
            ]
        );
    }

    /// A call saves nothing: the callee (here a recursive activation sharing the forest) has
    /// its own cursor, and the caller's ids 1, 2, 3 stay one sequence across it.
    #[test]
    fn a_call_does_not_break_the_callers_sequence() {
        let mut forest = KSlabForest::new(3, 10);
        let mut caller = Cursor::ROUTINE_ENTRY;
        forest.process_bl_path_id(&mut caller, 1);
        forest.process_bl_path_id(&mut caller, 2);
        let mut callee = Cursor::ROUTINE_ENTRY;
        forest.process_bl_path_id(&mut callee, 9);
        forest.process_bl_path_id(&mut callee, 9);
        forest.process_bl_path_id(&mut caller, 3);
        assert_eq!(
            forest.make_k_ipf(),
            vec![
                node(1, 1, vec![node(2, 1, vec![leaf(3, 1)])]),
                node(2, 1, vec![leaf(3, 1)]),
                leaf(3, 1),
                node(9, 2, vec![leaf(9, 1)]),
            ]
        );
    }

    #[test]
    fn k_one_gives_ball_larus_counts() {
        let kipf = forest_of(1, &thesis_stream()).make_k_ipf();
        assert_eq!(kipf, vec![leaf(0, 6), leaf(2, 6), leaf(3, 1), leaf(6, 1)]);
    }

    #[test]
    fn k_two_chunks_of_one() {
        let stream: Vec<_> = [5, 5, 5, 7].into_iter().map(PathId).collect();
        let kipf = forest_of(2, &stream).make_k_ipf();
        assert_eq!(
            kipf,
            vec![node(5, 3, vec![leaf(5, 2), leaf(7, 1)]), leaf(7, 1)]
        );
    }

    #[test]
    fn empty_stream_gives_empty_forest() {
        let forest = forest_of(4, &[RoutineEntry, RoutineEntry]);
        assert!(forest.is_empty());
        assert!(forest.make_k_ipf().is_empty());
    }

    #[test]
    fn arc_table_grows_and_finds_everything() {
        let mut table = ArcTable::new();
        let mut next = 0;
        for parent in [NIL, 0, 1, 70_000] {
            for label in (0..3000u64).map(|l| l.wrapping_mul(0x1_0000_0001)) {
                assert_eq!(table.find(parent, label), None);
                table.insert(parent, label, next);
                next += 1;
            }
        }
        let mut expect = 0;
        for parent in [NIL, 0, 1, 70_000] {
            for label in (0..3000u64).map(|l| l.wrapping_mul(0x1_0000_0001)) {
                assert_eq!(table.find(parent, label), Some(expect));
                expect += 1;
            }
        }
    }
}
