//! Targeted path profiling ([TPP]: Joshi, Bond, Zilles, CGO 2004): an edge profile of an earlier
//! run makes Ball-Larus path profiling cheaper in two ways.
//!
//! 1. *Cold path elimination* ([TPP] §4.1, Fig. 5). An edge is cold by the local branch-bias
//!    criterion (§4.1.1) when it carries less than `cold_threshold` % of its source block's
//!    flow. Edges and blocks that then lie on no hot ENTRY→EXIT path are cold transitively.
//!    Cold edges are left out of the DAG, so only hot paths are numbered; a hot block's cold
//!    out-edge poisons the path register ([`TppOp::Poison`]), and a poisoned path is recorded
//!    in the single *cold counter* instead of a path counter. Cold back edges follow the three
//!    cases of Fig. 6 ([`ColdBackEdge`], §4.1.2).
//! 2. *Obvious path elimination* ([TPP] §4.2). Loops whose entry edges carry less than
//!    `loop_threshold` % of their header's flow are disconnected from the rest of the function
//!    (§4.2.1, Fig. 7e–f): their entry and exit edges are truncated like Ball-Larus cut edges. A
//!    *defining edge* lies on a single DAG path (source with one path from ENTRY, target with
//!    one path to EXIT, §4.2.2); a path with one is *obvious*, and its count is the defining
//!    edge's count in the edge profile. Recording points reached only by obvious paths are
//!    found with the worklist of Fig. 8; edges from which no other recording point can be
//!    reached carry no code. A function whose recording points are all obvious gets no code.
//!
//! [`Tpp::rebuild`] turns the counters of a run into the full path profile (measured hot paths,
//! obvious paths from the edge profile, the cold count), and [`attribution_of_definite_flow`]
//! compares it with a Ball-Larus profile of the same run (§5, AoDF).
//!
//! The numbering is Ball-Larus numbering ([PPP] Fig. 1) of the DAG that [`crate::dag::Dag`] builds
//! from the hot edges, with the disconnected loops' edges cut by [`crate::dag::Dag`]'s
//! truncation. The code is the plain form of [TPP] Fig. 1c (`r = 0` at the start, `r += W(e)`
//! on each edge with a non-zero increment, `count[r]` at the end of a path), not the
//! spanning-tree placement of [`crate::instrument::PathPlan`].

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::ball_larus::{BallLarus, compute_bl_increments};
use crate::cfg::{Cfg, EdgeId, NodeId};
use crate::dag::{Dag, DagEdgeId, DagEdgeKind, EdgeRole};
use crate::profile::{FunctionProfile, ModeRecord, PathCount};
use crate::regenerate::{CfgPath, PathEnd, cfg_path_of, regenerate_path};

/// The two thresholds of a `TPP(i, j)` configuration ([TPP] §5), in percent, and whether to
/// eliminate obvious paths.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TppConfig {
    /// `i`: an edge is cold when it carries less than `i` % of its source block's flow.
    pub cold_threshold: u32,
    /// `j`: a loop is disconnected when its entry edges carry less than `j` % of its header's
    /// flow (an average of more than `100 / j` iterations per entry).
    pub loop_threshold: u32,
    /// Whether to remove the code of obvious paths ([TPP] §4.2.2).
    pub eliminate_obvious: bool,
}

impl Default for TppConfig {
    /// TPP(5, 15), the paper's recommended trade-off ([TPP] §5.1).
    fn default() -> TppConfig {
        TppConfig {
            cold_threshold: 5,
            loop_threshold: 15,
            eliminate_obvious: true,
        }
    }
}

/// Why TPP could not be planned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TppError {
    /// The edge profile has a different number of edges than the CFG.
    #[error("expected {expected} edge counts, got {got}")]
    EdgeCountLength { expected: usize, got: usize },
    /// The hot DAG still has more than [`POISON`] paths.
    #[error("it has more than 2^63 hot paths")]
    TooManyPaths,
}

/// Why an edge is cold.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Coldness {
    /// Below the branch-bias threshold of its source block ([TPP] §4.1.1).
    Local,
    /// On no hot ENTRY→EXIT path once other edges are cold ([TPP] §4.1.1, "cold transitively").
    Transitive,
}

/// How a cold back edge `v→w` sets the path register for the next path ([TPP] Fig. 6). Every cold
/// back edge records a cold path first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ColdBackEdge {
    /// Fig. 6a: no paths start at `w` (no hot back edge or cut into it), so the register is
    /// poisoned.
    Poison,
    /// Fig. 6b: `w` has an entry dummy edge, so the register is reset as a hot back edge would.
    Reset,
    /// Fig. 6c: the loop body is cold, the register is poisoned already and left alone.
    Unchanged,
}

/// The value a cold edge puts in the path register ([TPP] Appendix A.2 sets its two top bits;
/// one is enough here). Hot ids are below `num_paths` ≤ `POISON`, and after a poisoning the
/// path only adds the increments of one hot DAG path (a cold block has only cold out-edges, so
/// the next additions come after a closing edge's reset into a hot block), less than
/// `num_paths` in all: a poisoned register stays in `[POISON, 2^64)`, never wraps, and never
/// looks like a hot id.
pub const POISON: u64 = 1 << 63;

