//! Helpers shared by the property tests (`properties.rs`, `ppp.rs`): a deterministic generator,
//! random CFGs (loops, dead ends, unreachable nodes) and random executions of them.

use std::ops::Range;

use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::cfg::{Cfg, EdgeId, NodeId};
use pcc_profiler::dag::EdgeRole;
use proptest::prelude::*;

/// xorshift64*: a small deterministic generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() >> 33) as usize % n
    }
}

/// A graph of `n` nodes, entry 0 and exit `n - 1`: a fall-through edge `i → i+1` where
/// `chain[i]` says so (straight-line code, single-entry blocks), then random extra edges
/// (branches, loops, parallel edges; nodes left without successors are dead ends).
fn cfg_of(n: usize, chain: &[bool], extra: &[(usize, usize)]) -> Cfg {
    let mut cfg = Cfg::new(n, NodeId(0), NodeId(n - 1)).unwrap();
    for i in (0..n - 1).filter(|&i| chain[i]) {
        cfg.add_edge(NodeId(i), NodeId(i + 1)).unwrap();
    }
    for &(a, b) in extra {
        cfg.add_edge(NodeId(a % (n - 1)), NodeId(b % n)).unwrap();
    }
    cfg
}

/// Random graphs of [`cfg_of`] with a node count in `nodes` (at least 2) and fewer than
/// `2 * n + spare_edges` extra edges.
pub fn random_cfg(nodes: Range<usize>, spare_edges: usize) -> impl Strategy<Value = Cfg> {
    nodes.prop_flat_map(move |n| {
        (
            prop::collection::vec(prop::bool::weighted(0.8), n),
            prop::collection::vec((0usize..64, 0usize..64), 0..2 * n + spare_edges),
        )
            .prop_map(move |(chain, extra)| cfg_of(n, &chain, &extra))
    })
}

/// Distance (in edges) from each node to the exit or to a dead end.
fn distance_to_end(cfg: &Cfg) -> Vec<usize> {
    let is_end = |v: NodeId| v == cfg.exit() || cfg.succs(v).is_empty();
    let mut dist: Vec<usize> = (0..cfg.num_nodes())
        .map(|v| if is_end(NodeId(v)) { 0 } else { usize::MAX })
        .collect();
    for _ in 0..cfg.num_nodes() {
        for (_, edge) in cfg.edges() {
            let through = dist[edge.to.0].saturating_add(1);
            if through < dist[edge.from.0] {
                dist[edge.from.0] = through;
            }
        }
    }
    dist
}

/// One invocation: random edges from the entry for about `budget` steps, then heading for an
/// end. Stops at the exit, at a dead end, or (when no end is reachable) right after a back or
/// cut edge, where every path taken so far is complete. Returns the edges and whether the
/// invocation finished (exit or dead end).
pub fn random_execution(
    cfg: &Cfg,
    bl: &BallLarus,
    rng: &mut Rng,
    budget: usize,
) -> (Vec<EdgeId>, bool) {
    let dist = distance_to_end(cfg);
    let mut v = cfg.entry();
    let mut edges = Vec::new();
    loop {
        let succs = cfg.succs(v);
        if v == cfg.exit() || succs.is_empty() {
            return (edges, true);
        }
        let closing = edges
            .last()
            .is_some_and(|&e| matches!(bl.dag().role(e), EdgeRole::Closing { .. }));
        if edges.len() >= budget && closing && dist[v.0] == usize::MAX {
            return (edges, false);
        }
        let e = if edges.len() < budget || dist[v.0] == usize::MAX {
            succs[rng.below(succs.len())]
        } else {
            *succs
                .iter()
                .min_by_key(|&&e| dist[cfg.edge(e).to.0])
                .unwrap()
        };
        edges.push(e);
        v = cfg.edge(e).to;
    }
}
