//! `pcc profile show`: hot paths first, each with its share of all path executions (the view of
//! [PFP] §2, where a few paths account for most of the execution).

use std::fmt::{self, Write};

use serde::Serialize;

use crate::english::plural;

use super::printable::printable;
use super::text::{SourceLines, Table, edge_lines, edge_name, line_list, percent, write_source};
use super::{KblRecord, KipfNode, Mode, ModeRecord, Profile, Storage, TppRecord};

/// One executed path in the ranking.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HotPath {
    pub function: String,
    pub id: u64,
    pub count: u64,
    /// `count` over all path executions of the profile, in `[0, 1]`.
    pub share: f64,
    pub lines: Vec<u32>,
    /// A PPP residual path (outside the interesting set).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub residual: bool,
    /// The function's path numbering was truncated: this path may start or end at a cut edge.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// A TPP obvious path: its count is its defining edge's in the edge profile ([TPP] §4.2).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub obvious: bool,
    /// Where another executed path of the function has the same lines: the branch decisions
    /// that tell them apart (`line:col condition → outcome`), when the program was at hand.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<String>,
}

/// `kbl`: a multi-iteration path in the ranking: a run of consecutive Ball-Larus paths of one
/// activation that the k-IPF does not extend (a leaf at depth ≥ 2: a sequence of k paths, or a
/// shorter one the activation ended after).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HotSequence {
    pub function: String,
    /// The path ids in execution order.
    pub ids: Vec<u64>,
    /// How many paths (loop iterations, for paths that end at a back edge) the run spans.
    pub iterations: usize,
    pub count: u64,
    /// `count` over all runs of `iterations` consecutive paths in the profile.
    pub share: f64,
    /// The ids as repeated paths (`3×10` is path 3 ten times), each with its source lines.
    pub runs: Vec<PathRun>,
}

/// `times` consecutive executions of path `id` in a [`HotSequence`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PathRun {
    pub id: u64,
    pub times: usize,
    pub lines: Vec<u32>,
}

/// One edge in the ranking of an edge profile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HotEdge {
    pub function: String,
    pub from_block: usize,
    pub to_block: usize,
    /// `to_block` is EXIT.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub to_exit: bool,
    pub from_line: u32,
    pub to_line: u32,
    pub count: u64,
    /// `count` over all edge executions of the profile.
    pub share: f64,
}

impl HotEdge {
    /// `bb3 (line 5) → bb4 (line 5)`: the block ids tell apart edges whose lines coincide.
    pub fn name(&self) -> String {
        edge_name(
            (self.from_block, self.from_line),
            (self.to_block, self.to_line),
            self.to_exit,
        )
    }
}

/// One executed block in the ranking of a block profile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HotBlock {
    pub function: String,
    pub block: usize,
    pub lines: Vec<u32>,
    pub count: u64,
    /// `count` over all block executions of the profile.
    pub share: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FunctionSummary {
    pub name: String,
    pub num_paths: u64,
    pub executed_paths: usize,
    /// Path executions in this function.
    pub count: u64,
    /// Edge executions in this function, when it has an edge profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge_count: Option<u64>,
    /// Block executions in this function, when it has a block profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_count: Option<u64>,
    pub storage: Storage,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cold_count: Option<u64>,
    /// `ppp`: how many paths are interesting, the PPP id range and its compactness.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interesting: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rho: Option<f64>,
    /// `tpp`: how many executed paths are obvious (counted from the edge profile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub obvious: Option<usize>,
    /// `tpp`: profiled like `bl`, for want of a usable edge profile.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub bl_fallback: bool,
}

/// The data of `pcc profile show`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShowReport {
    pub program: String,
    pub mode: Mode,
    pub args: Vec<String>,
    /// All path executions (the denominator of the path shares).
    pub total_count: u64,
    /// All edge executions (the denominator of the edge shares).
    pub total_edge_count: u64,
    /// Hottest first, at most the requested number.
    pub paths: Vec<HotPath>,
    /// Edge profiles only: hottest edges first, at most the requested number.
    pub edges: Vec<HotEdge>,
    /// Block profiles only: all block executions (the denominator of the block shares).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_block_count: Option<u64>,
    /// Block profiles only: the hottest executed blocks first, at most the requested number.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<HotBlock>,
    /// `kbl` profiles only: the hottest multi-iteration paths first, at most the requested
    /// number.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sequences: Vec<HotSequence>,
    /// `kbl` profiles only: how many multi-iteration paths there are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_sequences: Option<usize>,
    /// In file order: every function, or the `top` with the most executions.
    pub functions: Vec<FunctionSummary>,
    /// How many functions the profile has (more than `functions` after a `top`).
    pub num_functions: usize,
    /// Executed paths in all of them.
    pub executed_paths: usize,
    /// What the run covered (profiles with paths).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
    /// The widest the text's tables may be where their last column can wrap (the terminal's
    /// width; unbounded by default).
    #[serde(skip)]
    pub width: usize,
}