/// One step of TPP code on the path register `r` (64 bits). The counter table of a function
/// has `num_paths + 1` counters, the last one, `count[num_paths]`, being the cold counter
/// ([TPP] Appendix A.1 puts it next to the path counters too).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TppOp {
    /// `r = c`: a path starts.
    Set(u64),
    /// `r += c`.
    Add(u64),
    /// `r = POISON`: the path went through a cold edge.
    Poison,
    /// End of a path: `count[min(r + c, num_paths)] += 1`, an unsigned minimum, so that a
    /// poisoned path lands on the cold counter without a branch ([TPP] Appendix A.1 does the same
    /// with a conditional move).
    Count(u64),
    /// End of a path known to be cold: `count[num_paths] += 1`.
    CountCold,
}

/// Counters of one function after a run: hot path counts by id, and the cold counter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TppCounters {
    pub paths: BTreeMap<u64, u64>,
    pub cold: u64,
}

impl TppCounters {
    /// Adds one to counter `index` of a table of `num_paths + 1` counters (the last one cold).
    pub fn record(&mut self, num_paths: u64, index: u64) {
        self.add(num_paths, index, 1)
            .expect("the index of a `Count` is at most num_paths");
    }

    /// Adds `count` to counter `index` of a table of `num_paths + 1` counters (the last one
    /// cold); an index past the table is an error.
    pub fn add(&mut self, num_paths: u64, index: u64, count: u64) -> Result<(), String> {
        match index.cmp(&num_paths) {
            std::cmp::Ordering::Less => *self.paths.entry(index).or_default() += count,
            std::cmp::Ordering::Equal => self.cold += count,
            std::cmp::Ordering::Greater => {
                return Err(format!(
                    "path counter {index} is out of range (the function has {num_paths} hot \
                     paths and a cold counter)"
                ));
            }
        }
        Ok(())
    }
}

/// A rebuilt TPP path profile ([TPP] §4.2.2 "To reconstruct the complete path profile").
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TppProfile {
    /// Count by hot path id: measured, or from the defining edge for obvious paths.
    pub paths: BTreeMap<u64, u64>,
    /// The obvious paths among them (not measured: counted from the edge profile).
    pub obvious: BTreeMap<u64, u64>,
    /// Paths through cold edges, not attributed to any path.
    pub cold: u64,
}

/// TPP analysis and code for one function.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Tpp {
    cfg: Cfg,
    config: TppConfig,
    coldness: Vec<Option<Coldness>>,
    disconnected_headers: Vec<NodeId>,
    disconnected_edges: Vec<EdgeId>,
    /// Original edge → edge of the hot CFG the DAG is built from.
    hot_edge: Vec<Option<EdgeId>>,
    /// Hot-CFG edge → original edge.
    original_edge: Vec<EdgeId>,
    dag: Dag,
    /// DAG edges that stand for nothing: the dead-end dummy of a block whose out-edges are all
    /// cold (only the entry can be left so).
    fake: Vec<bool>,
    num_paths: u64,
    increments: Vec<u64>,
    /// CFG edges that end a path: back edges, and the entry and exit edges of disconnected
    /// loops (cut). When cold, they end a cold path and set up the next one as in Fig. 6.
    closes_path: Vec<bool>,
    defining: Vec<bool>,
    obvious_recording: Vec<bool>,
    instrumented: Vec<bool>,
    needs_code: bool,
    entry_ops: Vec<TppOp>,
    edge_ops: Vec<Vec<TppOp>>,
    dead_end_ops: Vec<Vec<TppOp>>,
}

/// The flow through each node: the sum of its out-edge counts, or of its in-edge counts for
/// nodes without successors.
fn node_flow(cfg: &Cfg, counts: &[u64]) -> Vec<u128> {
    (0..cfg.num_nodes())
        .map(NodeId)
        .map(|v| {
            let edges = if cfg.succs(v).is_empty() {
                cfg.preds(v)
            } else {
                cfg.succs(v)
            };
            edges.iter().map(|e| u128::from(counts[e.0])).sum()
        })
        .collect()
}

/// [TPP] §4.1.1: `e = v→w` is cold when `count(e) < i% · flow(v)`. An edge out of a block that
/// never ran is cold too (unless `i` is 0, which keeps every edge).
fn locally_cold(cfg: &Cfg, counts: &[u64], threshold: u32) -> Vec<bool> {
    let flow = node_flow(cfg, counts);
    cfg.edges()
        .map(|(e, edge)| {
            let total = flow[edge.from.0];
            if total == 0 {
                threshold > 0
            } else {
                u128::from(counts[e.0]) * 100 < u128::from(threshold) * total
            }
        })
        .collect()
}

