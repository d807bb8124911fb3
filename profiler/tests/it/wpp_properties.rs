//! Property tests of the whole-program-path code ([WPP]): SEQUITUR(1) keeps digram uniqueness and
//! rule utility after every push and reproduces its input exactly; sub-sequence frequencies on
//! the DAG agree with counting in the expanded trace; reported hot subpaths are hot, minimal and
//! real; malformed grammars are errors, never panics; deep grammars do not overflow the stack.

/// Named `wpp` so that `cargo test -p pcc-profiler wpp` selects these tests.
mod wpp {
    use pcc_profiler::wpp::{
        Grammar, HotParams, Occurrences, PathSymbols, Sequitur, Symbol, WppSection, hot_subpaths,
    };
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// Digram uniqueness and rule utility, checked on the finished grammar independently of the
    /// builder's own bookkeeping.
    fn assert_sequitur_properties(g: &Grammar) {
        let mut digrams: HashMap<(Symbol, Symbol), Vec<(usize, usize)>> = HashMap::new();
        for (r, rhs) in g.rules().iter().enumerate() {
            if r != 0 {
                assert!(rhs.len() >= 2, "rule R{r} is too short:\n{g}");
            }
            for (i, w) in rhs.windows(2).enumerate() {
                digrams.entry((w[0], w[1])).or_default().push((r, i));
            }
        }
        for (d, at) in &digrams {
            let overlapping = at.len() == 2 && at[0].0 == at[1].0 && at[1].1 == at[0].1 + 1;
            assert!(
                at.len() == 1 || overlapping,
                "digram {d:?} repeats at {at:?}:\n{g}"
            );
        }
        for (r, &uses) in g.use_counts().iter().enumerate().skip(1) {
            assert!(uses >= 2, "rule R{r} used {uses} time(s):\n{g}");
        }
    }

    fn count_naive(text: &[u32], pattern: &[u32]) -> u64 {
        if pattern.is_empty() || pattern.len() > text.len() {
            return 0;
        }
        text.windows(pattern.len())
            .filter(|w| *w == pattern)
            .count() as u64
    }

