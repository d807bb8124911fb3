//! The short activations of a `kbl` function that its stream buffer holds whole, counted by
//! their path ids: a call-heavy program runs the same few activations of a function millions
//! of times, and hashing an activation's ids costs less than walking the k-slab forest with
//! each of them. The forest gets each distinct activation once, with its count
//! ([`KSlabForest::process_activation`]), when the program ends: the same forest, since an
//! activation's sequences start at its `*` and end at its return ([KBLPP]).

use crate::runs::Runs;
use pcc_profiler::kbl::KSlabForest;

/// Activations of at least `MIN_IDS` and at most `MAX_IDS` path ids are counted here: the
/// forest takes a few ids faster than the table.
pub const MIN_IDS: usize = 4;
pub const MAX_IDS: usize = 64;
/// Distinct activations a function counts here at most; the others go to the forest.
const MAX_DISTINCT: usize = 1024;

/// The distinct activations seen and their counts.
pub struct Activations {
    runs: Runs,
    /// How many times each activation ran, by its number in `runs`.
    times: Vec<u64>,
}

impl Default for Activations {
    fn default() -> Self {
        Activations {
            runs: Runs::new(MAX_DISTINCT),
            times: Vec::new(),
        }
    }
}

impl Activations {
    /// Counts one activation that ran `run` (at most [`MAX_IDS`] ids); false if it is a new
    /// one and the table is full.
    pub fn add(&mut self, run: &[u64]) -> bool {
        debug_assert!(run.len() <= MAX_IDS);
        let Some((number, new)) = self.runs.number(run) else {
            return false;
        };
        if new {
            self.times.push(0);
        }
        self.times[number] += 1;
        true
    }

    /// How many path ids the activations counted hold, each counted once.
    pub fn ids(&self) -> usize {
        (0..self.times.len()).map(|n| self.runs.run(n).len()).sum()
    }

    /// Gives `forest` every activation counted, and forgets them.
    pub fn drain_into(&mut self, forest: &mut KSlabForest) {
        for (number, &times) in self.times.iter().enumerate() {
            forest.process_activation(self.runs.run(number), times);
        }
        *self = Activations::default();
    }
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
}
