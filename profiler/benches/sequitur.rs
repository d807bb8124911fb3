//! SEQUITUR(1) throughput (the target: SEQUITUR(1) ≥ 10 M symbols/s), a benchmark, not a test:
//!
//! ```text
//! cargo bench -p pcc-profiler --bench sequitur [-- SYMBOLS]
//! ```
//! (`bench/run.py` runs it.) Per input trace it prints one line of JSON: symbols, grammar size
//! and rules, the SEQUITUR(1) rate on CPU and wall-clock, expansion and symbol-interning rates,
//! and the time of a hot-subpath search. `WPP_BENCH=NAME` runs only the trace called NAME.

mod wpp {
    use pcc_profiler::wpp::{HotParams, PathSymbols, Sequitur, hot_subpaths};
    use std::time::Instant;

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            (self.next() >> 33) % n
        }
    }

    /// A trace shaped like a program's: an outer loop over "records", an inner loop whose body
    /// usually takes its common path, calls to two helpers, occasional rare paths.
    fn program_like(n: usize) -> Vec<u32> {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut out = Vec::with_capacity(n + 64);
        while out.len() < n {
            out.push(0); // outer loop head
            let inner = 4 + rng.below(8);
            for _ in 0..inner {
                let r = rng.below(100);
                out.push(if r < 85 {
                    1
                } else if r < 97 {
                    2
                } else {
                    3 + rng.below(40) as u32
                });
                out.push(50); // call to a helper: entry path
                out.push(if rng.below(10) < 8 { 51 } else { 52 });
            }
            out.push(if rng.below(4) == 0 { 60 } else { 61 }); // loop exit
        }
        out.truncate(n);
        out
    }

    /// Nanoseconds this thread has spent on a CPU (Linux), so that a loaded machine does not
    /// distort the rate; `None` elsewhere.
    fn cpu_ns() -> Option<u64> {
        let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        stat.split_whitespace().next()?.parse().ok()
    }

    /// Runs `f`, returning its result, wall seconds and on-CPU seconds (wall if unknown).
    fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
        let (c0, t0) = (cpu_ns(), Instant::now());
        let out = f();
        let wall = t0.elapsed().as_secs_f64();
        let cpu = match (c0, cpu_ns()) {
            (Some(a), Some(b)) => (b - a) as f64 / 1e9,
            _ => wall,
        };
        (out, wall, cpu)
    }

    fn measure(name: &str, input: &[u32]) {
        if std::env::var("WPP_BENCH").is_ok_and(|only| only != name) {
            return;
        }
        let (g, wall, cpu) = timed(|| {
            let mut s = Sequitur::new();
            for &x in input {
                s.push(x);
            }
            s.finish()
        });
        let (expanded, _, expand_cpu) = timed(|| g.iter().count());
        assert_eq!(expanded, input.len());
        let ((), _, intern_cpu) = timed(|| {
            let mut w = PathSymbols::new();
            // As the runtime does: (function, path id) per NewPath event.
            for &x in input {
                std::hint::black_box(w.path(x % 8, u64::from(x) * 1000));
            }
        });
        let (hot, _, hot_cpu) =
            timed(|| hot_subpaths(&g, |t| u64::from(t % 7 + 1), &HotParams::new(10_000, 100)));
        let hot = hot.expect("an index within bounds");
        let n = input.len() as f64;
        println!(
            "{{\"trace\": \"{name}\", \"symbols\": {}, \"grammar_size\": {}, \"rules\": {}, \
             \"sequitur_msym_per_s_cpu\": {:.2}, \"sequitur_msym_per_s_wall\": {:.2}, \
             \"expand_msym_per_s\": {:.1}, \"intern_mev_per_s\": {:.1}, \"hot_subpaths\": {}, \
             \"hot_s\": {:.3}}}",
            input.len(),
            g.size(),
            g.num_rules(),
            n / cpu / 1e6,
            n / wall / 1e6,
            n / expand_cpu / 1e6,
            n / intern_cpu / 1e6,
            hot.len(),
            hot_cpu,
        );
    }

    pub fn main() {
        let n = std::env::args()
            .skip(1)
            .find_map(|a| a.parse::<usize>().ok())
            .unwrap_or(20_000_000);
        measure("program-like", &program_like(n));
        let mut rng = Rng(42);
        let periodic: Vec<u32> = (0..n)
            .map(|i| {
                if rng.below(1000) == 0 {
                    99
                } else {
                    (i % 37) as u32
                }
            })
            .collect();
        measure("periodic+noise", &periodic);
        let random: Vec<u32> = (0..n / 4).map(|_| rng.below(64) as u32).collect();
        measure("uniform(64)", &random);
    }
}

fn main() {
    wpp::main();
}
