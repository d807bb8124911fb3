//! `pcc profile show|merge|diff`: the command-line face of `pcc_profiler::profile`. A report is the
//! command's result, so it goes to stdout; errors, warnings and notes go to stderr. Every input
//! profile is validated when read, and a bad one ends the command with `error: FILE: WHAT` and
//! status 1.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use pcc_profiler::profile::{
    self, FunctionComparison, HotPath, Kinship, Profile, ShowReport, SourceState, SpectraDiff,
    printable, printable_path,
};

use super::print_json;
use crate::profile_view::input::{load, load_with_source};
use crate::profile_view::{PathKind, ProgramView};
use serde::Serialize;

/// `pcc profile show`: the hottest paths (and edges) first, with their source text.
pub fn show(path: &Path, top: Option<usize>, json: bool) -> i32 {
    let Some((profile, state)) = load_with_source(path) else {
        return 1;
    };
    // A wpp profile: its paths are the Ball-Larus paths rejoined from the trace; the trace itself
    // is summed up first.
    let wpp = match profile.mode {
        profile::Mode::Wpp => match super::wpp::section(&profile, path) {
            Some(section) => Some(section),
            None => return 1,
        },
        _ => None,
    };
    let mut report = profile::show(&profile, top);
    report.width = crate::terminal::width();
    if matches!(state, SourceState::Unchanged(..)) {
        add_decisions(&mut report, &profile, path);
    }
    let shown = report
        .paths
        .iter()
        .flat_map(|p| p.lines.iter().copied())
        .chain(report.edges.iter().flat_map(|e| [e.from_line, e.to_line]))
        .chain(report.blocks.iter().flat_map(|b| b.lines.iter().copied()));
    let source = Source::find([state], shown);
    if json {
        #[derive(Serialize)]
        struct WppJson {
            trace_length: u64,
            distinct_paths: usize,
            grammar_size: u64,
            rules: usize,
            compression: f64,
        }
        #[derive(Serialize)]
        struct ShowJson<'a> {
            profile: String,
            #[serde(flatten)]
            report: &'a ShowReport,
            #[serde(skip_serializing_if = "Option::is_none")]
            wpp: Option<WppJson>,
            source: Option<SourceJson>,
        }
        print_json(&ShowJson {
            profile: path.display().to_string(),
            report: &report,
            wpp: wpp.as_ref().map(|s| WppJson {
                trace_length: s.trace_length,
                distinct_paths: s.symbols.len(),
                grammar_size: s.rules.size(),
                rules: s.rules.num_rules(),
                compression: s.rules.compression_ratio(),
            }),
            source: source.as_ref().map(Source::json),
        })
    } else {
        let header = wpp.map_or(String::new(), |s| {
            format!(
                "{}
(`pcc wpp expand` lists the trace, `pcc wpp hot` its hot subpaths; the paths \
                 below are the Ball-Larus paths the trace's pieces join into)\n\n",
                super::wpp::summary(&profile, &s)
            )
        });
        super::print_text(&(header + &report.render_text(&|n| source.as_ref()?.line(n))))
    }
}

/// Gives each listed path whose lines another executed path of its function shares its branch
/// decisions, from the program recompiled ([`ProgramView`]); nothing when none does.
fn add_decisions(report: &mut ShowReport, profile: &Profile, path: &Path) {
    let mut same_lines: HashMap<(&str, &[u32]), usize> = HashMap::new();
    for f in &profile.functions {
        for p in f.executed_paths() {
            *same_lines.entry((&f.name, &p.lines)).or_default() += 1;
        }
    }
    let shares_lines = |p: &HotPath| {
        let key = (p.function.as_str(), p.lines.as_slice());
        same_lines.get(&key).is_some_and(|&n| n > 1)
    };
    if !report.paths.iter().any(shares_lines) {
        return;
    }
    let Some(view) = ProgramView::load(path) else {
        return;
    };
    let decided: HashMap<(&str, u64, bool), &[String]> = (view.functions.iter())
        .flat_map(|f| {
            let decided = f.paths.iter().filter(|p| !p.decisions.is_empty());
            decided.map(|p| {
                let residual = p.kind == PathKind::Residual;
                ((f.name.as_str(), p.id, residual), p.decisions.as_slice())
            })
        })
        .collect();
    for hot in &mut report.paths {
        if let Some(decisions) = decided.get(&(hot.function.as_str(), hot.id, hot.residual)) {
            hot.decisions = decisions.to_vec();
        }
    }
}