fn share(count: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        count as f64 / total as f64
    }
}

fn sum(counts: impl Iterator<Item = u64>) -> u64 {
    counts.fold(0u64, u64::saturating_add)
}

/// Ranks the executed paths (and edges) of `profile`, keeping the `top` hottest if given.
pub fn show(profile: &Profile, top: Option<usize>) -> ShowReport {
    let mut paths: Vec<HotPath> = profile
        .functions
        .iter()
        .flat_map(|f| {
            let residual = f.residual().iter().map(|p| (p, true));
            let obvious = |id| match &f.record {
                ModeRecord::Tpp(t) => t.obvious.iter().any(|o| o.id == id),
                _ => false,
            };
            f.paths
                .iter()
                .map(|p| (p, false))
                .chain(residual)
                .map(move |(p, residual)| HotPath {
                    function: f.name.clone(),
                    id: p.id,
                    count: p.count,
                    share: 0.0,
                    lines: p.lines.clone(),
                    residual,
                    truncated: f.truncated,
                    obvious: obvious(p.id),
                    decisions: Vec::new(),
                })
        })
        .collect();
    let total_count = sum(paths.iter().map(|p| p.count));
    for p in &mut paths {
        p.share = share(p.count, total_count);
    }
    // Hottest first; the sort is stable, so ties keep file order.
    paths.sort_by_key(|p| std::cmp::Reverse(p.count));
    let coverage = Coverage::of(profile, &paths, total_count);
    paths.truncate(top.unwrap_or(usize::MAX));

    let mut edges: Vec<HotEdge> = profile
        .functions
        .iter()
        .flat_map(|f| {
            f.edges().into_iter().flatten().map(|e| HotEdge {
                function: f.name.clone(),
                from_block: e.from_block,
                to_block: e.to_block,
                to_exit: Some(e.to_block) == f.num_blocks(),
                from_line: e.from_line,
                to_line: e.to_line,
                count: e.count,
                share: 0.0,
            })
        })
        .collect();
    let total_edge_count = sum(edges.iter().map(|e| e.count));
    for e in &mut edges {
        e.share = share(e.count, total_edge_count);
    }
    edges.sort_by_key(|e| std::cmp::Reverse(e.count));
    edges.truncate(top.unwrap_or(usize::MAX));

    let mut blocks: Vec<HotBlock> = profile
        .functions
        .iter()
        .flat_map(|f| {
            let executed = f.blocks().into_iter().flatten().filter(|b| b.count > 0);
            executed.map(|b| HotBlock {
                function: f.name.clone(),
                block: b.block,
                lines: b.lines.clone(),
                count: b.count,
                share: 0.0,
            })
        })
        .collect();
    let total_block_count = sum(blocks.iter().map(|b| b.count));
    for b in &mut blocks {
        b.share = share(b.count, total_block_count);
    }
    blocks.sort_by_key(|b| std::cmp::Reverse(b.count));
    blocks.truncate(top.unwrap_or(usize::MAX));

    let (sequences, num_sequences) = if profile.mode == Mode::Kbl {
        let mut sequences = hot_sequences(profile);
        let num_sequences = sequences.len();
        sequences.truncate(top.unwrap_or(usize::MAX));
        (sequences, Some(num_sequences))
    } else {
        (Vec::new(), None)
    };

    let mut functions: Vec<FunctionSummary> = profile
        .functions
        .iter()
        .map(|f| {
            let (ppp, tpp) = match &f.record {
                ModeRecord::Ppp(ppp) => (Some(ppp), None),
                ModeRecord::Tpp(tpp) => (None, Some(tpp)),
                _ => (None, None),
            };
            FunctionSummary {
                name: f.name.clone(),
                num_paths: f.num_paths,
                executed_paths: f.executed_paths().filter(|p| p.count > 0).count(),
                count: sum(f.executed_paths().map(|p| p.count)),
                edge_count: f.edges().map(|e| sum(e.iter().map(|e| e.count))),
                block_count: f.blocks().map(|b| sum(b.iter().map(|b| b.count))),
                storage: f.storage,
                truncated: f.truncated,
                cold_count: tpp.map(|t| t.cold_count),
                interesting: ppp.map(|p| p.interesting.len()),
                range: ppp.map(|p| p.range),
                rho: ppp.and_then(|p| p.rho),
                obvious: tpp.map(|t| t.obvious.len()),
                bl_fallback: tpp.is_some_and(TppRecord::bl_fallback),
            }
        })
        .collect();
    let num_functions = functions.len();
    let executed_paths = functions.iter().map(|f| f.executed_paths).sum();
    if let Some(top) = top.filter(|&top| top < num_functions) {
        // The `top` functions with the most executions (ties: the first in the file), kept in
        // file order.
        let executions =
            |f: &FunctionSummary| f.count + f.edge_count.unwrap_or(0) + f.block_count.unwrap_or(0);
        let mut ranked: Vec<usize> = (0..num_functions).collect();
        ranked.sort_by_key(|&i| std::cmp::Reverse(executions(&functions[i])));
        let mut kept = vec![false; num_functions];
        for &i in &ranked[..top] {
            kept[i] = true;
        }
        let mut i = 0;
        functions.retain(|_| {
            i += 1;
            kept[i - 1]
        });
    }

    ShowReport {
        program: profile.program.clone(),
        mode: profile.mode,
        args: profile.args.clone(),
        total_count,
        total_edge_count,
        paths,
        edges,
        total_block_count: (profile.mode == Mode::Block).then_some(total_block_count),
        blocks,
        sequences,
        num_sequences,
        functions,
        num_functions,
        executed_paths,
        coverage,
        width: usize::MAX,
    }
}

