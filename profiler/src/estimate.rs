//! Static estimates, for when no profile is given:
//! - edge frequencies used as spanning-tree weights: an edge inside `k` loops weighs `10^k`, so
//!   counter code lands outside inner loops;
//! - path frequencies in the style of Wu and Larus (loop branches taken 88% of the time, other
//!   branches even), used by `--profile=ppp` to pick interesting paths without a profile
//!   ([`estimated_hot_paths`]).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::ball_larus::BallLarus;
use crate::cfg::{Cfg, EdgeId, NodeId};
use crate::dag::{Dag, DagEdgeKind};

/// Deepest nesting counted; `10^18` still fits in a `u64`.
const MAX_DEPTH: u32 = 18;

/// Loop depth of each node: the number of loop headers whose loop contains it. The loop of
/// header `w` is `w` plus every node that reaches the source of a back edge into `w` without
/// passing through `w` (a natural loop when `w` dominates its latches).
pub fn loop_depths(cfg: &Cfg, dag: &Dag) -> Vec<u32> {
    let mut depth = vec![0u32; cfg.num_nodes()];
    for in_loop in loops(cfg, dag) {
        for (d, inside) in depth.iter_mut().zip(in_loop) {
            *d += u32::from(inside);
        }
    }
    depth
}

/// The loops of the function, one per header: which nodes each contains (see [`loop_depths`]).
fn loops(cfg: &Cfg, dag: &Dag) -> Vec<Vec<bool>> {
    let mut loops = Vec::new();
    let mut headers: Vec<NodeId> = dag.back_edges().iter().map(|&e| cfg.edge(e).to).collect();
    headers.sort();
    headers.dedup();
    for w in headers {
        let mut in_loop = vec![false; cfg.num_nodes()];
        in_loop[w.0] = true;
        let mut stack: Vec<NodeId> = dag
            .back_edges()
            .iter()
            .map(|&e| cfg.edge(e))
            .filter(|edge| edge.to == w)
            .map(|edge| edge.from)
            .collect();
        while let Some(v) = stack.pop() {
            if in_loop[v.0] || !dag.contains(v) {
                continue;
            }
            in_loop[v.0] = true;
            stack.extend(cfg.preds(v).iter().map(|&e| cfg.edge(e).from));
        }
        loops.push(in_loop);
    }
    loops
}

/// Estimated frequency of each CFG edge: `10^k` where `k` is the smaller loop depth of its ends.
pub fn static_edge_weights(cfg: &Cfg, dag: &Dag) -> Vec<u64> {
    let depth = loop_depths(cfg, dag);
    cfg.edges()
        .map(|(_, e)| 10u64.pow(depth[e.from.0].min(depth[e.to.0]).min(MAX_DEPTH)))
        .collect()
}

/// Wu-Larus loop branch heuristic: a branch that stays in a loop is taken this often; one that
/// leaves it, the rest of the time.
pub const LOOP_STAY_PROBABILITY: f64 = 0.88;

/// Estimated probability of each CFG edge given its source runs: where some out-edges leave a
/// loop the source is in and others stay, the staying ones share 0.88 and the leaving ones
/// 0.12; otherwise the out-edges share evenly.
pub fn branch_probabilities(cfg: &Cfg, dag: &Dag) -> Vec<f64> {
    let loops = loops(cfg, dag);
    let mut probability = vec![0.0; cfg.num_edges()];
    for v in 0..cfg.num_nodes() {
        let succs = cfg.succs(NodeId(v));
        if succs.is_empty() {
            continue;
        }
        let leaves = |e: EdgeId| {
            let to = cfg.edge(e).to;
            loops.iter().any(|l| l[v] && !l[to.0])
        };
        let exits = succs.iter().filter(|&&e| leaves(e)).count();
        let stays = succs.len() - exits;
        for &e in succs {
            probability[e.0] = if exits == 0 || stays == 0 {
                1.0 / succs.len() as f64
            } else if leaves(e) {
                (1.0 - LOOP_STAY_PROBABILITY) / exits as f64
            } else {
                LOOP_STAY_PROBABILITY / stays as f64
            };
        }
    }
    probability
}

/// The estimated frequency factor of each DAG edge (per call of the function): a real, back or
/// cut edge weighs its branch probability, a dead end 1, and an `ENTRY→w` dummy the estimated
/// number of times a back (or cut) edge into `w` is taken. A path's estimated frequency is the
/// product along it; only a path's first edge can exceed 1.
pub fn dag_edge_factors(numbering: &BallLarus, cfg: &Cfg) -> Vec<f64> {
    let dag = numbering.dag();
    let probability = branch_probabilities(cfg, dag);
    let loops = loops(cfg, dag);
    let is_header = |v: NodeId| {
        dag.back_edges()
            .iter()
            .any(|&e| cfg.edge(e).to == v && loops.iter().any(|l| l[v.0]))
    };
    // Node frequencies along the DAG's real edges; a loop header runs 1/0.12 times per entry.
    let mut freq = vec![0.0f64; cfg.num_nodes()];
    for &v in dag.topological_order() {
        let inflow: f64 = if v == cfg.entry() {
            1.0
        } else {
            dag.ins(v)
                .iter()
                .filter_map(|&d| match dag.edge(d).kind {
                    DagEdgeKind::Real(e) => Some(freq[cfg.edge(e).from.0] * probability[e.0]),
                    _ => None,
                })
                .sum()
        };
        freq[v.0] = if v != dag.exit() && is_header(v) {
            inflow / (1.0 - LOOP_STAY_PROBABILITY)
        } else {
            inflow
        };
    }
    // Flow into each node through closing (back or cut) edges: where its paths restart.
    let mut restarts = vec![0.0f64; cfg.num_nodes()];
    for (_, edge) in dag.edges() {
        if let DagEdgeKind::BackExit(e) | DagEdgeKind::CutExit(e) = edge.kind {
            let e = cfg.edge(e);
            restarts[e.to.0] += freq[e.from.0] * probability_of(&probability, cfg, e.from, e.to);
        }
    }
    dag.edges()
        .map(|(_, edge)| match edge.kind {
            DagEdgeKind::Real(e) | DagEdgeKind::BackExit(e) | DagEdgeKind::CutExit(e) => {
                probability[e.0]
            }
            DagEdgeKind::EntryDummy => restarts[edge.to.0],
            DagEdgeKind::DeadEnd => 1.0,
        })
        .collect()
}

