//! Preferential path profiling, PPP ([PPP]: Vaswani, Nori, Chilimbi, POPL 2007): a second path
//! numbering, next to Ball-Larus, that gives a chosen set of *interesting* paths small distinct
//! ids, so that their counters fit in an array even when the function has far too many paths.
//!
//! # Numbering ([PPP] §3.1, Fig. 10 `computePPPIncrements`)
//!
//! Only the interesting paths matter; every other path may get any id, even one that collides
//! with an interesting path's ([PPP] §3 relaxes Lemma 2's separation condition this way). The
//! nodes of the Ball-Larus DAG are visited in reverse topological order, keeping for each
//! interesting path a partial id `pid(p)`: the sum of the weights already assigned to its
//! suffix. At node `v`, the interesting paths are grouped by their *prefix* (the edges from
//! ENTRY to `v`); for each prefix `q`, `cis(q)` is the size of the id interval that `q`'s paths
//! through the out-edges visited so far occupy. An out-edge `e` of `v` that carries interesting
//! paths gets the weight
//!
//! ```text
//! W(e) = max over prefixes q through e of ( cis(q) − min { pid(p) : p through e with prefix q } )
//! ```
//!
//! which puts each prefix's interval on `e` just above its intervals on the earlier out-edges
//! (Equation 1 of §3.1). The `max` is the *join* (Fig. 8(d), Fig. 9): an edge has one weight for
//! all prefixes, so the prefixes that need less get a hole below their interval. Then every
//! `pid(p)` through `e` grows by `W(e)` and `cis(q) = max pid + 1`. Intervals of the same prefix
//! never overlap (Lemma 5), so at ENTRY, where the only prefix is empty, all interesting ids are
//! distinct and fill `[0, range)` up to holes. An edge no interesting path takes keeps the
//! paper's undefined weight ⊥; its register increment is 0.
//!
//! Compactness is `ρ = range / |I|` ([PPP] §3, Problem A: `(max − min + 1) / |I|`, and the
//! smallest id is 0 here). `ρ = 1` is not always possible (Lemma 3, Fig. 6); PPP is optimal
//! among numberings whose edge intervals do not overlap (Theorem 1, Problem B), but not always
//! overall (§3.3, Fig. 11). When every path is interesting the weights are exactly the
//! Ball-Larus increments (Fig. 1) and `range` is NumPaths.
//!
//! Prefixes are identified as in [PPP] §5 ("Representing paths and prefixes"): by the sum of the
//! Ball-Larus increments along them, which differs between any two prefixes ending at the same
//! node (they extend to different complete paths with the same suffix).
//!
//! Range bound (not in the paper, used for the register width): by induction over the reverse
//! topological order, after `v` is visited the partial ids of the paths through `v` lie in
//! `[0, N(v))` for each prefix, `N(v)` being the Ball-Larus path count from `v`. So `range ≤
//! NumPaths < 2^64`; weights lie in `(−2^64, 2^64)` and the 64-bit register, wrapping, holds
//! every interesting path's exact id at the end of the path.
//!
//! # At run time ([PPP] §2.3, §5 "Register usage", "Additional checks")
//!
//! Two registers run side by side: the Ball-Larus one (`r_bl`, unique for every path) and the
//! PPP one (`r_ppp`). When a path ends, with `ppp` and `bl` its two ids:
//!
//! ```text
//! if ppp < range (unsigned) && slots[ppp] == bl { counts[ppp] += 1 } else { residual(bl) }
//! ```
//!
//! `slots` ([`Ppp::slot_table`]) holds the Ball-Larus id of the interesting path numbered `ppp`,
//! or [`EMPTY_SLOT`] in a hole. Any other path is *residual* (not interesting): its PPP id may be
//! out of range (negative ids wrap to huge unsigned ones) or alias an interesting path's, which
//! the Ball-Larus comparison tells apart.
//!
//! Back edges (and truncated edges) are the two dummy edges of the DAG ([`crate::dag`]), as for
//! Ball-Larus: the PPP register takes the `v→EXIT` dummy's increment, the path ends, and the
//! register restarts with the `ENTRY→w` dummy's increment ([`Ppp::edge_increments`]).
//! [`Ppp::plan`] places both registers' code on the same edges with the spanning-tree event
//! counting of [`crate::instrument`], as [PPP] §5 ("Counter optimizations") does.

