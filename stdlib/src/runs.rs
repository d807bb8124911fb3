//! A table that numbers short runs of words, each the first time it is seen: the runtime
//! recognises an activation (`kbl`) or a block of the trace (`wpp`) that it has seen before with
//! one hash of its words, instead of processing each word again.

/// One distinct run: its words are `words[start..start + len]`.
struct Entry {
    hash: u64,
    start: u32,
    len: u32,
}

/// The distinct runs seen, numbered from 0 in the order they were first seen.
pub struct Runs {
    /// Open addressing, at most half full: a run's number plus one, or 0 (empty).
    slots: Vec<u32>,
    entries: Vec<Entry>,
    words: Vec<u64>,
    /// Distinct runs the table numbers at most; past that it only finds those it holds.
    max_runs: usize,
}

impl Runs {
    pub fn new(max_runs: usize) -> Runs {
        Runs {
            slots: Vec::new(),
            entries: Vec::new(),
            words: Vec::new(),
            max_runs: max_runs.min(u32::MAX as usize - 1),
        }
    }

    /// The number of `run` and whether it is new (numbered now); `None` if it is new and the
    /// table is full.
    pub fn number(&mut self, run: &[u64]) -> Option<(usize, bool)> {
        let hash = hash(run);
        let mask = self.slots.len().wrapping_sub(1);
        let mut i = (hash as usize) & mask;
        while let Some(&slot) = self.slots.get(i).filter(|&&slot| slot != 0) {
            let entry = &self.entries[slot as usize - 1];
            let start = entry.start as usize;
            if entry.hash == hash && same(&self.words[start..start + entry.len as usize], run) {
                return Some((slot as usize - 1, false));
            }
            i = (i + 1) & mask;
        }
        if self.entries.len() >= self.max_runs || self.words.len() + run.len() > u32::MAX as usize {
            return None;
        }
        self.entries.push(Entry {
            hash,
            start: self.words.len() as u32,
            len: run.len() as u32,
        });
        self.words.extend_from_slice(run);
        if self.entries.len() * 2 > self.slots.len() {
            self.rehash();
        } else {
            self.slots[i] = self.entries.len() as u32;
        }
        Some((self.entries.len() - 1, true))
    }

    /// The words of run `number`.
    pub fn run(&self, number: usize) -> &[u64] {
        let entry = &self.entries[number];
        &self.words[entry.start as usize..][..entry.len as usize]
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
}

/// `a == b`, inline: the slices are too short for a call to `memcmp` to pay.
fn same(a: &[u64], b: &[u64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// A hash of `words` for the table (its low bits pick the slot): four independent lanes, so
/// that a long run costs a quarter of the multiplications' latency one chain would.
fn hash(words: &[u64]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut lanes = [words.len() as u64, 1, 2, 3];
    let quads = words.chunks_exact(4);
    let tail = quads.remainder();
    for quad in quads {
        for (lane, &word) in lanes.iter_mut().zip(quad) {
            *lane = (lane.rotate_left(5) ^ word).wrapping_mul(K);
        }
    }
    for (lane, &word) in lanes.iter_mut().zip(tail) {
        *lane = (lane.rotate_left(5) ^ word).wrapping_mul(K);
    }
    let h = lanes
        .iter()
        .fold(0u64, |h, &lane| (h.rotate_left(17) ^ lane).wrapping_mul(K));
    h ^ (h >> 29)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_numbered_in_order_and_found_again() {
        let mut runs = Runs::new(100);
        let all: Vec<Vec<u64>> = (0..60u64)
            .map(|r| (0..r % 11).map(|i| i * r % 7).collect())
            .collect();
        let mut numbers = Vec::new();
        for run in &all {
            numbers.push(runs.number(run).unwrap());
        }
        let mut distinct = 0;
        for (i, (run, &(number, new))) in all.iter().zip(&numbers).enumerate() {
            assert_eq!(runs.number(run), Some((number, false)));
            assert_eq!(runs.run(number), &run[..]);
            // A run is new where it is first seen, and then gets the next number.
            let first = all.iter().position(|r| r == run) == Some(i);
            assert_eq!(new, first);
            if first {
                assert_eq!(number, distinct);
                distinct += 1;
            }
        }
        assert!(distinct < all.len());
    }

    #[test]
    fn a_full_table_refuses_new_runs_only() {
        let mut runs = Runs::new(1024);
        for a in 0..1024 {
            assert_eq!(runs.number(&[a, a + 1]), Some((a as usize, true)));
        }
        assert_eq!(runs.number(&[u64::MAX]), None);
        assert_eq!(runs.number(&[3, 4]), Some((3, false)));
    }
}
