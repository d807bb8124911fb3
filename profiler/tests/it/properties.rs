//! Property tests on random CFGs (with loops, dead ends and unreachable nodes): Ball-Larus ids
//! are dense and unique, regeneration inverts numbering, the spanning-tree instrumentation
//! counts the same ids as plain increments, and edge counts are rebuilt exactly from chords.

use crate::common;

use common::{Rng, random_execution};
use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::cfg::{Cfg, EdgeId};
use pcc_profiler::edge_profile::EdgeProfilePlan;
use pcc_profiler::estimate::static_edge_weights;
use pcc_profiler::examples::stacked_ifs;
use pcc_profiler::instrument::PathPlan;
use pcc_profiler::regenerate::PathEnd;
use proptest::prelude::*;

/// Up to 9 nodes, fewer than `2n` extra edges.
fn random_cfg() -> impl Strategy<Value = Cfg> {
    common::random_cfg(2..10, 0)
}

/// The ids the plan counts along an execution that ends where its last edge goes.
fn simulate(cfg: &Cfg, plan: &PathPlan, execution: &[EdgeId]) -> Vec<u64> {
    plan.counted_ids(execution, execution.last().map(|&e| cfg.edge(e).to))
}

/// The regenerated paths of `ids`, laid end to end, must be the execution itself.
fn assert_regenerates(cfg: &Cfg, bl: &BallLarus, ids: &[u64], execution: &[EdgeId]) {
    let mut rebuilt = Vec::new();
    for &id in ids {
        assert!(
            id < bl.num_paths(),
            "id {id} out of range {}",
            bl.num_paths()
        );
        let path = bl.path(id).unwrap();
        let expected_start = match rebuilt.last() {
            Some(&e) => cfg.edge(e).to,
            None => cfg.entry(),
        };
        assert_eq!(path.start, expected_start);
        rebuilt.extend(&path.edges);
        match path.end {
            PathEnd::BackEdge(e) | PathEnd::Truncated(e) => rebuilt.push(e),
            PathEnd::Exit | PathEnd::DeadEnd(_) => {}
        }
    }
    assert_eq!(rebuilt, &execution[..rebuilt.len()]);
}

