//! An abstract control-flow graph: nodes `0..n`, numbered edges (parallel edges allowed, since a
//! `switch` may send two cases to the same block), one entry and one exit node.
//!
//! The exit node is a sink added by the caller: every `return` gets an edge to it. Nodes without
//! successors other than the exit (e.g. blocks ending in `unreachable` or a runtime error) are
//! allowed; the path algorithms treat them as "dead ends" (see [`crate::dag`]).

/// A node (basic block) of a [`Cfg`].
#[derive(
    Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct NodeId(pub usize);

/// An edge of a [`Cfg`]; ids are dense, in order of [`Cfg::add_edge`] calls.
#[derive(
    Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct EdgeId(pub usize);

/// A directed edge `from → to`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Edge {
    pub from: NodeId,
    pub to: NodeId,
}

/// Why a graph is not a valid [`Cfg`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CfgError {
    #[error("node {} out of range (graph has {num_nodes} nodes)", .node.0)]
    NodeOutOfRange { node: NodeId, num_nodes: usize },
    #[error("the entry node must differ from the exit node")]
    EntryIsExit,
    #[error("the exit node must have no successors (edge to node {})", .to.0)]
    EdgeFromExit { to: NodeId },
}

/// A control-flow graph with successor and predecessor lists kept in edge-insertion order.
/// That order matters: Ball-Larus numbering gives a node's out-edges increasing increments in
/// this order.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Cfg {
    entry: NodeId,
    exit: NodeId,
    edges: Vec<Edge>,
    succs: Vec<Vec<EdgeId>>,
    preds: Vec<Vec<EdgeId>>,
}

impl Cfg {
    /// A graph with `num_nodes` nodes and no edges yet.
    pub fn new(num_nodes: usize, entry: NodeId, exit: NodeId) -> Result<Cfg, CfgError> {
        for node in [entry, exit] {
            if node.0 >= num_nodes {
                return Err(CfgError::NodeOutOfRange { node, num_nodes });
            }
        }
        if entry == exit {
            return Err(CfgError::EntryIsExit);
        }
        Ok(Cfg {
            entry,
            exit,
            edges: Vec::new(),
            succs: vec![Vec::new(); num_nodes],
            preds: vec![Vec::new(); num_nodes],
        })
    }

    /// A graph from `(from, to)` pairs given as plain indices; edge `i` gets `EdgeId(i)`.
    pub fn from_edges(
        num_nodes: usize,
        entry: usize,
        exit: usize,
        edges: &[(usize, usize)],
    ) -> Result<Cfg, CfgError> {
        let mut cfg = Cfg::new(num_nodes, NodeId(entry), NodeId(exit))?;
        for &(from, to) in edges {
            cfg.add_edge(NodeId(from), NodeId(to))?;
        }
        Ok(cfg)
    }

    /// Adds the edge `from → to` after all existing out-edges of `from`.
    pub fn add_edge(&mut self, from: NodeId, to: NodeId) -> Result<EdgeId, CfgError> {
        for node in [from, to] {
            if node.0 >= self.num_nodes() {
                return Err(CfgError::NodeOutOfRange {
                    node,
                    num_nodes: self.num_nodes(),
                });
            }
        }
        if from == self.exit {
            return Err(CfgError::EdgeFromExit { to });
        }
        let id = EdgeId(self.edges.len());
        self.edges.push(Edge { from, to });
        self.succs[from.0].push(id);
        self.preds[to.0].push(id);
        Ok(id)
    }

    pub fn num_nodes(&self) -> usize {
        self.succs.len()
    }

    pub fn num_edges(&self) -> usize {
        self.edges.len()
    }

    pub fn entry(&self) -> NodeId {
        self.entry
    }

    pub fn exit(&self) -> NodeId {
        self.exit
    }

    pub fn edge(&self, e: EdgeId) -> Edge {
        self.edges[e.0]
    }

    /// All edges with their ids, in id order.
    pub fn edges(&self) -> impl Iterator<Item = (EdgeId, Edge)> + '_ {
        self.edges.iter().enumerate().map(|(i, &e)| (EdgeId(i), e))
    }

    /// Out-edges of `node`, in insertion order.
    pub fn succs(&self, node: NodeId) -> &[EdgeId] {
        &self.succs[node.0]
    }

    /// In-edges of `node`, in insertion order.
    pub fn preds(&self, node: NodeId) -> &[EdgeId] {
        &self.preds[node.0]
    }

    /// Nodes reachable from the entry.
    pub fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.num_nodes()];
        let mut stack = vec![self.entry];
        seen[self.entry.0] = true;
        while let Some(v) = stack.pop() {
            for &e in self.succs(v) {
                let w = self.edge(e).to;
                if !seen[w.0] {
                    seen[w.0] = true;
                    stack.push(w);
                }
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_lists_in_insertion_order_with_parallel_edges() {
        let cfg = Cfg::from_edges(3, 0, 2, &[(0, 1), (0, 1), (1, 2)]).unwrap();
        assert_eq!(cfg.succs(NodeId(0)), &[EdgeId(0), EdgeId(1)]);
        assert_eq!(cfg.preds(NodeId(1)), &[EdgeId(0), EdgeId(1)]);
        assert_eq!(
            cfg.edge(EdgeId(2)),
            Edge {
                from: NodeId(1),
                to: NodeId(2)
            }
        );
    }

    #[test]
    fn rejects_invalid_graphs() {
        assert_eq!(
            Cfg::new(2, NodeId(0), NodeId(0)).unwrap_err(),
            CfgError::EntryIsExit
        );
        assert!(matches!(
            Cfg::from_edges(2, 0, 1, &[(0, 5)]),
            Err(CfgError::NodeOutOfRange { .. })
        ));
        assert!(matches!(
            Cfg::from_edges(2, 0, 1, &[(1, 0)]),
            Err(CfgError::EdgeFromExit { .. })
        ));
    }
}
