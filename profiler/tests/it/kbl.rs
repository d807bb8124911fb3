//! Property tests of the k-slab forest and its k-IPF ([KBLPP]) against brute-force n-gram counting,
//! with both child indexes (dense rows for functions with few paths, hash tables otherwise).
//! The throughput report is `profiler/examples/ksf_throughput.rs`.

use std::collections::HashMap;

use pcc_profiler::kbl::{Cursor, DENSE_MAX_IDS, KSlabForest, StreamItem};
use pcc_profiler::profile::KipfNode;
use proptest::prelude::*;

type Counts = HashMap<Vec<u64>, u64>;

/// Every run of 1..=k consecutive ids of each segment, counted.
fn brute_force_n_grams(segments: &[Vec<u64>], k: usize) -> Counts {
    let mut counts = Counts::new();
    for segment in segments {
        for start in 0..segment.len() {
            for end in start + 1..=(start + k).min(segment.len()) {
                *counts.entry(segment[start..end].to_vec()).or_default() += 1;
            }
        }
    }
    counts
}

/// The stream split at `*` markers (the markers removed).
fn segments(stream: &[StreamItem]) -> Vec<Vec<u64>> {
    let mut segments = vec![Vec::new()];
    for item in stream {
        match *item {
            StreamItem::RoutineEntry => segments.push(Vec::new()),
            StreamItem::PathId(r) => segments.last_mut().unwrap().push(r),
        }
    }
    segments
}

/// Every root-to-node sequence of the forest with its count, after checking the forest's shape:
/// depth ≤ `max_depth` and children in strictly increasing id order (a prefix forest).
fn sequences(forest: &[KipfNode], max_depth: usize) -> Counts {
    fn walk(nodes: &[KipfNode], prefix: &mut Vec<u64>, max_depth: usize, out: &mut Counts) {
        assert!(nodes.windows(2).all(|w| w[0].id < w[1].id), "ids unsorted");
        for node in nodes {
            prefix.push(node.id);
            assert!(prefix.len() <= max_depth, "too deep: {prefix:?}");
            out.insert(prefix.clone(), node.count);
            walk(&node.children, prefix, max_depth, out);
            prefix.pop();
        }
    }
    let mut out = Counts::new();
    walk(forest, &mut Vec::new(), max_depth, &mut out);
    out
}

/// Counts never grow downwards ([KBLPP], k-IPF Property 1), and no node has a zero count.
fn check_property_1(forest: &[KipfNode]) {
    for node in forest {
        let below: u64 = node.children.iter().map(|c| c.count).sum();
        assert!(node.count >= below && node.count > 0, "node {}", node.id);
        check_property_1(&node.children);
    }
}

fn total_count(forest: &[KipfNode]) -> u64 {
    forest
        .iter()
        .map(|n| n.count + total_count(&n.children))
        .sum()
}

/// Checks the k-IPF of `segments` built in `forest`.
fn check(forest: &KSlabForest, segments: &[Vec<u64>]) {
    let k = forest.k();
    let ids: usize = segments.iter().map(Vec::len).sum();
    // The k-SF counts each id once, and has at most 2k − 2 levels (one chunk, k = 1).
    let slabs = forest.slabs();
    assert_eq!(total_count(&slabs), ids as u64);
    sequences(&slabs, 2 * k.max(2) - 2);

    let kipf = forest.make_k_ipf();
    check_property_1(&kipf);
    let got = sequences(&kipf, k);
    let want = brute_force_n_grams(segments, k);
    assert_eq!(got, want, "k = {k}, segments = {segments:?}");
    // Level 1 equals the plain (Ball-Larus) count of each id.
    let mut bl: HashMap<u64, u64> = HashMap::new();
    for &r in segments.iter().flatten() {
        *bl.entry(r).or_default() += 1;
    }
    let level1: HashMap<u64, u64> = kipf.iter().map(|n| (n.id, n.count)).collect();
    assert_eq!(level1, bl);
}

/// The id ranges to build forests for: any id (hashed index), and, when every id is small,
/// just above the largest (dense rows).
fn num_ids_to_try(segments: &[Vec<u64>]) -> Vec<u64> {
    let max = segments.iter().flatten().max().copied().unwrap_or(0);
    let mut tries = vec![u64::MAX];
    if max < DENSE_MAX_IDS {
        tries.push(max + 1);
    }
    tries
}

