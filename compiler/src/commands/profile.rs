//! `pcc profile show|merge|diff`: the command-line face of `pcc_profiler::profile`. A report is the
//! command's result, so it goes to stdout; errors, warnings and notes go to stderr. Every input
//! profile is validated when read, and a bad one ends the command with `error: FILE: WHAT` and
//! status 1.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use pcc_profiler::profile::{self, FunctionComparison, Kinship, Profile, ShowReport, SpectraDiff};
use serde::Serialize;

/// `pcc profile show`: the hottest paths (and edges) first, with their source text.
pub fn show(path: &Path, top: Option<usize>, json: bool) -> i32 {
    let Some(profile) = load(path) else {
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
    let report = profile::show(&profile, top);
    let shown = report
        .paths
        .iter()
        .flat_map(|p| p.lines.iter().copied())
        .chain(report.edges.iter().flat_map(|e| [e.from_line, e.to_line]))
        .chain(report.blocks.iter().flat_map(|b| b.lines.iter().copied()));
    let source = Source::find(&[(&profile, path)], shown);
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

/// `pcc profile merge`: sums the counts of profiles of the same code into `output`.
pub fn merge(paths: &[PathBuf], output: &Path) -> i32 {
    if let Err(problem) = pcc_profiler::output_file::check_output(output) {
        eprintln!("error: -o: {problem}");
        return 1;
    }
    let Some(profiles) = paths.iter().map(|p| load(p)).collect::<Option<Vec<_>>>() else {
        return 1;
    };
    for (path, profile) in paths.iter().zip(&profiles).skip(1) {
        if profile.kinship(&profiles[0]) == Kinship::SameCodeElsewhere {
            eprintln!(
                "note: {} is a profile of `{}` and {} of `{}`; they share code, so they are merged",
                path.display(),
                profile.program,
                paths[0].display(),
                profiles[0].program
            );
        }
    }
    let merged = match profile::merge(&profiles) {
        Ok(merged) => merged,
        Err(refusal) => {
            let name = |i: usize| {
                paths
                    .get(i)
                    .map_or(String::new(), |p| p.display().to_string())
            };
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
            return 1;
        }
    };
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
        let executed: usize = report.functions.iter().map(|f| f.executed_paths).sum();
        format!(
            "{executed} distinct paths, {} path executions",
            report.total_count
        )
    };
    eprintln!(
        "merged {} `{}` profiles of {} into {}: {counted}",
        profiles.len(),
        merged.mode,
        merged.program,
        output.display()
    );
    0
}

/// `pcc profile diff`: path spectra comparison of two runs ([PFP] §5.3).
pub fn diff(a_path: &Path, b_path: &Path, json: bool) -> i32 {
    let Some(a) = load(a_path) else {
        return 1;
    };
    let Some(b) = load(b_path) else {
        return 1;
    };
    let result = match profile::diff(&a, &b) {
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
    if a.kinship(&b) == Kinship::SameCodeElsewhere {
        eprintln!(
            "note: A is a profile of `{}` and B of `{}`; functions are compared where their code \
             is the same",
            a.program, b.program
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
    let source = Source::find(&[(&a, a_path), (&b, b_path)], shown);
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
                format!("args: {}", p.args.join(" "))
            }
        };
        let header = format!(
            "path spectra of {} profiles: A = {} ({}), B = {} ({})\n",
            a.mode,
            a_path.display(),
            args(&a),
            b_path.display(),
            args(&b)
        );
        super::print_text(&(header + &result.render_text(&|n| source.as_ref()?.line(n))))
    }
}

/// Reads and validates a profile, or says why it cannot on stderr; warns when its source file
/// changed since it was taken or is gone (docs/PROFILE-FORMAT.md, "Source identity").
pub(super) fn load(path: &Path) -> Option<Profile> {
    let profile = Profile::read(path)
        .map_err(|error| eprintln!("error: {error}"))
        .ok()?;
    let name = path.display().to_string();
    if let Some(warning) = profile.source.state(path).warning(&name) {
        eprintln!("warning: {warning}");
    }
    Some(profile)
}

pub(super) fn print_json(value: &impl Serialize) -> i32 {
    let text = serde_json::to_string_pretty(value).expect("reports always serialize");
    super::print_text(&(text + "\n"))
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
    /// The source of the first of `profiles` whose program can be read. A profile names its
    /// program as it was given to `pcc run`, so the path is tried relative to the current
    /// directory, then to the profile's folder. Without a source that has every line in `shown`,
    /// returns `None` (the report shows line numbers only), after saying why on stderr unless
    /// [`load`] did (the file is gone or unreadable).
    fn find(
        profiles: &[(&Profile, &Path)],
        shown: impl IntoIterator<Item = u32>,
    ) -> Option<Source> {
        let shown: BTreeSet<u32> = shown.into_iter().filter(|&l| l != 0).collect();
        if shown.is_empty() {
            return None;
        }
        let mut tried = Vec::new();
        for (profile, profile_path) in profiles {
            for candidate in profile.source.candidates(profile_path) {
                if tried.contains(&candidate) {
                    continue;
                }
                match std::fs::read(&candidate) {
                    Ok(bytes) => {
                        let text = String::from_utf8_lossy(&bytes);
                        let lines: Vec<String> = text.lines().map(str::to_string).collect();
                        let last = *shown.last().expect("not empty");
                        if last as usize > lines.len() {
                            eprintln!(
                                "note: showing line numbers only: the profile names line {last} \
                                 but {} has {} lines, so it is not the profiled source",
                                candidate.display(),
                                lines.len()
                            );
                            return None;
                        }
                        return Some(Source {
                            file: candidate,
                            lines,
                            shown,
                        });
                    }
                    Err(_) => tried.push(candidate),
                }
            }
        }
        None
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
