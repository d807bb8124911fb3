//! `pcc paths`: static enumeration of a function's acyclic paths with their Ball-Larus ids.
//!
//! The paths are numbered on the MIR as lowered (no instrumentation, no optimization), through the
//! same [`function_cfg`], [`BallLarus`] numbering and [`node_lines`] as `pcc run --profile=bl`,
//! so the ids and lines printed here are the ids and lines of the profiles. Each path is
//! regenerated from its id. The global initializers
//! (`<globals>`) are not profiled, so they are not listed either.

use std::fmt::Write as _;
use std::path::Path;

use pcc_lang::{LineIndex, Span};
use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::cfg::{EdgeId, NodeId};
use pcc_profiler::dag::{DagEdgeId, DagEdgeKind};
use pcc_profiler::regenerate::{CfgPath, PathEnd};
use serde::Serialize;

use crate::driver::{self, EXIT_COMPILE_ERROR};
use crate::lower;
use crate::mir::{self, BlockId, Builtin, Callee, StatementKind, TerminatorKind};
use crate::profile_view::{CfgView, ProgramView};
use crate::profiling::{FunctionCfg, cfg_hash, function_cfg, node_lines};

#[derive(Clone, Copy, Debug)]
pub enum Format {
    Text,
    Json,
    Dot,
}

/// At most this many paths are listed per function; the rest are counted, not regenerated.
pub const PATH_LIMIT: usize = 1000;

/// `profile`: with `Format::Dot`, a profile of the program whose counts label the DAGs.
pub fn run(file: &Path, function: Option<&str>, format: Format, profile: Option<&Path>) -> i32 {
    let counts = match (profile, format) {
        (None, _) => None,
        (Some(path), Format::Dot) => match ProgramView::load(path) {
            Some(view) => {
                view.warn();
                Some(view)
            }
            None => return EXIT_COMPILE_ERROR,
        },
        (Some(_), _) => {
            eprintln!("error: --profile labels the graph of `--format dot` only");
            return EXIT_COMPILE_ERROR;
        }
    };
    let checked = match driver::front_end(file) {
        Ok(checked) => checked,
        Err(failure) => return failure.report(),
    };
    let program = lower::lower_program(&checked.program);
    let selected = match select(&program, function, &checked.file_name) {
        Ok(selected) => selected,
        Err(status) => return status,
    };
    let source = Source::new(&checked.source);
    let mut functions = Vec::new();
    for func in selected {
        match FunctionPaths::analyze(&program, func, &source, PATH_LIMIT) {
            Ok(paths) => functions.push(paths),
            Err(err) => {
                eprintln!("error: cannot number the paths of `{}`: {err}", func.name);
                return EXIT_COMPILE_ERROR;
            }
        }
    }
    let output = match format {
        Format::Text => render_text(&functions, &source),
        Format::Json => render_json(&checked.file_name, &functions, &source),
        Format::Dot => render_dot(&checked.file_name, &functions, &source, counts.as_ref()),
    };
    super::print_text(&output)
}

/// The profiled functions (all but the global initializers), or only `function`; an error
/// naming the functions if there is no such one.
pub(super) fn select<'p>(
    program: &'p mir::Program,
    function: Option<&str>,
    file_name: &str,
) -> Result<Vec<&'p mir::Function>, i32> {
    let profiled: Vec<&mir::Function> = program
        .functions
        .iter_enumerated()
        .filter(|&(id, _)| id != program.init)
        .map(|(_, func)| func)
        .collect();
    match function {
        None => Ok(profiled),
        Some(name) => match profiled.iter().find(|f| f.name == name) {
            Some(&func) => Ok(vec![func]),
            None => {
                let names: Vec<&str> = profiled.iter().map(|f| f.name.as_str()).collect();
                eprintln!(
                    "error: no function `{name}` in `{file_name}`; its functions are: {}",
                    names.join(", ")
                );
                Err(EXIT_COMPILE_ERROR)
            }
        },
    }
}

/// The program's source lines, by 1-based line number.
struct Source<'a> {
    text: &'a str,
    index: LineIndex,
    lines: Vec<&'a str>,
}

impl<'a> Source<'a> {
    fn new(text: &'a str) -> Source<'a> {
        Source {
            text,
            index: LineIndex::new(text),
            lines: text.lines().collect(),
        }
    }

    fn line(&self, number: u32) -> &'a str {
        (number as usize)
            .checked_sub(1)
            .and_then(|i| self.lines.get(i))
            .copied()
            .unwrap_or("")
    }

