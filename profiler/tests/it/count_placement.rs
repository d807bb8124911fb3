//! `PathPlan::with_stops`: a run that stops inside a node where the program may end (a runtime
//! error, `exit()` in a callee) counts exactly the paths it finished, never the one in progress,
//! while complete runs count what `PathPlan::new` counts.

use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::cfg::{Cfg, EdgeId, NodeId};
use pcc_profiler::estimate::static_edge_weights;
use pcc_profiler::instrument::PathPlan;

/// A small deterministic generator (no dependency needed).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// Nodes `0..n`, EXIT `n`; each node has one or two successors anywhere (loops included), or
/// none (a dead end).
fn random_cfg(rng: &mut Rng) -> Cfg {
    let n = 2 + rng.below(7);
    let mut edges = Vec::new();
    for v in 0..n {
        match rng.below(10) {
            0 => {}
            1..=4 => edges.push((v, 1 + rng.below(n))),
            _ => {
                let a = 1 + rng.below(n);
                let b = (a + 1 + rng.below(n - 1)) % (n + 1);
                edges.push((v, a));
                if b != 0 && b != a {
                    edges.push((v, b));
                }
            }
        }
    }
    Cfg::from_edges(n + 1, 0, n, &edges).unwrap()
}

#[test]
fn runs_that_stop_count_only_finished_paths() {
    let mut rng = Rng(7);
    let mut stops_checked = 0;
    for _ in 0..3000 {
        let cfg = random_cfg(&mut rng);
        let numbering = BallLarus::new(&cfg).unwrap();
        let weights = static_edge_weights(&cfg, numbering.dag());
        let may_stop: Vec<bool> = (0..cfg.num_nodes())
            .map(|v| v != cfg.exit().0 && rng.below(3) == 0)
            .collect();
        let plan = PathPlan::with_stops(&numbering, &weights, &may_stop);
        let plain = PathPlan::new(&numbering, &weights);
        // A random walk from the entry.
        let mut execution = Vec::new();
        let mut v = cfg.entry();
        while v != cfg.exit() && !cfg.succs(v).is_empty() && execution.len() < 30 {
            let e = cfg.succs(v)[rng.below(cfg.succs(v).len())];
            execution.push(e);
            v = cfg.edge(e).to;
        }
        // Complete runs (to EXIT or a dead end) count the same paths with both plans. (Not
        // when the entry is a dead end: `path_ids_of_execution` sees no path without an edge.)
        if !execution.is_empty() && (v == cfg.exit() || cfg.succs(v).is_empty()) {
            let end = (v != cfg.exit()).then_some(v);
            let ids = numbering.path_ids_of_execution(&cfg, &execution);
            assert_eq!(plan.counted_ids(&execution, end), ids);
            assert_eq!(plain.counted_ids(&execution, end), ids);
        }
        // Stopping inside any node where the program may stop loses only the path in progress.
        for k in 1..=execution.len() {
            let prefix = &execution[..k];
            let inside = cfg.edge(prefix[k - 1]).to;
            if !may_stop[inside.0] {
                continue;
            }
            let mut finished = numbering.path_ids_of_execution(&cfg, prefix);
            if cfg.succs(inside).is_empty() {
                // `path_ids_of_execution` ends the path at the dead end; here it stops before.
                finished.pop();
            }
            assert_eq!(
                plan.counted_ids(prefix, None),
                finished,
                "cfg {cfg:?}, may stop {may_stop:?}, stopped inside {inside:?} after {prefix:?}"
            );
            stops_checked += 1;
        }
    }
    assert!(stops_checked > 1000);
}

/// Without stops, `with_stops` is `new`.
#[test]
fn no_stops_is_the_plain_plan() {
    let mut rng = Rng(11);
    for _ in 0..500 {
        let cfg = random_cfg(&mut rng);
        let numbering = BallLarus::new(&cfg).unwrap();
        let weights = static_edge_weights(&cfg, numbering.dag());
        let plain = PathPlan::new(&numbering, &weights);
        let none = PathPlan::with_stops(&numbering, &weights, &vec![false; cfg.num_nodes()]);
        for e in (0..cfg.num_edges()).map(EdgeId) {
            assert_eq!(plain.edge_ops(e), none.edge_ops(e));
        }
        for v in (0..cfg.num_nodes()).map(NodeId) {
            assert_eq!(plain.dead_end_ops(v), none.dead_end_ops(v));
        }
    }
}
