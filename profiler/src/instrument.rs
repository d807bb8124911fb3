//! Where to put the path-register code: Ball-Larus event counting ([PPP] §5 "Counter
//! optimizations"; [TPP] §2.1 and Fig. 1d).
//!
//! 1. A maximum-weight spanning tree of the DAG plus a virtual EXIT→ENTRY edge, which is forced
//!    into the tree. Tree edges get no increment.
//! 2. Each chord `c = u→v` gets `Inc(c)`, the signed sum of the Ball-Larus increments around the
//!    cycle that `c` closes in the tree. With node potentials `pot` along the tree (`pot(ENTRY)
//!    = 0`, `pot(y) = pot(x) + W(x→y)` for tree edges), that is `Inc(c) = W(c) + pot(u) − pot(v)`.
//!    Along any ENTRY→EXIT path the chord increments then telescope to the path's id, because
//!    the EXIT→ENTRY tree edge makes `pot(EXIT) = pot(ENTRY)`. Increments may be negative; the
//!    register wraps modulo 2^64 and is exact again at the end of the path.
//! 3. Initialization `r = 0` moves down from ENTRY along tree edges into nodes with a single
//!    in-edge, and merges with the first chord reached (`r = Inc(c)`).
//! 4. The count `count[r]` moves up from EXIT along tree edges out of nodes with a single
//!    out-edge, and merges with the last chord (`count[r + Inc(c)]`), or with the initialization
//!    when both land on the same chord (`count[Inc(c)]`: the path is known there). It never
//!    moves above a node where the program may stop ([`PathPlan::with_stops`]): a path is
//!    counted once it has run to its end, so a run cut short loses its path in progress.
//!
//! A back or cut edge `v→w` of the CFG runs the code of its two dummies in order: the code of
//! `v→EXIT` (ending the path) then that of `ENTRY→w` (starting the next one).

use crate::ball_larus::BallLarus;
use crate::cfg::{EdgeId, NodeId};
use crate::dag::{Dag, DagEdgeId, DagEdgeKind, EdgeRole};
use crate::spanning_tree::maximum_spanning_tree;

/// One step of path-register code. `r` is a 64-bit register with wrapping arithmetic; where a
/// path is counted, `r + c` (as `u64`) is its id.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PathOp {
    /// `r = c`
    Set(i64),
    /// `r += c`
    Add(i64),
    /// `count[r + c] += 1`
    CountAdd(i64),
    /// `count[id] += 1`: the whole path is known on this edge.
    CountConst(u64),
}

/// The path-profiling code for every CFG edge of one function.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PathPlan {
    edge_ops: Vec<Vec<PathOp>>,
    dead_end_ops: Vec<Vec<PathOp>>,
    /// Per DAG edge: in the spanning tree (step 1), its `Inc` if a chord (step 2), and its code.
    in_tree: Vec<bool>,
    increments: Vec<i64>,
    dag_ops: Vec<Option<PathOp>>,
}

impl PathPlan {
    /// Places the code for `numbering`, given an estimated or measured frequency for each CFG
    /// edge, indexed by edge id (see [`crate::estimate::static_edge_weights`], or an edge
    /// profile). The register needs no value at function entry: every path sets it before use.
    pub fn new(numbering: &BallLarus, cfg_edge_weights: &[u64]) -> PathPlan {
        PathPlan::with_stops(numbering, cfg_edge_weights, &[])
    }

    /// [`PathPlan::new`] for a program that may stop inside some nodes (`may_stop[v]`, by node
    /// id; missing = no): a runtime error there, or a call that never returns. The count of a
    /// path that goes through such a node stays at or below it, so a run that stops there
    /// counts nothing for its path in progress instead of a path it did not finish. The chords,
    /// their increments and the numbering are those of [`PathPlan::new`].
    pub fn with_stops(
        numbering: &BallLarus,
        cfg_edge_weights: &[u64],
        may_stop: &[bool],
    ) -> PathPlan {
        let dag = numbering.dag();
        let in_tree = spanning_tree(dag, cfg_edge_weights);
        let increments = chord_increments(numbering, &in_tree);
        let is_init = push_initialization_down(dag, &in_tree);
        let is_count = push_count_up(dag, &in_tree, may_stop);

        let dag_ops: Vec<Option<PathOp>> = dag
            .edges()
            .map(|(d, _)| {
                // Tree edges add nothing to the path sum.
                let c = if in_tree[d.0] { 0 } else { increments[d.0] };
                match (is_init[d.0], is_count[d.0]) {
                    (true, true) => Some(PathOp::CountConst(c as u64)),
                    (true, false) => Some(PathOp::Set(c)),
                    (false, true) => Some(PathOp::CountAdd(c)),
                    (false, false) => (c != 0).then_some(PathOp::Add(c)),
                }
            })
            .collect();

        let mut edge_ops = Vec::with_capacity(dag.num_cfg_edges());
        for e in (0..dag.num_cfg_edges()).map(EdgeId) {
            edge_ops.push(match dag.role(e) {
                EdgeRole::Dag(d) => dag_ops[d.0].into_iter().collect(),
                EdgeRole::Closing { exit, entry } => dag_ops[exit.0]
                    .into_iter()
                    .chain(entry.and_then(|d| dag_ops[d.0]))
                    .collect(),
                EdgeRole::Unreachable => Vec::new(),
            });
        }
        let mut dead_end_ops = vec![Vec::new(); dag.num_nodes()];
        for (d, edge) in dag.edges() {
            if edge.kind == DagEdgeKind::DeadEnd {
                dead_end_ops[edge.from.0].extend(dag_ops[d.0]);
            }
        }
        PathPlan {
            edge_ops,
            dead_end_ops,
            in_tree,
            increments,
            dag_ops,
        }
    }