/// `pcc profile merge`: sums the counts of profiles of the same code into `output`, reading one
/// profile at a time (an operand `@FILE` stands for the profiles FILE lists, one per line).
pub fn merge(operands: &[PathBuf], output: &Path) -> i32 {
    if let Err(problem) = pcc_profiler::output_file::check_output(output) {
        eprintln!("error: -o: {problem}");
        return 1;
    }
    let Some(paths) = expand_lists(operands) else {
        return 1;
    };
    let Some((first_path, rest)) = paths.split_first() else {
        eprintln!("error: no profiles to merge (the lists named are empty)");
        return 1;
    };
    let refused = |refusal: profile::MergeRefusal| {
        let name = |i: usize| paths[i].display().to_string();
        if refusal.index == refusal.earlier {
            eprintln!("error: {}: {}", name(refusal.index), refusal.error);
        } else {
            eprintln!(
                "error: {}: {} (the earlier profile is {})",
                name(refusal.index),
                refusal.error,
                name(refusal.earlier)
            );
        }
        1
    };
    let Some(first) = load(first_path) else {
        return 1;
    };
    let first_program = first.program.clone();
    let mut merger = match profile::Merger::new(first) {
        Ok(merger) => merger,
        Err(refusal) => return refused(refusal),
    };
    for path in rest {
        let Some(profile) = load(path) else {
            return 1;
        };
        if merger.kinship(&profile) == Kinship::SameCodeElsewhere {
            eprintln!(
                "note: {} is a profile of `{}` and {} of `{}`; they share code, so they are merged",
                path.display(),
                printable(&profile.program),
                first_path.display(),
                printable(&first_program)
            );
        }
        if let Err(refusal) = merger.add(&profile) {
            return refused(refusal);
        }
    }
    let merged = merger.finish();
    warn_saturated(&merged.saturated);
    let merged = merged.profile;
    if let Err(error) = merged.write_atomic(output) {
        eprintln!("error: {error}");
        return 1;
    }
    let report = profile::show(&merged, Some(0));
    let counted = if merged.mode == profile::Mode::Edge {
        format!("{} edge executions", report.total_edge_count)
    } else if let Some(total) = report.total_block_count {
        format!("{total} block executions")
    } else {
        let executed: usize = (merged.functions.iter())
            .map(|f| f.executed_paths().filter(|p| p.count > 0).count())
            .sum();
        format!(
            "{executed} distinct paths, {} path executions",
            report.total_count
        )
    };
    eprintln!(
        "merged {} `{}` profiles of {} into {}: {counted}",
        paths.len(),
        merged.mode,
        printable(&merged.program),
        output.display()
    );
    0
}

/// The operands with each `@FILE` replaced by the paths FILE lists, one per line (blank lines
/// skipped; a relative path is relative to the current directory, as on the command line), or
/// `None` after an error on stderr when a list cannot be read.
fn expand_lists(operands: &[PathBuf]) -> Option<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for operand in operands {
        let Some(list) = operand.to_str().and_then(|s| s.strip_prefix('@')) else {
            paths.push(operand.clone());
            continue;
        };
        match std::fs::read_to_string(list) {
            Ok(text) => paths.extend(
                (text.lines().map(str::trim))
                    .filter(|line| !line.is_empty())
                    .map(PathBuf::from),
            ),
            Err(error) => {
                eprintln!("error: {list}: cannot read the list of profiles: {error}");
                return None;
            }
        }
    }
    Some(paths)
}

/// A warning on stderr that counts of `functions` saturated in a merge (their sum is past
/// 2^64 − 1, which they hold instead); nothing if none did.
pub(super) fn warn_saturated(functions: &[String]) {
    if functions.is_empty() {
        return;
    }
    let names: Vec<String> = functions.iter().map(|f| format!("`{f}`")).collect();
    eprintln!(
        "warning: counts saturated at 18446744073709551615 (2^64 - 1) in {}: their sums are \
         larger, the merged profile holds 2^64 - 1 instead",
        names.join(", ")
    );
}

/// Which differences `pcc profile diff` reports (`--top`, `--min-count`).
pub struct Keep {
    pub top: Option<usize>,
    pub min_count: u64,
}

