//! Targeted path profiling ([TPP]) on random CFGs with edge profiles taken from the same random
//! executions (a representative edge profile, as in [TPP] §5).

use std::collections::BTreeMap;

use crate::common::{self, Rng, random_execution};
use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::cfg::{Cfg, EdgeId, NodeId};
use pcc_profiler::dag::{DagEdgeKind, EdgeRole};
use pcc_profiler::tpp::{Tpp, TppConfig, TppCounters, TppOp, attribution_of_definite_flow};
use proptest::prelude::*;

type Key = (NodeId, Vec<EdgeId>);

/// Up to 10 nodes, fewer than `2n + 2` extra edges.
fn random_cfg() -> impl Strategy<Value = Cfg> {
    common::random_cfg(2..11, 2)
}

/// Finished random invocations (so the edge profile conserves flow).
fn executions(cfg: &Cfg, seed: u64) -> Vec<Vec<EdgeId>> {
    let bl = BallLarus::new(cfg).unwrap();
    let mut rng = Rng(seed | 1);
    (0..12)
        .map(|_| random_execution(cfg, &bl, &mut rng, 14))
        // Ball-Larus's `path_ids_of_execution` counts nothing for an invocation that stops
        // in the entry block, so those are left out.
        .filter(|(edges, finished)| *finished && !edges.is_empty())
        .map(|(edges, _)| edges)
        .collect()
}

fn edge_profile(cfg: &Cfg, runs: &[Vec<EdgeId>]) -> Vec<u64> {
    let mut counts = vec![0; cfg.num_edges()];
    for e in runs.iter().flatten() {
        counts[e.0] += 1;
    }
    counts
}

/// What TPP should count, found by walking the executions over the hot DAG without its code:
/// hot paths by id (checking each id names the walked path) and the number of cold paths.
fn oracle(tpp: &Tpp, cfg: &Cfg, runs: &[Vec<EdgeId>]) -> (BTreeMap<u64, u64>, u64) {
    let dag = tpp.dag();
    let mut paths = BTreeMap::new();
    let mut cold = 0;
    let mut record = |id: Option<u64>, start: NodeId, seg: &mut Vec<EdgeId>| {
        match id {
            Some(id) => {
                assert!(
                    seg.iter().all(|&e| !tpp.is_cold(e)),
                    "hot path has a cold edge"
                );
                assert_eq!(tpp.cfg_path(id), Some((start, seg.clone())));
                *paths.entry(id).or_insert(0) += 1;
            }
            None => cold += 1,
        }
        seg.clear();
    };
    for run in runs {
        let (mut id, mut start, mut seg) = (Some(0u64), cfg.entry(), Vec::new());
        for &e in run {
            seg.push(e);
            let edge = cfg.edge(e);
            match tpp.hot_role(e) {
                Some(EdgeRole::Dag(d)) => {
                    id = id.map(|x| x + tpp.increment(d));
                    if edge.to == cfg.exit() {
                        record(id, start, &mut seg);
                    }
                }
                Some(EdgeRole::Closing { exit, entry }) => {
                    record(id.map(|x| x + tpp.increment(exit)), start, &mut seg);
                    start = edge.to;
                    id = Some(entry.map_or(0, |d| tpp.increment(d)));
                }
                Some(EdgeRole::Unreachable) => unreachable!("executed edges are reachable"),
                None if tpp.cold_back_edge(e).is_some() => {
                    record(None, start, &mut seg);
                    start = edge.to;
                    id = if edge.to == cfg.entry() {
                        Some(0)
                    } else {
                        dag.entry_dummy(edge.to).map(|d| tpp.increment(d))
                    };
                }
                None => {
                    id = None;
                    if edge.to == cfg.exit() {
                        record(None, start, &mut seg);
                    }
                }
            }
        }
        let last = run.last().map_or(cfg.entry(), |&e| cfg.edge(e).to);
        if last != cfg.exit() && cfg.succs(last).is_empty() {
            let dead_end = dag
                .outs(last)
                .iter()
                .find(|d| dag.edge(**d).kind == DagEdgeKind::DeadEnd);
            let id = match (id, dead_end) {
                (Some(x), Some(&d)) if dag.contains(last) => Some(x + tpp.increment(d)),
                _ => None,
            };
            record(id, start, &mut seg);
        }
    }
    (paths, cold)
}

fn run(tpp: &Tpp, runs: &[Vec<EdgeId>]) -> TppCounters {
    let mut counters = TppCounters::default();
    for r in runs {
        tpp.execute(r, &mut counters);
    }
    counters
}

fn bl_counts(cfg: &Cfg, bl: &BallLarus, runs: &[Vec<EdgeId>]) -> BTreeMap<u64, u64> {
    let mut counts = BTreeMap::new();
    for r in runs {
        for id in bl.path_ids_of_execution(cfg, r) {
            *counts.entry(id).or_insert(0) += 1;
        }
    }
    counts
}

