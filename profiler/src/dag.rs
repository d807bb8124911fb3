//! The Ball-Larus DAG of a CFG ([PPP] §2.1; [KBLPP] "Ball-Larus Path Tracing Algorithm"; [TPP] §2.1 and
//! Fig. 1a–b).
//!
//! Back edges are found by a depth-first search from the entry. Each back edge `v→w` is replaced by
//! two dummy edges, `ENTRY→w` (a path may start at the loop header) and `v→EXIT` (a path may end
//! at the latch). The `ENTRY→w` dummy is shared by all back edges into `w`: the paths that start at
//! `w` are the same whichever back edge was taken. The `v→EXIT` dummy is per back edge, so a path
//! id also tells which back edge ended the path. A back edge into the entry node needs no
//! `ENTRY→w` dummy: every path may start at the entry anyway.
//!
//! Truncation ([TPP] §2.1) cuts a forward edge the same way, turning it into `v→EXIT` plus
//! `ENTRY→w`; [`crate::ball_larus`] decides which edges.
//!
//! Nodes that cannot reach EXIT: a node inside an infinite loop still reaches EXIT in the DAG,
//! through the `v→EXIT` dummy of the loop's back edge, so each iteration is a counted path even if
//! the function never returns. A node with no successors at all (a block ending in `unreachable`
//! or in a call that never returns, such as a runtime error) is a *dead end*; it gets a dummy edge
//! to EXIT so that every node of the DAG reaches EXIT and path numbering stays dense. The path
//! that ends there is counted where the block stops (see [`crate::instrument`]). Nodes not
//! reachable from the entry are left out of the DAG: no path goes through them.

use crate::cfg::{Cfg, EdgeId, NodeId};

/// An edge of a [`Dag`].
#[derive(
    Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct DagEdgeId(pub usize);

/// What a DAG edge stands for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum DagEdgeKind {
    /// An original CFG edge that is neither a back edge nor cut.
    Real(EdgeId),
    /// `ENTRY→w`: a path starts at `w`, after a back edge or a cut edge into `w`.
    EntryDummy,
    /// `v→EXIT` standing for the back edge `v→w`: the path ends by taking it.
    BackExit(EdgeId),
    /// `v→EXIT` standing for the truncated (cut) edge `v→w`: the path ends by taking it.
    CutExit(EdgeId),
    /// `v→EXIT` from a node without successors: the path ends inside `v`.
    DeadEnd,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DagEdge {
    pub from: NodeId,
    pub to: NodeId,
    pub kind: DagEdgeKind,
}

/// What an original CFG edge became in the DAG.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EdgeRole {
    /// The edge is the DAG edge given.
    Dag(DagEdgeId),
    /// A back edge or a cut edge: it ends a path through the `exit` dummy, then starts a new one
    /// through the `entry` dummy (`None` when the target is the entry node).
    Closing {
        exit: DagEdgeId,
        entry: Option<DagEdgeId>,
    },
    /// The edge's source is unreachable from the entry; it never executes.
    Unreachable,
}

/// The Ball-Larus DAG over the nodes of a [`Cfg`] (same node ids, same entry and exit).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Dag {
    entry: NodeId,
    exit: NodeId,
    edges: Vec<DagEdge>,
    outs: Vec<Vec<DagEdgeId>>,
    ins: Vec<Vec<DagEdgeId>>,
    roles: Vec<EdgeRole>,
    entry_dummies: Vec<Option<DagEdgeId>>,
    back_edges: Vec<EdgeId>,
    cut_edges: Vec<EdgeId>,
    topological_order: Vec<NodeId>,
    in_dag: Vec<bool>,
}

/// Result of the depth-first search from the entry.
struct Dfs {
    is_back_edge: Vec<bool>,
    postorder: Vec<NodeId>,
    reachable: Vec<bool>,
}

/// Iterative DFS from the entry, visiting out-edges in order. An edge to a node still on the
/// DFS stack is a back edge; every other edge `u→v` has `v` finishing before `u`.
fn depth_first_search(cfg: &Cfg) -> Dfs {
    #[derive(Copy, Clone, PartialEq)]
    enum Color {
        White,
        OnStack,
        Done,
    }
    let mut color = vec![Color::White; cfg.num_nodes()];
    let mut is_back_edge = vec![false; cfg.num_edges()];
    let mut postorder = Vec::new();
    let mut stack = vec![(cfg.entry(), 0usize)];
    color[cfg.entry().0] = Color::OnStack;
    while let Some((v, next)) = stack.last_mut() {
        let v = *v;
        if let Some(&e) = cfg.succs(v).get(*next) {
            *next += 1;
            let w = cfg.edge(e).to;
            match color[w.0] {
                Color::White => {
                    color[w.0] = Color::OnStack;
                    stack.push((w, 0));
                }
                Color::OnStack => is_back_edge[e.0] = true,
                Color::Done => {}
            }
        } else {
            color[v.0] = Color::Done;
            postorder.push(v);
            stack.pop();
        }
    }
    let reachable = color.iter().map(|&c| c == Color::Done).collect();
    Dfs {
        is_back_edge,
        postorder,
        reachable,
    }
}