use std::collections::HashMap;

use crate::ball_larus::BallLarus;
use crate::cfg::{Cfg, EdgeId, NodeId};
use crate::dag::{DagEdgeId, DagEdgeKind, EdgeRole};
use crate::instrument::{PathOp, PathPlan};

/// The value of a hole in [`Ppp::slot_table`]: no Ball-Larus id equals it, since ids are below
/// NumPaths ≤ `u64::MAX`.
pub const EMPTY_SLOT: u64 = u64::MAX;

/// Why a set of interesting paths was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PppError {
    /// A Ball-Larus id that is not below NumPaths.
    #[error("interesting path id {id} is out of range (the function has {num_paths} paths)")]
    BlIdOutOfRange { id: u64, num_paths: u64 },
    /// The `index`-th edge sequence is not an ENTRY→EXIT path of the DAG.
    #[error("interesting path #{index} is not an ENTRY→EXIT path of the Ball-Larus DAG")]
    NotADagPath { index: usize },
}

/// One interesting path and its two ids.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InterestingPath {
    /// Its Ball-Larus id: what `slots[ppp_id]` holds.
    pub bl_id: u64,
    /// Its PPP id, in `[0, range)`.
    pub ppp_id: u64,
    /// Its DAG edges, from ENTRY to EXIT.
    pub edges: Vec<DagEdgeId>,
}

/// How a completed path is classified at run time.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PathClass {
    /// An interesting path, counted in `counts[slot]` (`slot` is its PPP id).
    Interesting { slot: u64 },
    /// Any other path, known by its Ball-Larus id.
    Residual { bl_id: u64 },
}

/// What the PPP register does when a CFG edge is taken, with plain (unplaced) increments: the
/// register is 0 at function entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EdgeIncrements {
    /// `r_ppp += inc`.
    Inside(i64),
    /// A back or cut edge `v→w`: the path ends with PPP id `r_ppp + end` (the `v→EXIT` dummy),
    /// then the next one starts with `r_ppp = restart` (the `ENTRY→w` dummy, 0 if `w` is the
    /// entry node).
    Closing { end: i64, restart: i64 },
    /// The edge never executes.
    Unreachable,
}

/// One step of the two-register code of [`PppPlan`]. Registers wrap modulo 2^64.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PppOp {
    /// Ball-Larus register code: [`PathOp::Set`] or [`PathOp::Add`].
    Bl(PathOp),
    /// PPP register code: [`PathOp::Set`] or [`PathOp::Add`].
    Ppp(PathOp),
    /// A path ends. Each register's id is given the way [`PathOp`] gives a counted id:
    /// `CountAdd(c)` is `r + c`, `CountConst(id)` is `id` (both fields have the same form).
    /// The runtime check: `if ppp < range && slots[ppp] == bl { counts[ppp] += 1 } else
    /// { residual(bl) }`.
    End { bl: PathOp, ppp: PathOp },
}

/// The PPP numbering of one function's interesting paths.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Ppp {
    bl: BallLarus,
    /// Fig. 10's `W(e)` per DAG edge; `None` is ⊥ (no interesting path takes the edge).
    weights: Vec<Option<i128>>,
    range: u64,
    /// Sorted by Ball-Larus id.
    paths: Vec<InterestingPath>,
    /// `(ppp_id, bl_id)`, sorted by PPP id.
    slots: Vec<(u64, u64)>,
}