    /// Whether the DAG edge is in the spanning tree (and so gets no increment).
    pub fn in_tree(&self, d: DagEdgeId) -> bool {
        self.in_tree[d.0]
    }

    /// `Inc(c)` of a chord (step 2); `None` for a tree edge.
    pub fn chord_increment(&self, d: DagEdgeId) -> Option<i64> {
        (!self.in_tree[d.0]).then_some(self.increments[d.0])
    }

    /// The code placed on a DAG edge after steps 3 and 4, if any.
    pub fn dag_op(&self, d: DagEdgeId) -> Option<PathOp> {
        self.dag_ops[d.0]
    }

    /// The code to run when the CFG edge is taken, in order.
    pub fn edge_ops(&self, e: EdgeId) -> &[PathOp] {
        &self.edge_ops[e.0]
    }

    /// The code to run where a node without successors stops (before its `unreachable` or
    /// never-returning call); empty for other nodes.
    pub fn dead_end_ops(&self, node: NodeId) -> &[PathOp] {
        &self.dead_end_ops[node.0]
    }

    /// The ids the plan's code counts, in order, along `execution` (the CFG edges taken from the
    /// entry) and then at `dead_end` if the run ends there rather than stopping inside its last
    /// node: what the instrumented program counts, for checking a plan against
    /// [`BallLarus::path_ids_of_execution`].
    pub fn counted_ids(&self, execution: &[EdgeId], dead_end: Option<NodeId>) -> Vec<u64> {
        let mut r = 0i64;
        let mut counted = Vec::new();
        let ops = (execution.iter())
            .flat_map(|&e| self.edge_ops(e))
            .chain(dead_end.into_iter().flat_map(|v| self.dead_end_ops(v)));
        for op in ops {
            match *op {
                PathOp::Set(c) => r = c,
                PathOp::Add(c) => r = r.wrapping_add(c),
                PathOp::CountAdd(c) => counted.push(r.wrapping_add(c) as u64),
                PathOp::CountConst(id) => counted.push(id),
            }
        }
        counted
    }
}

/// Step 1: maximum spanning tree of the DAG plus EXIT→ENTRY (the last index), which is forced in.
fn spanning_tree(dag: &Dag, cfg_edge_weights: &[u64]) -> Vec<bool> {
    let mut weights = vec![0u64; dag.num_edges()];
    // Dummies weigh what the CFG edges they stand for weigh. Dead ends weigh 0: they run at most
    // once, as the program stops there.
    for e in (0..dag.num_cfg_edges()).map(EdgeId) {
        let w = cfg_edge_weights[e.0];
        match dag.role(e) {
            EdgeRole::Dag(d) => weights[d.0] = w,
            EdgeRole::Closing { exit, entry } => {
                weights[exit.0] = w;
                if let Some(d) = entry {
                    weights[d.0] = weights[d.0].saturating_add(w);
                }
            }
            EdgeRole::Unreachable => {}
        }
    }
    let mut ends: Vec<(usize, usize)> = dag.edges().map(|(_, e)| (e.from.0, e.to.0)).collect();
    ends.push((dag.exit().0, dag.entry().0));
    weights.push(0);
    let virtual_edge = dag.num_edges();
    let mut in_tree = maximum_spanning_tree(dag.num_nodes(), &ends, &weights, &[virtual_edge]);
    in_tree.truncate(virtual_edge);
    in_tree
}

/// Step 2: `Inc(c) = W(c) + pot(src) − pot(dst)` for chords, wrapping (see the module doc).
fn chord_increments(numbering: &BallLarus, in_tree: &[bool]) -> Vec<i64> {
    let dag = numbering.dag();
    let weight = |d: DagEdgeId| numbering.increment(d) as i64;
    // Walk the tree from ENTRY; EXIT gets ENTRY's potential through the virtual edge.
    let mut potential: Vec<Option<i64>> = vec![None; dag.num_nodes()];
    potential[dag.entry().0] = Some(0);
    potential[dag.exit().0] = Some(0);
    let mut stack = vec![dag.entry(), dag.exit()];
    while let Some(x) = stack.pop() {
        let px = potential[x.0].expect("visited nodes have a potential");
        let forward = dag.outs(x).iter().map(|&d| (d, dag.edge(d).to, true));
        let backward = dag.ins(x).iter().map(|&d| (d, dag.edge(d).from, false));
        for (d, y, is_forward) in forward.chain(backward) {
            if in_tree[d.0] && potential[y.0].is_none() {
                potential[y.0] = Some(if is_forward {
                    px.wrapping_add(weight(d))
                } else {
                    px.wrapping_sub(weight(d))
                });
                stack.push(y);
            }
        }
    }
    dag.edges()
        .map(|(d, edge)| {
            let pot = |v: NodeId| potential[v.0].unwrap_or(0);
            weight(d)
                .wrapping_add(pot(edge.from))
                .wrapping_sub(pot(edge.to))
        })
        .collect()
}