/// [TPP] §4.2.1 and §5: loops (back edges grouped by header, bodies as natural loops) whose entry
/// edges carry less than `j` % of the header's flow; returns the headers and the loops' entry
/// and exit edges. Loops headed by the function entry are kept: paths start there anyway.
fn loops_to_disconnect(
    cfg: &Cfg,
    full: &Dag,
    counts: &[u64],
    threshold: u32,
) -> (Vec<NodeId>, Vec<bool>) {
    let flow = node_flow(cfg, counts);
    let reachable = cfg.reachable();
    let mut headers: Vec<NodeId> = full.back_edges().iter().map(|&e| cfg.edge(e).to).collect();
    headers.sort();
    headers.dedup();
    let mut cut = vec![false; cfg.num_edges()];
    let mut disconnected = Vec::new();
    for h in headers.into_iter().filter(|&h| h != cfg.entry()) {
        let mut body = vec![false; cfg.num_nodes()];
        body[h.0] = true;
        let mut stack: Vec<NodeId> = full
            .back_edges()
            .iter()
            .map(|&e| cfg.edge(e))
            .filter(|edge| edge.to == h)
            .map(|edge| edge.from)
            .collect();
        while let Some(v) = stack.pop() {
            if body[v.0] || !reachable[v.0] {
                continue;
            }
            body[v.0] = true;
            stack.extend(cfg.preds(v).iter().map(|&p| cfg.edge(p).from));
        }
        let entering: u128 = cfg
            .edges()
            .filter(|(_, edge)| !body[edge.from.0] && body[edge.to.0])
            .map(|(e, _)| u128::from(counts[e.0]))
            .sum();
        if flow[h.0] == 0 || entering * 100 >= u128::from(threshold) * flow[h.0] {
            continue;
        }
        disconnected.push(h);
        for (e, edge) in cfg.edges() {
            let crosses = body[edge.from.0] != body[edge.to.0];
            if crosses && reachable[edge.from.0] && edge.to != cfg.exit() {
                cut[e.0] = true;
            }
        }
    }
    (disconnected, cut)
}

/// The DAG of the hot edges, with the disconnected loops' edges cut.
fn hot_dag(cfg: &Cfg, hot: &[bool], cut: &[bool]) -> (Dag, Vec<Option<EdgeId>>, Vec<EdgeId>) {
    let mut hot_cfg =
        Cfg::new(cfg.num_nodes(), cfg.entry(), cfg.exit()).expect("same nodes as a valid CFG");
    let mut hot_edge = vec![None; cfg.num_edges()];
    let mut original_edge = Vec::new();
    for (e, edge) in cfg.edges().filter(|(e, _)| hot[e.0]) {
        hot_edge[e.0] = Some(hot_cfg.add_edge(edge.from, edge.to).expect("valid edge"));
        original_edge.push(e);
    }
    let mut dag = Dag::new(&hot_cfg);
    for (e, edge) in cfg.edges() {
        if let (true, Some(h)) = (cut[e.0], hot_edge[e.0])
            && edge.to != cfg.entry()
            && let EdgeRole::Dag(d) = dag.role(h)
        {
            dag.cut(d);
        }
    }
    (dag, hot_edge, original_edge)
}

/// Dead-end dummies of blocks that have successors in the original CFG.
fn fake_dead_ends(cfg: &Cfg, dag: &Dag) -> Vec<bool> {
    dag.edges()
        .map(|(_, d)| d.kind == DagEdgeKind::DeadEnd && !cfg.succs(d.from).is_empty())
        .collect()
}

/// Whether each DAG edge lies on an ENTRY→EXIT path that avoids `fake` edges.
fn live_edges(dag: &Dag, fake: &[bool]) -> Vec<bool> {
    let mut from_entry = vec![false; dag.num_nodes()];
    from_entry[dag.entry().0] = true;
    for &v in dag.topological_order() {
        if from_entry[v.0] {
            for &d in dag.outs(v).iter().filter(|d| !fake[d.0]) {
                from_entry[dag.edge(d).to.0] = true;
            }
        }
    }
    let mut to_exit = vec![false; dag.num_nodes()];
    to_exit[dag.exit().0] = true;
    for &v in dag.topological_order().iter().rev() {
        if dag
            .outs(v)
            .iter()
            .any(|d| !fake[d.0] && to_exit[dag.edge(*d).to.0])
        {
            to_exit[v.0] = true;
        }
    }
    dag.edges()
        .map(|(d, edge)| !fake[d.0] && from_entry[edge.from.0] && to_exit[edge.to.0])
        .collect()
}