impl Dag {
    /// Builds the DAG: back edges by DFS become dummy edges, dead ends get an edge to EXIT.
    ///
    /// Out-edge order, which fixes the numbering: at the entry, the `ENTRY→w` dummies first (by
    /// node id of `w`; so paths starting at loop headers get the small ids, as in [PFP] Fig. 11),
    /// then the entry's own edges; everywhere, CFG out-edge order, with a back edge's `v→EXIT`
    /// dummy in the back edge's place.
    pub fn new(cfg: &Cfg) -> Dag {
        let n = cfg.num_nodes();
        let dfs = depth_first_search(cfg);
        let mut in_dag = dfs.reachable.clone();
        in_dag[cfg.exit().0] = true;

        // EXIT has no out-edges, so it may come last; every other DAG edge goes from a node that
        // finishes later in the DFS to one that finishes earlier (or from ENTRY, which finishes last).
        let mut topological_order: Vec<NodeId> = dfs
            .postorder
            .iter()
            .rev()
            .copied()
            .filter(|&v| v != cfg.exit())
            .collect();
        topological_order.push(cfg.exit());

        let mut dag = Dag {
            entry: cfg.entry(),
            exit: cfg.exit(),
            edges: Vec::new(),
            outs: vec![Vec::new(); n],
            ins: vec![Vec::new(); n],
            roles: vec![EdgeRole::Unreachable; cfg.num_edges()],
            entry_dummies: vec![None; n],
            back_edges: Vec::new(),
            cut_edges: Vec::new(),
            topological_order,
            in_dag,
        };

        let mut headers: Vec<NodeId> = cfg
            .edges()
            .filter(|&(e, edge)| dfs.is_back_edge[e.0] && edge.to != cfg.entry())
            .map(|(_, edge)| edge.to)
            .collect();
        headers.sort();
        headers.dedup();
        for w in headers {
            dag.add_entry_dummy(w);
        }

        for v in (0..n).map(NodeId).filter(|v| dfs.reachable[v.0]) {
            for &e in cfg.succs(v) {
                let w = cfg.edge(e).to;
                dag.roles[e.0] = if dfs.is_back_edge[e.0] {
                    dag.back_edges.push(e);
                    EdgeRole::Closing {
                        exit: dag.push_edge(v, dag.exit, DagEdgeKind::BackExit(e)),
                        entry: dag.entry_dummies[w.0],
                    }
                } else {
                    EdgeRole::Dag(dag.push_edge(v, w, DagEdgeKind::Real(e)))
                };
            }
            if cfg.succs(v).is_empty() && v != dag.exit {
                dag.push_edge(v, dag.exit, DagEdgeKind::DeadEnd);
            }
        }
        dag
    }

    fn push_edge(&mut self, from: NodeId, to: NodeId, kind: DagEdgeKind) -> DagEdgeId {
        let id = DagEdgeId(self.edges.len());
        self.edges.push(DagEdge { from, to, kind });
        self.outs[from.0].push(id);
        self.ins[to.0].push(id);
        id
    }

    /// Adds `ENTRY→w`, keeping the entry dummies first in the entry's out-list, ordered by `w`.
    fn add_entry_dummy(&mut self, w: NodeId) -> DagEdgeId {
        let id = DagEdgeId(self.edges.len());
        self.edges.push(DagEdge {
            from: self.entry,
            to: w,
            kind: DagEdgeKind::EntryDummy,
        });
        let edges = &self.edges;
        let position = self.outs[self.entry.0]
            .iter()
            .take_while(|d| {
                let edge = edges[d.0];
                edge.kind == DagEdgeKind::EntryDummy && edge.to < w
            })
            .count();
        self.outs[self.entry.0].insert(position, id);
        self.ins[w.0].push(id);
        self.entry_dummies[w.0] = Some(id);
        id
    }

    /// Truncates the real edge `d = v→w` ([TPP] §2.1): it becomes the dummy `v→EXIT` in place
    /// (keeping its position among `v`'s out-edges) and `ENTRY→w` is added if missing.
    /// `d` must be a [`DagEdgeKind::Real`] edge whose target is not the entry node.
    pub(crate) fn cut(&mut self, d: DagEdgeId) {
        let DagEdge { to: w, kind, .. } = self.edges[d.0];
        let DagEdgeKind::Real(e) = kind else {
            unreachable!("only real edges are cut")
        };
        self.ins[w.0].retain(|&x| x != d);
        self.ins[self.exit.0].push(d);
        self.edges[d.0].to = self.exit;
        self.edges[d.0].kind = DagEdgeKind::CutExit(e);
        let entry = match self.entry_dummies[w.0] {
            Some(dummy) => dummy,
            None => self.add_entry_dummy(w),
        };
        self.roles[e.0] = EdgeRole::Closing {
            exit: d,
            entry: Some(entry),
        };
        self.cut_edges.push(e);
    }

