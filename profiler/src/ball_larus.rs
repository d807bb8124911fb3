//! Ball-Larus path numbering: NumPaths and edge increments on the DAG, such that the sum of the
//! increments along each ENTRY→EXIT path is a unique id in `[0, NumPaths)`.
//!
//! The numbering is `computeBLIncrements` ([PPP] Fig. 1), the same as `bl_path_numbering` ([KBLPP]).
//! Path counts can exceed any fixed width (stacked `if`s: 2^k paths for k of them; [TPP] §4.1), so
//! counts are computed with saturating 128-bit arithmetic, and while NumPaths exceeds the limit,
//! edges are truncated into dummy edges ([TPP] §2.1, [BL96]) until it fits: first the single cut
//! that removes the most paths, while counts are exact; then, once they saturate, cuts that bound
//! every node's paths, which always fit 64-bit ids (any function size can be profiled).

use crate::cfg::{Cfg, EdgeId, NodeId};
use crate::dag::{Dag, DagEdgeId, DagEdgeKind, EdgeRole};

/// A numbering failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NumberingError {
    /// Truncation found no cut that brings NumPaths from `reached` down towards `limit`.
    #[error("cannot truncate the paths to at most {limit}: no cut reduces them below {reached}")]
    LimitTooSmall { limit: u64, reached: u128 },
}

/// The Ball-Larus numbering of one function.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct BallLarus {
    dag: Dag,
    num_paths: u64,
    /// NumPaths(v) of every node: the paths from `v` to EXIT.
    paths_from: Vec<u64>,
    increments: Vec<u64>,
}

/// `N(v)` (paths from `v` to EXIT) and `W(e)` (edge increments), saturating at `u128::MAX`.
pub(crate) struct Counts {
    pub(crate) num_paths: Vec<u128>,
    pub(crate) increments: Vec<u128>,
}

/// [PPP] Fig. 1 `computeBLIncrements` (= [KBLPP] `bl_path_numbering`): in reverse topological order,
/// `N(v)` is the sum of its successors' counts, and each out-edge's increment is the running sum
/// before it, so the paths through the i-th out-edge take the i-th block of ids. Edges that are
/// not `usable` (TPP's removed cold edges) carry no paths and get increment 0.
pub(crate) fn compute_bl_increments(dag: &Dag, usable: impl Fn(DagEdgeId) -> bool) -> Counts {
    let mut num_paths = vec![0u128; dag.num_nodes()];
    let mut increments = vec![0u128; dag.num_edges()];
    num_paths[dag.exit().0] = 1;
    for &v in dag.topological_order().iter().rev() {
        if v == dag.exit() {
            continue;
        }
        let mut n_v = 0u128;
        for &e in dag.outs(v).iter().filter(|&&e| usable(e)) {
            increments[e.0] = n_v;
            n_v = n_v.saturating_add(num_paths[dag.edge(e).to.0]);
        }
        num_paths[v.0] = n_v;
    }
    Counts {
        num_paths,
        increments,
    }
}

/// Number of paths from ENTRY to each node (saturating), in topological order.
fn count_paths_from_entry(dag: &Dag) -> Vec<u128> {
    let mut from_entry = vec![0u128; dag.num_nodes()];
    from_entry[dag.entry().0] = 1;
    for &v in dag.topological_order() {
        for &e in dag.outs(v) {
            let w = dag.edge(e).to;
            from_entry[w.0] = from_entry[w.0].saturating_add(from_entry[v.0]);
        }
    }
    from_entry
}

/// The real edges to truncate next: all in-edges of the node whose cut removes the most paths,
/// if any cut removes some. Edges from the entry are kept, since cutting them gains nothing.
///
/// Cutting the in-edges of `x` makes `x` a place where paths start, like a loop header: the
/// `C(x)·N(x)` paths through those edges (`C(x)` = paths from ENTRY into them) become `C(x)`
/// paths ending before `x` plus, if `ENTRY→x` is new, `N(x)` paths starting at `x`. The winner
/// carries many paths and splits them evenly (the middle of a stack of `if`s), so the paths on
/// both sides stay long.
fn choose_cut(dag: &Dag, to_exit: &[u128], from_entry: &[u128]) -> Option<Vec<DagEdgeId>> {
    let mut best: Option<(u128, NodeId)> = None;
    for &x in dag.topological_order().iter().filter(|&&x| x != dag.exit()) {
        let cuttable = cuttable_in_edges(dag, x);
        let into: u128 = cuttable.fold(0, |sum, d| {
            sum.saturating_add(from_entry[dag.edge(d).from.0])
        });
        let removed = into.saturating_mul(to_exit[x.0]);
        let added = if dag.entry_dummy(x).is_some() {
            into
        } else {
            into.saturating_add(to_exit[x.0])
        };
        if removed > added && best.is_none_or(|(gain, _)| removed - added > gain) {
            best = Some((removed - added, x));
        }
    }
    best.map(|(_, x)| cuttable_in_edges(dag, x).collect())
}

