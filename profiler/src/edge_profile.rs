//! Edge profiling (`--profile edge`, the input of TPP, [TPP] §4): counters only on the chords of a
//! maximum spanning tree; every other edge count follows from flow conservation.
//!
//! The graph is the CFG's reachable part plus three kinds of virtual edges: EXIT→ENTRY (each
//! return starts the next invocation, so inflow equals outflow everywhere); `v→EXIT` for each
//! dead end `v` (a node without successors), counted where the node stops; and `v→EXIT` for
//! each node `v` where an activation may stop before the end of its block ([`Stop`]), the
//! activations "still running in `v`" when the profile is written.
//!
//! A stop edge out of a node that may stop only at a failing check is an edge like any other:
//! the check's error path counts it before it reports, so with no weight it is a chord counted
//! off the hot paths. A stop edge out of a node with a call cannot be counted (the call may end
//! the program from anywhere below), so those are forced into the tree (they form a star at
//! EXIT, so they can all be), and EXIT→ENTRY after them when it closes no cycle (else it is
//! counted at the entry): their counts follow from the others. Each forced edge costs a counter
//! on some other, usually hot, edge. Conservation then holds whenever every activation that
//! began has returned, stopped at a dead end, or is still running at a stop node: the
//! activation whose check failed is at that check, and those below it, like the callers of
//! `exit()`, are each at a call. An activation still running
//! elsewhere (a signal in the middle of a loop without calls) breaks it, and
//! [`EdgeProfilePlan::reconstruct`] reports an error when that makes a count negative.

use crate::cfg::{Cfg, EdgeId, NodeId};
use crate::spanning_tree::maximum_spanning_tree;

/// Why counters could not be turned into edge counts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EdgeProfileError {
    #[error("expected {expected} edge counters, got {got}")]
    CounterCount { expected: usize, got: usize },
    /// Flow conservation gives an impossible count for this edge.
    #[error("edge counters are inconsistent (flow not conserved) at edge {}", .edge.0)]
    FlowNotConserved { edge: EdgeId },
    /// Flow conservation gives a negative number of activations still running in this node.
    #[error("edge counters are inconsistent (flow not conserved) at node {}", .node.0)]
    NegativeStop { node: NodeId },
}

/// Whether, and how, an activation may stop inside a node before the end of its block, in
/// increasing order of cost.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stop {
    Never,
    /// Only where a check fails: the check's error path counts the stop.
    AtCheck,
    /// Also inside a call, which may end the program where nothing counts the stop.
    InCall,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Arc {
    Cfg(EdgeId),
    DeadEnd(NodeId),
    /// Activations still running in the node, stopped by a failing check (counted there).
    CheckStop(NodeId),
    /// Activations still running in the node, in a call (never counted).
    Stop,
    Return,
}

/// Counter placement for one function, and the data to rebuild all edge counts.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct EdgeProfilePlan {
    num_nodes: usize,
    num_cfg_edges: usize,
    arcs: Vec<(Arc, usize, usize)>,
    /// Counter index of each chord arc; `None` for tree arcs.
    counter: Vec<Option<usize>>,
    edge_counter: Vec<Option<usize>>,
    dead_end_counter: Vec<Option<usize>>,
    /// The counter a failing check in the node increments, if its stop edge is a chord.
    check_stop_counter: Vec<Option<usize>>,
    /// The counter of the EXIT→ENTRY arc, when it is a chord: counted at the entry.
    entry_counter: Option<usize>,
    num_counters: usize,
}

impl EdgeProfilePlan {
    /// Places counters given an estimated or measured frequency for each CFG edge, indexed by
    /// edge id, for a function whose activations end only at returns and dead ends.
    pub fn new(cfg: &Cfg, cfg_edge_weights: &[u64]) -> EdgeProfilePlan {
        EdgeProfilePlan::with_stops(cfg, cfg_edge_weights, &[])
    }

