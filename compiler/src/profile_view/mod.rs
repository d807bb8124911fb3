//! A profile seen against its program, the model behind `pcc profile report|annotate|export`
//! and `pcc paths --format dot --profile`: the program is recompiled from the source the profile
//! names (as `pcc paths` numbers it), each function record is matched with its MIR function by
//! name and `cfg_hash`, and each executed path is regenerated to its blocks and edges, which
//! give block, edge and line counts. A function whose code changed since the profile was taken
//! keeps only what the profile itself says (its paths' lines).

pub mod input;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pcc_lang::LineIndex;
use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::cfg::{EdgeId, NodeId};
use pcc_profiler::dag::{DagEdgeId, DagEdgeKind};
use pcc_profiler::profile::{
    FunctionProfile, Mode, ModeRecord, PathCount, Profile, TppRecord, printable, printable_path,
};
use pcc_profiler::regenerate::{CfgPath, PathEnd};
use pcc_profiler::tpp::Tpp;

use crate::mir;
use crate::profiling::{FunctionCfg, cfg_hash, function_cfg, node_line, node_lines};
use crate::{driver, lower};
use input::load_with_program;

/// The most of a condition's text a decision quotes.
const DECISION_TEXT: usize = 32;

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
    /// The branch decisions along it, in order ([`CfgView::decision`]), where another executed
    /// path of the function has the same lines (only its decisions tell them apart) and its
    /// route is known; empty elsewhere.
    pub decisions: Vec<String>,
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
    /// Lines of code that lowering dropped as unreachable ([`mir::Function::dead_code`]).
    pub dead_lines: Vec<u32>,
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

    /// The source-level decision that taking edge `e` makes, when its block ends in a branch
    /// or a `match`: the condition's `line:col`, its text and the outcome
    /// (`5:9 c >= 65 → true`), or the `match`'s and the arm (`11:15 n → 3`, `_` for the
    /// default). `source` is the program's text, `index` its line index.
    pub fn decision(&self, e: EdgeId, source: &str, index: &LineIndex) -> Option<String> {
        let (from, to) = *self.fcfg.edges.get(e.0)?;
        let term = &self.func.blocks[from].term;
        let outcome = match &term.kind {
            mir::TerminatorKind::Branch { then_bb, .. } => if to == Some(*then_bb) {
                "true"
            } else {
                "false"
            }
            .to_string(),
            mir::TerminatorKind::Switch { cases, .. } => {
                let arm: Vec<String> = cases
                    .iter()
                    .filter(|&&(_, b)| Some(b) == to)
                    .map(|(v, _)| v.to_string())
                    .collect();
                if arm.is_empty() {
                    "_".to_string()
                } else {
                    arm.join(" | ")
                }
            }
            _ => return None,
        };
        let (line, col) = index.line_col(term.span.lo);
        let text = source
            .get(term.span.lo as usize..term.span.hi as usize)
            .and_then(|t| t.lines().next())
            .unwrap_or("");
        let text: String = if text.chars().count() > DECISION_TEXT {
            text.chars().take(DECISION_TEXT - 1).chain(['…']).collect()
        } else {
            text.to_string()
        };
        Some(format!(
            "{line}:{col} {} → {outcome}",
            printable(text.trim())
        ))
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
    /// All path executions, `tpp`'s cold ones included (`edge`: edge executions, `block`: block
    /// executions).
    pub total: u64,
    /// `tpp`: the executions of cold paths ([`Cold`]); `None` for the other modes.
    pub cold: Option<Cold>,
}

/// What `tpp` knows of a function's cold path executions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cold {
    /// Counted by the function's cold counter.
    Counted(u64),
    /// The function had no counter (every hot path is obvious): counted from the edge profile
    /// (`pcc_profiler::tpp::Tpp::rebuild`).
    FromEdgeProfile(u64),
}