/// Cuts edges so that every node has at most `bound` paths to EXIT, with `bound` small enough
/// that their sum at the entry stays within `max_paths`: the entry's paths are those of its own
/// out-edges plus those starting at each `ENTRY→w` dummy, at most one per node, each ≤ `bound`.
///
/// In reverse topological order, a node whose paths exceed the bound has all its out-edges cut:
/// each then ends one path, and its target, already bounded, starts paths. The node is back to a
/// handful of paths, so the nodes before it can multiply paths again for as long as the bound
/// allows (with 64-bit ids and a 10,000-node function, some 50 stacked `if`s per path) instead
/// of being cut one after the other. This fails only if a node has more out-edges than `bound`,
/// which only a tiny `max_paths` allows.
fn cut_to_bound(dag: &mut Dag, max_paths: u64) {
    let starts = (dag.num_nodes() + dag.outs(dag.entry()).len() + 1) as u128;
    let bound = (u128::from(max_paths) / starts).max(1);
    let mut num_paths = vec![0u128; dag.num_nodes()];
    num_paths[dag.exit().0] = 1;
    let (order, exit) = (dag.topological_order().to_vec(), dag.exit());
    for &v in order.iter().rev().filter(|&&v| v != exit) {
        let paths_of = |dag: &Dag, d: DagEdgeId| num_paths[dag.edge(d).to.0];
        let mut n_v = dag
            .outs(v)
            .iter()
            .fold(0u128, |sum, &d| sum.saturating_add(paths_of(dag, d)));
        if n_v > bound && v != dag.entry() {
            let cuttable: Vec<DagEdgeId> = dag
                .outs(v)
                .iter()
                .copied()
                .filter(|&d| {
                    let edge = dag.edge(d);
                    matches!(edge.kind, DagEdgeKind::Real(_))
                        && edge.to != dag.entry()
                        && edge.to != exit
                })
                .collect();
            for d in cuttable {
                // The edge now ends one path instead of carrying its target's.
                n_v = n_v - paths_of(dag, d) + 1;
                dag.cut(d);
            }
        }
        num_paths[v.0] = n_v;
    }
}

fn cuttable_in_edges(dag: &Dag, x: NodeId) -> impl Iterator<Item = DagEdgeId> + '_ {
    dag.ins(x).iter().copied().filter(move |&d| {
        let edge = dag.edge(d);
        matches!(edge.kind, DagEdgeKind::Real(_)) && edge.from != dag.entry()
    })
}

impl BallLarus {
    /// Numbers the paths of `cfg`, truncating only when they exceed `u64::MAX`.
    pub fn new(cfg: &Cfg) -> Result<BallLarus, NumberingError> {
        BallLarus::with_limit(cfg, u64::MAX)
    }

    /// Numbers the paths of `cfg` so that NumPaths ≤ `max_paths`, truncating edges if needed.
    pub fn with_limit(cfg: &Cfg, max_paths: u64) -> Result<BallLarus, NumberingError> {
        BallLarus::with_cuts(cfg, &[], max_paths)
    }