impl Tpp {
    /// Plans TPP for `cfg` given an edge profile (`edge_counts[e]` for each CFG edge, consistent
    /// with flow) and a configuration.
    pub fn new(cfg: &Cfg, edge_counts: &[u64], config: TppConfig) -> Result<Tpp, TppError> {
        if edge_counts.len() != cfg.num_edges() {
            return Err(TppError::EdgeCountLength {
                expected: cfg.num_edges(),
                got: edge_counts.len(),
            });
        }
        let full = Dag::new(cfg);
        // The entry and exit edges of a disconnected loop are governed by the loop threshold
        // `j` ([TPP] §5: "a 15% threshold for loop exits"), not by the branch-bias one: they are
        // truncated, not cold (Fig. 7e–f keeps the paths before and after the loop).
        let (disconnected_headers, cut) =
            loops_to_disconnect(cfg, &full, edge_counts, config.loop_threshold);
        let mut closes_path = cut.clone();
        for &e in full.back_edges() {
            closes_path[e.0] = true;
        }
        let mut coldness: Vec<Option<Coldness>> =
            locally_cold(cfg, edge_counts, config.cold_threshold)
                .into_iter()
                .zip(&cut)
                .map(|(cold, &cut)| (cold && !cut).then_some(Coldness::Local))
                .collect();

        // Transitive coldness: drop hot edges that lie on no hot path until none is left.
        let (dag, hot_edge, original_edge, fake) = loop {
            let hot: Vec<bool> = coldness.iter().map(Option::is_none).collect();
            let (dag, hot_edge, original_edge) = hot_dag(cfg, &hot, &cut);
            let fake = fake_dead_ends(cfg, &dag);
            let live = live_edges(&dag, &fake);
            // A closing edge into the entry node starts a path there.
            let entry_live = dag.outs(dag.entry()).iter().any(|d| live[d.0]);
            let mut changed = false;
            for e in (0..cfg.num_edges()).map(EdgeId) {
                let Some(h) = hot_edge[e.0] else { continue };
                let alive = match dag.role(h) {
                    EdgeRole::Dag(d) => live[d.0],
                    EdgeRole::Closing { exit, entry } => {
                        live[exit.0] && entry.map_or(entry_live, |d| live[d.0])
                    }
                    EdgeRole::Unreachable => false,
                };
                if !alive {
                    coldness[e.0] = Some(Coldness::Transitive);
                    changed = true;
                }
            }
            if !changed {
                break (dag, hot_edge, original_edge, fake);
            }
        };

        let (num_paths, increments) = number(&dag, &fake)?;
        let disconnected_edges = (0..cfg.num_edges())
            .map(EdgeId)
            .filter(|e| hot_edge[e.0].is_some_and(|h| dag.cut_edges().contains(&h)) && cut[e.0])
            .collect();
        let mut tpp = Tpp {
            cfg: cfg.clone(),
            config,
            coldness,
            disconnected_headers,
            disconnected_edges,
            hot_edge,
            original_edge,
            fake,
            num_paths,
            increments,
            closes_path,
            defining: Vec::new(),
            obvious_recording: Vec::new(),
            instrumented: Vec::new(),
            needs_code: false,
            entry_ops: Vec::new(),
            edge_ops: Vec::new(),
            dead_end_ops: Vec::new(),
            dag,
        };
        tpp.find_obvious();
        tpp.place_code();
        Ok(tpp)
    }

    /// [TPP] §4.2.2: defining edges, obvious recording points (Fig. 8) and the edges that still
    /// need code (backward reachability from the other recording points).
    fn find_obvious(&mut self) {
        let dag = &self.dag;
        let usable = |d: &DagEdgeId| !self.fake[d.0];
        // Paths from ENTRY and to EXIT, saturating at 2: only "exactly one" matters.
        let mut from_entry = vec![0u8; dag.num_nodes()];
        from_entry[dag.entry().0] = 1;
        for &v in dag.topological_order() {
            for d in dag.outs(v).iter().filter(|d| usable(d)) {
                let w = dag.edge(*d).to;
                from_entry[w.0] = from_entry[w.0].saturating_add(from_entry[v.0]).min(2);
            }
        }
        let mut to_exit = vec![0u8; dag.num_nodes()];
        to_exit[dag.exit().0] = 1;
        for &v in dag.topological_order().iter().rev() {
            if v != dag.exit() {
                to_exit[v.0] = dag.outs(v).iter().filter(|d| usable(d)).fold(0u8, |n, d| {
                    n.saturating_add(to_exit[dag.edge(*d).to.0]).min(2)
                });
            }
        }
        self.defining = dag
            .edges()
            .map(|(d, edge)| {
                // An edge profile does not count a stop inside the entry block (no edge runs),
                // so that dead end cannot define its path.
                let uncounted = edge.kind == DagEdgeKind::DeadEnd && edge.from == dag.entry();
                usable(&d) && !uncounted && from_entry[edge.from.0] == 1 && to_exit[edge.to.0] == 1
            })
            .collect();

        // Fig. 8 FindObviousRecordingPoints.
        let is_recording = |d: DagEdgeId| dag.edge(d).to == dag.exit() && usable(&d);
        let mut obvious: Vec<bool> = dag.edges().map(|(d, _)| is_recording(d)).collect();
        let mut seen = vec![false; dag.num_edges()];
        let mut work: Vec<DagEdgeId> = dag
            .outs(dag.entry())
            .iter()
            .copied()
            .filter(|d| usable(d) && !self.defining[d.0])
            .collect();
        while let Some(d) = work.pop() {
            if std::mem::replace(&mut seen[d.0], true) {
                continue;
            }
            if is_recording(d) {
                obvious[d.0] = false;
            } else {
                let w = dag.edge(d).to;
                work.extend(
                    dag.outs(w)
                        .iter()
                        .filter(|f| usable(f) && !self.defining[f.0]),
                );
            }
        }
        if !self.config.eliminate_obvious {
            obvious.iter_mut().for_each(|o| *o = false);
        }
        // Backward from the non-obvious recording points.
        let mut instrumented = vec![false; dag.num_edges()];
        let mut work: Vec<DagEdgeId> = dag
            .edges()
            .map(|(d, _)| d)
            .filter(|&d| is_recording(d) && !obvious[d.0])
            .collect();
        while let Some(d) = work.pop() {
            if std::mem::replace(&mut instrumented[d.0], true) {
                continue;
            }
            let v = dag.edge(d).from;
            work.extend(dag.ins(v).iter().filter(|f| usable(f)));
        }
        // With no hot path at all (every out-edge of the entry cold), nothing is obvious to
        // derive, and the cold counter is the only information: keep its code.
        self.needs_code = instrumented.iter().any(|&i| i) || self.num_paths == 0;
        self.obvious_recording = obvious;
        self.instrumented = instrumented;
    }

