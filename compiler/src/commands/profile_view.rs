//! A profile seen against its program, the model behind `pcc profile report|annotate|export`
//! and `pcc paths --format dot --profile`: the program is recompiled from the source the profile
//! names (as `pcc paths` numbers it), each function record is matched with its MIR function by
//! name and `cfg_hash`, and each executed path is regenerated to its blocks and edges, which
//! give block, edge and line counts. A function whose code changed since the profile was taken
//! keeps only what the profile itself says (its paths' lines).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pcc_lang::LineIndex;
use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::cfg::{EdgeId, NodeId};
use pcc_profiler::dag::{DagEdgeId, DagEdgeKind};
use pcc_profiler::profile::{
    FunctionProfile, Mode, ModeRecord, PathCount, Profile, TppRecord, printable_path,
};
use pcc_profiler::regenerate::{CfgPath, PathEnd};
use pcc_profiler::tpp::Tpp;

use super::profile::load_with_program;
use crate::mir;
use crate::profiling::{FunctionCfg, cfg_hash, function_cfg, node_line, node_lines};
use crate::{driver, lower};

/// A profile with its program's source and, per function, what its CFG adds.
pub struct ProgramView {
    pub profile: Profile,
    pub profile_path: PathBuf,
    pub source_file: PathBuf,
    /// The source, line `n` at index `n - 1`.
    pub source: Vec<String>,
    /// Byte offsets to line numbers of `source`.
    pub index: LineIndex,
    /// The program lowered to MIR, as profiled (before instrumentation).
    pub program: mir::Program,
    /// One per function record, in the profile's order.
    pub functions: Vec<FunctionView>,
    /// Functions whose code changed since the profile was taken, and other things to say.
    pub warnings: Vec<String>,
}

/// Which list of the profile a path comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PathKind {
    Path,
    /// `ppp`: outside the interesting set ([PPP] §3).
    Residual,
    /// `tpp`: counted from the edge profile ([TPP] §4.2.2).
    Obvious,
}

impl PathKind {
    pub fn name(self) -> &'static str {
        match self {
            PathKind::Path => "",
            PathKind::Residual => "residual",
            PathKind::Obvious => "obvious",
        }
    }
}

/// One executed path.
pub struct PathView {
    pub id: u64,
    pub count: u64,
    pub lines: Vec<u32>,
    pub kind: PathKind,
    /// Its blocks and edges, when the function's CFG is known.
    pub route: Option<CfgPath>,
}

impl PathView {
    /// The CFG edges the path takes, the back or cut edge ending it included.
    pub fn edges(&self) -> Vec<EdgeId> {
        let Some(route) = &self.route else {
            return Vec::new();
        };
        let mut edges = route.edges.clone();
        if let PathEnd::BackEdge(e) | PathEnd::Truncated(e) = route.end {
            edges.push(e);
        }
        edges
    }
}

impl PathView {
    /// The edges of the path in the Ball-Larus DAG: its CFG edges, and the dummy edges for a
    /// start at a loop header and an end at a back or cut edge or in a dead end ([BL96] §3.1).
    pub fn dag_edges(&self, cfg: &CfgView) -> Vec<DagEdgeId> {
        let Some(route) = &self.route else {
            return Vec::new();
        };
        let dag = cfg.numbering.dag();
        dag.edges()
            .filter(|(_, d)| match d.kind {
                DagEdgeKind::Real(e) => route.edges.contains(&e),
                DagEdgeKind::EntryDummy => d.to == route.start && route.start != dag.entry(),
                DagEdgeKind::BackExit(e) => route.end == PathEnd::BackEdge(e),
                DagEdgeKind::CutExit(e) => route.end == PathEnd::Truncated(e),
                DagEdgeKind::DeadEnd => route.end == PathEnd::DeadEnd(d.from),
            })
            .map(|(d, _)| d)
            .collect()
    }
}