    /// As [`EdgeProfilePlan::new`], for a function whose activations may also stop inside the
    /// nodes `v` as `stops[v]` says (missing entries are [`Stop::Never`]).
    pub fn with_stops(cfg: &Cfg, cfg_edge_weights: &[u64], stops: &[Stop]) -> EdgeProfilePlan {
        let reachable = cfg.reachable();
        let mut arcs = Vec::new();
        let mut weights = Vec::new();
        for (e, edge) in cfg.edges().filter(|(_, edge)| reachable[edge.from.0]) {
            arcs.push((Arc::Cfg(e), edge.from.0, edge.to.0));
            weights.push(cfg_edge_weights[e.0]);
        }
        for v in (0..cfg.num_nodes()).map(NodeId) {
            if reachable[v.0] && v != cfg.exit() && cfg.succs(v).is_empty() {
                // Dead ends are rare (runtime errors), so they should carry the counters.
                arcs.push((Arc::DeadEnd(v), v.0, cfg.exit().0));
                weights.push(0);
            }
        }
        let mut forced = Vec::new();
        for (v, &stop) in stops.iter().enumerate() {
            if !reachable[v] || v == cfg.exit().0 {
                continue;
            }
            match stop {
                Stop::Never => continue,
                // Failing checks are rare: the chords belong there.
                Stop::AtCheck => arcs.push((Arc::CheckStop(NodeId(v)), v, cfg.exit().0)),
                Stop::InCall => {
                    forced.push(arcs.len());
                    arcs.push((Arc::Stop, v, cfg.exit().0));
                }
            }
            weights.push(0);
        }
        forced.push(arcs.len());
        arcs.push((Arc::Return, cfg.exit().0, cfg.entry().0));
        weights.push(0);
        let ends: Vec<(usize, usize)> = arcs.iter().map(|&(_, u, v)| (u, v)).collect();
        let in_tree = maximum_spanning_tree(cfg.num_nodes(), &ends, &weights, &forced);

        let mut plan = EdgeProfilePlan {
            num_nodes: cfg.num_nodes(),
            num_cfg_edges: cfg.num_edges(),
            counter: vec![None; arcs.len()],
            edge_counter: vec![None; cfg.num_edges()],
            dead_end_counter: vec![None; cfg.num_nodes()],
            check_stop_counter: vec![None; cfg.num_nodes()],
            entry_counter: None,
            num_counters: 0,
            arcs,
        };
        for (i, &(arc, _, _)) in plan.arcs.iter().enumerate() {
            if in_tree[i] {
                continue;
            }
            let index = plan.num_counters;
            plan.num_counters += 1;
            plan.counter[i] = Some(index);
            match arc {
                Arc::Cfg(e) => plan.edge_counter[e.0] = Some(index),
                Arc::DeadEnd(v) => plan.dead_end_counter[v.0] = Some(index),
                Arc::CheckStop(v) => plan.check_stop_counter[v.0] = Some(index),
                Arc::Return => plan.entry_counter = Some(index),
                Arc::Stop => unreachable!("stop arcs form a star, all in the tree"),
            }
        }
        plan
    }

    /// Size of the function's counter array.
    pub fn num_counters(&self) -> usize {
        self.num_counters
    }

    /// The counter to increment when edge `e` is taken, if it has one.
    pub fn edge_counter(&self, e: EdgeId) -> Option<usize> {
        self.edge_counter[e.0]
    }

    /// The counter to increment where an activation starts, if there is one.
    pub fn entry_counter(&self) -> Option<usize> {
        self.entry_counter
    }

    /// The counter to increment where the dead end `v` stops, if it has one.
    pub fn dead_end_counter(&self, v: NodeId) -> Option<usize> {
        self.dead_end_counter[v.0]
    }

    /// The counter a check that fails in node `v` increments before it reports, if it has one
    /// (`v` is a [`Stop::AtCheck`] node).
    pub fn check_stop_counter(&self, v: NodeId) -> Option<usize> {
        self.check_stop_counter[v.0]
    }