/// A path id: mostly from a small alphabet (so sequences repeat), sometimes a large one.
fn path_id(alphabet: u64) -> impl Strategy<Value = u64> {
    prop_oneof![
        12 => 0..alphabet,
        1 => any::<u64>(),
    ]
}

fn stream() -> impl Strategy<Value = (usize, Vec<StreamItem>)> {
    (1usize..=8, 1u64..6).prop_flat_map(|(k, alphabet)| {
        let item = prop_oneof![
            1 => Just(StreamItem::RoutineEntry),
            10 => path_id(alphabet).prop_map(StreamItem::PathId),
        ];
        (Just(k), prop::collection::vec(item, 0..160))
    })
}

/// Activations made of runs of one id (a loop repeating its path), some long enough for the
/// forest to skip, and `k`.
fn runs() -> impl Strategy<Value = (usize, Vec<Vec<u64>>)> {
    let run = (0u64..4, prop_oneof![3 => 1usize..6, 1 => 1usize..400]);
    let activation = prop::collection::vec(run, 0..12).prop_map(|runs| {
        (runs.into_iter())
            .flat_map(|(id, len)| std::iter::repeat_n(id, len))
            .collect::<Vec<u64>>()
    });
    (1usize..=9, prop::collection::vec(activation, 1..4))
}

/// An event of a run with calls: ids go to the innermost activation.
#[derive(Clone, Debug)]
enum Event {
    Call,
    Return,
    Id(u64),
}