/// How much of the program the profiled run covered, and how concentrated its path executions
/// are: the two numbers a reader of a path profile asks first.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Coverage {
    /// Paths that ran at least once.
    pub executed_paths: u64,
    /// Acyclic paths the profiled functions have (their Ball-Larus counts, summed; saturates
    /// at 2^64 − 1); only for the modes that number paths that way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub potential_paths: Option<u64>,
    /// For 50, 90 and 99 percent: the fewest paths, hottest first, whose executions reach
    /// that share of all path executions.
    pub hottest_covering: Vec<Covering>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Covering {
    pub percent: u32,
    pub paths: u64,
}

impl Coverage {
    /// The coverage of `profile`, whose executed `paths` sorted hottest first sum to `total`;
    /// `None` when no path ran (edge and block profiles among them).
    fn of(profile: &Profile, paths: &[HotPath], total: u64) -> Option<Coverage> {
        if total == 0 {
            return None;
        }
        let executed: Vec<u64> = paths.iter().map(|p| p.count).filter(|&c| c > 0).collect();
        let hottest_covering = [50, 90, 99]
            .into_iter()
            .map(|percent| {
                // The hottest paths whose sum reaches percent/100 of total, in integers.
                let goal = u128::from(total) * u128::from(percent);
                let mut sum: u128 = 0;
                let needed = executed.iter().take_while(|&&count| {
                    let short = sum * 100 < goal;
                    sum += u128::from(count);
                    short
                });
                Covering {
                    percent,
                    paths: needed.count() as u64,
                }
            })
            .collect();
        let potential_paths = profile.mode.lists_ball_larus_paths().then(|| {
            (profile.functions.iter()).fold(0u64, |all, f| all.saturating_add(f.num_paths))
        });
        Some(Coverage {
            executed_paths: executed.len() as u64,
            potential_paths,
            hottest_covering,
        })
    }

    /// The text line: `coverage: 5 of 8 potential paths ran (62.50%); the hottest 1 covers 50%
    /// of path executions, 3 cover 90%, 4 cover 99%`.
    fn line(&self) -> String {
        let ran = match self.potential_paths {
            Some(potential) => format!(
                "{} of {} ran ({})",
                self.executed_paths,
                plural(potential, "potential path"),
                percent_of(self.executed_paths, potential)
            ),
            None => format!("{} ran", plural(self.executed_paths, "path")),
        };
        let covering: Vec<String> = (self.hottest_covering.iter().enumerate())
            .map(|(i, c)| {
                let verb = if c.paths == 1 { "covers" } else { "cover" };
                let of = if i == 0 { " of path executions" } else { "" };
                let hottest = if i == 0 { "the hottest " } else { "" };
                format!("{hottest}{} {verb} {}%{of}", c.paths, c.percent)
            })
            .collect();
        format!("coverage: {ran}; {}", covering.join(", "))
    }
}

/// `part` as a percentage of `whole` as the views write shares, or in scientific notation when
/// that would round a non-zero part to 0 (a function with 2^40 potential paths).
fn percent_of(part: u64, whole: u64) -> String {
    let share = part as f64 / whole as f64;
    if share == 0.0 || share >= 1e-4 {
        percent(share)
    } else {
        format!("{:.1e}%", 100.0 * share)
    }
}