fn no_code(tpp: &Tpp, cfg: &Cfg) -> bool {
    tpp.entry_ops().is_empty()
        && (0..cfg.num_edges()).all(|e| tpp.edge_ops(EdgeId(e)).is_empty())
        && (0..cfg.num_nodes()).all(|v| tpp.dead_end_ops(NodeId(v)).is_empty())
}

fn config(i: u32, j: u32, eliminate_obvious: bool) -> TppConfig {
    TppConfig {
        cold_threshold: i,
        loop_threshold: j,
        eliminate_obvious,
    }
}

/// The property of `rebuilt_profile_matches_the_executions` for one graph and run.
fn rebuilt_profile_matches(cfg: &Cfg, seed: u64, i: u32, j: u32) -> Result<(), TestCaseError> {
    let runs = executions(cfg, seed);
    let counts = edge_profile(cfg, &runs);
    let tpp = Tpp::new(cfg, &counts, config(i, j, true)).unwrap();
    let (truth, _) = oracle(&tpp, cfg, &runs);
    let counters = run(&tpp, &runs);
    for (id, &c) in &counters.paths {
        prop_assert_eq!(truth.get(id), Some(&c));
    }
    let profile = tpp.rebuild(&counters, &counts);
    for (id, &c) in &truth {
        prop_assert!(profile.paths.get(id).copied().unwrap_or(0) >= c);
    }
    if tpp.cold_edges().iter().all(|&e| counts[e.0] == 0) {
        prop_assert_eq!(&profile.paths, &truth);
    }

    // Same paths as Ball-Larus (no loop cut, same back edges): same counts.
    let bl = BallLarus::new(cfg).unwrap();
    let plain = Tpp::new(cfg, &counts, config(0, 0, false)).unwrap();
    let bl_profile = bl_counts(cfg, &bl, &runs);
    prop_assert_eq!(&run(&plain, &runs).paths, &bl_profile);
    let mut tpp_back: Vec<EdgeId> = tpp
        .dag()
        .back_edges()
        .iter()
        .map(|&h| tpp.original_edge(h))
        .collect();
    tpp_back.sort();
    let mut bl_back: Vec<EdgeId> = bl
        .dag()
        .back_edges()
        .iter()
        .copied()
        .filter(|&e| !tpp.is_cold(e))
        .collect();
    bl_back.sort();
    // Cold edges that end a path as a back edge does (Fig. 6, and the entries of loops cold
    // transitively) must be back edges of Ball-Larus's too.
    let cold_ends_are_back_edges = (0..cfg.num_edges())
        .map(EdgeId)
        .filter(|&e| tpp.cold_back_edge(e).is_some())
        .all(|e| bl.dag().back_edges().contains(&e));
    if tpp.disconnected_edges().is_empty() && tpp_back == bl_back && cold_ends_are_back_edges {
        let by_key: BTreeMap<Key, u64> = bl_profile
            .iter()
            .map(|(&id, &c)| (plain.cfg_path(id).unwrap(), c))
            .collect();
        for (id, &c) in &truth {
            let key = tpp.cfg_path(*id).unwrap();
            prop_assert_eq!(by_key.get(&key), Some(&c));
        }
    }
    Ok(())
}

