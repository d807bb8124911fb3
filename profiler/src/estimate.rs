//! Static edge-frequency estimates, used as spanning-tree weights when no edge profile is given:
//! an edge inside `k` loops weighs `10^k`, so counter code lands outside inner loops.

use crate::cfg::{Cfg, NodeId};
use crate::dag::Dag;

/// Deepest nesting counted; `10^18` still fits in a `u64`.
const MAX_DEPTH: u32 = 18;

/// Loop depth of each node: the number of loop headers whose loop contains it. The loop of
/// header `w` is `w` plus every node that reaches the source of a back edge into `w` without
/// passing through `w` (a natural loop when `w` dominates its latches).
pub fn loop_depths(cfg: &Cfg, dag: &Dag) -> Vec<u32> {
    let mut depth = vec![0u32; cfg.num_nodes()];
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
        for (d, inside) in depth.iter_mut().zip(in_loop) {
            *d += u32::from(inside);
        }
    }
    depth
}

/// Estimated frequency of each CFG edge: `10^k` where `k` is the smaller loop depth of its ends.
pub fn static_edge_weights(cfg: &Cfg, dag: &Dag) -> Vec<u64> {
    let depth = loop_depths(cfg, dag);
    cfg.edges()
        .map(|(_, e)| 10u64.pow(depth[e.from.0].min(depth[e.to.0]).min(MAX_DEPTH)))
        .collect()
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
}