/// Step 3: the edges that initialize `r`. From ENTRY, a tree edge into a node with no other
/// in-edge passes the (still empty) register on; any other edge initializes it.
///
/// With steps 3 and 4 each path gets exactly one initialization and, later or on the same edge,
/// one count: since EXIT→ENTRY is in the tree, every ENTRY→EXIT path has a chord (else it would
/// close a cycle of tree edges), so the initialization stops at or before its first chord and
/// the count at or after its last one. They meet only on a chord that is both the first and the
/// last chord of every path through it, which then counts a constant.
fn push_initialization_down(dag: &Dag, in_tree: &[bool]) -> Vec<bool> {
    let mut is_init = vec![false; dag.num_edges()];
    let mut work = vec![dag.entry()];
    while let Some(v) = work.pop() {
        for &d in dag.outs(v) {
            let w = dag.edge(d).to;
            if in_tree[d.0] && dag.ins(w).len() == 1 {
                work.push(w);
            } else {
                is_init[d.0] = true;
            }
        }
    }
    is_init
}

/// Step 4: the edges that count the path. From EXIT, a tree edge out of a node with no other
/// out-edge, where the program cannot stop, passes the count up; any other edge counts.
fn push_count_up(dag: &Dag, in_tree: &[bool], may_stop: &[bool]) -> Vec<bool> {
    let mut is_count = vec![false; dag.num_edges()];
    let mut work = vec![dag.exit()];
    while let Some(w) = work.pop() {
        for &d in dag.ins(w) {
            let v = dag.edge(d).from;
            let stops = may_stop.get(v.0).copied().unwrap_or(false);
            if in_tree[d.0] && dag.outs(v).len() == 1 && !stops {
                work.push(v);
            } else {
                is_count[d.0] = true;
            }
        }
    }
    is_count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::Cfg;
    use crate::estimate::static_edge_weights;
    use crate::examples::{add_even_numbers, ppp_figure_3};

    /// The ids the plan counts along an execution that ends where its last edge goes.
    fn simulate(cfg: &Cfg, plan: &PathPlan, execution: &[EdgeId]) -> Vec<u64> {
        plan.counted_ids(execution, execution.last().map(|&e| cfg.edge(e).to))
    }

    #[test]
    fn add_even_numbers_counts_the_papers_path_ids() {
        let cfg = add_even_numbers();
        let numbering = BallLarus::new(&cfg).unwrap();
        let plan = PathPlan::new(&numbering, &static_edge_weights(&cfg, numbering.dag()));
        // Blocks 1 2 3 4 6 3 4 5 6 3 7 ([PFP] Sidebar 1) as edge ids.
        let execution = [0, 1, 2, 5, 7, 2, 4, 6, 7, 3, 8].map(EdgeId);
        assert_eq!(simulate(&cfg, &plan, &execution), vec![4, 0, 2]);
        // Inside the loop only one arm of the `if` and the back edge carry code.
        let in_loop_with_code = [2, 4, 5, 6, 7]
            .into_iter()
            .filter(|&e| !plan.edge_ops(EdgeId(e)).is_empty())
            .count();
        assert_eq!(in_loop_with_code, 2);
    }

    #[test]
    fn single_path_function_is_counted_once() {
        let cfg = Cfg::from_edges(3, 0, 2, &[(0, 1), (1, 2)]).unwrap();
        let numbering = BallLarus::new(&cfg).unwrap();
        let plan = PathPlan::new(&numbering, &[1, 1]);
        assert_eq!(simulate(&cfg, &plan, &[EdgeId(0), EdgeId(1)]), vec![0]);
        assert_eq!(
            plan.edge_ops(EdgeId(1)),
            &[PathOp::CountConst(0)],
            "init and count meet on the last edge"
        );
    }

    #[test]
    fn ppp_figure_3_with_every_edge_profile() {
        let cfg = ppp_figure_3();
        let numbering = BallLarus::new(&cfg).unwrap();
        let paths: [&[usize]; 6] = [
            &[0, 2, 5, 7],
            &[0, 2, 6],
            &[0, 3, 4, 5, 7],
            &[0, 3, 4, 6],
            &[1, 4, 5, 7],
            &[1, 4, 6],
        ];
        // Different weights give different trees; the ids must not change.
        for seed in 0..64u64 {
            let weights: Vec<u64> = (0..8).map(|i| (seed >> (i % 6)) & 3).collect();
            let plan = PathPlan::new(&numbering, &weights);
            for (id, path) in paths.iter().enumerate() {
                let execution: Vec<EdgeId> = path.iter().map(|&e| EdgeId(e)).collect();
                assert_eq!(simulate(&cfg, &plan, &execution), vec![id as u64]);
            }
        }
    }
}