/// Counts DAG paths by brute force, up to `cap`.
fn count_dag_paths(bl: &BallLarus, cap: u64) -> u64 {
    let dag = bl.dag();
    let mut count = 0;
    let mut stack = vec![dag.entry()];
    while let Some(v) = stack.pop() {
        if v == dag.exit() {
            count += 1;
            if count >= cap {
                break;
            }
        }
        stack.extend(dag.outs(v).iter().map(|&d| dag.edge(d).to));
    }
    count
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn ids_are_dense_unique_and_regenerate(cfg in random_cfg()) {
        let bl = BallLarus::new(&cfg).unwrap();
        let n = bl.num_paths();
        prop_assume!(n <= 20_000);
        prop_assert_eq!(count_dag_paths(&bl, n + 1), n);
        // regenerate is injective on [0, n) (path_id inverts it) and there are n paths, so
        // every path has exactly one id in [0, n).
        for id in 0..n {
            let path = bl.regenerate(id).unwrap();
            prop_assert_eq!(bl.path_id(&path), id);
            let dag = bl.dag();
            prop_assert_eq!(dag.edge(path[0]).from, dag.entry());
            prop_assert_eq!(dag.edge(*path.last().unwrap()).to, dag.exit());
            for pair in path.windows(2) {
                prop_assert_eq!(dag.edge(pair[0]).to, dag.edge(pair[1]).from);
            }
        }
        prop_assert!(bl.regenerate(n).is_none());
    }

    #[test]
    fn instrumentation_counts_the_plain_ids(
        cfg in random_cfg(),
        seed in 1u64..u64::MAX,
        limit in prop::option::of(2u64..40),
        measured in prop::option::of(prop::collection::vec(0u64..100, 40)),
    ) {
        let Ok(bl) = BallLarus::with_limit(&cfg, limit.unwrap_or(u64::MAX)) else {
            // Only tiny limits are infeasible.
            prop_assert!(limit.is_some());
            return Ok(());
        };
        prop_assert!(bl.num_paths() <= limit.unwrap_or(u64::MAX));
        let weights = match measured {
            Some(w) => w[..cfg.num_edges()].to_vec(),
            None => static_edge_weights(&cfg, bl.dag()),
        };
        let plan = PathPlan::new(&bl, &weights);
        let mut rng = Rng(seed);
        for _ in 0..4 {
            let (execution, finished) = random_execution(&cfg, &bl, &mut rng, 40);
            let ids = bl.path_ids_of_execution(&cfg, &execution);
            let counted = simulate(&cfg, &plan, &execution);
            if finished {
                prop_assert_eq!(&counted, &ids);
            } else {
                // Cut short in an endless loop, right after a back or cut edge. `PathPlan::new`
                // declares no node a stop, so the count of the path that edge starts may have
                // moved up onto it (when the rest of that path is forced, its id is known
                // there): the plan counts at most that one path ahead. Programs declare where
                // they may stop (`PathPlan::with_stops`), and no count moves above those.
                prop_assert!(counted.len() == ids.len() || counted.len() == ids.len() + 1);
                prop_assert_eq!(&counted[..ids.len()], &ids[..]);
            }
            assert_regenerates(&cfg, &bl, &ids, &execution);
        }
    }

    #[test]
    fn edge_counts_are_rebuilt_from_chords(
        cfg in random_cfg(),
        seed in 1u64..u64::MAX,
        measured in prop::option::of(prop::collection::vec(0u64..100, 40)),
    ) {
        let bl = BallLarus::new(&cfg).unwrap();
        let weights = match measured {
            Some(w) => w[..cfg.num_edges()].to_vec(),
            None => static_edge_weights(&cfg, bl.dag()),
        };
        let plan = EdgeProfilePlan::new(&cfg, &weights);
        let mut truth = vec![0u64; cfg.num_edges()];
        let mut counters = vec![0u64; plan.num_counters()];
        let mut rng = Rng(seed);
        for _ in 0..5 {
            let (execution, finished) = random_execution(&cfg, &bl, &mut rng, 30);
            // Conservation needs finished invocations; one caught in an endless loop is dropped.
            if !finished {
                continue;
            }
            for &e in &execution {
                truth[e.0] += 1;
                if let Some(c) = plan.edge_counter(e) {
                    counters[c] += 1;
                }
            }
            let last = execution.last().map_or(cfg.entry(), |&e| cfg.edge(e).to);
            if let Some(c) = plan.dead_end_counter(last) {
                counters[c] += 1;
            }
        }
        prop_assert_eq!(plan.reconstruct(&counters).unwrap(), truth);
    }
}

/// 2^70 paths do not fit in 64 bits: after truncation every executed path still gets a unique id
/// in range, regenerates to what ran, and the instrumentation computes the same id.
#[test]
fn seventy_stacked_ifs_truncate_with_unique_ids() {
    let cfg = stacked_ifs(70);
    let bl = BallLarus::new(&cfg).unwrap();
    assert!(bl.is_truncated());
    let plan = PathPlan::new(&bl, &static_edge_weights(&cfg, bl.dag()));
    let mut rng = Rng(7);
    let mut seen = std::collections::HashMap::new();
    for _ in 0..200 {
        let (execution, finished) = random_execution(&cfg, &bl, &mut rng, 1000);
        assert!(finished);
        let ids = bl.path_ids_of_execution(&cfg, &execution);
        // One cut join: the path up to it and the path from it.
        assert_eq!(ids.len(), 2);
        assert_eq!(simulate(&cfg, &plan, &execution), ids);
        assert_regenerates(&cfg, &bl, &ids, &execution);
        // Equal ids mean equal paths.
        for (i, &id) in ids.iter().enumerate() {
            let segment = bl.path(id).unwrap();
            let previous = seen.insert(id, (i, segment.clone()));
            assert!(previous.is_none_or(|p| p == (i, segment)));
        }
    }
    // A smaller limit, as for choosing array storage, truncates more.
    let small = BallLarus::with_limit(&cfg, 4096).unwrap();
    assert!(small.num_paths() <= 4096);
    let mut execution_ids = Vec::new();
    for _ in 0..50 {
        let (execution, _) = random_execution(&cfg, &small, &mut rng, 1000);
        let ids = small.path_ids_of_execution(&cfg, &execution);
        assert_regenerates(&cfg, &small, &ids, &execution);
        execution_ids.extend(ids);
    }
    assert!(execution_ids.iter().all(|&id| id < small.num_paths()));
}