impl Ppp {
    /// Numbers the interesting paths given by their Ball-Larus ids (as [PPP] §5 does); repeated
    /// ids count once.
    pub fn from_bl_ids(
        bl: &BallLarus,
        ids: impl IntoIterator<Item = u64>,
    ) -> Result<Ppp, PppError> {
        let mut ids: Vec<u64> = ids.into_iter().collect();
        ids.sort_unstable();
        ids.dedup();
        let mut paths = Vec::with_capacity(ids.len());
        for id in ids {
            let edges = bl.regenerate(id).ok_or(PppError::BlIdOutOfRange {
                id,
                num_paths: bl.num_paths(),
            })?;
            paths.push((id, edges));
        }
        Ok(Ppp::number(bl, paths))
    }

    /// Numbers the interesting paths given as ENTRY→EXIT edge sequences of `bl`'s DAG; repeated
    /// paths count once.
    pub fn from_paths(bl: &BallLarus, paths: &[Vec<DagEdgeId>]) -> Result<Ppp, PppError> {
        let dag = bl.dag();
        let mut numbered = Vec::with_capacity(paths.len());
        for (index, edges) in paths.iter().enumerate() {
            let in_range = edges.iter().all(|d| d.0 < dag.num_edges());
            let connected = in_range
                && edges
                    .first()
                    .is_some_and(|&d| dag.edge(d).from == dag.entry())
                && edges.last().is_some_and(|&d| dag.edge(d).to == dag.exit())
                && edges
                    .windows(2)
                    .all(|pair| dag.edge(pair[0]).to == dag.edge(pair[1]).from);
            if !connected {
                return Err(PppError::NotADagPath { index });
            }
            numbered.push((bl.path_id(edges), edges.clone()));
        }
        numbered.sort_unstable_by_key(|&(id, _)| id);
        numbered.dedup_by_key(|&mut (id, _)| id);
        Ok(Ppp::number(bl, numbered))
    }

    /// Fig. 10 `computePPPIncrements` over `paths` (`(bl_id, edges)`, sorted and distinct).
    fn number(bl: &BallLarus, paths: Vec<(u64, Vec<DagEdgeId>)>) -> Ppp {
        let dag = bl.dag();
        // paths_I(e) with each path's prefix at e, named by its Ball-Larus sum ([PPP] §5).
        let mut through: Vec<Vec<(usize, u64)>> = vec![Vec::new(); dag.num_edges()];
        for (p, (_, edges)) in paths.iter().enumerate() {
            let mut prefix = 0u64;
            for &d in edges {
                through[d.0].push((p, prefix));
                prefix = prefix.wrapping_add(bl.increment(d));
            }
        }

        let mut weights: Vec<Option<i128>> = vec![None; dag.num_edges()];
        let mut pid = vec![0i128; paths.len()];
        for &v in dag.topological_order().iter().rev() {
            // cis(q) for the prefixes ending at v; prefixes at other nodes are other keys.
            let mut cis: HashMap<u64, i128> = HashMap::new();
            for &e in dag.outs(v) {
                let on_edge = &through[e.0];
                if on_edge.is_empty() {
                    continue; // W(e) stays ⊥ (Fig. 10 line 2 skips it).
                }
                // Lines 3–12: the start of each interval int_{e,q}, and the join.
                let mut min_by_prefix: HashMap<u64, i128> = HashMap::new();
                for &(p, q) in on_edge {
                    min_by_prefix
                        .entry(q)
                        .and_modify(|m| *m = (*m).min(pid[p]))
                        .or_insert(pid[p]);
                }
                let w = min_by_prefix
                    .iter()
                    .map(|(q, &min)| cis.get(q).copied().unwrap_or(0) - min)
                    .max()
                    .expect("the edge carries an interesting path");
                weights[e.0] = Some(w);
                // Lines 14–20: shift the partial ids, then grow cis(q).
                let mut max_by_prefix: HashMap<u64, i128> = HashMap::new();
                for &(p, q) in on_edge {
                    pid[p] += w;
                    let m = max_by_prefix.entry(q).or_insert(pid[p]);
                    *m = (*m).max(pid[p]);
                }
                for (q, max) in max_by_prefix {
                    cis.insert(q, max + 1);
                }
            }
        }

        // Every pid is in [0, NumPaths) (module doc), so the narrowing is lossless.
        let id = |x: i128| u64::try_from(x).expect("PPP ids lie in [0, NumPaths)");
        let range = pid.iter().map(|&x| id(x) + 1).max().unwrap_or(0);
        let paths: Vec<InterestingPath> = paths
            .into_iter()
            .zip(&pid)
            .map(|((bl_id, edges), &x)| InterestingPath {
                bl_id,
                ppp_id: id(x),
                edges,
            })
            .collect();
        let mut slots: Vec<(u64, u64)> = paths.iter().map(|p| (p.ppp_id, p.bl_id)).collect();
        slots.sort_unstable();
        debug_assert!(
            slots.windows(2).all(|pair| pair[0].0 != pair[1].0),
            "interesting PPP ids are unique (Lemma 5)"
        );
        Ppp {
            bl: bl.clone(),
            weights,
            range,
            paths,
            slots,
        }
    }