    /// Every CFG edge's count from the chord counters, by flow conservation: a node with a
    /// single tree arc of unknown count determines it, and the tree has such a leaf until all
    /// arcs are known. Unreachable edges count 0.
    pub fn reconstruct(&self, counters: &[u64]) -> Result<Vec<u64>, EdgeProfileError> {
        self.reconstruct_with_stops(counters)
            .map(|(edges, _)| edges)
    }

    /// [`EdgeProfilePlan::reconstruct`], and the number of activations still running (the
    /// counts of the stop edges).
    pub fn reconstruct_with_stops(
        &self,
        counters: &[u64],
    ) -> Result<(Vec<u64>, u64), EdgeProfileError> {
        if counters.len() != self.num_counters {
            return Err(EdgeProfileError::CounterCount {
                expected: self.num_counters,
                got: counters.len(),
            });
        }
        let mut count: Vec<Option<i128>> = self
            .counter
            .iter()
            .map(|c| c.map(|i| i128::from(counters[i])))
            .collect();
        let mut incident: Vec<Vec<usize>> = vec![Vec::new(); self.num_nodes];
        for (i, &(_, u, v)) in self.arcs.iter().enumerate() {
            // A self-loop flows in and out of the same node: no constraint.
            if u != v {
                incident[u].push(i);
                incident[v].push(i);
            }
        }
        let mut unknown: Vec<usize> = incident
            .iter()
            .map(|arcs| arcs.iter().filter(|&&i| count[i].is_none()).count())
            .collect();
        let mut leaves: Vec<usize> = (0..self.num_nodes).filter(|&x| unknown[x] == 1).collect();
        while let Some(x) = leaves.pop() {
            let Some(&arc) = incident[x].iter().find(|&&i| count[i].is_none()) else {
                continue;
            };
            // inflow − outflow over the known arcs at x.
            let balance: i128 = incident[x]
                .iter()
                .filter_map(|&i| count[i].map(|c| if self.arcs[i].2 == x { c } else { -c }))
                .sum();
            let (_, u, _) = self.arcs[arc];
            let value = if u == x { balance } else { -balance };
            count[arc] = Some(value);
            for end in [self.arcs[arc].1, self.arcs[arc].2] {
                unknown[end] -= 1;
                if unknown[end] == 1 {
                    leaves.push(end);
                }
            }
        }
        let mut edges = vec![0u64; self.num_cfg_edges];
        let mut running = 0u64;
        for (i, &(arc, from, _)) in self.arcs.iter().enumerate() {
            let c = count[i].unwrap_or(0);
            match arc {
                Arc::Cfg(e) => {
                    edges[e.0] = u64::try_from(c)
                        .map_err(|_| EdgeProfileError::FlowNotConserved { edge: e })?;
                }
                Arc::Stop | Arc::CheckStop(_) => {
                    running += u64::try_from(c)
                        .map_err(|_| EdgeProfileError::NegativeStop { node: NodeId(from) })?;
                }
                Arc::DeadEnd(_) | Arc::Return => {}
            }
        }
        Ok((edges, running))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::add_even_numbers;

    #[test]
    fn loop_counts_are_rebuilt() {
        // AddEvenNumbers ([PFP] Fig. 10) called once with limit 2: blocks 1 2 3 4 6 3 4 5 6 3 7.
        let cfg = add_even_numbers();
        let truth = [1, 1, 2, 1, 1, 1, 1, 2, 1];
        let plan = EdgeProfilePlan::new(&cfg, &[1, 1, 10, 1, 10, 10, 10, 10, 1]);
        let counters: Vec<u64> = (0..plan.num_counters())
            .map(|c| {
                let e = (0..cfg.num_edges())
                    .find(|&e| plan.edge_counter(EdgeId(e)) == Some(c))
                    .unwrap();
                truth[e]
            })
            .collect();
        // One counter per independent cycle: 9 edges + the return arc − 8 nodes + 1.
        assert_eq!(plan.num_counters(), 3);
        assert_eq!(plan.reconstruct(&counters).unwrap(), truth.to_vec());
    }

    /// The edges of AddEvenNumbers(2) stopped in node 4 the second time there (blocks 1 2 3 4 6
    /// 3 4), the counters `plan` has for them (the stop counted if node 4's failing check has
    /// one), and the counters on CFG edges.
    fn stopped_in_node_4(plan: &EdgeProfilePlan, cfg: &Cfg) -> (Vec<u64>, Vec<u64>, Vec<usize>) {
        let taken = [(0, 1), (1, 2), (2, 3), (3, 5), (5, 2), (2, 3)];
        let mut truth = vec![0u64; cfg.num_edges()];
        for (from, to) in taken {
            let (e, _) = cfg
                .edges()
                .find(|(_, edge)| (edge.from.0, edge.to.0) == (from, to))
                .unwrap();
            truth[e.0] += 1;
        }
        let mut counters = vec![0u64; plan.num_counters()];
        let mut on_edges = Vec::new();
        for (e, &count) in truth.iter().enumerate() {
            if let Some(c) = plan.edge_counter(EdgeId(e)) {
                counters[c] = count;
                on_edges.push(e);
            }
        }
        if let Some(c) = plan.entry_counter() {
            counters[c] = 1;
        }
        if let Some(c) = plan.check_stop_counter(NodeId(3)) {
            counters[c] = 1;
        }
        (truth, counters, on_edges)
    }

    /// AddEvenNumbers(2) stopped in a call in node 4, the second time there. With node 4 a
    /// stop node, the counts of the edges taken are rebuilt exactly, and one activation is
    /// still running in node 4.
    #[test]
    fn an_activation_stopped_at_a_stop_node_keeps_its_edges() {
        let cfg = add_even_numbers();
        let mut stops = vec![Stop::Never; cfg.num_nodes()];
        stops[3] = Stop::InCall; // node 4 (ids from 0)
        let plan = EdgeProfilePlan::with_stops(&cfg, &[1; 9], &stops);
        let (truth, counters, _) = stopped_in_node_4(&plan, &cfg);
        assert_eq!(plan.reconstruct_with_stops(&counters).unwrap(), (truth, 1));
        // One more counter than without the stop node: its stop count is an unknown more.
        assert_eq!(
            plan.num_counters(),
            EdgeProfilePlan::new(&cfg, &[1; 9]).num_counters() + 1
        );
    }

    /// The same run stopped by a failing check in node 4: the check counts the stop, so the
    /// CFG edges carry the counters they have without any stop node, and the extra counter is
    /// the check's.
    #[test]
    fn a_check_counts_its_stop_and_leaves_the_edges_counters_alone() {
        let cfg = add_even_numbers();
        let weights = [1, 1, 10, 1, 10, 10, 10, 10, 1];
        let mut stops = vec![Stop::Never; cfg.num_nodes()];
        stops[3] = Stop::AtCheck;
        let plan = EdgeProfilePlan::with_stops(&cfg, &weights, &stops);
        assert!(plan.check_stop_counter(NodeId(3)).is_some());
        let (truth, counters, on_edges) = stopped_in_node_4(&plan, &cfg);
        assert_eq!(plan.reconstruct_with_stops(&counters).unwrap(), (truth, 1));
        let unstopped = EdgeProfilePlan::new(&cfg, &weights);
        let (_, _, unstopped_on_edges) = stopped_in_node_4(&unstopped, &cfg);
        assert_eq!(on_edges, unstopped_on_edges);
        assert_eq!(plan.num_counters(), unstopped.num_counters() + 1);
    }

    #[test]
    fn inconsistent_counters_are_an_error() {
        let cfg = add_even_numbers();
        let plan = EdgeProfilePlan::new(&cfg, &[1; 9]);
        assert_eq!(
            plan.reconstruct(&[]),
            Err(EdgeProfileError::CounterCount {
                expected: plan.num_counters(),
                got: 0
            })
        );
        // Some counter values contradict conservation (e.g. an invocation still running).
        let contradictions = [[0, 3], [3, 0], [3, 3]]
            .iter()
            .filter(|c| plan.reconstruct(&c[..]).is_err())
            .count();
        assert!(contradictions > 0);
    }
}