/// `pcc profile diff`: path spectra comparison of two runs ([PFP] §5.3).
pub fn diff(a_path: &Path, b_path: &Path, keep: Keep, json: bool) -> i32 {
    let Some((a, a_state)) = load_with_source(a_path) else {
        return 1;
    };
    let Some((b, b_state)) = load_with_source(b_path) else {
        return 1;
    };
    let mut result = match profile::diff(&a, &b) {
        Ok(result) => result,
        Err(error) => {
            eprintln!(
                "error: {}: {error} (A is {})",
                b_path.display(),
                a_path.display()
            );
            return 1;
        }
    };
    result.keep_largest(keep.top, keep.min_count);
    if a.kinship(&b) == Kinship::SameCodeElsewhere {
        eprintln!(
            "note: A is a profile of `{}` and B of `{}`; functions are compared where their code \
             is the same",
            printable(&a.program),
            printable(&b.program)
        );
    }
    for f in &result.functions {
        if let Some(why) = f.comparison.refusal() {
            eprintln!(
                "warning: {} and {}: function `{}`: {why}",
                a_path.display(),
                b_path.display(),
                f.name
            );
        }
    }
    let shown = result.functions.iter().flat_map(|f| match &f.comparison {
        FunctionComparison::Compared(spectra) => spectra.lines().collect(),
        _ => Vec::new(),
    });
    let source = Source::find([a_state, b_state], shown);
    if json {
        #[derive(Serialize)]
        struct Side<'a> {
            profile: String,
            program: &'a str,
            args: &'a [String],
        }
        #[derive(Serialize)]
        struct DiffJson<'a> {
            a: Side<'a>,
            b: Side<'a>,
            #[serde(flatten)]
            diff: &'a SpectraDiff,
            source: Option<SourceJson>,
        }
        fn side<'a>(profile: &'a Profile, path: &Path) -> Side<'a> {
            Side {
                profile: path.display().to_string(),
                program: &profile.program,
                args: &profile.args,
            }
        }
        print_json(&DiffJson {
            a: side(&a, a_path),
            b: side(&b, b_path),
            diff: &result,
            source: source.as_ref().map(Source::json),
        })
    } else {
        let args = |p: &Profile| {
            if p.args.is_empty() {
                "no args".to_string()
            } else {
                format!("args: {}", printable(&p.args.join(" ")))
            }
        };
        let modes = if a.mode == b.mode {
            a.mode.to_string()
        } else {
            format!("{} and {}", a.mode, b.mode)
        };
        let header = format!(
            "path spectra of {modes} profiles: A = {} ({}), B = {} ({})\n",
            a_path.display(),
            args(&a),
            b_path.display(),
            args(&b)
        );
        super::print_text(&(header + &result.render_text(&|n| source.as_ref()?.line(n))))
    }
}

/// The profiled program's source, to show the text of the lines a report names.
struct Source {
    file: PathBuf,
    lines: Vec<String>,
    /// The lines the report shows, for the JSON output.
    shown: BTreeSet<u32>,
}

/// The JSON form of the source: the file and the text of each line the report names.
#[derive(Serialize)]
struct SourceJson {
    file: String,
    lines: BTreeMap<u32, String>,
}

impl Source {
    /// The source of the first of `states` (those of the profiles a report is of) that has the
    /// profiled bytes: any other file is never shown, whatever it is (a profile can name any
    /// file as its source), and [`load_with_source`] said why. Without one, or when it lacks a
    /// line in `shown` (so it is not the profiled source), returns `None`: the report shows
    /// line numbers only.
    fn find(
        states: impl IntoIterator<Item = SourceState>,
        shown: impl IntoIterator<Item = u32>,
    ) -> Option<Source> {
        let shown: BTreeSet<u32> = shown.into_iter().filter(|&l| l != 0).collect();
        if shown.is_empty() {
            return None;
        }
        let (file, bytes) = states.into_iter().find_map(SourceState::into_source)?;
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let last = *shown.last().expect("not empty");
        if last as usize > lines.len() {
            eprintln!(
                "note: showing line numbers only: the profile names line {last} but {} has {} \
                 lines, so it is not the profiled source",
                printable_path(&file),
                lines.len()
            );
            return None;
        }
        Some(Source { file, lines, shown })
    }

    fn line(&self, n: u32) -> Option<String> {
        let index = usize::try_from(n).ok()?.checked_sub(1)?;
        self.lines.get(index).cloned()
    }

    fn json(&self) -> SourceJson {
        SourceJson {
            file: self.file.display().to_string(),
            lines: self
                .shown
                .iter()
                .filter_map(|&n| Some((n, self.line(n)?)))
                .collect(),
        }
    }
}
