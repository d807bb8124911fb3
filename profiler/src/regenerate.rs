//! Path regeneration: from a path id back to its edges, and enumeration of a function's paths.
//!
//! Ball-Larus increments of a node's out-edges increase in out-edge order, each edge owning the
//! block of ids `[W(e), W(e) + N(dest(e)))` ([PPP] Fig. 1). So from ENTRY, with the id as the
//! remaining sum, the path continues along the out-edge with the largest increment not above it
//! (the decoding side of [PPP] §4.2, `pathEncoder` run backwards).

use crate::ball_larus::BallLarus;
use crate::cfg::{Cfg, EdgeId, NodeId};
use crate::dag::{Dag, DagEdgeId, DagEdgeKind};

/// How an acyclic path ends.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PathEnd {
    /// At the exit node (the path's last edge goes there).
    Exit,
    /// By taking this back edge.
    BackEdge(EdgeId),
    /// By taking this edge, cut to bound the number of paths.
    Truncated(EdgeId),
    /// Inside this node, which has no successors.
    DeadEnd(NodeId),
}

/// A Ball-Larus path in terms of the original CFG.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CfgPath {
    pub id: u64,
    /// The entry, or the target of the back or cut edge that started the path.
    pub start: NodeId,
    /// The CFG edges taken inside the path, in order (not the back or cut edge ending it).
    pub edges: Vec<EdgeId>,
    pub end: PathEnd,
}

impl CfgPath {
    /// The blocks of the path in execution order: the start, then each edge's target.
    pub fn nodes(&self, cfg: &Cfg) -> Vec<NodeId> {
        std::iter::once(self.start)
            .chain(self.edges.iter().map(|&e| cfg.edge(e).to))
            .collect()
    }
}

/// The DAG edges of path `id` (every reported path names its lines this way): from ENTRY, at each node the `usable` out-edge with
/// the largest increment not above the remaining id. `id` must be below the number of paths.
pub(crate) fn regenerate_path(
    dag: &Dag,
    increment: impl Fn(DagEdgeId) -> u64,
    usable: impl Fn(DagEdgeId) -> bool,
    mut id: u64,
) -> Vec<DagEdgeId> {
    let mut path = Vec::new();
    let mut v = dag.entry();
    while v != dag.exit() {
        let d = dag
            .outs(v)
            .iter()
            .copied()
            .rev()
            .find(|&d| usable(d) && increment(d) <= id)
            .expect("ids below the number of paths are dense");
        id -= increment(d);
        path.push(d);
        v = dag.edge(d).to;
    }
    path
}

/// The DAG path `dag_path` (numbered `id`) in terms of the CFG; `original` maps the edges the
/// DAG's kinds name to the CFG's (TPP builds its DAG on a CFG of the hot edges only).
pub(crate) fn cfg_path_of(
    dag: &Dag,
    id: u64,
    dag_path: &[DagEdgeId],
    original: impl Fn(EdgeId) -> EdgeId,
) -> CfgPath {
    let mut path = CfgPath {
        id,
        start: dag.entry(),
        edges: Vec::new(),
        end: PathEnd::Exit,
    };
    for &d in dag_path {
        let edge = dag.edge(d);
        match edge.kind {
            DagEdgeKind::Real(e) => path.edges.push(original(e)),
            DagEdgeKind::EntryDummy => path.start = edge.to,
            DagEdgeKind::BackExit(e) => path.end = PathEnd::BackEdge(original(e)),
            DagEdgeKind::CutExit(e) => path.end = PathEnd::Truncated(original(e)),
            DagEdgeKind::DeadEnd => path.end = PathEnd::DeadEnd(edge.from),
        }
    }
    path
}

/// The first paths of a function in id order, and whether that is all of them.
#[derive(Clone, Debug)]
pub struct PathEnumeration {
    pub paths: Vec<CfgPath>,
    pub complete: bool,
}

impl BallLarus {
    /// The DAG edges of path `id`, or `None` if `id ≥ NumPaths`.
    pub fn regenerate(&self, id: u64) -> Option<Vec<DagEdgeId>> {
        if id >= self.num_paths() {
            return None;
        }
        Some(regenerate_path(
            self.dag(),
            |d| self.increment(d),
            |_| true,
            id,
        ))
    }

    /// Path `id` in terms of the CFG, or `None` if `id ≥ NumPaths`.
    pub fn path(&self, id: u64) -> Option<CfgPath> {
        Some(cfg_path_of(self.dag(), id, &self.regenerate(id)?, |e| e))
    }

    /// All paths in id order, at most `cap` of them.
    pub fn enumerate_paths(&self, cap: usize) -> PathEnumeration {
        let count = self.num_paths().min(u64::try_from(cap).unwrap_or(u64::MAX));
        PathEnumeration {
            paths: (0..count).filter_map(|id| self.path(id)).collect(),
            complete: count == self.num_paths(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{add_even_numbers, stacked_ifs};

    /// [PFP] Fig. 11: the six paths of AddEvenNumbers by block number, with their values.
    #[test]
    fn add_even_numbers_regenerates_figure_11() {
        let cfg = add_even_numbers();
        let bl = BallLarus::new(&cfg).unwrap();
        let all = bl.enumerate_paths(100);
        assert!(all.complete);
        let blocks: Vec<Vec<usize>> = all
            .paths
            .iter()
            .map(|p| {
                p.nodes(&cfg)
                    .into_iter()
                    .filter(|&v| v != cfg.exit())
                    .map(|v| v.0 + 1)
                    .collect()
            })
            .collect();
        assert_eq!(
            blocks,
            vec![
                vec![3, 4, 5, 6],
                vec![3, 4, 6],
                vec![3, 7],
                vec![1, 2, 3, 4, 5, 6],
                vec![1, 2, 3, 4, 6],
                vec![1, 2, 3, 7],
            ]
        );
        assert_eq!(all.paths[0].end, PathEnd::BackEdge(EdgeId(7)));
        assert_eq!(all.paths[2].end, PathEnd::Exit);
        assert_eq!(all.paths[0].start, NodeId(2));
    }

    #[test]
    fn ids_out_of_range_and_caps() {
        let cfg = add_even_numbers();
        let bl = BallLarus::new(&cfg).unwrap();
        assert_eq!(bl.path(6), None);
        let first = bl.enumerate_paths(2);
        assert!(!first.complete);
        assert_eq!(first.paths.len(), 2);
    }

    #[test]
    fn truncated_and_dead_end_paths() {
        // 0 → 1 dead end; 0 → 2 → exit 3.
        let cfg = Cfg::from_edges(4, 0, 3, &[(0, 1), (0, 2), (2, 3)]).unwrap();
        let bl = BallLarus::new(&cfg).unwrap();
        assert_eq!(bl.path(0).unwrap().end, PathEnd::DeadEnd(NodeId(1)));
        // Stacked ifs truncated: the path through the cut join ends there.
        let cfg = stacked_ifs(70);
        let bl = BallLarus::new(&cfg).unwrap();
        // Paths starting at the cut join come first, those ending at the cut last.
        let join = cfg.edge(bl.cut_edges()[0]).to;
        assert_eq!(bl.path(0).unwrap().start, join);
        let last = bl.path(bl.num_paths() - 1).unwrap();
        assert_eq!(
            (last.start, last.end),
            (cfg.entry(), PathEnd::Truncated(bl.cut_edges()[1]))
        );
        assert!(
            (0..bl.num_paths())
                .step_by(1 << 30)
                .all(|id| bl.path_id(&bl.regenerate(id).unwrap()) == id)
        );
    }
}