    /// Random strings over small alphabets, and strings made of repeated "words" (like loop bodies
    /// taking a few paths), which exercise deeper rules.
    fn input() -> impl Strategy<Value = Vec<u32>> {
        prop_oneof![
            (1u32..6).prop_flat_map(|k| prop::collection::vec(0..k, 0..200)),
            (
                prop::collection::vec(prop::collection::vec(0u32..4, 1..5), 1..4),
                prop::collection::vec(0usize..4, 0..60),
            )
                .prop_map(|(words, picks)| {
                    picks
                        .iter()
                        .flat_map(|&i| words[i % words.len()].clone())
                        .collect()
                }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn invariants_hold_after_every_push(text in input()) {
            let mut s = Sequitur::new();
            for (i, &c) in text.iter().enumerate() {
                s.push(c);
                if let Err(e) = s.check_invariants() {
                    panic!("after {} symbols of {text:?}: {e}", i + 1);
                }
                prop_assert_eq!(s.snapshot().expand(), &text[..=i]);
            }
            prop_assert_eq!(s.len(), text.len() as u64);
            let g = s.finish();
            prop_assert_eq!(g.expand(), text.clone());
            prop_assert_eq!(g.trace_length(), text.len() as u64);
            prop_assert_eq!(g.iter().count(), text.len());
            assert_sequitur_properties(&g);
            // Round trip through JSON.
            let back: Grammar = serde_json::from_str(&serde_json::to_string(&g).unwrap()).unwrap();
            prop_assert_eq!(back, g);
        }

        #[test]
        fn subsequence_frequencies_match_the_trace(
            text in input(),
            starts in prop::collection::vec(any::<prop::sample::Index>(), 1..8),
            lens in prop::collection::vec(1usize..8, 1..8),
            random in prop::collection::vec(prop::collection::vec(0u32..3, 1..5), 0..4),
        ) {
            let mut s = Sequitur::new();
            s.extend(text.iter().copied());
            let g = s.finish();
            let mut patterns = random;
            if !text.is_empty() {
                for (st, &len) in starts.iter().zip(&lens) {
                    let a = st.index(text.len());
                    patterns.push(text[a..(a + len).min(text.len())].to_vec());
                }
            }
            // One index for patterns of every length up to its limit counts each as exactly,
            // also one whose order of positions took several rounds of doubling.
            let shared = Occurrences::new(&g, 8).unwrap();
            let long = Occurrences::new(&g, 64).unwrap();
            for p in &patterns {
                prop_assert_eq!(g.occurrences(p).unwrap(), count_naive(&text, p), "pattern {:?}", p);
                prop_assert_eq!(shared.count(p), count_naive(&text, p), "pattern {:?}", p);
                prop_assert_eq!(long.count(p), count_naive(&text, p), "pattern {:?}", p);
            }
            if !text.is_empty() {
                for (st, len) in starts.iter().zip([9, 17, 40, 64]) {
                    let a = st.index(text.len());
                    let p = &text[a..(a + len).min(text.len())];
                    prop_assert_eq!(long.count(p), count_naive(&text, p), "pattern {:?}", p);
                }
            }
            // Frequencies: a rule's expansion occurs at least as often as the rule is executed.
            let freq = g.frequencies();
            let lens = g.rule_lengths();
            for r in 1..g.num_rules() {
                let body: Vec<u32> = g.iter_rule(r as u32).collect();
                prop_assert_eq!(body.len() as u64, lens[r]);
                prop_assert!(count_naive(&text, &body) >= freq[r]);
            }
        }

        #[test]
        fn hot_subpaths_are_hot_minimal_and_real(
            text in input(),
            costs in prop::collection::vec(0u64..20, 6),
            min_cost in 0u64..200,
            max_len in 0usize..8,
            min_len in 1usize..4,
        ) {
            let mut s = Sequitur::new();
            s.extend(text.iter().copied());
            let g = s.finish();
            let cost = |t: u32| costs[t as usize];
            let params = HotParams { min_cost, max_len, min_len };
            let hot = hot_subpaths(&g, cost, &params).unwrap();
            let distinct: std::collections::BTreeSet<&Vec<u32>> = hot.iter().map(|h| &h.path).collect();
            prop_assert_eq!(distinct.len(), hot.len(), "a subpath is listed twice");
            for h in &hot {
                let n = h.path.len();
                prop_assert!(n >= min_len && n <= max_len);
                // Real: its frequency is its number of occurrences in the trace, in all rules.
                prop_assert_eq!(h.frequency, count_naive(&text, &h.path));
                let path_cost: u64 = h.path.iter().map(|&t| cost(t)).sum();
                prop_assert_eq!(h.path_cost, path_cost);
                prop_assert_eq!(h.cost, path_cost * h.frequency);
                prop_assert!(h.cost >= min_cost);
                // Minimal: the subpath without its last path is not hot (or too short), unless
                // the window slid (it was full), so that the shorter one was never a window.
                let shorter: u64 = h.path[..n - 1].iter().map(|&t| cost(t)).sum();
                let shorter_frequency = count_naive(&text, &h.path[..n - 1]);
                prop_assert!(
                    n - 1 < min_len || n == max_len || shorter * shorter_frequency < min_cost
                );
            }
        }

        #[test]
        fn arbitrary_rule_lists_never_panic(
            rules in prop::collection::vec(
                prop::collection::vec((any::<bool>(), 0u32..6), 0..5), 0..6),
        ) {
            let rules: Vec<Vec<Symbol>> = rules
                .into_iter()
                .map(|rhs| {
                    rhs.into_iter()
                        .map(|(is_rule, x)| if is_rule { Symbol::Rule(x) } else { Symbol::Terminal(x) })
                        .collect()
                })
                .collect();
            let json = serde_json::to_string(&rules).unwrap();
            let parsed = serde_json::from_str::<Grammar>(&json);
            match Grammar::new(rules) {
                Ok(g) => {
                    prop_assert_eq!(parsed.ok(), Some(g.clone()));
                    prop_assert_eq!(g.expand().len() as u64, g.trace_length());
                    let _ = hot_subpaths(&g, |_| 1, &HotParams::new(3, 3)).unwrap();
                    let _ = g.occurrences(&[0, 1]).unwrap();
                }
                Err(e) => {
                    prop_assert!(parsed.is_err());
                    prop_assert!(!e.to_string().is_empty());
                }
            }
        }

        #[test]
        fn arbitrary_json_never_panics(json in "[\\[\\]{}\":,0-9R a-z-]{0,60}") {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(&json) {
                let _ = WppSection::from_value(&v);
            }
            let _ = serde_json::from_str::<Grammar>(&json);
        }
    }

    /// Runs `f` on a thread with a small stack, so that recursion proportional to grammar depth
    /// would overflow.
    fn on_small_stack(f: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(128 * 1024)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn deep_grammars_do_not_overflow_the_stack() {
        on_small_stack(|| {
            const DEPTH: u32 = 200_000;
            // R_i -> i R_{i+1} (left spine) ... and R_i -> R_{i+1} i (right spine).
            for left in [true, false] {
                let mut rules: Vec<Vec<Symbol>> = (0..DEPTH)
                    .map(|i| {
                        let (t, r) = (Symbol::Terminal(i % 7), Symbol::Rule(i + 1));
                        if left { vec![r, t] } else { vec![t, r] }
                    })
                    .collect();
                rules.push(vec![Symbol::Terminal(9), Symbol::Terminal(9)]);
                let json = serde_json::to_string(&rules).unwrap();
                let g: Grammar = serde_json::from_str(&json).unwrap();
                assert_eq!(g.trace_length(), u64::from(DEPTH) + 2);
                assert_eq!(g.expand().len() as u64, g.trace_length());
                assert_eq!(g.frequencies()[DEPTH as usize], 1);
                assert_eq!(g.occurrences(&[9, 9]).unwrap(), 1);
                // Each of the paths 0..7 occurs at least 3 times, so each is hot alone; the
                // rest (around the two 9s) occurs less. Every entry is real and listed once.
                let hot = hot_subpaths(&g, |_| 1, &HotParams::new(3, 3)).unwrap();
                for t in 0..7 {
                    assert_eq!(hot.iter().filter(|h| h.path == [t]).count(), 1);
                }
                assert!(hot.len() <= 9);
                for h in &hot {
                    assert_eq!(h.frequency, g.occurrences(&h.path).unwrap());
                    assert!(h.cost >= 3);
                }
                assert_eq!(g.canonical(), g);
            }
            // A cycle deep down is reported, not followed.
            let mut rules: Vec<Vec<Symbol>> = (1..=DEPTH)
                .map(|i| vec![Symbol::Rule(i), Symbol::Terminal(0)])
                .collect();
            rules.push(vec![Symbol::Rule(1)]);
            assert!(Grammar::new(rules).is_err());
        });
    }

    #[test]
    fn long_traces_compress_and_expand() {
        on_small_stack(|| {
            // a^(2^16) gives a grammar of depth 15; a counter-like trace gives a broad one.
            let mut s = Sequitur::new();
            s.extend(std::iter::repeat_n(3, 1 << 16));
            let g = s.finish();
            assert_eq!(g.trace_length(), 1 << 16);
            assert!(g.size() < 40, "{g}");
            assert!(g.expand().iter().all(|&t| t == 3));

            let mut w = PathSymbols::new();
            let mut s = Sequitur::new();
            let mut expected = Vec::new();
            for i in 0..20_000u64 {
                // A loop whose body takes path 0 or 1 by bits of the counter, calling f each time.
                w.enter_routine(0);
                s.push(w.new_path(u64::from(i.count_ones() % 2)));
                w.enter_routine(1);
                s.push(w.new_path(i % 3));
                w.leave_routine();
                w.leave_routine();
                expected.push((0u32, u64::from(i.count_ones() % 2)));
                expected.push((1, i % 3));
            }
            let trace = w.trace(s.finish());
            let expanded: Vec<(u32, u64)> = trace
                .grammar
                .iter()
                .map(|t| {
                    let k = trace.symbols[t as usize];
                    (k.function, k.path)
                })
                .collect();
            assert_eq!(expanded, expected);
            assert_sequitur_properties(&trace.grammar);
            assert!(trace.grammar.compression_ratio() > 10.0);
        });
    }
}