    fn place_code(&mut self) {
        let cfg = &self.cfg;
        let dag = &self.dag;
        let mut edge_ops = vec![Vec::new(); cfg.num_edges()];
        let mut dead_end_ops = vec![Vec::new(); cfg.num_nodes()];
        if !self.needs_code {
            self.edge_ops = edge_ops;
            self.dead_end_ops = dead_end_ops;
            return;
        }
        self.entry_ops = vec![TppOp::Set(0)];
        let on = |d: DagEdgeId| self.instrumented[d.0];
        for (e, edge) in cfg.edges() {
            let ops = &mut edge_ops[e.0];
            match self.hot_edge[e.0].map(|h| dag.role(h)) {
                Some(EdgeRole::Dag(d)) => {
                    if edge.to == cfg.exit() {
                        if on(d) {
                            ops.push(TppOp::Count(self.increments[d.0]));
                        }
                    } else if on(d) && self.increments[d.0] != 0 {
                        ops.push(TppOp::Add(self.increments[d.0]));
                    }
                }
                Some(EdgeRole::Closing { exit, entry }) => {
                    if on(exit) {
                        ops.push(TppOp::Count(self.increments[exit.0]));
                    }
                    match entry {
                        Some(d) if on(d) => ops.push(TppOp::Set(self.increments[d.0])),
                        Some(_) => {}
                        None => ops.push(TppOp::Set(0)),
                    }
                }
                Some(EdgeRole::Unreachable) => {}
                None => {
                    let source_hot = dag.contains(edge.from);
                    if self.closes_path[e.0] {
                        ops.push(TppOp::CountCold);
                        match self.cold_back_edge(e) {
                            Some(ColdBackEdge::Reset) => match dag.entry_dummy(edge.to) {
                                Some(d) if on(d) => ops.push(TppOp::Set(self.increments[d.0])),
                                Some(_) => {}
                                None => ops.push(TppOp::Set(0)),
                            },
                            Some(ColdBackEdge::Poison) => ops.push(TppOp::Poison),
                            _ => {}
                        }
                    } else if edge.to == cfg.exit() {
                        ops.push(TppOp::CountCold);
                    } else if source_hot {
                        ops.push(TppOp::Poison);
                    }
                }
            }
        }
        let reachable = cfg.reachable();
        for v in (0..cfg.num_nodes()).map(NodeId) {
            if v == cfg.exit() || !cfg.succs(v).is_empty() || !reachable[v.0] {
                continue;
            }
            let dummy = dag
                .outs(v)
                .iter()
                .find(|d| dag.edge(**d).kind == DagEdgeKind::DeadEnd);
            dead_end_ops[v.0] = match dummy {
                Some(&d) if on(d) => vec![TppOp::Count(self.increments[d.0])],
                Some(_) => Vec::new(),
                None => vec![TppOp::CountCold],
            };
        }
        self.edge_ops = edge_ops;
        self.dead_end_ops = dead_end_ops;
    }

    pub fn config(&self) -> TppConfig {
        self.config
    }

    /// The CFG the plan was made for.
    pub fn cfg(&self) -> &Cfg {
        &self.cfg
    }

    /// Whether the edge is cold, and why.
    pub fn coldness(&self, e: EdgeId) -> Option<Coldness> {
        self.coldness[e.0]
    }

    pub fn is_cold(&self, e: EdgeId) -> bool {
        self.coldness[e.0].is_some()
    }

    /// The cold edges, in id order.
    pub fn cold_edges(&self) -> Vec<EdgeId> {
        (0..self.cfg.num_edges())
            .map(EdgeId)
            .filter(|&e| self.is_cold(e))
            .collect()
    }

    /// Whether the block lies on a hot path.
    pub fn is_hot_node(&self, v: NodeId) -> bool {
        self.dag.contains(v)
            && (v == self.dag.exit()
                || self.dag.outs(v).iter().any(|d| !self.fake[d.0])
                || self.dag.ins(v).iter().any(|d| !self.fake[d.0]))
    }

    /// Fig. 6: what a cold back edge does to the register; `None` for other edges. A cold
    /// entry or exit edge of a disconnected loop (cold transitively) ends a path like a back
    /// edge, so it is treated the same way: the path after it may be hot.
    pub fn cold_back_edge(&self, e: EdgeId) -> Option<ColdBackEdge> {
        if !self.is_cold(e) || !self.closes_path[e.0] {
            return None;
        }
        let edge = self.cfg.edge(e);
        let paths_start_there =
            edge.to == self.cfg.entry() || self.dag.entry_dummy(edge.to).is_some();
        Some(if paths_start_there {
            ColdBackEdge::Reset
        } else if self.is_hot_node(edge.from) {
            ColdBackEdge::Poison
        } else {
            ColdBackEdge::Unchanged
        })
    }

    /// Headers of the loops disconnected from the rest of the function ([TPP] §4.2.1).
    pub fn disconnected_headers(&self) -> &[NodeId] {
        &self.disconnected_headers
    }

    /// The hot entry and exit edges of disconnected loops, truncated in the DAG.
    pub fn disconnected_edges(&self) -> &[EdgeId] {
        &self.disconnected_edges
    }

    /// The hot DAG. Its [`DagEdgeKind`]s name edges of the hot CFG; see [`Tpp::original_edge`].
    pub fn dag(&self) -> &Dag {
        &self.dag
    }