    /// Like [`BallLarus::with_limit`], with the forward edges `cuts` cut first, so that paths
    /// also end and start there (WPP cuts paths before calls, [WPP] §2). Back edges and edges out of
    /// unreachable nodes among `cuts` are left as they are: they end no path or already end one.
    pub fn with_cuts(
        cfg: &Cfg,
        cuts: &[EdgeId],
        max_paths: u64,
    ) -> Result<BallLarus, NumberingError> {
        let mut dag = Dag::new(cfg);
        for &e in cuts {
            if let EdgeRole::Dag(d) = dag.role(e)
                && dag.edge(d).to != dag.entry()
            {
                dag.cut(d);
            }
        }
        let counts = loop {
            let counts = compute_bl_increments(&dag, |_| true);
            let total = counts.num_paths[dag.entry().0];
            if total <= u128::from(max_paths) {
                break counts;
            }
            // The best single cut while the counts are exact; once they saturate (or no single
            // cut helps), the bounded cuts, which always bring NumPaths under the limit.
            let exact = total < u128::MAX;
            let cut = exact
                .then(|| choose_cut(&dag, &counts.num_paths, &count_paths_from_entry(&dag)))
                .flatten();
            match cut {
                Some(edges) => edges.into_iter().for_each(|d| dag.cut(d)),
                None => {
                    cut_to_bound(&mut dag, max_paths);
                    let counts = compute_bl_increments(&dag, |_| true);
                    let total = counts.num_paths[dag.entry().0];
                    if total > u128::from(max_paths) {
                        return Err(NumberingError::LimitTooSmall {
                            limit: max_paths,
                            reached: total,
                        });
                    }
                    break counts;
                }
            }
        };
        // Every count is at most N(ENTRY) ≤ max_paths now, so the narrowing is lossless.
        let narrow = |x: u128| u64::try_from(x).expect("bounded by max_paths");
        Ok(BallLarus {
            num_paths: narrow(counts.num_paths[dag.entry().0]),
            paths_from: counts.num_paths.into_iter().map(narrow).collect(),
            increments: counts.increments.into_iter().map(narrow).collect(),
            dag,
        })
    }

    pub fn dag(&self) -> &Dag {
        &self.dag
    }

    /// NumPaths: the number of potential acyclic paths; ids are `0..num_paths`.
    pub fn num_paths(&self) -> u64 {
        self.num_paths
    }

    /// NumPaths(v): the number of paths from `v` to EXIT in the DAG (0 for a node outside it).
    pub fn paths_from(&self, v: NodeId) -> u64 {
        self.paths_from[v.0]
    }

    /// The Ball-Larus increment `W(d)` of a DAG edge.
    pub fn increment(&self, d: DagEdgeId) -> u64 {
        self.increments[d.0]
    }

    /// The same DAG and NumPaths with other increments (one per DAG edge, wrapping modulo 2^64),
    /// so that [`crate::instrument::PathPlan`] places a second register's code on the same
    /// edges as this one's (the PPP register, [`crate::ppp`]).
    pub(crate) fn with_increments(&self, increments: Vec<u64>) -> BallLarus {
        assert_eq!(increments.len(), self.dag.num_edges());
        BallLarus {
            dag: self.dag.clone(),
            num_paths: self.num_paths,
            paths_from: self.paths_from.clone(),
            increments,
        }
    }

    /// Whether edges were cut to bound the number of paths.
    pub fn is_truncated(&self) -> bool {
        !self.dag.cut_edges().is_empty()
    }

    /// The CFG edges cut by truncation.
    pub fn cut_edges(&self) -> &[EdgeId] {
        self.dag.cut_edges()
    }

    /// [PPP] Fig. 4 `computePathIdentifier`: the sum of the increments along a DAG path.
    pub fn path_id(&self, path: &[DagEdgeId]) -> u64 {
        path.iter()
            .fold(0, |id, &d| id.wrapping_add(self.increment(d)))
    }

    /// Splits one execution of the function, given as the CFG edges taken from the entry, into
    /// its acyclic paths and returns their ids in order: a path ends at each back or cut edge,
    /// at EXIT, and at a dead end where the execution stops. A trailing unfinished path is
    /// dropped. This is what the instrumented code computes, done directly with the increments.
    pub fn path_ids_of_execution(&self, cfg: &Cfg, execution: &[EdgeId]) -> Vec<u64> {
        let mut register = PathRegister::default();
        let mut ids: Vec<u64> = execution
            .iter()
            .filter_map(|&e| register.take(self, e))
            .collect();
        if let Some(&last) = execution.last() {
            ids.extend(register.stop_at(self, cfg.edge(last).to));
        }
        ids
    }
}

/// The path register of one activation, updated edge by edge with the increments directly (no
/// chords): what [`BallLarus::path_ids_of_execution`] computes, one step at a time.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PathRegister(pub u64);

impl PathRegister {
    /// Takes CFG edge `e`; returns the id of the path it ends (a back or cut edge), if any.
    pub fn take(&mut self, bl: &BallLarus, e: EdgeId) -> Option<u64> {
        match bl.dag.role(e) {
            EdgeRole::Dag(d) => {
                self.0 = self.0.wrapping_add(bl.increment(d));
                None
            }
            EdgeRole::Closing { exit, entry } => {
                let id = self.0.wrapping_add(bl.increment(exit));
                self.0 = entry.map_or(0, |d| bl.increment(d));
                Some(id)
            }
            EdgeRole::Unreachable => None,
        }
    }