    /// The Ball-Larus numbering this one was computed for.
    pub fn ball_larus(&self) -> &BallLarus {
        &self.bl
    }

    /// The interval `[0, range)` of interesting PPP ids: the size of the counter array.
    pub fn range(&self) -> u64 {
        self.range
    }

    /// `|I|`, the number of distinct interesting paths.
    pub fn num_interesting(&self) -> usize {
        self.paths.len()
    }

    /// ρ = `range / |I|` ([PPP] §3, Problem A), at least 1; `None` when no path is interesting.
    pub fn compactness(&self) -> Option<f64> {
        (!self.paths.is_empty()).then(|| self.range as f64 / self.paths.len() as f64)
    }

    /// The interesting paths, by Ball-Larus id.
    pub fn paths(&self) -> &[InterestingPath] {
        &self.paths
    }

    /// Fig. 10's weight `W(d)` of a DAG edge, exactly; `None` (⊥) if no interesting path
    /// takes it.
    pub fn weight(&self, d: DagEdgeId) -> Option<i128> {
        self.weights[d.0]
    }

    /// What the PPP register adds on a DAG edge: `W(d)` modulo 2^64, 0 for ⊥.
    pub fn increment(&self, d: DagEdgeId) -> i64 {
        self.weights[d.0].map_or(0, |w| w as i64)
    }

    /// [PPP] Fig. 4 `computePathIdentifier` with the PPP increments: the register's value at the
    /// end of a DAG path (wrapping). For an interesting path it is its PPP id.
    pub fn path_id(&self, path: &[DagEdgeId]) -> u64 {
        path.iter()
            .fold(0u64, |id, &d| id.wrapping_add(self.increment(d) as u64))
    }

    /// The PPP id of the interesting path with this Ball-Larus id.
    pub fn ppp_id_of(&self, bl_id: u64) -> Option<u64> {
        let i = self.paths.binary_search_by_key(&bl_id, |p| p.bl_id).ok()?;
        Some(self.paths[i].ppp_id)
    }

    /// The Ball-Larus id expected in slot `ppp_id`, `None` for a hole or out of range.
    pub fn expected_bl_id(&self, ppp_id: u64) -> Option<u64> {
        let i = self.slots.binary_search_by_key(&ppp_id, |s| s.0).ok()?;
        Some(self.slots[i].1)
    }

    /// `slots[0..range]` for the runtime: the expected Ball-Larus id of each PPP id, or
    /// [`EMPTY_SLOT`]. Its length is [`Ppp::range`]; the caller decides ([PPP] §5 "Hash table
    /// usage policy") whether that is small enough for an array.
    pub fn slot_table(&self) -> Vec<u64> {
        let len = usize::try_from(self.range).expect("the PPP range fits in memory");
        let mut table = vec![EMPTY_SLOT; len];
        for &(ppp, bl) in &self.slots {
            table[ppp as usize] = bl;
        }
        table
    }

    /// The runtime check at the end of a path whose registers hold `ppp_id` and `bl_id`.
    pub fn classify(&self, ppp_id: u64, bl_id: u64) -> PathClass {
        if ppp_id < self.range && self.expected_bl_id(ppp_id) == Some(bl_id) {
            PathClass::Interesting { slot: ppp_id }
        } else {
            PathClass::Residual { bl_id }
        }
    }