/// A function's MIR, CFG and counts.
pub struct CfgView {
    pub func: mir::Function,
    pub fcfg: FunctionCfg,
    pub numbering: BallLarus,
    /// A `tpp` profile's numbering: TPP's analysis of the function from the profile's edge
    /// counts, whose hot DAG its path ids and increments are of ([TPP] §4); the drawing shows
    /// those, not `numbering`'s.
    pub tpp: Option<Tpp>,
    /// Source lines of each CFG node (EXIT has none).
    pub node_lines: Vec<Vec<u32>>,
    /// The line of each CFG node, also of one without statements (its construct's line; EXIT:
    /// the function's closing brace).
    pub node_line: Vec<u32>,
    /// Executions of each CFG node and edge.
    pub node_counts: Vec<u64>,
    pub edge_counts: Vec<u64>,
    /// Activations that stopped in each node: an edge profile's blocks that control entered
    /// more often than it left them (by `exit()`, a runtime error, or a call that never
    /// returned); zero for the other modes, which cannot tell.
    pub stopped: Vec<u64>,
    /// False for a `block` profile, which counts blocks only.
    pub edges_known: bool,
}

impl CfgView {
    /// The line a block's terminator decides on (its last line; its first for an empty block).
    pub fn branch_line(&self, v: NodeId, index: &LineIndex) -> u32 {
        index.line(self.func.blocks[crate::profiling::block(v)].term.span.lo)
    }

    /// How many times an edge of the Ball-Larus DAG was taken: a real edge as its CFG edge, a
    /// dummy edge as the back or cut edge it stands for (from ENTRY: those into its target),
    /// an edge out of a dead end as the block.
    pub fn dag_edge_count(&self, d: DagEdgeId) -> u64 {
        let dag = self.numbering.dag();
        let edge = dag.edge(d);
        match edge.kind {
            DagEdgeKind::Real(e) | DagEdgeKind::BackExit(e) | DagEdgeKind::CutExit(e) => {
                self.edge_counts[e.0]
            }
            DagEdgeKind::EntryDummy => dag
                .back_edges()
                .iter()
                .chain(dag.cut_edges())
                .filter(|&&e| self.fcfg.cfg.edge(e).to == edge.to)
                .map(|e| self.edge_counts[e.0])
                .sum(),
            DagEdgeKind::DeadEnd => self.node_counts[edge.from.0],
        }
    }

    /// How many times the function was entered.
    pub fn activations(&self) -> u64 {
        self.node_counts[self.fcfg.cfg.entry().0]
    }
}

pub struct FunctionView {
    pub name: String,
    /// Index of the record in `profile.functions`.
    pub record: usize,
    /// Hottest first: the executed paths, then (`ppp`) the residual ones.
    pub paths: Vec<PathView>,
    /// `None` when the function's code is not the profiled code (or is not in the source).
    pub cfg: Option<CfgView>,
    /// How many times control entered each line (from another line, or at a path's start).
    pub line_counts: BTreeMap<u32, u64>,
    /// First and last source line of the function.
    pub span: (u32, u32),
    /// All path executions (`edge`: edge executions, `block`: block executions).
    pub total: u64,
}