    /// The source text of a span, shortened to its first line and at most 40 characters, with
    /// a `for` statement's span reduced to `i in lo..hi`.
    fn snippet(&self, span: Span) -> String {
        let text = self
            .text
            .get(span.lo as usize..span.hi as usize)
            .unwrap_or("");
        let first = text.lines().next().unwrap_or("").trim();
        let first = first.strip_suffix('{').unwrap_or(first).trim_end();
        // A `for` loop's condition is the range test: show `i in 0..n`.
        let first = first.strip_prefix("for ").unwrap_or(first);
        if first.chars().count() > 40 {
            let cut: String = first.chars().take(39).collect();
            format!("{cut}…")
        } else {
            first.to_string()
        }
    }
}

/// Where a path starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Start {
    /// At the function's entry block.
    Entry { block: usize, line: u32 },
    /// At a loop header, after a back edge ended the previous path.
    LoopHeader { block: usize, line: u32 },
    /// At the target of an edge cut to bound the number of paths.
    AfterCut { block: usize, line: u32 },
}

/// How a path ends. `block` is the path's last block, `line` its last source line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Ending {
    /// By `return` (the edge to EXIT).
    Return { block: usize, line: u32 },
    /// By taking the back edge `block → to_block`.
    BackEdge {
        block: usize,
        line: u32,
        to_block: usize,
        to_line: u32,
    },
    /// By taking the edge `block → to_block`, cut because the function has too many paths.
    CutEdge {
        block: usize,
        line: u32,
        to_block: usize,
        to_line: u32,
    },
    /// Inside a block that calls `exit()`.
    ExitCall { block: usize, line: u32 },
    /// Inside a block without successors that does not call `exit()`.
    DeadEnd { block: usize, line: u32 },
}

#[derive(Clone, Debug, Serialize)]
struct PathInfo {
    id: u64,
    /// Source lines in execution order, consecutive duplicates removed (as in profiles).
    lines: Vec<u32>,
    start: Start,
    end: Ending,
    /// MIR blocks in execution order.
    blocks: Vec<usize>,
    /// The source-level decisions along the path, in order: each branch condition (an operand
    /// of `&&`/`||`, an `if` or loop condition) with its outcome, each `match` with its arm.
    decisions: Vec<Decision>,
    /// For each entry of `lines`, the indices of the decisions made on it.
    #[serde(skip)]
    line_decisions: Vec<Vec<usize>>,
}

#[derive(Clone, Debug, Serialize)]
struct Decision {
    line: u32,
    /// The condition's source text (a `match`'s scrutinee).
    condition: String,
    /// `true` / `false`, or for a `match` the arm's patterns (`1 | 2`) or `_`.
    outcome: String,
}

#[derive(Clone, Debug, Serialize)]
struct CutEdge {
    from_block: usize,
    to_block: usize,
    from_line: u32,
    to_line: u32,
}

/// One function's numbering and its first paths.
struct FunctionPaths<'f> {
    func: &'f mir::Function,
    cfg_hash: String,
    fcfg: FunctionCfg,
    numbering: BallLarus,
    node_lines: Vec<Vec<u32>>,
    paths: Vec<PathInfo>,
}