/// The probability of the (first) CFG edge `from→to`.
fn probability_of(probability: &[f64], cfg: &Cfg, from: NodeId, to: NodeId) -> f64 {
    cfg.succs(from)
        .iter()
        .find(|&&e| cfg.edge(e).to == to)
        .map_or(0.0, |&e| probability[e.0])
}

/// A partial path in the best-first search: its estimated frequency so far, where it is, and
/// its Ball-Larus id so far.
struct Partial {
    value: f64,
    node: NodeId,
    id: u64,
}

impl PartialEq for Partial {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Partial {}
impl PartialOrd for Partial {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Partial {
    fn cmp(&self, other: &Self) -> Ordering {
        // Ties: smaller ids first (the heap pops the greatest).
        self.value
            .total_cmp(&other.value)
            .then_with(|| other.id.cmp(&self.id))
    }
}

/// The most steps [`estimated_hot_paths`] takes before it settles for what it has.
const SEARCH_STEPS: usize = 1 << 18;

/// The Ball-Larus ids of the paths with the highest estimated frequency (Wu-Larus-style
/// probabilities, [`dag_edge_factors`]; a path's frequency is the product along it) that
/// together cover `coverage` (0–1) of the estimated path executions, at most `cap` of them,
/// hottest first. Paths are found best-first, so none is enumerated that is colder than the
/// last one kept.
pub fn estimated_hot_paths(
    numbering: &BallLarus,
    cfg: &Cfg,
    coverage: f64,
    cap: usize,
) -> Vec<u64> {
    let dag = numbering.dag();
    let factors = dag_edge_factors(numbering, cfg);
    // Total estimated flow: the sum over all paths of their products.
    let mut flow = vec![0.0f64; dag.num_nodes()];
    flow[dag.entry().0] = 1.0;
    for &v in dag.topological_order() {
        for &d in dag.outs(v) {
            flow[dag.edge(d).to.0] += flow[v.0] * factors[d.0];
        }
    }
    let total = flow[dag.exit().0];
    let mut chosen = Vec::new();
    if total.is_nan() || total <= 0.0 || !dag.contains(dag.entry()) {
        return chosen;
    }
    let mut covered = 0.0;
    let mut heap = BinaryHeap::new();
    heap.push(Partial {
        value: 1.0,
        node: dag.entry(),
        id: 0,
    });
    let mut steps = 0;
    while let Some(p) = heap.pop() {
        steps += 1;
        if p.node == dag.exit() {
            chosen.push(p.id);
            covered += p.value;
            if covered >= coverage * total || chosen.len() >= cap {
                break;
            }
            continue;
        }
        if steps > SEARCH_STEPS {
            break;
        }
        for &d in dag.outs(p.node) {
            let value = p.value * factors[d.0];
            if value > 0.0 {
                heap.push(Partial {
                    value,
                    node: dag.edge(d).to,
                    id: p.id.wrapping_add(numbering.increment(d)),
                });
            }
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_loops() {
        // 0 → 1 (outer header) → 2 (inner header) → 3 → 2, 3 → 1, 1 → 4 exit.
        let cfg =
            Cfg::from_edges(5, 0, 4, &[(0, 1), (1, 2), (2, 3), (3, 2), (3, 1), (1, 4)]).unwrap();
        let dag = Dag::new(&cfg);
        assert_eq!(loop_depths(&cfg, &dag), vec![0, 1, 2, 2, 0]);
        assert_eq!(
            static_edge_weights(&cfg, &dag),
            vec![1, 10, 100, 100, 10, 1]
        );
    }

    #[test]
    fn loop_paths_are_estimated_hottest() {
        // 0 → 1 (header) → 2 (body) → 1, 1 → 3 → exit 4; the body has an if: 2 → 5 | 6 → 7 → 1.
        let cfg = Cfg::from_edges(
            8,
            0,
            4,
            &[
                (0, 1),
                (1, 2),
                (1, 3),
                (3, 4),
                (2, 5),
                (2, 6),
                (5, 7),
                (6, 7),
                (7, 1),
            ],
        )
        .unwrap();
        let bl = BallLarus::new(&cfg).unwrap();
        let p = branch_probabilities(&cfg, bl.dag());
        assert!((p[1] - 0.88).abs() < 1e-9 && (p[2] - 0.12).abs() < 1e-9);
        assert!((p[4] - 0.5).abs() < 1e-9);
        let hot = estimated_hot_paths(&bl, &cfg, 0.9, 100);
        // The two iterations through the body (header → body → either arm → back edge) come
        // first; both start at the header.
        let starts_at_header =
            |id: u64| bl.dag().edge(bl.regenerate(id).unwrap()[0]).kind == DagEdgeKind::EntryDummy;
        assert!(hot.len() >= 2);
        assert!(starts_at_header(hot[0]) && starts_at_header(hot[1]));
        let all = estimated_hot_paths(&bl, &cfg, 1.0, 100);
        assert_eq!(all.len() as u64, bl.num_paths());
    }
}