impl ProgramView {
    /// Reads the profile at `path`, finds and compiles its program, which must be the
    /// profiled source ([`load_with_program`]). Says why on stderr and returns `None` when
    /// either cannot be done.
    pub fn load(path: &Path) -> Option<ProgramView> {
        let (profile, source_file, bytes) = load_with_program(path)?;
        let checked = driver::front_end_bytes(&source_file, &bytes)
            .map_err(driver::Failure::report)
            .ok()?;
        let program = lower::lower_program(&checked.program);
        let index = LineIndex::new(&checked.source);
        let mut warnings = Vec::new();
        let functions = profile
            .functions
            .iter()
            .enumerate()
            .map(|(i, record)| {
                let func = program
                    .functions
                    .iter_enumerated()
                    .find(|&(id, f)| id != program.init && f.name == record.name)
                    .map(|(_, f)| f);
                let cfg = match func {
                    Some(func) if cfg_hash(&program, func) == record.cfg_hash => {
                        Some((func.clone(), function_cfg(func)))
                    }
                    Some(_) => {
                        warnings.push(format!(
                            "function `{}` changed since the profile was taken (its cfg_hash \
                             differs): its source is shown without blocks and edges",
                            record.name
                        ));
                        None
                    }
                    None => {
                        warnings.push(format!(
                            "function `{}` is not in {}: it is shown without source",
                            record.name,
                            printable_path(&source_file)
                        ));
                        None
                    }
                };
                let span = func.map(|f| (index.line(f.span.lo), index.line(f.span.hi)));
                FunctionView::new(&profile, i, cfg, span, &index, &mut warnings)
            })
            .collect();
        Some(ProgramView {
            source: checked.source.lines().map(str::to_string).collect(),
            profile,
            index,
            program,
            profile_path: path.to_path_buf(),
            source_file,
            functions,
            warnings,
        })
    }

    /// The text of line `n` (empty past the end).
    pub fn line(&self, n: u32) -> &str {
        (n as usize)
            .checked_sub(1)
            .and_then(|i| self.source.get(i))
            .map_or("", String::as_str)
    }

    pub fn record(&self, f: &FunctionView) -> &FunctionProfile {
        &self.profile.functions[f.record]
    }

    /// The functions, most path executions first.
    pub fn hottest_functions(&self) -> Vec<&FunctionView> {
        let mut functions: Vec<&FunctionView> = self.functions.iter().collect();
        functions.sort_by_key(|f| std::cmp::Reverse(f.total));
        functions
    }

    /// Prints the warnings on stderr.
    pub fn warn(&self) {
        for warning in &self.warnings {
            eprintln!("warning: {}: {warning}", self.profile_path.display());
        }
    }
}

impl FunctionView {
    fn new(
        profile: &Profile,
        record_index: usize,
        cfg: Option<(mir::Function, FunctionCfg)>,
        span: Option<(u32, u32)>,
        index: &LineIndex,
        warnings: &mut Vec<String>,
    ) -> FunctionView {
        let record = &profile.functions[record_index];
        let obvious: Vec<u64> = match &record.record {
            ModeRecord::Tpp(tpp) => tpp.obvious.iter().map(|p| p.id).collect(),
            _ => Vec::new(),
        };
        let listed = |paths: &[PathCount], kind: PathKind| -> Vec<PathView> {
            paths
                .iter()
                .map(|p| PathView {
                    id: p.id,
                    count: p.count,
                    lines: p.lines.clone(),
                    kind: if kind == PathKind::Path && obvious.contains(&p.id) {
                        PathKind::Obvious
                    } else {
                        kind
                    },
                    route: None,
                })
                .collect()
        };
        let mut paths = listed(&record.paths, PathKind::Path);
        paths.extend(listed(record.residual(), PathKind::Residual));
        paths.sort_by(|a, b| b.count.cmp(&a.count).then(a.id.cmp(&b.id)));

        let cfg = cfg.and_then(|(func, fcfg)| {
            let numbering = BallLarus::new(&fcfg.cfg)
                .map_err(|e| warnings.push(format!("function `{}`: {e}", record.name)))
                .ok()?;
            let lines = node_lines(&func, index);
            let line = node_line(&func, index);
            Some(CfgView {
                node_counts: vec![0; fcfg.cfg.num_nodes()],
                edge_counts: vec![0; fcfg.cfg.num_edges()],
                stopped: vec![0; fcfg.cfg.num_nodes()],
                edges_known: profile.mode != Mode::Block,
                func,
                fcfg,
                numbering,
                tpp: None,
                node_lines: lines,
                node_line: line,
            })
        });
        let mut view = FunctionView {
            name: record.name.clone(),
            record: record_index,
            paths,
            cfg,
            line_counts: BTreeMap::new(),
            span: span.unwrap_or((0, 0)),
            total: 0,
        };
        if let Some(cfg) = &mut view.cfg {
            cfg.tpp = match &record.record {
                ModeRecord::Tpp(TppRecord {
                    edge_counts: Some(counts),
                    ..
                }) => Tpp::new(&cfg.fcfg.cfg, counts, profile.tpp.unwrap_or_default()).ok(),
                _ => None,
            };
            for path in &mut view.paths {
                path.route = match &cfg.tpp {
                    Some(tpp) => tpp.path_record(path.id),
                    None => cfg.numbering.path(path.id),
                };
            }
            if view.paths.iter().any(|p| p.route.is_none()) {
                warnings.push(format!(
                    "function `{}`: some path ids are not paths of its CFG",
                    record.name
                ));
            }
            cfg.count(&view.paths, record);
        }
        view.line_counts = match (&view.cfg, profile.mode) {
            (Some(cfg), Mode::Edge) => cfg.edge_line_counts(),
            (_, Mode::Block) => block_line_counts(record),
            _ => path_line_counts(&view.paths),
        };
        view.total = match profile.mode {
            Mode::Edge => record.edges().into_iter().flatten().map(|e| e.count).sum(),
            Mode::Block => record.blocks().into_iter().flatten().map(|b| b.count).sum(),
            _ => view.paths.iter().map(|p| p.count).sum(),
        };
        if view.span == (0, 0) {
            let lines = view.line_counts.keys();
            view.span = (
                lines.clone().next().copied().unwrap_or(0),
                lines.last().copied().unwrap_or(0),
            );
        }
        view
    }