    /// What a CFG edge became in the hot DAG; `None` for cold edges.
    pub fn hot_role(&self, e: EdgeId) -> Option<EdgeRole> {
        self.hot_edge[e.0].map(|h| self.dag.role(h))
    }

    /// The path `id` as the CFG sees it: its start block and the CFG edges it takes (a closing
    /// back or cut edge last).
    pub fn cfg_path(&self, id: u64) -> Option<(NodeId, Vec<EdgeId>)> {
        self.path_record(id).map(|path| path_key(&path))
    }

    /// Hot path `id` in terms of the CFG, as [`BallLarus::path`] gives Ball-Larus paths.
    pub fn path_record(&self, id: u64) -> Option<CfgPath> {
        let path = self.path(id)?;
        Some(cfg_path_of(&self.dag, id, &path, |h| self.original_edge(h)))
    }

    /// The original CFG edge of a hot-CFG edge named by [`Tpp::dag`].
    pub fn original_edge(&self, hot: EdgeId) -> EdgeId {
        self.original_edge[hot.0]
    }

    /// The number of hot paths; their ids are `0..num_paths`.
    pub fn num_paths(&self) -> u64 {
        self.num_paths
    }

    /// The Ball-Larus increment of a hot DAG edge.
    pub fn increment(&self, d: DagEdgeId) -> u64 {
        self.increments[d.0]
    }

    /// Whether a hot DAG edge is a defining edge (on exactly one path).
    pub fn is_defining(&self, d: DagEdgeId) -> bool {
        self.defining[d.0]
    }

    /// The recording points (DAG edges into EXIT) reached only by obvious paths, whose code is
    /// removed (Fig. 8; none when `eliminate_obvious` is off).
    pub fn obvious_recording_points(&self) -> Vec<DagEdgeId> {
        (0..self.dag.num_edges())
            .map(DagEdgeId)
            .filter(|d| self.obvious_recording[d.0])
            .collect()
    }

    /// Whether the function gets any code at all.
    pub fn needs_instrumentation(&self) -> bool {
        self.needs_code
    }

    /// The code to run when the function starts.
    pub fn entry_ops(&self) -> &[TppOp] {
        &self.entry_ops
    }

    /// The code to run when the CFG edge is taken, in order.
    pub fn edge_ops(&self, e: EdgeId) -> &[TppOp] {
        &self.edge_ops[e.0]
    }

    /// The code to run where a block without successors stops.
    pub fn dead_end_ops(&self, v: NodeId) -> &[TppOp] {
        &self.dead_end_ops[v.0]
    }

    /// The DAG edges of hot path `id`, from ENTRY to EXIT.
    pub fn path(&self, id: u64) -> Option<Vec<DagEdgeId>> {
        (id < self.num_paths)
            .then(|| regenerate_path(&self.dag, |d| self.increments[d.0], |d| !self.fake[d.0], id))
    }

    /// Whether hot path `id` is obvious (has a defining edge).
    pub fn is_obvious(&self, id: u64) -> bool {
        self.path(id)
            .is_some_and(|p| p.iter().any(|d| self.defining[d.0]))
    }

    /// Runs the code of one invocation (the CFG edges taken from the entry) into `counters`.
    /// The arithmetic is the generated code's, [`POISON`] and the clamped index included, and
    /// it panics if a poisoned register would wrap around.
    pub fn execute(&self, execution: &[EdgeId], counters: &mut TppCounters) {
        let n = self.num_paths;
        let mut r = 0u64;
        let mut run = |ops: &[TppOp]| {
            for &op in ops {
                match op {
                    TppOp::Set(c) => r = c,
                    TppOp::Add(c) => r = r.checked_add(c).expect("no wrap-around"),
                    TppOp::Poison => r = POISON,
                    TppOp::Count(c) => {
                        counters.record(n, r.checked_add(c).expect("no wrap-around").min(n))
                    }
                    TppOp::CountCold => counters.record(n, n),
                }
            }
        };
        run(&self.entry_ops);
        for &e in execution {
            run(&self.edge_ops[e.0]);
        }
        let last = execution
            .last()
            .map_or(self.cfg.entry(), |&e| self.cfg.edge(e).to);
        run(&self.dead_end_ops[last.0]);
    }

    /// How often each hot DAG edge ran, by the edge profile `edge_counts` (one count per CFG
    /// edge). A closing edge runs its exit dummy and the entry dummy of its target, as do cold
    /// back edges that reset the register (Fig. 6b).
    pub fn dag_edge_counts(&self, edge_counts: &[u64]) -> Vec<u64> {
        let dag = &self.dag;
        let mut counts = vec![0u64; dag.num_edges()];
        let flow = node_flow(&self.cfg, edge_counts);
        for (e, edge) in self.cfg.edges() {
            let c = edge_counts[e.0];
            match self.hot_edge[e.0].map(|h| dag.role(h)) {
                Some(EdgeRole::Dag(d)) => counts[d.0] += c,
                Some(EdgeRole::Closing { exit, entry }) => {
                    counts[exit.0] += c;
                    if let Some(d) = entry {
                        counts[d.0] += c;
                    }
                }
                Some(EdgeRole::Unreachable) => {}
                None => {
                    if self.cold_back_edge(e) == Some(ColdBackEdge::Reset)
                        && let Some(d) = dag.entry_dummy(edge.to)
                    {
                        counts[d.0] += c;
                    }
                }
            }
        }
        for (d, edge) in dag.edges() {
            if edge.kind == DagEdgeKind::DeadEnd && !self.fake[d.0] {
                counts[d.0] = u64::try_from(flow[edge.from.0]).unwrap_or(u64::MAX);
            }
        }
        counts
    }