impl<'f> FunctionPaths<'f> {
    fn analyze(
        program: &mir::Program,
        func: &'f mir::Function,
        source: &Source,
        limit: usize,
    ) -> Result<FunctionPaths<'f>, String> {
        let fcfg = function_cfg(func);
        let numbering = BallLarus::new(&fcfg.cfg).map_err(|e| e.to_string())?;
        let mut this = FunctionPaths {
            func,
            cfg_hash: cfg_hash(program, func),
            node_lines: node_lines(func, source.text, &source.index),
            fcfg,
            numbering,
            paths: Vec::new(),
        };
        let enumeration = this.numbering.enumerate_paths(limit);
        this.paths = enumeration
            .paths
            .iter()
            .map(|path| this.describe(path, source))
            .collect();
        Ok(this)
    }

    fn num_paths(&self) -> u64 {
        self.numbering.num_paths()
    }

    fn not_listed(&self) -> u64 {
        self.num_paths() - self.paths.len() as u64
    }

    /// First source line of a block: its first statement's, else its terminator's.
    fn first_line(&self, block: usize, index: &LineIndex) -> u32 {
        match self.node_lines[block].first() {
            Some(&line) => line,
            None => index.line(self.func.blocks[BlockId::new(block)].term.span.lo),
        }
    }

    /// Last source line of a block (a `goto` counts only when the block has nothing else).
    fn last_line(&self, block: usize, index: &LineIndex) -> u32 {
        match self.node_lines[block].last() {
            Some(&line) => line,
            None => index.line(self.func.blocks[BlockId::new(block)].term.span.lo),
        }
    }

    fn cut_edges(&self, index: &LineIndex) -> Vec<CutEdge> {
        self.numbering
            .cut_edges()
            .iter()
            .map(|&e| {
                let (from, to) = self.mir_edge(e);
                CutEdge {
                    from_block: from,
                    to_block: to,
                    from_line: self.last_line(from, index),
                    to_line: self.first_line(to, index),
                }
            })
            .collect()
    }

    /// The MIR blocks of a CFG edge that does not go to EXIT.
    fn mir_edge(&self, e: EdgeId) -> (usize, usize) {
        let (from, to) = self.fcfg.edges[e.0];
        let to = to.expect("back and cut edges stay inside the function");
        (from.index(), to.index())
    }

    fn describe(&self, path: &CfgPath, source: &Source) -> PathInfo {
        let index = &source.index;
        let exit = self.fcfg.exit();
        let blocks: Vec<usize> = path
            .nodes(&self.fcfg.cfg)
            .into_iter()
            .filter(|&v| v != exit)
            .map(|v| v.0)
            .collect();
        let first = path.start.0;
        let start_line = self.first_line(first, index);
        let start = if path.start == self.fcfg.cfg.entry() {
            Start::Entry {
                block: first,
                line: start_line,
            }
        } else if self.is_loop_header(path.start) {
            Start::LoopHeader {
                block: first,
                line: start_line,
            }
        } else {
            Start::AfterCut {
                block: first,
                line: start_line,
            }
        };
        let last = *blocks.last().expect("a path has at least its start block");
        let line = self.last_line(last, index);
        let mut after_last = None;
        let end = match path.end {
            PathEnd::Exit => Ending::Return { block: last, line },
            PathEnd::BackEdge(e) | PathEnd::Truncated(e) => {
                let (from, to) = self.mir_edge(e);
                after_last = Some(to);
                let to_line = self.first_line(to, index);
                if matches!(path.end, PathEnd::BackEdge(_)) {
                    Ending::BackEdge {
                        block: from,
                        line,
                        to_block: to,
                        to_line,
                    }
                } else {
                    Ending::CutEdge {
                        block: from,
                        line,
                        to_block: to,
                        to_line,
                    }
                }
            }
            PathEnd::DeadEnd(v) if self.calls_exit(v.0) => Ending::ExitCall { block: v.0, line },
            PathEnd::DeadEnd(v) => Ending::DeadEnd { block: v.0, line },
        };
        // The lines as profiles list them, each with the decisions made on it at that point.
        let mut lines: Vec<u32> = Vec::new();
        let mut decisions = Vec::new();
        let mut line_decisions: Vec<Vec<usize>> = Vec::new();
        let successors = blocks.iter().skip(1).map(|&b| Some(b)).chain([after_last]);
        for (&b, next) in blocks.iter().zip(successors) {
            for &l in &self.node_lines[b] {
                if lines.last() != Some(&l) {
                    lines.push(l);
                    line_decisions.push(Vec::new());
                }
            }
            if let Some(decision) = next.and_then(|next| self.decision(b, next, source))
                && let Some(attached) = line_decisions.last_mut()
            {
                attached.push(decisions.len());
                decisions.push(decision);
            }
        }
        PathInfo {
            id: path.id,
            lines,
            start,
            end,
            blocks,
            decisions,
            line_decisions,
        }
    }

    /// The decision block `b` makes by going to `next`, if its terminator decides anything.
    fn decision(&self, b: usize, next: usize, source: &Source) -> Option<Decision> {
        let (b, next) = (BlockId::new(b), BlockId::new(next));
        let term = &self.func.blocks[b].term;
        let outcome = match &term.kind {
            TerminatorKind::Branch {
                then_bb, else_bb, ..
            } if then_bb != else_bb => (next == *then_bb).to_string(),
            TerminatorKind::Switch { cases, default, .. } if term.kind.successors().len() > 1 => {
                switch_outcome(cases, *default, next)
            }
            _ => return None,
        };
        Some(Decision {
            line: source.index.line(term.span.lo),
            condition: source.snippet(term.span),
            outcome,
        })
    }

    fn is_loop_header(&self, v: NodeId) -> bool {
        let cfg = &self.fcfg.cfg;
        self.numbering
            .dag()
            .back_edges()
            .iter()
            .any(|&e| cfg.edge(e).to == v)
    }

    fn calls_exit(&self, block: usize) -> bool {
        self.func.blocks[BlockId::new(block)]
            .stmts
            .last()
            .is_some_and(|s| {
                matches!(
                    s.kind,
                    StatementKind::Call {
                        callee: Callee::Builtin(Builtin::Exit),
                        ..
                    }
                )
            })
    }
}

