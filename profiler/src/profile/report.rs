//! `pcc profile show`: hot paths first, each with its share of all path executions (the view of
//! 004 §2, where a few paths account for most of the execution).

use std::fmt::{self, Write};

use serde::Serialize;

use super::{Mode, Profile, Storage};

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
}

/// One edge in the ranking of an edge profile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HotEdge {
    pub function: String,
    pub from_line: u32,
    pub to_line: u32,
    pub count: u64,
    /// `count` over all edge executions of the profile.
    pub share: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FunctionSummary {
    pub name: String,
    pub num_paths: u64,
    pub executed_paths: usize,
    /// Path executions in this function.
    pub count: u64,
    pub storage: Storage,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cold_count: Option<u64>,
}

/// The data of `pcc profile show`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShowReport {
    pub program: String,
    pub mode: Mode,
    pub args: Vec<String>,
    /// All path executions (the denominator of the path shares).
    pub total_count: u64,
    /// Hottest first, at most the requested number.
    pub paths: Vec<HotPath>,
    /// Edge profiles only: hottest edges first, at most the requested number.
    pub edges: Vec<HotEdge>,
    pub functions: Vec<FunctionSummary>,
}

fn share(count: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        count as f64 / total as f64
    }
}

/// Ranks the executed paths (and edges) of `profile`, keeping the `top` hottest if given.
pub fn show(profile: &Profile, top: Option<usize>) -> ShowReport {
    let mut paths: Vec<HotPath> = profile
        .functions
        .iter()
        .flat_map(|f| {
            let residual = f.residual.iter().flatten().map(|p| (p, true));
            f.paths
                .iter()
                .map(|p| (p, false))
                .chain(residual)
                .map(|(p, residual)| HotPath {
                    function: f.name.clone(),
                    id: p.id,
                    count: p.count,
                    share: 0.0,
                    lines: p.lines.clone(),
                    residual,
                })
        })
        .collect();
    let total_count = paths
        .iter()
        .fold(0u64, |sum, p| sum.saturating_add(p.count));
    for p in &mut paths {
        p.share = share(p.count, total_count);
    }
    // Hottest first; the sort is stable, so ties keep file order.
    paths.sort_by_key(|p| std::cmp::Reverse(p.count));
    paths.truncate(top.unwrap_or(usize::MAX));

    let mut edges: Vec<HotEdge> = profile
        .functions
        .iter()
        .flat_map(|f| {
            f.edges.iter().flatten().map(|e| HotEdge {
                function: f.name.clone(),
                from_line: e.from_line,
                to_line: e.to_line,
                count: e.count,
                share: 0.0,
            })
        })
        .collect();
    let total_edges = edges
        .iter()
        .fold(0u64, |sum, e| sum.saturating_add(e.count));
    for e in &mut edges {
        e.share = share(e.count, total_edges);
    }
    edges.sort_by_key(|e| std::cmp::Reverse(e.count));
    edges.truncate(top.unwrap_or(usize::MAX));

    let functions = profile
        .functions
        .iter()
        .map(|f| {
            let all = f.paths.iter().chain(f.residual.iter().flatten());
            FunctionSummary {
                name: f.name.clone(),
                num_paths: f.num_paths,
                executed_paths: all.clone().filter(|p| p.count > 0).count(),
                count: all.fold(0u64, |sum, p| sum.saturating_add(p.count)),
                storage: f.storage,
                truncated: f.truncated,
                cold_count: f.cold_count,
            }
        })
        .collect();

    ShowReport {
        program: profile.program.clone(),
        mode: profile.mode,
        args: profile.args.clone(),
        total_count,
        paths,
        edges,
        functions,
    }
}

impl ShowReport {
    /// The text report. `source_line(n)` gives the text of source line `n`, shown under each
    /// path; return `None` to show line numbers only.
    pub fn render_text(&self, source_line: &dyn Fn(u32) -> Option<String>) -> String {
        let mut out = String::new();
        self.write_text(&mut out, source_line)
            .expect("writing to a String cannot fail");
        out
    }

    fn write_text(
        &self,
        out: &mut String,
        source_line: &dyn Fn(u32) -> Option<String>,
    ) -> fmt::Result {
        let args = if self.args.is_empty() {
            String::new()
        } else {
            format!(" (args: {})", self.args.join(" "))
        };
        writeln!(
            out,
            "{} profile of {}{args}: {} path executions in {} functions",
            self.mode,
            self.program,
            self.total_count,
            self.functions.len()
        )?;
        if !self.paths.is_empty() {
            writeln!(out, "\nhottest paths:")?;
        }
        for (rank, p) in self.paths.iter().enumerate() {
            let lines: Vec<String> = p.lines.iter().map(u32::to_string).collect();
            writeln!(
                out,
                "{:>4}. {:>6.2}% {:>10}  {}  path {}{}  lines {}",
                rank + 1,
                100.0 * p.share,
                p.count,
                p.function,
                p.id,
                if p.residual { " (residual)" } else { "" },
                lines.join(" ")
            )?;
            for &line in &p.lines {
                if let Some(text) = source_line(line) {
                    writeln!(out, "{:>12} | {}", line, text.trim_end())?;
                }
            }
        }
        if !self.edges.is_empty() {
            writeln!(out, "\nhottest edges:")?;
        }
        for (rank, e) in self.edges.iter().enumerate() {
            writeln!(
                out,
                "{:>4}. {:>6.2}% {:>10}  {}  line {} → {}",
                rank + 1,
                100.0 * e.share,
                e.count,
                e.function,
                e.from_line,
                e.to_line
            )?;
        }
        writeln!(out, "\nfunctions:")?;
        for f in &self.functions {
            write!(
                out,
                "  {}: {} potential paths ({}), {} executed, {} executions",
                f.name,
                f.num_paths,
                match f.storage {
                    Storage::Array => "array",
                    Storage::Hash => "hash table",
                },
                f.executed_paths,
                f.count
            )?;
            if f.truncated {
                write!(out, ", truncated")?;
            }
            if let Some(cold) = f.cold_count {
                write!(out, ", {cold} cold")?;
            }
            writeln!(out)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FunctionProfile, PathCount};
    use super::*;

    fn profile() -> Profile {
        let mut profile = Profile::new(Mode::Bl, "add.pl", vec!["4".into()]);
        let mut f = FunctionProfile::new("add_even", "h", 6, Storage::Array);
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
        let mut main = FunctionProfile::new("main", "g", 1, Storage::Array);
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
    fn text_shows_source_lines() {
        let report = show(&profile(), Some(1));
        let text = report.render_text(&|n| (n == 10).then(|| "print(add_even(4))".to_string()));
        assert!(text.contains("bl profile of add.pl (args: 4): 10 path executions in 2 functions"));
        assert!(text.contains("40.00%"));
        assert!(text.contains("10 | print(add_even(4))"));
        assert!(text.contains("add_even: 6 potential paths (array), 4 executed, 6 executions"));
    }
}
