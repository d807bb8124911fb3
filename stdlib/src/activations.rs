//! The short activations of a `kbl` function that its stream buffer holds whole, counted by
//! their path ids: a call-heavy program runs the same few activations of a function millions
//! of times, and hashing an activation's ids costs less than walking the k-slab forest with
//! each of them. The forest gets each distinct activation once, with its count
//! ([`KSlabForest::process_activation`]), when the program ends: the same forest, since an
//! activation's sequences start at its `*` and end at its return ([KBLPP]).

use pcc_profiler::kbl::KSlabForest;

/// Activations of at least `MIN_IDS` and at most `MAX_IDS` path ids are counted here: the
/// forest takes a few ids faster than the table.
pub const MIN_IDS: usize = 4;
pub const MAX_IDS: usize = 64;
/// Distinct activations a function counts here at most; the others go to the forest.
const MAX_DISTINCT: usize = 1024;

/// One distinct activation: its ids are `ids[start..start + len]`.
struct Entry {
    hash: u64,
    start: u32,
    len: u32,
    times: u64,
}

/// The distinct activations seen and their counts.
#[derive(Default)]
pub struct Activations {
    /// Open addressing, at most half full: an index into `entries` plus one, or 0 (empty).
    slots: Vec<u32>,
    entries: Vec<Entry>,
    ids: Vec<u64>,
}

impl Activations {
    /// Counts one activation that ran `run` (at most [`MAX_IDS`] ids); false if it is a new
    /// one and the table is full.
    pub fn add(&mut self, run: &[u64]) -> bool {
        debug_assert!(run.len() <= MAX_IDS);
        let hash = hash(run);
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = (hash as usize) & mask;
        while let Some(&slot) = self.slots.get(i).filter(|&&slot| slot != 0) {
            let entry = &mut self.entries[slot as usize - 1];
            let start = entry.start as usize;
            if entry.hash == hash && same(&self.ids[start..start + entry.len as usize], run) {
                entry.times += 1;
                return true;
            }
            i = (i + 1) & mask;
        }
        if self.entries.len() == MAX_DISTINCT {
            return false;
        }
        self.entries.push(Entry {
            hash,
            start: self.ids.len() as u32,
            len: run.len() as u32,
            times: 1,
        });
        self.ids.extend_from_slice(run);
        if self.entries.len() * 2 > self.slots.len() {
            self.rehash();
        } else {
            self.slots[i] = self.entries.len() as u32;
        }
        true
    }

    /// Doubles the slots (16 at first) and puts every entry back.
    fn rehash(&mut self) {
        self.slots = vec![0; (self.slots.len() * 2).max(16)];
        let mask = self.slots.len() - 1;
        for (e, entry) in self.entries.iter().enumerate() {
            let mut i = (entry.hash as usize) & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = e as u32 + 1;
        }
    }

    /// Gives `forest` every activation counted, and forgets them.
    pub fn drain_into(&mut self, forest: &mut KSlabForest) {
        for entry in &self.entries {
            let start = entry.start as usize;
            forest.process_activation(&self.ids[start..start + entry.len as usize], entry.times);
        }
        *self = Activations::default();
    }
}

/// `a == b`, inline: the slices are too short for a call to `memcmp` to pay.
fn same(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// A hash of `ids` for the table (its low bits pick the slot).
fn hash(ids: &[u64]) -> u64 {
    let mut h = ids.len() as u64;
    for &id in ids {
        h = (h.rotate_left(5) ^ id).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    h ^ (h >> 29)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counting activations here, then draining them, gives the forest of processing each.
    #[test]
    fn drained_activations_make_the_same_forest() {
        let runs: Vec<Vec<u64>> = (0..3000u64)
            .map(|a| {
                (0..a % 9)
                    .map(|i| (a * 7 + i * i) % 5 % (1 + a % 4))
                    .collect()
            })
            .collect();
        let mut table = Activations::default();
        let mut direct = KSlabForest::new(4, 5);
        let mut counted = KSlabForest::new(4, 5);
        for run in &runs {
            direct.process_activation(run, 1);
            assert!(table.add(run));
        }
        table.drain_into(&mut counted);
        assert_eq!(counted.make_k_ipf(), direct.make_k_ipf());
        assert_eq!(counted.slabs(), direct.slabs());
    }

    #[test]
    fn a_full_table_refuses_new_activations_only() {
        let mut table = Activations::default();
        for a in 0..MAX_DISTINCT as u64 {
            assert!(table.add(&[a, a + 1]));
        }
        assert!(!table.add(&[u64::MAX]));
        assert!(table.add(&[3, 4]));
    }
}