    pub fn entry(&self) -> NodeId {
        self.entry
    }

    pub fn exit(&self) -> NodeId {
        self.exit
    }

    /// Number of node ids (the same as the CFG's; see [`Dag::contains`]).
    pub fn num_nodes(&self) -> usize {
        self.outs.len()
    }

    /// Whether the node is part of the DAG (reachable from the entry, or the exit).
    pub fn contains(&self, v: NodeId) -> bool {
        self.in_dag[v.0]
    }

    pub fn num_edges(&self) -> usize {
        self.edges.len()
    }

    pub fn edge(&self, d: DagEdgeId) -> DagEdge {
        self.edges[d.0]
    }

    pub fn edges(&self) -> impl Iterator<Item = (DagEdgeId, DagEdge)> + '_ {
        self.edges
            .iter()
            .enumerate()
            .map(|(i, &e)| (DagEdgeId(i), e))
    }

    /// Out-edges of `v` in numbering order.
    pub fn outs(&self, v: NodeId) -> &[DagEdgeId] {
        &self.outs[v.0]
    }

    pub fn ins(&self, v: NodeId) -> &[DagEdgeId] {
        &self.ins[v.0]
    }

    /// The DAG's nodes, entry first and exit last, every edge going forward.
    pub fn topological_order(&self) -> &[NodeId] {
        &self.topological_order
    }

    /// Number of edges of the CFG the DAG was built from.
    pub fn num_cfg_edges(&self) -> usize {
        self.roles.len()
    }

    /// What the CFG edge became.
    pub fn role(&self, e: EdgeId) -> EdgeRole {
        self.roles[e.0]
    }

    /// The `ENTRY→w` dummy, if paths may start at `w`.
    pub fn entry_dummy(&self, w: NodeId) -> Option<DagEdgeId> {
        self.entry_dummies[w.0]
    }

    /// Back edges found by the DFS, in order of their sources' node ids.
    pub fn back_edges(&self) -> &[EdgeId] {
        &self.back_edges
    }

    /// Forward edges cut to bound the number of paths, in the order they were cut.
    pub fn cut_edges(&self) -> &[EdgeId] {
        &self.cut_edges
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::add_even_numbers;

    #[test]
    fn back_edge_becomes_two_dummies() {
        let cfg = add_even_numbers();
        let dag = Dag::new(&cfg);
        assert_eq!(dag.back_edges(), &[EdgeId(7)]);
        let EdgeRole::Closing { exit, entry } = dag.role(EdgeId(7)) else {
            panic!("back edge must close a path")
        };
        assert_eq!(dag.edge(exit).from, NodeId(5));
        assert_eq!(dag.edge(exit).to, NodeId(7));
        let entry = entry.unwrap();
        assert_eq!(dag.edge(entry).from, NodeId(0));
        assert_eq!(dag.edge(entry).to, NodeId(2));
        // The entry dummy comes first among the entry's out-edges.
        assert_eq!(dag.outs(NodeId(0))[0], entry);
    }

    #[test]
    fn topological_order_puts_every_edge_forward() {
        let cfg = add_even_numbers();
        let dag = Dag::new(&cfg);
        let mut position = vec![usize::MAX; cfg.num_nodes()];
        for (i, v) in dag.topological_order().iter().enumerate() {
            position[v.0] = i;
        }
        for (_, e) in dag.edges() {
            assert!(position[e.from.0] < position[e.to.0]);
        }
    }

    #[test]
    fn dead_ends_and_unreachable_nodes() {
        // 0 → 1 (dead end), 0 → 2 (exit), 3 → 2 unreachable.
        let cfg = Cfg::from_edges(4, 0, 2, &[(0, 1), (0, 2), (3, 2)]).unwrap();
        let dag = Dag::new(&cfg);
        assert!(!dag.contains(NodeId(3)));
        assert_eq!(dag.role(EdgeId(2)), EdgeRole::Unreachable);
        let dead: Vec<_> = dag
            .edges()
            .filter(|(_, e)| e.kind == DagEdgeKind::DeadEnd)
            .map(|(_, e)| (e.from, e.to))
            .collect();
        assert_eq!(dead, vec![(NodeId(1), NodeId(2))]);
    }

    #[test]
    fn back_edge_into_entry_has_no_entry_dummy() {
        let cfg = Cfg::from_edges(3, 0, 2, &[(0, 1), (1, 0), (1, 2)]).unwrap();
        let dag = Dag::new(&cfg);
        assert!(matches!(
            dag.role(EdgeId(1)),
            EdgeRole::Closing { entry: None, .. }
        ));
    }
}