    /// The hottest path with a route (the first in `paths`).
    pub fn hottest_route(&self) -> Option<&PathView> {
        self.paths.iter().find(|p| p.route.is_some())
    }
}

/// Each line's count: a path enters each of its lines once per execution (its lines have
/// consecutive duplicates removed).
fn path_line_counts(paths: &[PathView]) -> BTreeMap<u32, u64> {
    let mut counts = BTreeMap::new();
    for path in paths {
        for &line in &path.lines {
            *counts.entry(line).or_default() += path.count;
        }
    }
    counts
}

/// A block profile's line counts: each executed block adds its count to each of its lines.
fn block_line_counts(record: &FunctionProfile) -> BTreeMap<u32, u64> {
    let mut counts = BTreeMap::new();
    for block in record.blocks().into_iter().flatten() {
        for &line in &block.lines {
            *counts.entry(line).or_default() += block.count;
        }
    }
    counts
}

impl CfgView {
    /// Node and edge counts: a block or edge profile's own, else summed over the regenerated
    /// paths.
    fn count(&mut self, paths: &[PathView], record: &FunctionProfile) {
        let cfg = &self.fcfg.cfg;
        if let Some(blocks) = record.blocks() {
            for block in blocks {
                if let Some(count) = self.node_counts.get_mut(block.block) {
                    *count = block.count;
                }
            }
            // EXIT runs once per return: the returning blocks' executions.
            let exit = cfg.exit();
            self.node_counts[exit.0] = cfg
                .preds(exit)
                .iter()
                .map(|e| self.node_counts[cfg.edge(*e).from.0])
                .sum();
            return;
        }
        if let Some(edges) = record.edges() {
            // Edge records name their blocks (EXIT is the last node); two edges between the
            // same blocks are matched in order.
            let mut matched = vec![false; cfg.num_edges()];
            for edge in edges {
                let found = cfg.edges().find(|(e, to)| {
                    !matched[e.0] && (to.from.0, to.to.0) == (edge.from_block, edge.to_block)
                });
                if let Some((e, _)) = found {
                    matched[e.0] = true;
                    self.edge_counts[e.0] = edge.count;
                }
            }
            // A block runs as often as control enters it; what does not leave it stopped there.
            let sum = |es: &[EdgeId]| es.iter().map(|e| self.edge_counts[e.0]).sum::<u64>();
            let (entry, exit) = (cfg.entry(), cfg.exit());
            for v in (0..cfg.num_nodes()).map(NodeId) {
                let (ins, outs) = (sum(cfg.preds(v)), sum(cfg.succs(v)));
                self.node_counts[v.0] = ins.max(outs);
                if v != entry && v != exit {
                    self.stopped[v.0] = ins.saturating_sub(outs);
                }
            }
            // The record's unfinished activations stopped in blocks that could have gone on
            // (not in one that ends by `exit()`, which has no successor); those not found
            // elsewhere stopped in the entry block, which no edge enters.
            let elsewhere: u64 = (0..cfg.num_nodes())
                .filter(|&v| !cfg.succs(NodeId(v)).is_empty())
                .map(|v| self.stopped[v])
                .sum();
            if let ModeRecord::Edge(edge) = &record.record {
                self.stopped[entry.0] = edge.unfinished.saturating_sub(elsewhere);
                self.node_counts[entry.0] += self.stopped[entry.0];
            }
            return;
        }
        for path in paths {
            let Some(route) = &path.route else { continue };
            for v in route.nodes(cfg) {
                self.node_counts[v.0] += path.count;
            }
            for e in path.edges() {
                self.edge_counts[e.0] += path.count;
            }
        }
    }