    /// The PPP register code of a CFG edge with plain increments (no placement): a back or cut
    /// edge stands for its two dummies, like [`EdgeRole::Closing`].
    pub fn edge_increments(&self, e: EdgeId) -> EdgeIncrements {
        match self.bl.dag().role(e) {
            EdgeRole::Dag(d) => EdgeIncrements::Inside(self.increment(d)),
            EdgeRole::Closing { exit, entry } => EdgeIncrements::Closing {
                end: self.increment(exit),
                restart: entry.map_or(0, |d| self.increment(d)),
            },
            EdgeRole::Unreachable => EdgeIncrements::Unreachable,
        }
    }

    /// For a node without successors, what the PPP register adds where the path ends inside
    /// it (its `DeadEnd` dummy); `None` for other nodes.
    pub fn dead_end_increment(&self, node: NodeId) -> Option<i64> {
        let dag = self.bl.dag();
        if !dag.contains(node) {
            return None;
        }
        let &d = dag.outs(node).first()?;
        (dag.edge(d).kind == DagEdgeKind::DeadEnd).then(|| self.increment(d))
    }

    /// The PPP ids of the paths of one execution (CFG edges from the entry), with plain
    /// increments: the counterpart of [`BallLarus::path_ids_of_execution`], path for path.
    pub fn path_ids_of_execution(&self, cfg: &Cfg, execution: &[EdgeId]) -> Vec<u64> {
        let mut ids = Vec::new();
        let mut r = 0u64;
        for &e in execution {
            match self.edge_increments(e) {
                EdgeIncrements::Inside(c) => r = r.wrapping_add(c as u64),
                EdgeIncrements::Closing { end, restart } => {
                    ids.push(r.wrapping_add(end as u64));
                    r = restart as u64;
                }
                EdgeIncrements::Unreachable => {}
            }
        }
        if let Some(&last) = execution.last() {
            let v = cfg.edge(last).to;
            if v == cfg.exit() {
                ids.push(r);
            } else if let Some(c) = self.dead_end_increment(v) {
                ids.push(r.wrapping_add(c as u64));
            }
        }
        ids
    }

    /// Places the code of both registers ([PPP] §5: "both PPP and Ball-Larus counter updates occur
    /// on the same edges"), given a frequency per CFG edge as for [`PathPlan::new`].
    pub fn plan(&self, cfg_edge_weights: &[u64]) -> PppPlan {
        self.plan_with_stops(cfg_edge_weights, &[])
    }

    /// [`Ppp::plan`] for a program that may stop inside some nodes, as
    /// [`PathPlan::with_stops`]: a path's end (both ids) stays at or below such a node.
    pub fn plan_with_stops(&self, cfg_edge_weights: &[u64], may_stop: &[bool]) -> PppPlan {
        let increments = (0..self.weights.len())
            .map(|d| self.increment(DagEdgeId(d)) as u64)
            .collect();
        let bl_plan = PathPlan::with_stops(&self.bl, cfg_edge_weights, may_stop);
        // The same DAG, edge weights and stops give the same spanning tree, hence
        // initializations and counts on the same DAG edges in both plans; only the constants
        // differ.
        let ppp_plan = PathPlan::with_stops(
            &self.bl.with_increments(increments),
            cfg_edge_weights,
            may_stop,
        );
        let dag = self.bl.dag();
        PppPlan {
            edge_ops: (0..dag.num_cfg_edges())
                .map(|e| pair_ops(bl_plan.edge_ops(EdgeId(e)), ppp_plan.edge_ops(EdgeId(e))))
                .collect(),
            dead_end_ops: (0..dag.num_nodes())
                .map(|v| {
                    pair_ops(
                        bl_plan.dead_end_ops(NodeId(v)),
                        ppp_plan.dead_end_ops(NodeId(v)),
                    )
                })
                .collect(),
        }
    }
}

