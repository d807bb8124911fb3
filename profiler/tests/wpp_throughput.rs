//! SEQUITUR(1) throughput report (DESIGN: "SEQUITUR(1) ≥ 10 M symbols/s"). Asserts nothing about
//! time; run it in release mode and read the numbers:
//!
//! ```text
//! cargo test --release -p pcc-profiler --test wpp_throughput -- --ignored --nocapture
//! ```

/// Named `wpp` so that `cargo test -p pcc-profiler wpp` selects it (it is ignored by default).
mod wpp {
    use pcc_profiler::wpp::{HotParams, Sequitur, hot_subpaths};
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

    fn measure(name: &str, input: &[u32]) {
        let t0 = Instant::now();
        let mut s = Sequitur::new();
        for &x in input {
            s.push(x);
        }
        let g = s.finish();
        let secs = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let expanded = g.iter().count();
        let expand_secs = t1.elapsed().as_secs_f64();
        assert_eq!(expanded, input.len());
        println!(
            "{name:>14}: {:>11} symbols, {:>9} grammar symbols, {:>7} rules, ratio {:>8.1}: \
             SEQUITUR(1) {:>6.1} M symbols/s, expand {:>7.1} M symbols/s",
            input.len(),
            g.size(),
            g.num_rules(),
            g.compression_ratio(),
            input.len() as f64 / secs / 1e6,
            expanded as f64 / expand_secs / 1e6,
        );
        let t2 = Instant::now();
        let hot = hot_subpaths(&g, |t| u64::from(t % 7 + 1), &HotParams::new(10_000, 100));
        println!(
            "{:>14}  hot subpaths (C = 10000, L = 100): {} in {:.3} s",
            "",
            hot.len(),
            t2.elapsed().as_secs_f64()
        );
    }

    #[test]
    #[ignore = "throughput report; run in release with --ignored --nocapture"]
    fn sequitur_throughput() {
        let n = 20_000_000;
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