/// The multi-iteration paths of a `kbl` profile (the leaves at depth ≥ 2 of each function's
/// k-IPF), hottest first, ties in file order.
fn hot_sequences(profile: &Profile) -> Vec<HotSequence> {
    fn leaves(nodes: &[KipfNode], prefix: &mut Vec<u64>, out: &mut Vec<(Vec<u64>, u64)>) {
        for node in nodes {
            prefix.push(node.id);
            if node.children.is_empty() && prefix.len() >= 2 {
                out.push((prefix.clone(), node.count));
            }
            leaves(&node.children, prefix, out);
            prefix.pop();
        }
    }
    /// Counts of all runs of each length (the k-IPF's level sums), over every function.
    fn level_sums(nodes: &[KipfNode], depth: usize, sums: &mut Vec<u64>) {
        for node in nodes {
            if sums.len() <= depth {
                sums.resize(depth + 1, 0);
            }
            sums[depth] = sums[depth].saturating_add(node.count);
            level_sums(&node.children, depth + 1, sums);
        }
    }
    let mut sums = Vec::new();
    let mut sequences = Vec::new();
    for f in &profile.functions {
        let ModeRecord::Kbl(KblRecord { kipf }) = &f.record else {
            continue;
        };
        level_sums(kipf, 0, &mut sums);
        let mut found = Vec::new();
        leaves(kipf, &mut Vec::new(), &mut found);
        let lines_of = |id: u64| {
            f.paths
                .iter()
                .find(|p| p.id == id)
                .map_or_else(Vec::new, |p| p.lines.clone())
        };
        sequences.extend(found.into_iter().map(|(ids, count)| {
            let mut runs: Vec<PathRun> = Vec::new();
            for &id in &ids {
                match runs.last_mut() {
                    Some(run) if run.id == id => run.times += 1,
                    _ => runs.push(PathRun {
                        id,
                        times: 1,
                        lines: lines_of(id),
                    }),
                }
            }
            HotSequence {
                function: f.name.clone(),
                iterations: ids.len(),
                ids,
                count,
                share: 0.0,
                runs,
            }
        }));
    }
    for s in &mut sequences {
        s.share = share(s.count, sums[s.iterations - 1]);
    }
    sequences.sort_by_key(|s| std::cmp::Reverse(s.count));
    sequences
}

impl ShowReport {
    /// The text report. `source_line(n)` gives the text of source line `n`, shown under each
    /// path and edge; return `None` to show line numbers only.
    pub fn render_text(&self, source_line: SourceLines) -> String {
        let mut out = String::new();
        self.write_text(&mut out, source_line)
            .expect("writing to a String cannot fail");
        out
    }

    fn write_text(&self, out: &mut String, source_line: SourceLines) -> fmt::Result {
        let args = if self.args.is_empty() {
            String::new()
        } else {
            format!(" (args: {})", printable(&self.args.join(" ")))
        };
        let executions = if self.mode == Mode::Edge {
            plural(self.total_edge_count, "edge execution")
        } else if let Some(total) = self.total_block_count {
            plural(total, "block execution")
        } else {
            plural(self.total_count, "path execution")
        };
        writeln!(
            out,
            "{} profile of {}{args}: {executions} in {}",
            self.mode,
            printable(&self.program),
            plural(self.num_functions as u64, "function")
        )?;
        if let Some(coverage) = &self.coverage {
            writeln!(out, "{}", coverage.line())?;
        }
        self.write_paths(out, source_line)?;
        self.write_sequences(out, source_line)?;
        self.write_edges(out, source_line)?;
        self.write_blocks(out, source_line)?;
        self.write_functions(out)
    }

    /// Width of the widest line number the report shows, to align the source excerpts.
    fn line_width(&self) -> usize {
        let paths = self.paths.iter().flat_map(|p| p.lines.iter().copied());
        let edges = self.edges.iter().flat_map(|e| [e.from_line, e.to_line]);
        let blocks = self.blocks.iter().flat_map(|b| b.lines.iter().copied());
        let runs = self.sequences.iter().flat_map(|s| &s.runs);
        let sequences = runs.flat_map(|r| r.lines.iter().copied());
        paths
            .chain(edges)
            .chain(blocks)
            .chain(sequences)
            .max()
            .unwrap_or(0)
            .to_string()
            .len()
    }

