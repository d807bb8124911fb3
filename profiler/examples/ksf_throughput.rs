//! Post-processing throughput of the k-slab forest (the target: "the k-slab forest ≥ 50 M path
//! ids/s"), on streams shaped like the runtime's, with the child index the runtime would pick
//! (dense rows for a function with few potential paths) and with the hash-table index. Asserts
//! nothing; `bench/run.py` runs it and reports the numbers:
//!
//! ```text
//! cargo run --release -p pcc-profiler --example ksf_throughput [-- IDS]
//! ```
//! One line per stream: `name<TAB>k<TAB>index<TAB>M ids/s<TAB>k-SF nodes<TAB>make_k_ipf ms`.

use std::time::Instant;

use pcc_profiler::kbl::{Cursor, KSlabForest};

/// xorshift64*: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) % n
    }
}

/// A stream: its name, the function's potential paths, the ids, and how many ids each
/// activation emits.
struct Workload {
    name: &'static str,
    num_ids: u64,
    ids: Vec<u64>,
    activation: usize,
}

fn workloads(len: usize) -> Vec<Workload> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    // A loop whose body takes path 3 nine times in ten, else one of 7 others.
    let hot_loop = (0..len)
        .map(|_| if rng.below(10) > 0 { 3 } else { rng.below(8) })
        .collect();
    // The masked convolution of [KBLPP]: runs of one path, then a run of another.
    let mut runs = Vec::with_capacity(len);
    while runs.len() < len {
        let (id, run) = (rng.below(3), 1 + rng.below(40) as usize);
        runs.extend(std::iter::repeat_n(id, run.min(len - runs.len())));
    }
    // Uniformly random ids, no locality at all: the worst case (the forest holds every
    // (2k−2)-gram; beyond the caches, each id costs a few memory misses).
    let mut uniform = |n| (0..len).map(|_| rng.below(n)).collect();
    let (uniform2, uniform4) = (uniform(2), uniform(4));
    vec![
        Workload {
            name: "hot loop (1 path in 10 differs)",
            num_ids: 8,
            ids: hot_loop,
            activation: 1000,
        },
        Workload {
            name: "runs of one path (convolution)",
            num_ids: 3,
            ids: runs,
            activation: 10_000,
        },
        Workload {
            name: "uniform over 2 ids",
            num_ids: 2,
            ids: uniform2,
            activation: 1000,
        },
        Workload {
            name: "uniform over 4 ids",
            num_ids: 4,
            ids: uniform4,
            activation: 1000,
        },
    ]
}

fn main() {
    let len: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse().expect("IDS: a number of path ids"))
        .unwrap_or(10_000_000);
    for w in workloads(len) {
        for k in [2, 4, 8] {
            for (index, num_ids) in [("dense", w.num_ids), ("hashed", u64::MAX)] {
                // The best of 3, each on a fresh forest (the first pass also builds it).
                let mut best = f64::MAX;
                let mut forest = KSlabForest::new(k, num_ids);
                for _ in 0..3 {
                    forest = KSlabForest::new(k, num_ids);
                    let start = Instant::now();
                    let mut cursor = Cursor::ROUTINE_ENTRY;
                    for activation in w.ids.chunks(w.activation) {
                        cursor.routine_entry();
                        for &r in activation {
                            forest.process_bl_path_id(&mut cursor, std::hint::black_box(r));
                        }
                    }
                    best = best.min(start.elapsed().as_secs_f64());
                }
                let start = Instant::now();
                let kipf = forest.make_k_ipf();
                let convert = start.elapsed().as_secs_f64();
                assert!(!kipf.is_empty());
                println!(
                    "{}\t{k}\t{index}\t{:.1}\t{}\t{:.2}",
                    w.name,
                    len as f64 / best / 1e6,
                    forest.len(),
                    convert * 1e3
                );
            }
        }
    }
}