impl Cold {
    pub fn count(self) -> u64 {
        match self {
            Cold::Counted(n) | Cold::FromEdgeProfile(n) => n,
        }
    }
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
                             differs): its source is shown without counts, blocks and edges",
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
                FunctionView::new(
                    &profile,
                    i,
                    cfg,
                    span,
                    (&checked.source, &index),
                    &mut warnings,
                )
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
        (source, index): (&str, &LineIndex),
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
                    decisions: Vec::new(),
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
            let lines = node_lines(&func, source, index);
            let line = node_line(&func, index);
            let dead_lines = func.dead_code.iter().map(|s| index.line(s.lo)).collect();
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
                dead_lines,
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
            cold: None,
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
            let mut by_lines: BTreeMap<&[u32], usize> = BTreeMap::new();
            for path in &view.paths {
                *by_lines.entry(&path.lines).or_default() += 1;
            }
            let shared: Vec<bool> = (view.paths.iter())
                .map(|p| by_lines[p.lines.as_slice()] > 1)
                .collect();
            for (path, shared) in view.paths.iter_mut().zip(shared) {
                if shared {
                    let decisions = path.edges().into_iter();
                    let decisions = decisions.filter_map(|e| cfg.decision(e, source, index));
                    path.decisions = decisions.collect();
                }
            }
            if view.paths.iter().any(|p| p.route.is_none()) {
                warnings.push(format!(
                    "function `{}`: some path ids are not paths of its CFG",
                    record.name
                ));
            }
            cfg.count(&view.paths, record);
        }
        if let Some(cfg) = &view.cfg {
            view.line_counts = cfg.line_counts();
        }
        view.total = match profile.mode {
            Mode::Edge => record.edges().into_iter().flatten().map(|e| e.count).sum(),
            Mode::Block => record.blocks().into_iter().flatten().map(|b| b.count).sum(),
            _ => view.paths.iter().map(|p| p.count).sum(),
        };
        if let ModeRecord::Tpp(tpp) = &record.record {
            let uncounted = (view.cfg.as_ref())
                .and_then(|cfg| cfg.tpp.as_ref())
                .is_some_and(|plan| !plan.needs_instrumentation());
            let cold = if uncounted {
                Cold::FromEdgeProfile(tpp.cold_count)
            } else {
                Cold::Counted(tpp.cold_count)
            };
            view.total += cold.count();
            view.cold = Some(cold);
        }
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
            let unfinished = match &record.record {
                ModeRecord::Edge(edge) => edge.unfinished,
                _ => 0,
            };
            self.count_nodes_from_edges(unfinished);
            return;
        }
        // `tpp` counts its cold paths only in total (and not at all where every path is
        // obvious), and an obvious path's count is its defining edge's in the edge profile,
        // cold executions through that edge included ([TPP] §4.2.2): the edge profile its
        // paths were numbered from gives the edge counts.
        if let ModeRecord::Tpp(TppRecord {
            edge_counts: Some(input),
            ..
        }) = &record.record
            && input.len() == self.edge_counts.len()
        {
            self.edge_counts.clone_from(input);
            self.count_nodes_from_edges(0);
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

    /// Node counts (and where activations stopped) from the edge counts: a block runs as often
    /// as control enters it; what does not leave it stopped there. `unfinished` activations
    /// that stopped where no edge shows it stopped in the entry block.
    fn count_nodes_from_edges(&mut self, unfinished: u64) {
        let cfg = &self.fcfg.cfg;
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
        self.stopped[entry.0] = unfinished.saturating_sub(elsewhere);
        self.node_counts[entry.0] += self.stopped[entry.0];
    }

    /// Each line's count, gcov's: how many times control entered the line, from another line
    /// or at the function's entry, and again at each iteration of a loop that closes on the
    /// line. One rule for every mode, from the node and edge counts the mode gives ([`count`]):
    /// a block runs its lines in order, and control that reaches a block's first line along
    /// an edge from the same line (through blocks with no code of their own) stays on it.
    /// Every line of code is a key, with 0 when it never ran; lines without code are absent.
    pub fn line_counts(&self) -> BTreeMap<u32, u64> {
        let cfg = &self.fcfg.cfg;
        let edges = self.known_edge_counts();
        let mut counts: BTreeMap<u32, u64> = BTreeMap::new();
        for (v, lines) in self.node_lines.iter().enumerate() {
            let Some(&first) = lines.first() else {
                continue;
            };
            let from_same_line: u64 = cfg
                .preds(NodeId(v))
                .iter()
                .map(|&e| self.flow_from_line(e, first, &edges, 0))
                .sum();
            *counts.entry(first).or_default() += self.node_counts[v].saturating_sub(from_same_line);
            for &line in &lines[1..] {
                *counts.entry(line).or_default() += self.node_counts[v];
            }
        }
        for &line in &self.dead_lines {
            counts.entry(line).or_insert(0);
        }
        counts
    }

    /// How much of edge `e`'s flow left line `line` when it took the edge: all of it from a
    /// block whose last line it is, the flow from that line into a block without code that
    /// only passes control on; none where the count is unknown, and none along the back edge
    /// of a loop that lies on the line alone (each iteration enters the line anew, as gcov
    /// counts a loop written on one line).
    fn flow_from_line(&self, e: EdgeId, line: u32, edges: &[Option<u64>], depth: u32) -> u64 {
        let cfg = &self.fcfg.cfg;
        let Some(count) = edges[e.0] else { return 0 };
        let from = cfg.edge(e).from;
        match self.node_lines[from.0].last() {
            Some(&last) if last != line => 0,
            Some(_) if self.loop_on_line(e, line) => 0,
            Some(_) => count,
            // Chains of blocks without code are short (a join before a latch); the bound only
            // keeps a malformed CFG from recursing without end.
            None if cfg.succs(from).len() == 1 && depth < 64 => cfg
                .preds(from)
                .iter()
                .map(|&p| self.flow_from_line(p, line, edges, depth + 1))
                .sum::<u64>()
                .min(count),
            None => 0,
        }
    }

    /// Whether `e` is a back edge whose loop (the blocks that reach its source without passing
    /// its header) has no code on another line than `line`.
    fn loop_on_line(&self, e: EdgeId, line: u32) -> bool {
        let cfg = &self.fcfg.cfg;
        if !self.numbering.dag().back_edges().contains(&e) {
            return false;
        }
        let (from, header) = (cfg.edge(e).from, cfg.edge(e).to);
        let mut seen = vec![false; cfg.num_nodes()];
        seen[header.0] = true;
        let mut work = vec![from];
        while let Some(v) = work.pop() {
            if std::mem::replace(&mut seen[v.0], true) {
                continue;
            }
            if self.node_lines[v.0].iter().any(|&l| l != line) {
                return false;
            }
            work.extend(cfg.preds(v).iter().map(|p| cfg.edge(*p).from));
        }
        self.node_lines[header.0].iter().all(|&l| l == line)
    }

    /// Each edge's count where it is known: all of them but for a `block` profile, whose edge
    /// counts follow from its block counts where flow conservation determines them (a block's
    /// count is what enters it and what leaves it; one unknown edge among a block's ins or
    /// outs is the difference).
    fn known_edge_counts(&self) -> Vec<Option<u64>> {
        let cfg = &self.fcfg.cfg;
        if self.edges_known {
            return self.edge_counts.iter().copied().map(Some).collect();
        }
        let mut known: Vec<Option<u64>> = vec![None; cfg.num_edges()];
        let (entry, exit) = (cfg.entry(), cfg.exit());
        let mut work: Vec<NodeId> = (0..cfg.num_nodes()).map(NodeId).collect();
        while let Some(v) = work.pop() {
            let sides = [
                (v != entry).then(|| cfg.preds(v)),
                (v != exit).then(|| cfg.succs(v)),
            ];
            for side in sides.into_iter().flatten() {
                let mut unknown = side.iter().filter(|e| known[e.0].is_none());
                let (Some(&e), None) = (unknown.next(), unknown.next()) else {
                    continue;
                };
                let rest: u64 = side.iter().filter_map(|e| known[e.0]).sum();
                known[e.0] = Some(self.node_counts[v.0].saturating_sub(rest));
                let edge = cfg.edge(e);
                work.extend([edge.from, edge.to]);
            }
        }
        known
    }
}