    fn write_paths(&self, out: &mut String, source_line: SourceLines) -> fmt::Result {
        let executed = self.executed_paths;
        if executed == 0 {
            return Ok(());
        }
        let shown = if self.paths.len() < executed {
            format!(
                "the {} hottest of {executed} executed paths",
                self.paths.len()
            )
        } else {
            format!("all {executed} executed paths")
        };
        writeln!(
            out,
            "\n{shown}, hottest first; share = count / all {} path executions in the profile",
            self.total_count
        )?;
        // A column for flags only when some path has one.
        let flagged = self
            .paths
            .iter()
            .any(|p| p.residual || p.truncated || p.obvious);
        let mut columns = vec![
            ("#", true),
            ("share", true),
            ("count", true),
            ("function", false),
            ("path", true),
        ];
        if flagged {
            columns.push(("kind", false));
        }
        columns.push(("lines", false));
        let mut table = Table::new(&columns).within(self.width);
        for (rank, p) in self.paths.iter().enumerate() {
            let mut row = vec![
                (rank + 1).to_string(),
                percent(p.share),
                p.count.to_string(),
                p.function.clone(),
                p.id.to_string(),
            ];
            if flagged {
                let flags = [
                    (p.residual, "residual"),
                    (p.truncated, "truncated"),
                    (p.obvious, "obvious"),
                ];
                let flags: Vec<&str> = flags.iter().filter(|f| f.0).map(|f| f.1).collect();
                row.push(flags.join(","));
            }
            row.push(line_list(&p.lines));
            table.push(row);
        }
        let width = self.line_width();
        let rows = table.rows(2);
        writeln!(out, "{}", rows[0])?;
        for (row, p) in rows[1..].iter().zip(&self.paths) {
            writeln!(out, "{row}")?;
            write_source(out, 6, width, &p.lines, source_line)?;
            if !p.decisions.is_empty() {
                writeln!(
                    out,
                    "      decisions: {}",
                    printable(&p.decisions.join(", "))
                )?;
            }
        }
        if self.paths.iter().any(|p| p.obvious) {
            writeln!(
                out,
                "  (obvious: a tpp path with an edge no other path takes, so it was not \
                 instrumented; its count is that edge's count in the edge profile)"
            )?;
        }
        if self.paths.iter().any(|p| p.truncated) {
            writeln!(
                out,
                "  (truncated: the function's path numbering was cut at dummy edges to keep ids \
                 within 64 bits, so its paths may start or end at a cut edge)"
            )?;
        }
        Ok(())
    }

    fn write_sequences(&self, out: &mut String, source_line: SourceLines) -> fmt::Result {
        let Some(total) = self.num_sequences.filter(|&n| n > 0) else {
            return Ok(());
        };
        let shown = if self.sequences.len() < total {
            format!(
                "the {} hottest of {total} multi-iteration paths",
                self.sequences.len()
            )
        } else {
            format!("all {total} multi-iteration paths")
        };
        writeln!(
            out,
            "\n{shown} (runs of consecutive paths of one activation, as long as the k-IPF \
             keeps them), hottest first; share = count / all runs of as many paths in the \
             profile; `3×10` = path 3 ten times in a row"
        )?;
        let mut table = Table::new(&[
            ("#", true),
            ("share", true),
            ("count", true),
            ("function", false),
            ("iterations", true),
            ("paths", false),
        ])
        .within(self.width);
        for (rank, s) in self.sequences.iter().enumerate() {
            let runs: Vec<String> = s
                .runs
                .iter()
                .map(|r| match r.times {
                    1 => r.id.to_string(),
                    n => format!("{}×{n}", r.id),
                })
                .collect();
            table.push(vec![
                (rank + 1).to_string(),
                percent(s.share),
                s.count.to_string(),
                s.function.clone(),
                s.iterations.to_string(),
                runs.join(" "),
            ]);
        }
        let width = self.line_width();
        let rows = table.rows(2);
        writeln!(out, "{}", rows[0])?;
        for (row, s) in rows[1..].iter().zip(&self.sequences) {
            writeln!(out, "{row}")?;
            for run in &s.runs {
                writeln!(
                    out,
                    "      path {}{}: lines {}",
                    run.id,
                    match run.times {
                        1 => String::new(),
                        n => format!(" ×{n}"),
                    },
                    line_list(&run.lines)
                )?;
                write_source(out, 8, width, &run.lines, source_line)?;
            }
        }
        Ok(())
    }