/// A case proptest found: TPP ends a path at the cold edge 4 → 5 into a loop whose other
/// entries are hot (a cold edge that closes a path), where Ball-Larus's path goes on, so the
/// two count the loop's path 5 → 6 → 5 differently.
#[test]
fn rebuilt_profile_where_a_cold_edge_ends_a_path() {
    let mut cfg = Cfg::new(9, NodeId(0), NodeId(8)).unwrap();
    let edges = [
        (0, 1),
        (1, 2),
        (2, 3),
        (3, 4),
        (4, 5),
        (5, 6),
        (1, 2),
        (1, 5),
        (6, 5),
        (5, 8),
        (2, 1),
        (1, 0),
        (2, 6),
    ];
    for (a, b) in edges {
        cfg.add_edge(NodeId(a), NodeId(b)).unwrap();
    }
    rebuilt_profile_matches(&cfg, 3989025849689266544, 27, 41).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The hot DAG's numbering is unique and dense: ids `0..num_paths` name distinct paths,
    /// each the sum of its increments.
    #[test]
    fn hot_numbering_is_unique_and_dense(
        cfg in random_cfg(), seed in any::<u64>(), i in 0u32..60, j in 0u32..60,
    ) {
        let runs = executions(&cfg, seed);
        let tpp = Tpp::new(&cfg, &edge_profile(&cfg, &runs), config(i, j, true)).unwrap();
        if tpp.num_paths() > 4096 {
            return Ok(());
        }
        let mut keys = std::collections::BTreeSet::new();
        for id in 0..tpp.num_paths() {
            let path = tpp.path(id).unwrap();
            prop_assert_eq!(path.iter().map(|&d| tpp.increment(d)).sum::<u64>(), id);
            prop_assert!(keys.insert(tpp.cfg_path(id).unwrap()));
        }
        prop_assert!(tpp.path(tpp.num_paths()).is_none());
    }

    /// Without obvious-path elimination, the code counts every hot path of the executions
    /// exactly, and every path through a cold edge in the cold counter (poisoning).
    #[test]
    fn every_path_through_a_cold_edge_is_poisoned(
        cfg in random_cfg(), seed in any::<u64>(), i in 0u32..60, j in 0u32..60,
    ) {
        let runs = executions(&cfg, seed);
        let tpp = Tpp::new(&cfg, &edge_profile(&cfg, &runs), config(i, j, false)).unwrap();
        let (paths, cold) = oracle(&tpp, &cfg, &runs);
        let counters = run(&tpp, &runs);
        prop_assert_eq!(&counters.paths, &paths);
        prop_assert_eq!(counters.cold, cold);
        prop_assert!(counters.paths.keys().all(|&id| id < tpp.num_paths()));
        // Only hot blocks' cold out-edges poison.
        for (e, edge) in cfg.edges() {
            if tpp.edge_ops(e).contains(&TppOp::Poison) {
                prop_assert!(tpp.is_cold(e) && tpp.dag().contains(edge.from));
            }
        }
    }

    /// With elimination, the recorded paths are counted exactly, the rebuilt obvious paths
    /// are never undercounted (and exact without cold edges), and with a representative
    /// edge profile the hot counts equal Ball-Larus's for the same paths.
    #[test]
    fn rebuilt_profile_matches_the_executions(
        cfg in random_cfg(), seed in any::<u64>(), i in 0u32..60, j in 0u32..60,
    ) {
        rebuilt_profile_matches(&cfg, seed, i, j)?;
    }

    /// TPP(0, 0) keeps every path; its rebuilt profile is the Ball-Larus profile, so AoDF is
    /// 100%.
    #[test]
    fn zero_thresholds_attribute_all_flow(cfg in random_cfg(), seed in any::<u64>()) {
        let runs = executions(&cfg, seed);
        let counts = edge_profile(&cfg, &runs);
        let tpp = Tpp::new(&cfg, &counts, config(0, 0, true)).unwrap();
        let profile = tpp.rebuild(&run(&tpp, &runs), &counts);
        let bl = BallLarus::new(&cfg).unwrap();
        let bl_profile = bl_counts(&cfg, &bl, &runs);
        prop_assert_eq!(&profile.paths, &bl_profile);
        let aodf = attribution_of_definite_flow(&bl, &bl_profile, &tpp, &profile);
        prop_assert_eq!(aodf.percent(), 100.0);
    }

    /// AoDF with TPP's defaults: cold counts are undercounts, nothing is overcounted
    /// without cold edges.
    #[test]
    fn aodf_is_consistent(cfg in random_cfg(), seed in any::<u64>()) {
        let runs = executions(&cfg, seed);
        let counts = edge_profile(&cfg, &runs);
        let tpp = Tpp::new(&cfg, &counts, TppConfig::default()).unwrap();
        let counters = run(&tpp, &runs);
        let profile = tpp.rebuild(&counters, &counts);
        let bl = BallLarus::new(&cfg).unwrap();
        let aodf =
            attribution_of_definite_flow(&bl, &bl_counts(&cfg, &bl, &runs), &tpp, &profile);
        prop_assert!(aodf.percent() <= 100.0);
        if tpp.cold_edges().iter().all(|&e| counts[e.0] == 0) {
            prop_assert_eq!(aodf.overcount, 0);
            prop_assert_eq!(aodf.undercount, 0);
        }
    }

    /// A function with hot paths is left without code exactly when they are all obvious.
    #[test]
    fn all_obvious_means_no_instrumentation(
        cfg in random_cfg(), seed in any::<u64>(), i in 0u32..60, j in 0u32..60,
    ) {
        let runs = executions(&cfg, seed);
        let tpp = Tpp::new(&cfg, &edge_profile(&cfg, &runs), config(i, j, true)).unwrap();
        if tpp.num_paths() == 0 || tpp.num_paths() > 4096 {
            return Ok(());
        }
        let all_obvious = (0..tpp.num_paths()).all(|id| tpp.is_obvious(id));
        prop_assert_eq!(all_obvious, !tpp.needs_instrumentation());
        if all_obvious {
            prop_assert!(no_code(&tpp, &cfg));
        }
    }
}

/// Tree-shaped functions (every block has one predecessor) are all obvious.
#[test]
fn tree_shaped_functions_need_no_code() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..200 {
        let n = 2 + rng.below(12);
        let exit = n;
        let mut cfg = Cfg::new(n + 1, NodeId(0), NodeId(exit)).unwrap();
        for v in 1..n {
            cfg.add_edge(NodeId(rng.below(v)), NodeId(v)).unwrap();
        }
        for v in 0..n {
            if cfg.succs(NodeId(v)).is_empty() || rng.below(3) == 0 {
                cfg.add_edge(NodeId(v), NodeId(exit)).unwrap();
            }
        }
        let counts: Vec<u64> = vec![1; cfg.num_edges()];
        let tpp = Tpp::new(&cfg, &counts, config(0, 0, true)).unwrap();
        assert!(!tpp.needs_instrumentation());
        assert!(no_code(&tpp, &cfg));
    }
}