    /// The full TPP path profile ([TPP] §4.2.2): measured counts of the paths that were
    /// recorded, and for each path whose recording point was removed, the count of its
    /// defining edge in `edge_counts` (the smallest, if it has several).
    pub fn rebuild(&self, counters: &TppCounters, edge_counts: &[u64]) -> TppProfile {
        let mut paths: BTreeMap<u64, u64> = counters
            .paths
            .iter()
            .filter(|&(_, &c)| c > 0)
            .map(|(&id, &c)| (id, c))
            .collect();
        let dag_counts = self.dag_edge_counts(edge_counts);
        let mut derived: BTreeMap<u64, u64> = BTreeMap::new();
        for d in (0..self.dag.num_edges()).map(DagEdgeId) {
            if !self.defining[d.0] {
                continue;
            }
            let path = self.unique_path_through(d);
            let last = *path.last().expect("a path has edges");
            if !self.obvious_recording[last.0] {
                continue;
            }
            let id = path.iter().fold(0u64, |s, x| s + self.increments[x.0]);
            let count = derived.entry(id).or_insert(u64::MAX);
            *count = (*count).min(dag_counts[d.0]);
        }
        derived.retain(|_, c| *c > 0);
        paths.extend(&derived);
        // A function without code has no cold counter: its cold paths are counted from the edge
        // profile, as its obvious paths are, by the executions of the cold edges out of hot
        // blocks where each leaves the hot paths (a path that leaves them twice counts twice).
        let uncounted: u64 = match self.needs_code {
            true => 0,
            false => (self.cold_edges().into_iter())
                .filter(|&e| self.is_hot_node(self.cfg.edge(e).from))
                .map(|e| edge_counts[e.0])
                .sum(),
        };
        let cold = counters.cold.saturating_add(uncounted);
        TppProfile {
            paths,
            obvious: derived,
            cold,
        }
    }

    /// The single path through a defining edge: unique paths from ENTRY to its source and from
    /// its target to EXIT.
    fn unique_path_through(&self, d: DagEdgeId) -> Vec<DagEdgeId> {
        let dag = &self.dag;
        let mut before = Vec::new();
        let mut v = dag.edge(d).from;
        while v != dag.entry() {
            let &p = dag
                .ins(v)
                .iter()
                .find(|p| !self.fake[p.0])
                .expect("one path from ENTRY");
            before.push(p);
            v = dag.edge(p).from;
        }
        before.reverse();
        before.push(d);
        let mut w = dag.edge(d).to;
        while w != dag.exit() {
            let &n = dag
                .outs(w)
                .iter()
                .find(|n| !self.fake[n.0])
                .expect("one path to EXIT");
            before.push(n);
            w = dag.edge(n).to;
        }
        before
    }
}

/// Ball-Larus numbering ([PPP] Fig. 1) ignoring the `fake` edges (which get increment 0), of at
/// most [`POISON`] paths.
fn number(dag: &Dag, fake: &[bool]) -> Result<(u64, Vec<u64>), TppError> {
    let counts = compute_bl_increments(dag, |d| !fake[d.0]);
    let total = u64::try_from(counts.num_paths[dag.entry().0])
        .ok()
        .filter(|&n| n <= POISON)
        .ok_or(TppError::TooManyPaths)?;
    let increments = counts
        .increments
        .into_iter()
        .map(|w| u64::try_from(w).map_err(|_| TppError::TooManyPaths))
        .collect::<Result<_, _>>()?;
    Ok((total, increments))
}

/// A path as the CFG sees it: where it starts, the CFG edges taken (the closing edge last, if
/// it ends by one).
type PathKey = (NodeId, Vec<EdgeId>);

/// The key of a CFG path: its start and its edges, the closing back or cut edge included.
fn path_key(path: &CfgPath) -> PathKey {
    let mut edges = path.edges.clone();
    if let PathEnd::BackEdge(e) | PathEnd::Truncated(e) = path.end {
        edges.push(e);
    }
    (path.start, edges)
}

/// Splits a path after each edge of `split` (footnote 5 of [TPP] §5) and gives each piece its
/// length in blocks (the crate's EXIT sink and the target of a closing last edge excluded).
/// `dead_end`: the path ends inside its last block.
fn pieces(
    cfg: &Cfg,
    key: &PathKey,
    dead_end: bool,
    split: &BTreeSet<EdgeId>,
) -> Vec<(PathKey, u64)> {
    let mut out = Vec::new();
    let (mut start, mut edges) = (key.0, Vec::new());
    let close = |start: NodeId, edges: Vec<EdgeId>, out: &mut Vec<(PathKey, u64)>| {
        let len = edges.len() as u64 + 1
            - edges
                .last()
                .is_some_and(|e| split.contains(e) || cfg.edge(*e).to == cfg.exit())
                as u64;
        out.push(((start, edges), len));
    };
    for &e in &key.1 {
        edges.push(e);
        if split.contains(&e) {
            close(start, std::mem::take(&mut edges), &mut out);
            start = cfg.edge(e).to;
        }
    }
    // A path that ends in a dead end right after a split edge still runs that block.
    if !edges.is_empty() || key.1.is_empty() || dead_end {
        close(start, edges, &mut out);
    }
    out
}