    fn write_edges(&self, out: &mut String, source_line: SourceLines) -> fmt::Result {
        if self.edges.is_empty() {
            return Ok(());
        }
        writeln!(
            out,
            "\nhottest edges; share = count / all {} edge executions in the profile",
            self.total_edge_count
        )?;
        let mut table = Table::new(&[
            ("#", true),
            ("share", true),
            ("count", true),
            ("function", false),
            ("edge (from block → to block)", false),
        ])
        .within(self.width);
        for (rank, e) in self.edges.iter().enumerate() {
            table.push(vec![
                (rank + 1).to_string(),
                percent(e.share),
                e.count.to_string(),
                e.function.clone(),
                e.name(),
            ]);
        }
        let width = self.line_width();
        let rows = table.rows(2);
        writeln!(out, "{}", rows[0])?;
        for (row, e) in rows[1..].iter().zip(&self.edges) {
            writeln!(out, "{row}")?;
            write_source(
                out,
                6,
                width,
                &edge_lines(e.from_line, e.to_line),
                source_line,
            )?;
        }
        Ok(())
    }

    fn write_blocks(&self, out: &mut String, source_line: SourceLines) -> fmt::Result {
        let Some(total) = self.total_block_count.filter(|_| !self.blocks.is_empty()) else {
            return Ok(());
        };
        writeln!(
            out,
            "\nhottest blocks (a counter on every basic block: the naive placement [BL94] \
             improves on); share = count / all {total} block executions in the profile"
        )?;
        let mut table = Table::new(&[
            ("#", true),
            ("share", true),
            ("count", true),
            ("function", false),
            ("block", false),
            ("lines", false),
        ])
        .within(self.width);
        for (rank, b) in self.blocks.iter().enumerate() {
            table.push(vec![
                (rank + 1).to_string(),
                percent(b.share),
                b.count.to_string(),
                b.function.clone(),
                format!("bb{}", b.block),
                line_list(&b.lines),
            ]);
        }
        let width = self.line_width();
        let rows = table.rows(2);
        writeln!(out, "{}", rows[0])?;
        for (row, b) in rows[1..].iter().zip(&self.blocks) {
            writeln!(out, "{row}")?;
            write_source(out, 6, width, &b.lines, source_line)?;
        }
        Ok(())
    }

    fn write_functions(&self, out: &mut String) -> fmt::Result {
        let paths = !matches!(self.mode, Mode::Edge | Mode::Block);
        let edges = self.functions.iter().any(|f| f.edge_count.is_some());
        let blocks = self.functions.iter().any(|f| f.block_count.is_some());
        let mut columns = vec![("function", false)];
        if paths {
            columns.extend([("paths", true), ("ran", true), ("executions", true)]);
        }
        if edges {
            columns.push(("edge executions", true));
        }
        if blocks {
            columns.push(("block executions", true));
        }
        if paths {
            columns.push(("storage", false));
        }
        columns.push(("notes", false));
        let mut table = Table::new(&columns).within(self.width);
        for f in &self.functions {
            let mut row = vec![f.name.clone()];
            if paths {
                row.extend([
                    f.num_paths.to_string(),
                    f.executed_paths.to_string(),
                    f.count.to_string(),
                ]);
            }
            if edges {
                row.push(f.edge_count.map_or(String::new(), |c| c.to_string()));
            }
            if blocks {
                row.push(f.block_count.map_or(String::new(), |c| c.to_string()));
            }
            if paths {
                row.push(
                    match f.storage {
                        Storage::Array => "array",
                        Storage::Hash => "hash table",
                        Storage::None => "none",
                    }
                    .to_string(),
                );
            }
            row.push(f.notes().join(", "));
            table.push(row);
        }
        if paths {
            writeln!(
                out,
                "\nfunctions (paths: potential ones, ran: executed ones):"
            )?;
        } else {
            writeln!(out, "\nfunctions:")?;
        }
        for row in table.rows(2) {
            writeln!(out, "{row}")?;
        }
        let left_out = self.num_functions - self.functions.len();
        if left_out > 0 {
            writeln!(
                out,
                "  ({} with fewer executions not shown)",
                plural(left_out as u64, "function")
            )?;
        }
        Ok(())
    }
}