    /// An edge profile's line counts, by the rule of [`path_line_counts`]: each block enters
    /// its lines, except a first line that control was already on when it took the edge into
    /// the block ([`CfgView::line_before`]).
    fn edge_line_counts(&self) -> BTreeMap<u32, u64> {
        let mut counts: BTreeMap<u32, u64> = BTreeMap::new();
        for (v, lines) in self.node_lines.iter().enumerate() {
            for &line in lines {
                *counts.entry(line).or_default() += self.node_counts[v];
            }
        }
        let before = self.line_before();
        for (e, edge) in self.fcfg.cfg.edges() {
            let first = self.node_lines[edge.to.0].first();
            if let (Some(last), Some(&first)) = (before[e.0], first)
                && last == first
                && let Some(count) = counts.get_mut(&first)
            {
                *count -= self.edge_counts[e.0].min(*count);
            }
        }
        counts.retain(|_, count| *count > 0);
        counts
    }

    /// For each edge, the last line control was on when it took the edge, as a path's lines
    /// record it: the last statement line of the edge's source, or, through blocks without
    /// statements (joins, latches), of the block before them, when every way into them agrees
    /// on it. `None` after an edge that ends a path (a back or cut edge: the next path enters
    /// its first line anew), at the entry, and where the ways into an empty block disagree.
    fn line_before(&self) -> Vec<Option<u32>> {
        let cfg = &self.fcfg.cfg;
        let dag = self.numbering.dag();
        let ends_path = |e: &EdgeId| dag.back_edges().contains(e) || dag.cut_edges().contains(e);
        // The line control is on when it leaves each node, in topological order so that an empty
        // block's predecessors come first (path-ending edges close every cycle).
        let mut leaving: Vec<Option<u32>> = vec![None; cfg.num_nodes()];
        for &v in dag.topological_order() {
            leaving[v.0] = match self.node_lines[v.0].last() {
                Some(&line) => Some(line),
                None => {
                    let mut ins = cfg.preds(v).iter();
                    let first = ins.next();
                    first.and_then(|e| {
                        let line = |e: &EdgeId| {
                            (!ends_path(e))
                                .then(|| leaving[cfg.edge(*e).from.0])
                                .flatten()
                        };
                        let agreed = line(e)?;
                        ins.all(|e| line(e) == Some(agreed)).then_some(agreed)
                    })
                }
            };
        }
        cfg.edges()
            .map(|(e, edge)| (!ends_path(&e)).then(|| leaving[edge.from.0]).flatten())
            .collect()
    }
}