/// Attribution of definite flow ([TPP] §5).
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize)]
pub struct Aodf {
    /// Block executions (path count × length in blocks) in the Ball-Larus profile.
    pub total: u128,
    /// Block executions TPP attributes to paths beyond Ball-Larus's count.
    pub overcount: u128,
    /// Block executions of Ball-Larus paths that TPP does not attribute (cold counts and
    /// undercounted paths).
    pub undercount: u128,
}

impl Aodf {
    /// `100% − %overcount − %undercount`; 100 for an empty profile.
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            return 100.0;
        }
        100.0 - 100.0 * (self.overcount + self.undercount) as f64 / self.total as f64
    }
}

impl std::ops::AddAssign for Aodf {
    /// Accumulates the functions of a program.
    fn add_assign(&mut self, other: Aodf) {
        self.total += other.total;
        self.overcount += other.overcount;
        self.undercount += other.undercount;
    }
}

/// AoDF of one function's record in a `tpp` profile (made with `config`) against its record in
/// a `bl` profile of the same code, `cfg`: the TPP plan is rebuilt from the record's
/// `edge_counts` (a function profiled like `bl` for want of them is numbered as TPP(0, 0)
/// without obvious paths numbers it, which is Ball-Larus's numbering).
pub fn profile_aodf(
    cfg: &Cfg,
    bl_record: &FunctionProfile,
    tpp_record: &FunctionProfile,
    config: TppConfig,
) -> Result<Aodf, String> {
    let ModeRecord::Tpp(tpp_data) = &tpp_record.record else {
        return Err(format!("`{}` has no tpp record", tpp_record.name));
    };
    let bl = BallLarus::new(cfg).map_err(|e| e.to_string())?;
    let (edge_counts, config) = match &tpp_data.edge_counts {
        Some(counts) => (counts.clone(), config),
        _ => (
            vec![0; cfg.num_edges()],
            TppConfig {
                cold_threshold: 0,
                loop_threshold: 0,
                eliminate_obvious: false,
            },
        ),
    };
    let tpp = Tpp::new(cfg, &edge_counts, config).map_err(|e| e.to_string())?;
    for (mode, numbered, recorded) in [
        ("bl", bl.num_paths(), bl_record.num_paths),
        ("tpp", tpp.num_paths(), tpp_record.num_paths),
    ] {
        if numbered != recorded {
            return Err(format!(
                "the {mode} profile has {recorded} potential paths, but its code numbers \
                 {numbered}"
            ));
        }
    }
    let counts = |paths: &[PathCount]| -> BTreeMap<u64, u64> {
        paths.iter().map(|p| (p.id, p.count)).collect()
    };
    let tpp_profile = TppProfile {
        paths: counts(&tpp_record.paths),
        obvious: counts(&tpp_data.obvious),
        cold: tpp_data.cold_count,
    };
    Ok(attribution_of_definite_flow(
        &bl,
        &counts(&bl_record.paths),
        &tpp,
        &tpp_profile,
    ))
}

/// AoDF of a rebuilt TPP profile against a Ball-Larus profile (`bl_counts`: count by BL path
/// id) of the same function, weighted by path length in blocks. Both profiles are split at the
/// union of their back and cut edges first ([TPP] footnote 5).
pub fn attribution_of_definite_flow(
    bl: &BallLarus,
    bl_counts: &BTreeMap<u64, u64>,
    tpp: &Tpp,
    tpp_profile: &TppProfile,
) -> Aodf {
    let cfg = tpp.cfg();
    let mut split: BTreeSet<EdgeId> = bl.dag().back_edges().iter().copied().collect();
    split.extend(bl.cut_edges());
    split.extend(
        tpp.dag()
            .back_edges()
            .iter()
            .chain(tpp.dag().cut_edges())
            .map(|&h| tpp.original_edge(h)),
    );
    split.extend(
        (0..cfg.num_edges())
            .map(EdgeId)
            .filter(|&e| tpp.cold_back_edge(e).is_some()),
    );
    let mut table: BTreeMap<PathKey, (u128, u128, u64)> = BTreeMap::new();
    for (&id, &count) in bl_counts {
        let Some(path) = bl.path(id) else {
            continue;
        };
        let dead_end = matches!(path.end, PathEnd::DeadEnd(_));
        for (piece, len) in pieces(cfg, &path_key(&path), dead_end, &split) {
            table.entry(piece).or_insert((0, 0, len)).0 += u128::from(count);
        }
    }
    for (&id, &count) in &tpp_profile.paths {
        let Some(path) = tpp.path_record(id) else {
            continue;
        };
        let dead_end = matches!(path.end, PathEnd::DeadEnd(_));
        for (piece, len) in pieces(cfg, &path_key(&path), dead_end, &split) {
            table.entry(piece).or_insert((0, 0, len)).1 += u128::from(count);
        }
    }
    let mut aodf = Aodf {
        total: 0,
        overcount: 0,
        undercount: 0,
    };
    for (b, t, len) in table.into_values() {
        let len = u128::from(len);
        aodf.total += b * len;
        aodf.overcount += t.saturating_sub(b) * len;
        aodf.undercount += b.saturating_sub(t) * len;
    }
    aodf
}

#[cfg(test)]
mod tests;