    /// The execution stops at node `v` (reached by the last edge taken): the id of the path that
    /// ends there, when `v` is EXIT or a dead end; `None` when the path is unfinished.
    pub fn stop_at(&self, bl: &BallLarus, v: NodeId) -> Option<u64> {
        if v == bl.dag.exit() {
            return Some(self.0);
        }
        let &dead_end = bl.dag.outs(v).first()?;
        (bl.dag.edge(dead_end).kind == DagEdgeKind::DeadEnd)
            .then(|| self.0.wrapping_add(bl.increment(dead_end)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{
        add_even_numbers, edges_along, ppp_figure_2, ppp_figure_3, short_circuit_condition,
        stacked_ifs,
    };

    fn id_of_nodes(bl: &BallLarus, cfg: &Cfg, nodes: &[usize]) -> u64 {
        let edges = edges_along(cfg, nodes);
        *bl.path_ids_of_execution(cfg, &edges).last().unwrap()
    }

    #[test]
    fn ppp_figure_3_increments_and_ids() {
        let cfg = ppp_figure_3();
        let bl = BallLarus::new(&cfg).unwrap();
        assert_eq!(bl.num_paths(), 6);
        let increments: Vec<u64> = (0..cfg.num_edges())
            .map(|e| match bl.dag().role(EdgeId(e)) {
                EdgeRole::Dag(d) => bl.increment(d),
                other => panic!("unexpected role {other:?}"),
            })
            .collect();
        assert_eq!(increments, vec![0, 4, 0, 2, 0, 0, 1, 0]);
        let (s, a, b, c, d, t) = (0, 1, 2, 3, 4, 5);
        assert_eq!(id_of_nodes(&bl, &cfg, &[s, a, c, d, t]), 0);
        assert_eq!(id_of_nodes(&bl, &cfg, &[s, a, c, t]), 1);
        assert_eq!(id_of_nodes(&bl, &cfg, &[s, a, b, c, d, t]), 2);
        assert_eq!(id_of_nodes(&bl, &cfg, &[s, a, b, c, t]), 3);
        assert_eq!(id_of_nodes(&bl, &cfg, &[s, b, c, d, t]), 4);
        assert_eq!(id_of_nodes(&bl, &cfg, &[s, b, c, t]), 5);
    }

    #[test]
    fn ppp_figure_2_node_with_two_successors() {
        // [PPP] Fig. 2: a→b gets 0, a→c gets N(b).
        let cfg = ppp_figure_2();
        let bl = BallLarus::new(&cfg).unwrap();
        let EdgeRole::Dag(a_c) = bl.dag().role(EdgeId(1)) else {
            panic!()
        };
        assert_eq!(bl.increment(a_c), 2);
        assert_eq!(bl.num_paths(), 3);
    }

    /// [PFP] Fig. 10–11: AddEvenNumbers has 6 potential paths, numbered as in Fig. 11.
    #[test]
    fn add_even_numbers_sidebar_2() {
        let cfg = add_even_numbers();
        let bl = BallLarus::new(&cfg).unwrap();
        assert_eq!(bl.num_paths(), 6);
        // AddEvenNumbers(2) runs blocks 1 2 3 4 6 3 4 5 6 3 7 (Sidebar 1): paths
        // 1,2,3,4,6 (4), then 3,4,5,6 (0), then 3,7 (2).
        let blocks = [1, 2, 3, 4, 6, 3, 4, 5, 6, 3, 7];
        let nodes: Vec<usize> = blocks.iter().map(|b| b - 1).chain([7]).collect();
        let edges = edges_along(&cfg, &nodes);
        assert_eq!(bl.path_ids_of_execution(&cfg, &edges), vec![4, 0, 2]);
        assert!(!bl.is_truncated());
    }

    /// `if ((A||B) && (C||D)) X else Y` with short-circuit edges: 7 paths ([PFP] §6.1).
    #[test]
    fn short_circuit_condition_has_seven_paths() {
        let cfg = short_circuit_condition();
        assert_eq!(BallLarus::new(&cfg).unwrap().num_paths(), 7);
    }

    #[test]
    fn stacked_ifs_below_the_limit_are_not_truncated() {
        let bl = BallLarus::new(&stacked_ifs(63)).unwrap();
        assert_eq!(bl.num_paths(), 1 << 63);
        assert!(!bl.is_truncated());
    }

    #[test]
    fn seventy_stacked_ifs_are_truncated_in_the_middle() {
        let cfg = stacked_ifs(70);
        let bl = BallLarus::new(&cfg).unwrap();
        assert!(bl.is_truncated());
        // Both edges into one join are cut, near the middle of the stack.
        assert_eq!(bl.cut_edges().len(), 2);
        let join = cfg.edge(bl.cut_edges()[0]).to;
        assert!(bl.cut_edges().iter().all(|&e| cfg.edge(e).to == join));
        assert_eq!(join.0 % 3, 0);
        assert!((30..=40).contains(&(join.0 / 3)));
        // 35 ifs before the cut, 35 after: 2^35 + 2^35 paths.
        assert_eq!(bl.num_paths(), 1 << 36);
    }

    #[test]
    fn small_limit_truncates_further() {
        let cfg = stacked_ifs(70);
        let bl = BallLarus::with_limit(&cfg, 1000).unwrap();
        assert!(bl.num_paths() <= 1000);
        assert!(bl.cut_edges().len() > 2);
    }

    /// Past 128 bits of paths the counts saturate; the bounded cuts still fit them in 64 bits,
    /// and an execution splits into paths whose ids regenerate the edges it took.
    #[test]
    fn any_number_of_stacked_ifs_is_truncated_to_64_bits() {
        for k in [128, 255, 1000, 10_000] {
            let cfg = stacked_ifs(k);
            let bl = BallLarus::new(&cfg).unwrap();
            assert!(bl.is_truncated(), "{k} ifs");
            // Paths stay long: far fewer cuts than `if`s.
            assert!(
                bl.cut_edges().len() < k / 16,
                "{k} ifs: {:?}",
                bl.cut_edges()
            );
            // Through every `then` and then every `else` arm.
            for arm in [1, 2] {
                let nodes: Vec<usize> = (0..k)
                    .flat_map(|i| [3 * i, 3 * i + arm])
                    .chain([3 * k])
                    .collect();
                let execution = edges_along(&cfg, &nodes);
                let ids = bl.path_ids_of_execution(&cfg, &execution);
                // Each path's edges, then the cut edge that ended it.
                let mut rest = &execution[..];
                for &id in &ids {
                    let edges = bl.path(id).expect("id below NumPaths").edges;
                    assert_eq!(edges, rest[..edges.len()], "{k} ifs");
                    rest = rest.get(edges.len() + 1..).unwrap_or_default();
                }
                assert!(rest.is_empty());
            }
        }
    }

    #[test]
    fn impossible_limit_is_an_error() {
        // A node with three successors cannot have fewer than 3 paths.
        let cfg = Cfg::from_edges(2, 0, 1, &[(0, 1), (0, 1), (0, 1)]).unwrap();
        assert_eq!(
            BallLarus::with_limit(&cfg, 2).unwrap_err(),
            NumberingError::LimitTooSmall {
                limit: 2,
                reached: 3
            }
        );
    }

    #[test]
    fn dead_end_paths_are_numbered() {
        // 0 → 1 → exit 3, 0 → 2 (dead end, e.g. a runtime error).
        let cfg = Cfg::from_edges(4, 0, 3, &[(0, 1), (0, 2), (1, 3)]).unwrap();
        let bl = BallLarus::new(&cfg).unwrap();
        assert_eq!(bl.num_paths(), 2);
        assert_eq!(bl.path_ids_of_execution(&cfg, &[EdgeId(1)]), vec![1]);
        assert_eq!(
            bl.path_ids_of_execution(&cfg, &[EdgeId(0), EdgeId(2)]),
            vec![0]
        );
    }

    #[test]
    fn infinite_loop_paths_end_at_the_back_edge() {
        // 0 → 1 → 1 (no way out); exit 2 unreachable.
        let cfg = Cfg::from_edges(3, 0, 2, &[(0, 1), (1, 1)]).unwrap();
        let bl = BallLarus::new(&cfg).unwrap();
        // ENTRY→1→EXIT via dummy, and 0→1→EXIT via dummy.
        assert_eq!(bl.num_paths(), 2);
        let ids = bl.path_ids_of_execution(&cfg, &[EdgeId(0), EdgeId(1), EdgeId(1)]);
        assert_eq!(ids, vec![1, 0]);
    }
}