/// `T` / `F` for the edges out of a branch, the arm's patterns for those out of a switch.
pub(super) fn branch_label(func: &mir::Function, fcfg: &FunctionCfg, e: EdgeId) -> Option<String> {
    let (from, to) = fcfg.edges[e.0];
    let to = to?;
    match &func.blocks[from].term.kind {
        TerminatorKind::Branch {
            then_bb, else_bb, ..
        } if then_bb != else_bb => Some(if to == *then_bb { "T" } else { "F" }.to_string()),
        kind @ TerminatorKind::Switch { cases, default, .. } if kind.successors().len() > 1 => {
            Some(switch_outcome(cases, *default, to))
        }
        _ => None,
    }
}

/// The arm of a `match` that goes to `target`: its patterns (`1 | 2`), or `_` for the default.
fn switch_outcome(
    cases: &[(i64, mir::BlockId)],
    default: mir::BlockId,
    target: mir::BlockId,
) -> String {
    let values: Vec<String> = cases
        .iter()
        .filter(|&&(_, to)| to == target)
        .map(|(value, _)| value.to_string())
        .collect();
    if target == default || values.is_empty() {
        "_".to_string()
    } else {
        values.join(" | ")
    }
}

/// `[5, 6, 7, 9, 5]` → `5-7, 9, 5`: runs of consecutive ascending lines become ranges.
pub(super) fn compact_lines(lines: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let mut j = i;
        while j + 1 < lines.len() && lines[j + 1] == lines[j] + 1 {
            j += 1;
        }
        parts.push(if j == i {
            lines[i].to_string()
        } else {
            format!("{}-{}", lines[i], lines[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

fn start_text(start: &Start) -> String {
    match start {
        Start::Entry { .. } => "function entry".into(),
        Start::LoopHeader { line, .. } => format!("loop header (line {line})"),
        Start::AfterCut { line, .. } => format!("target of a cut edge (line {line})"),
    }
}

fn end_text(end: &Ending) -> String {
    match end {
        Ending::Return { line, .. } => format!("return (line {line})"),
        Ending::BackEdge { line, to_line, .. } => format!("back edge (line {line} → {to_line})"),
        Ending::CutEdge { line, to_line, .. } => format!("cut edge (line {line} → {to_line})"),
        Ending::ExitCall { line, .. } => format!("exit() call (line {line})"),
        Ending::DeadEnd { line, .. } => format!("dead end (line {line})"),
    }
}

fn paths_word(n: u64) -> &'static str {
    if n == 1 { "path" } else { "paths" }
}

fn render_text(functions: &[FunctionPaths], source: &Source) -> String {
    let mut out = String::new();
    for (i, f) in functions.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let n = f.num_paths();
        let _ = writeln!(
            out,
            "fn {}: {n} potential {} (cfg_hash {})",
            f.func.name,
            paths_word(n),
            f.cfg_hash
        );
        if f.numbering.is_truncated() {
            let cuts: Vec<String> = f
                .cut_edges(&source.index)
                .iter()
                .map(|c| {
                    format!(
                        "bb{} → bb{} (line {} → {})",
                        c.from_block, c.to_block, c.from_line, c.to_line
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "  truncated: more than 2^64 - 1 paths; these edges end a path and start a new one: {}",
                cuts.join(", ")
            );
        }
        let width = f
            .paths
            .iter()
            .flat_map(|p| p.lines.iter())
            .max()
            .map_or(1, |l| l.to_string().len());
        for path in &f.paths {
            let _ = writeln!(
                out,
                "  id {}: lines {}; starts at {}, ends at {}",
                path.id,
                compact_lines(&path.lines),
                start_text(&path.start),
                end_text(&path.end)
            );
            let texts: Vec<&str> = path.lines.iter().map(|&l| source.line(l)).collect();
            let indent = texts
                .iter()
                .filter(|t| !t.trim().is_empty())
                .map(|t| t.len() - t.trim_start().len())
                .min()
                .unwrap_or(0);
            for ((&line, text), attached) in path.lines.iter().zip(&texts).zip(&path.line_decisions)
            {
                let text = text.get(indent..).unwrap_or(text.trim_start()).trim_end();
                let _ = write!(out, "      {line:>width$} | {text}");
                if !attached.is_empty() {
                    let taken: Vec<String> = attached
                        .iter()
                        .map(|&d| {
                            let d = &path.decisions[d];
                            format!("{}: {}", d.condition, d.outcome)
                        })
                        .collect();
                    let _ = write!(out, "    [{}]", taken.join(", "));
                }
                out.push('\n');
            }
        }
        let hidden = f.not_listed();
        if hidden > 0 {
            let _ = writeln!(
                out,
                "  ... {hidden} more {} not listed (only the first {} are)",
                paths_word(hidden),
                f.paths.len()
            );
        }
    }
    out
}

#[derive(Serialize)]
struct JsonDocument<'a> {
    format: &'static str,
    program: &'a str,
    path_limit: usize,
    functions: Vec<JsonFunction<'a>>,
}

#[derive(Serialize)]
struct JsonFunction<'a> {
    name: &'a str,
    cfg_hash: &'a str,
    num_paths: u64,
    truncated: bool,
    cut_edges: Vec<CutEdge>,
    listed: usize,
    not_listed: u64,
    paths: &'a [PathInfo],
}

fn render_json(program: &str, functions: &[FunctionPaths], source: &Source) -> String {
    let document = JsonDocument {
        format: "pcc-paths",
        program,
        path_limit: PATH_LIMIT,
        functions: functions
            .iter()
            .map(|f| JsonFunction {
                name: &f.func.name,
                cfg_hash: &f.cfg_hash,
                num_paths: f.num_paths(),
                truncated: f.numbering.is_truncated(),
                cut_edges: f.cut_edges(&source.index),
                listed: f.paths.len(),
                not_listed: f.not_listed(),
                paths: &f.paths,
            })
            .collect(),
    };
    let mut text = serde_json::to_string_pretty(&document).expect("paths serialize to JSON");
    text.push('\n');
    text
}

/// A string as a Graphviz quoted string's contents (`\l`, `\n` escapes are added by callers).
fn dot_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// At most this many source lines are shown in a DAG node, each cut to `DOT_LINE_CHARS`.
const DOT_NODE_LINES: usize = 4;
const DOT_LINE_CHARS: usize = 40;

/// With a profile: each block's and DAG edge's count, edges as wide as their share, and the
/// hottest path in blue (red marks cut edges).
fn render_dot(
    program: &str,
    functions: &[FunctionPaths],
    source: &Source,
    profile: Option<&ProgramView>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", dot_escape(program));
    let _ = writeln!(
        out,
        "  label=\"Ball-Larus DAGs of {}\";",
        dot_escape(program)
    );
    out.push_str("  labelloc=t;\n");
    out.push_str("  node [shape=box, fontname=\"monospace\", fontsize=10];\n");
    out.push_str("  edge [fontname=\"monospace\", fontsize=10];\n");
    for (i, f) in functions.iter().enumerate() {
        let dag = f.numbering.dag();
        let node = |v: NodeId| format!("f{i}_n{}", v.0);
        // The profile's view of this function, when it is of this code.
        let counted = profile.and_then(|view| {
            let function = view.functions.iter().find(|g| g.name == f.func.name)?;
            let cfg: &CfgView = function.cfg.as_ref()?;
            (view.record(function).cfg_hash == f.cfg_hash).then_some((function, cfg))
        });
        let hottest: Vec<DagEdgeId> = counted
            .and_then(|(function, cfg)| Some(function.hottest_route()?.dag_edges(cfg)))
            .unwrap_or_default();
        let max_count = counted.map_or(1, |(_, cfg)| {
            dag.edges()
                .map(|(d, _)| cfg.dag_edge_count(d))
                .max()
                .unwrap_or(1)
                .max(1)
        });
        let n = f.num_paths();
        let mut title = format!("fn {}: {n} {}", f.func.name, paths_word(n));
        if f.numbering.is_truncated() {
            title.push_str(" (truncated: cut edges in red)");
        }
        let _ = writeln!(out, "  subgraph \"cluster_{i}\" {{");
        let _ = writeln!(out, "    label=\"{}\";", dot_escape(&title));
        for &v in dag.topological_order() {
            if v == dag.exit() {
                let count = counted.map_or(String::new(), |(_, cfg)| {
                    format!(" ×{}", cfg.node_counts[v.0])
                });
                let _ = writeln!(
                    out,
                    "    {} [label=\"EXIT{count}\", shape=ellipse, style=bold];",
                    node(v)
                );
                continue;
            }
            let lines = &f.node_lines[v.0];
            let mut label = String::new();
            if v == dag.entry() {
                label.push_str("ENTRY  ");
            }
            let _ = write!(label, "bb{}", v.0);
            if let Some((_, cfg)) = counted {
                let _ = write!(label, "  ×{}", cfg.node_counts[v.0]);
            }
            label.push_str("\\l");
            for &line in lines.iter().take(DOT_NODE_LINES) {
                let text = source.line(line).trim();
                let text: String = if text.chars().count() > DOT_LINE_CHARS {
                    let cut: String = text.chars().take(DOT_LINE_CHARS - 1).collect();
                    format!("{cut}…")
                } else {
                    text.to_string()
                };
                let _ = write!(label, "{line}: {}\\l", dot_escape(&text));
            }
            if lines.len() > DOT_NODE_LINES {
                let _ = write!(label, "… (lines {})\\l", compact_lines(lines));
            }
            // What the block decides, for the T/F (or `match` arm) labels on its out-edges.
            let term = &f.func.blocks[crate::profiling::block(v)].term;
            if term.kind.successors().len() > 1 {
                let what = if matches!(term.kind, TerminatorKind::Switch { .. }) {
                    "match"
                } else {
                    "test"
                };
                let _ = write!(
                    label,
                    "{what}: {}\\l",
                    dot_escape(&source.snippet(term.span))
                );
            }
            let shape = if v == dag.entry() { ", style=bold" } else { "" };
            let _ = writeln!(out, "    {} [label=\"{label}\"{shape}];", node(v));
        }
        for (d, edge) in dag.edges() {
            let increment = f.numbering.increment(d);
            let (from, to) = (node(edge.from), node(edge.to));
            let attributes = match edge.kind {
                DagEdgeKind::Real(e) => match branch_label(f.func, &f.fcfg, e) {
                    Some(outcome) => format!(
                        "label=\"{increment}\", taillabel=\"{}\", labelfontcolor=gray40",
                        dot_escape(&outcome)
                    ),
                    None => format!("label=\"{increment}\""),
                },
                DagEdgeKind::EntryDummy => format!(
                    "label=\"{increment}\", style=dotted, tooltip=\"dummy: a path starts at bb{}\"",
                    edge.to.0
                ),
                DagEdgeKind::BackExit(e) => {
                    let (v, w) = f.mir_edge(e);
                    format!(
                        "label=\"{increment}\", style=dotted, tooltip=\"dummy for back edge bb{v} → bb{w}\""
                    )
                }
                DagEdgeKind::CutExit(e) => {
                    let (v, w) = f.mir_edge(e);
                    format!(
                        "label=\"{increment} (cut)\", style=dotted, color=red, fontcolor=red, penwidth=2, tooltip=\"dummy for cut edge bb{v} → bb{w}\""
                    )
                }
                DagEdgeKind::DeadEnd => format!(
                    "label=\"{increment}\", style=dotted, tooltip=\"path ends in bb{}\"",
                    edge.from.0
                ),
            };
            let attributes = match counted {
                Some((_, cfg)) if cfg.edges_known => {
                    let count = cfg.dag_edge_count(d);
                    let width = 1.0 + 4.0 * count as f64 / max_count as f64;
                    let hot = if hottest.contains(&d) {
                        ", color=blue, fontcolor=blue"
                    } else {
                        ""
                    };
                    // The count first in the label: `count · +Val(e)`.
                    attributes.replacen("label=\"", &format!("label=\"×{count} · +"), 1)
                        + &format!(", penwidth={width:.1}{hot}")
                }
                _ => attributes,
            };
            let _ = writeln!(out, "    {from} -> {to} [{attributes}];");
        }
        // The back edges themselves, dashed as in the report's drawing (not in the DAG, so they
        // do not rank the blocks): with a profile, their counts.
        for &e in dag.back_edges() {
            let edge = f.fcfg.cfg.edge(e);
            let count = match counted {
                Some((_, cfg)) if cfg.edges_known => format!("×{}", cfg.edge_counts[e.0]),
                _ => String::new(),
            };
            let _ = writeln!(
                out,
                "    {} -> {} [label=\"{count}\", style=dashed, constraint=false, color=gray50, \
                 tooltip=\"back edge\"];",
                node(edge.from),
                node(edge.to)
            );
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}