fn run() -> impl Strategy<Value = (usize, Vec<Event>)> {
    (2usize..=8, 1u64..5).prop_flat_map(|(k, alphabet)| {
        let event = prop_oneof![
            1 => Just(Event::Call),
            1 => Just(Event::Return),
            8 => path_id(alphabet).prop_map(Event::Id),
        ];
        (Just(k), prop::collection::vec(event, 0..200))
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// One stream with `*` markers, processed with one cursor as in the paper: the k-IPF counts
    /// exactly the n-grams (n ≤ k) that contain no `*`.
    #[test]
    fn kbl_k_ipf_counts_every_n_gram_between_markers((k, stream) in stream()) {
        for num_ids in num_ids_to_try(&segments(&stream)) {
            let mut forest = KSlabForest::new(k, num_ids);
            let mut cursor = Cursor::ROUTINE_ENTRY;
            forest.process_stream(&mut cursor, stream.iter().copied());
            check(&forest, &segments(&stream));
            prop_assert_eq!(forest.make_k_ipf(), in_slices(k, num_ids, &segments(&stream)));
        }
    }

    /// Long runs of one id, which the forest counts a period at a time, give the forest that
    /// counting each id gives, whether the runtime hands them over whole or cut into slices.
    #[test]
    fn kbl_runs_of_one_id_count_as_each_id((k, segments) in runs(), slice in 1usize..700) {
        for num_ids in [4, u64::MAX] {
            let mut by_id = KSlabForest::new(k, num_ids);
            let mut by_slice = KSlabForest::new(k, num_ids);
            for segment in &segments {
                let (mut one, mut many) = (Cursor::ROUTINE_ENTRY, Cursor::ROUTINE_ENTRY);
                for &r in segment {
                    by_id.process_bl_path_id(&mut one, r);
                }
                for ids in segment.chunks(slice) {
                    prop_assert_eq!(by_slice.process_bl_path_ids(&mut many, ids), ids.len());
                }
                prop_assert_eq!(one, many);
            }
            check(&by_slice, &segments);
            prop_assert_eq!(by_slice.slabs(), by_id.slabs());
        }
    }

    /// Recursive activations of one function share its forest, each with its own cursor (a
    /// stack of cursors, as the runtime keeps them): each activation's ids form one sequence,
    /// however the calls interleave them.
    #[test]
    fn kbl_calls_do_not_break_the_callers_sequences((k, events) in run()) {
        let ids: Vec<u64> = events.iter().filter_map(|e| match e {
            Event::Id(r) => Some(*r),
            _ => None,
        }).collect();
        for num_ids in num_ids_to_try(&[ids]) {
            calls_keep_sequences(k, num_ids, &events);
        }
    }
}

/// The k-IPF of `segments` (activations) given to the forest a slice of ids at a time, as the
/// runtime gives them.
fn in_slices(k: usize, num_ids: u64, segments: &[Vec<u64>]) -> Vec<KipfNode> {
    let mut forest = KSlabForest::new(k, num_ids);
    for segment in segments {
        let mut cursor = Cursor::ROUTINE_ENTRY;
        for slice in segment.chunks(7) {
            assert_eq!(forest.process_bl_path_ids(&mut cursor, slice), slice.len());
        }
    }
    forest.make_k_ipf()
}

/// A forest with dense rows that meets more distinct ids than they have slots moves to hash
/// tables on the way, and counts as a forest hashed from the start.
#[test]
fn kbl_dense_rows_give_way_to_hash_tables() {
    let num_ids = 3 * DENSE_MAX_IDS;
    // Activations of 50 pseudo-random ids: small ones first, all of them later.
    let segments: Vec<Vec<u64>> = (0..400u64)
        .map(|a| {
            let alphabet = if a < 100 { 5 } else { num_ids };
            (0..50u64)
                .map(|i| ((a * 50 + i).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) % alphabet)
                .collect()
        })
        .collect();
    for k in [1, 2, 4, 7] {
        let hashed = in_slices(k, u64::MAX, &segments);
        assert_eq!(in_slices(k, num_ids, &segments), hashed, "k = {k}");
        let mut forest = KSlabForest::new(k, num_ids);
        for segment in &segments {
            let mut cursor = Cursor::ROUTINE_ENTRY;
            for &r in segment {
                forest.process_bl_path_id(&mut cursor, r);
            }
        }
        check(&forest, &segments);
        assert_eq!(forest.make_k_ipf(), hashed, "k = {k}");
    }
}

/// Runs `events` with a stack of cursors on a forest for ids below `num_ids`, and checks that
/// each activation's ids were counted as one sequence.
fn calls_keep_sequences(k: usize, num_ids: u64, events: &[Event]) {
    let mut forest = KSlabForest::new(k, num_ids);
    let mut cursors = vec![Cursor::ROUTINE_ENTRY];
    let mut open = vec![0usize];
    let mut activations: Vec<Vec<u64>> = vec![Vec::new()];
    for event in events {
        match *event {
            Event::Call => {
                cursors.push(Cursor::ROUTINE_ENTRY);
                open.push(activations.len());
                activations.push(Vec::new());
            }
            Event::Return if cursors.len() > 1 => {
                cursors.pop();
                open.pop();
            }
            Event::Return => {}
            Event::Id(r) => {
                forest.process_bl_path_id(cursors.last_mut().unwrap(), r);
                activations[*open.last().unwrap()].push(r);
            }
        }
    }
    check(&forest, &activations);
}

/// The k-IPF for k is the (k+1)-IPF without its level k+1 ([KBLPP], Property 2).
#[test]
fn kbl_k_ipf_grows_with_k() {
    fn cut(forest: &[KipfNode], depth: usize) -> Vec<KipfNode> {
        forest
            .iter()
            .map(|n| KipfNode {
                id: n.id,
                count: n.count,
                children: if depth > 1 {
                    cut(&n.children, depth - 1)
                } else {
                    Vec::new()
                },
            })
            .collect()
    }
    // A fixed pseudo-random stream: ids 0..4, and `*` about once in 20 items.
    let stream: Vec<StreamItem> = (0..5000u64)
        .map(|i| match i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 59 {
            0 => StreamItem::RoutineEntry,
            n => StreamItem::PathId(n % 4),
        })
        .collect();
    let kipf = |k| {
        let mut forest = KSlabForest::new(k, u64::MAX);
        let mut cursor = Cursor::ROUTINE_ENTRY;
        forest.process_stream(&mut cursor, stream.iter().copied());
        forest.make_k_ipf()
    };
    let mut smaller = kipf(1);
    for k in 2..=9 {
        let larger = kipf(k);
        assert_eq!(cut(&larger, k - 1), smaller, "k = {k}");
        smaller = larger;
    }
}