impl FunctionSummary {
    /// The mode-specific facts worth a remark.
    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.truncated {
            notes.push("truncated path numbering".to_string());
        }
        if let Some(cold) = self.cold_count {
            notes.push(plural(cold, "cold path execution"));
        }
        if let Some(n) = self.obvious.filter(|&n| n > 0) {
            notes.push(plural(n as u64, "obvious path"));
        }
        if self.bl_fallback {
            notes.push("no usable edge profile: profiled like bl".to_string());
        }
        if let Some(n) = self.interesting {
            notes.push(format!("{n} interesting paths"));
        }
        if let Some(range) = self.range {
            notes.push(format!("PPP range {range}"));
        }
        if let Some(rho) = self.rho {
            notes.push(format!("rho {rho:.2}"));
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::super::{EdgeCount, EdgeRecord, FunctionProfile, PathCount, SourceFile};
    use super::*;

    fn profile() -> Profile {
        let mut profile = Profile::new(Mode::Bl, SourceFile::new("add.pl", b""), vec!["4".into()]);
        let mut f = FunctionProfile::new("add_even", "h", 6, Storage::Array, ModeRecord::Bl);
        let path = |id, count, lines: &[u32]| PathCount {
            id,
            count,
            lines: lines.to_vec(),
        };
        f.paths = vec![
            path(0, 2, &[4, 5, 6]),
            path(1, 2, &[4, 6]),
            path(2, 1, &[4, 8]),
            path(4, 1, &[2, 3, 4, 6]),
        ];
        let mut main = FunctionProfile::new("main", "g", 1, Storage::Array, ModeRecord::Bl);
        main.paths = vec![path(0, 4, &[10, 11])];
        profile.functions = vec![f, main];
        profile
    }

    #[test]
    fn ranks_paths_by_count_with_shares() {
        let report = show(&profile(), Some(3));
        assert_eq!(report.total_count, 10);
        let ranked: Vec<(&str, u64)> = report
            .paths
            .iter()
            .map(|p| (p.function.as_str(), p.id))
            .collect();
        assert_eq!(ranked, vec![("main", 0), ("add_even", 0), ("add_even", 1)]);
        assert!((report.paths[0].share - 0.4).abs() < 1e-12);
        assert_eq!(report.functions[0].executed_paths, 4);
        assert_eq!(report.functions[0].count, 6);
    }

    #[test]
    fn text_aligns_paths_with_their_source_lines() {
        let report = show(&profile(), Some(2));
        let text = report.render_text(&|n| match n {
            10 => Some("    print(add_even(4));".to_string()),
            11 => Some("    return;".to_string()),
            _ => None,
        });
        let expected = "\
bl profile of add.pl (args: 4): 10 path executions in 2 functions
coverage: 5 of 7 potential paths ran (71.43%); the hottest 2 cover 50% of path executions, 4 cover 90%, 5 cover 99%

the 2 hottest of 5 executed paths, hottest first; share = count / all 10 path executions in the profile
  #   share  count  function  path  lines
  1  40.00%      4  main         0  10 11
      10 | print(add_even(4));
      11 | return;
  2  20.00%      2  add_even     0  4 5 6

functions (paths: potential ones, ran: executed ones):
  function  paths  ran  executions  storage  notes
  add_even      6    4           6  array
  main          1    1           4  array
";
        assert_eq!(text, expected);
    }

    /// Counts 4, 2, 2, 1, 1 of 10: two paths reach half the executions, four 90%, all five
    /// 99%; the two functions have 6 + 1 potential paths. `--top` does not change it.
    #[test]
    fn coverage_counts_the_hottest_paths_that_reach_each_share() {
        let coverage = show(&profile(), Some(1)).coverage.unwrap();
        assert_eq!(coverage.executed_paths, 5);
        assert_eq!(coverage.potential_paths, Some(7));
        let covering: Vec<(u32, u64)> = (coverage.hottest_covering.iter())
            .map(|c| (c.percent, c.paths))
            .collect();
        assert_eq!(covering, vec![(50, 2), (90, 4), (99, 5)]);
        let mut edge = profile();
        edge.mode = Mode::Tpp;
        let tpp = show(&edge, None).coverage.unwrap();
        assert_eq!(
            tpp.potential_paths, None,
            "tpp's ids are not Ball-Larus paths"
        );
        for f in &mut edge.functions {
            f.paths.clear();
        }
        assert_eq!(show(&edge, None).coverage, None);
        assert_eq!(percent_of(1, 1 << 40), "9.1e-11%");
        assert_eq!(percent_of(5, 7), "71.43%");
    }

    /// The 4-IPF of [KBLPP]'s worked example (`6,2,0,0,2,2,0,0,2,2,0,0,2,3`), cut to depth 3:
    /// the multi-iteration paths are its leaves at depth ≥ 2, with shares per length.
    #[test]
    fn kbl_profiles_rank_multi_iteration_paths() {
        let node = |id, count, children| KipfNode {
            id,
            count,
            children,
        };
        let leaf = |id, count| node(id, count, Vec::new());
        let mut p = profile();
        p.mode = Mode::Kbl;
        let kipf = vec![
            node(
                0,
                6,
                vec![
                    node(0, 3, vec![leaf(2, 3)]),
                    node(2, 3, vec![leaf(2, 2), leaf(3, 1)]),
                ],
            ),
            node(
                2,
                6,
                vec![
                    node(0, 3, vec![leaf(0, 3)]),
                    node(2, 2, vec![leaf(0, 2)]),
                    leaf(3, 1),
                ],
            ),
            leaf(3, 1),
            node(6, 1, vec![node(2, 1, vec![leaf(0, 1)])]),
        ];
        p.functions[0].record = ModeRecord::Kbl(KblRecord { kipf });
        let report = show(&p, Some(3));
        assert_eq!(report.num_sequences, Some(7));
        let top: Vec<(&[u64], u64)> = report
            .sequences
            .iter()
            .map(|s| (&s.ids[..], s.count))
            .collect();
        assert_eq!(
            top,
            [
                (&[0, 0, 2][..], 3),
                (&[2, 0, 0][..], 3),
                (&[0, 2, 2][..], 2)
            ]
        );
        // 12 runs of three paths in all.
        assert!((report.sequences[0].share - 0.25).abs() < 1e-12);
        let runs: Vec<(u64, usize)> = report.sequences[0]
            .runs
            .iter()
            .map(|r| (r.id, r.times))
            .collect();
        assert_eq!(runs, [(0, 2), (2, 1)]);
        assert_eq!(report.sequences[0].runs[1].lines, [4, 8]);
        let text = report.render_text(&|_| None);
        assert!(text.contains("the 3 hottest of 7 multi-iteration paths"));
        assert!(text.contains("  1  25.00%      3  add_even           3  0×2 2\n      path 0 ×2: lines 4 5 6\n      path 2: lines 4 8\n"), "{text}");
        // Other modes have no such section.
        assert_eq!(show(&profile(), None).num_sequences, None);
    }

    /// A profile is untrusted: its arguments and program path are escaped, and a function name
    /// of 70,000 characters (the compiler takes it) is cut in the tables, not a panic.
    #[test]
    fn text_escapes_what_the_profile_says_and_cuts_long_names() {
        let mut p = profile();
        p.program = "a\u{1b}[2J.pl".into();
        p.args = vec!["\u{1b}]0;PWNED\u{7}3".into(), "x\ny".into()];
        let long = "f".repeat(70_000);
        p.functions[1].name = long.clone();
        let text = show(&p, None).render_text(&|_| None);
        assert!(
            text.starts_with("bl profile of a\\e[2J.pl (args: \\e]0;PWNED\\x073 x\\ny): "),
            "{text}"
        );
        let cut = format!("{}…", "f".repeat(super::super::text::MAX_COLUMN - 1));
        assert!(text.contains(&format!("  1  40.00%      4  {cut}     0  10 11\n")));
        assert!(!text.contains(&long));
        assert_eq!(
            show(&p, None).paths[0].function,
            long,
            "the data keeps the name"
        );
    }

    #[test]
    fn edge_profiles_rank_edges_and_flags_show() {
        let mut p = profile();
        p.mode = Mode::Edge;
        for f in &mut p.functions {
            f.paths.clear();
        }
        let edges = vec![
            EdgeCount {
                from_block: 0,
                to_block: 1,
                from_line: 4,
                to_line: 5,
                count: 3,
            },
            EdgeCount {
                from_block: 1,
                to_block: 2,
                from_line: 8,
                to_line: 9,
                count: 9,
            },
        ];
        p.functions[0].record = ModeRecord::Edge(EdgeRecord {
            num_blocks: 2,
            edges,
            unfinished: 0,
        });
        p.functions[1].truncated = true;
        let report = show(&p, None);
        assert_eq!(report.total_edge_count, 12);
        assert!(report.edges[0].to_exit);
        assert!((report.edges[0].share - 0.75).abs() < 1e-12);
        let text = report.render_text(&|_| None);
        assert!(
            text.starts_with("edge profile of add.pl (args: 4): 12 edge executions in 2 functions")
        );
        assert!(text.contains("  1  75.00%      9  add_even  bb1 (line 8) → exit (line 9)\n"));
        assert!(text.contains("\n  main                       truncated path numbering\n"));
        assert!(
            !text.contains("potential paths"),
            "no path columns for edge profiles"
        );

        let mut bl = profile();
        bl.functions[1].truncated = true;
        let text = show(&bl, Some(1)).render_text(&|_| None);
        assert!(text.contains("  1  40.00%      4  main         0  truncated  10 11"));
        assert!(text.contains("(truncated: "));
    }
}