/// The two-register code for every CFG edge of one function (see [`Ppp::plan`]).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PppPlan {
    edge_ops: Vec<Vec<PppOp>>,
    dead_end_ops: Vec<Vec<PppOp>>,
}

impl PppPlan {
    /// The code to run when the CFG edge is taken, in order.
    pub fn edge_ops(&self, e: EdgeId) -> &[PppOp] {
        &self.edge_ops[e.0]
    }

    /// The code to run where a node without successors stops; empty for other nodes.
    pub fn dead_end_ops(&self, node: NodeId) -> &[PppOp] {
        &self.dead_end_ops[node.0]
    }
}

fn is_count(op: &PathOp) -> bool {
    matches!(op, PathOp::CountAdd(_) | PathOp::CountConst(_))
}

/// Merges one edge's code for the two registers: each register keeps its own order, and the
/// k-th count of one pairs with the k-th count of the other (they come from the same DAG edge).
fn pair_ops(bl: &[PathOp], ppp: &[PathOp]) -> Vec<PppOp> {
    let mut merged = Vec::with_capacity(bl.len() + ppp.len());
    let (mut bl, mut ppp) = (
        bl.iter().copied().peekable(),
        ppp.iter().copied().peekable(),
    );
    loop {
        while let Some(op) = bl.next_if(|op| !is_count(op)) {
            merged.push(PppOp::Bl(op));
        }
        while let Some(op) = ppp.next_if(|op| !is_count(op)) {
            merged.push(PppOp::Ppp(op));
        }
        match (bl.next(), ppp.next()) {
            (Some(bl), Some(ppp)) => merged.push(PppOp::End { bl, ppp }),
            (None, None) => return merged,
            _ => unreachable!("both plans count on the same DAG edges"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{edges_along, ppp_figure_3};

    fn dag_edge(bl: &BallLarus, e: usize) -> DagEdgeId {
        match bl.dag().role(EdgeId(e)) {
            EdgeRole::Dag(d) => d,
            other => panic!("edge {e} is {other:?}"),
        }
    }

    fn bl_id_of_nodes(bl: &BallLarus, cfg: &Cfg, nodes: &[usize]) -> u64 {
        let path: Vec<DagEdgeId> = edges_along(cfg, nodes)
            .into_iter()
            .map(|e| dag_edge(bl, e.0))
            .collect();
        bl.path_id(&path)
    }

    /// [PPP] §2.3 and the §3.2 walk-through: sacdt, sact, sbct (Ball-Larus 0, 1, 5) get PPP ids
    /// 0, 1, 2, with the weights the walk-through assigns.
    #[test]
    fn figure_3_section_3_2_example() {
        let cfg = ppp_figure_3();
        let bl = BallLarus::new(&cfg).unwrap();
        let (s, a, b, c, d, t) = (0, 1, 2, 3, 4, 5);
        let sacdt = bl_id_of_nodes(&bl, &cfg, &[s, a, c, d, t]);
        let sact = bl_id_of_nodes(&bl, &cfg, &[s, a, c, t]);
        let sbct = bl_id_of_nodes(&bl, &cfg, &[s, b, c, t]);
        assert_eq!((sacdt, sact, sbct), (0, 1, 5));
        let ppp = Ppp::from_bl_ids(&bl, [sbct, sacdt, sact]).unwrap();
        assert_eq!(ppp.ppp_id_of(sacdt), Some(0));
        assert_eq!(ppp.ppp_id_of(sact), Some(1));
        assert_eq!(ppp.ppp_id_of(sbct), Some(2));
        assert_eq!(ppp.range(), 3);
        assert_eq!(ppp.compactness(), Some(1.0));
        // Steps 2d–6s of §3.2, edge by edge (CFG edge order of `ppp_figure_3`); a→b is ⊥.
        let weights: Vec<Option<i128>> = (0..8).map(|e| ppp.weight(dag_edge(&bl, e))).collect();
        assert_eq!(
            weights,
            vec![
                Some(0),  // s→a
                Some(2),  // s→b
                Some(0),  // a→c
                None,     // a→b
                Some(-1), // b→c
                Some(0),  // c→d
                Some(1),  // c→t
                Some(0),  // d→t
            ]
        );
        assert_eq!(ppp.slot_table(), vec![sacdt, sact, sbct]);
        // §2.3: sabct and sbcdt alias sacdt and sact; the Ball-Larus check tells them apart.
        let sabct = bl_id_of_nodes(&bl, &cfg, &[s, a, b, c, t]);
        let sbcdt = bl_id_of_nodes(&bl, &cfg, &[s, b, c, d, t]);
        let ppp_of = |id| ppp.path_id(&bl.regenerate(id).unwrap());
        assert_eq!(ppp_of(sabct), 0);
        assert_eq!(ppp_of(sbcdt), 1);
        assert_eq!(
            ppp.classify(ppp_of(sbcdt), sbcdt),
            PathClass::Residual { bl_id: 4 }
        );
        assert_eq!(
            ppp.classify(ppp_of(sbct), sbct),
            PathClass::Interesting { slot: 2 }
        );
        // sabcdt gets −1: out of range once read as unsigned.
        let sabcdt = bl_id_of_nodes(&bl, &cfg, &[s, a, b, c, d, t]);
        assert_eq!(ppp_of(sabcdt), u64::MAX);
    }

    #[test]
    fn empty_interesting_set() {
        let cfg = ppp_figure_3();
        let bl = BallLarus::new(&cfg).unwrap();
        let ppp = Ppp::from_bl_ids(&bl, []).unwrap();
        assert_eq!(ppp.range(), 0);
        assert_eq!(ppp.compactness(), None);
        assert!(ppp.slot_table().is_empty());
        assert!((0..8).all(|e| ppp.weight(dag_edge(&bl, e)).is_none()));
        assert_eq!(ppp.classify(0, 0), PathClass::Residual { bl_id: 0 });
    }

    #[test]
    fn all_paths_interesting_is_ball_larus() {
        let cfg = ppp_figure_3();
        let bl = BallLarus::new(&cfg).unwrap();
        let ppp = Ppp::from_bl_ids(&bl, 0..bl.num_paths()).unwrap();
        assert_eq!(ppp.range(), bl.num_paths());
        assert_eq!(ppp.compactness(), Some(1.0));
        for (d, _) in bl.dag().edges() {
            assert_eq!(ppp.weight(d), Some(i128::from(bl.increment(d))));
        }
    }

    #[test]
    fn rejects_bad_input() {
        let cfg = ppp_figure_3();
        let bl = BallLarus::new(&cfg).unwrap();
        assert_eq!(
            Ppp::from_bl_ids(&bl, [6]).unwrap_err(),
            PppError::BlIdOutOfRange {
                id: 6,
                num_paths: 6
            }
        );
        let good = bl.regenerate(3).unwrap();
        let broken = good[1..].to_vec();
        assert_eq!(
            Ppp::from_paths(&bl, &[good.clone(), broken]).unwrap_err(),
            PppError::NotADagPath { index: 1 }
        );
        assert_eq!(
            Ppp::from_paths(&bl, &[vec![]]).unwrap_err(),
            PppError::NotADagPath { index: 0 }
        );
        let ppp = Ppp::from_paths(&bl, &[good.clone(), good]).unwrap();
        assert_eq!(ppp.num_interesting(), 1);
        assert_eq!(ppp.paths()[0].bl_id, 3);
    }

    #[test]
    fn pairing_keeps_each_registers_order() {
        use PathOp::*;
        let merged = pair_ops(
            &[Add(1), CountAdd(2), Set(3)],
            &[CountAdd(5), Add(7), Set(8)],
        );
        assert_eq!(
            merged,
            vec![
                PppOp::Bl(Add(1)),
                PppOp::End {
                    bl: CountAdd(2),
                    ppp: CountAdd(5)
                },
                PppOp::Bl(Set(3)),
                PppOp::Ppp(Add(7)),
                PppOp::Ppp(Set(8)),
            ]
        );
    }
}
