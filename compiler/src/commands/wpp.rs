//! `pcc wpp expand|hot`: the whole program path of a `--profile=wpp` run (Larus, [WPP]). `expand`
//! regenerates the acyclic-path trace from the grammar; `hot` finds the minimal hot subpaths
//! ([WPP] §4.2, Fig. 7), each acyclic path costing its number of MIR instructions.

use std::io::{BufWriter, Write};
use std::path::Path;

use pcc_profiler::profile::{Mode, Profile, printable};
use pcc_profiler::wpp::{HotParams, HotSubpath, WppSection, hot_subpaths};
use serde::Serialize;

use super::print_json;
use super::print_text;
use crate::profile_view::input::load;

/// The profile at `path` and its `"wpp"` field, or says on stderr why there is none.
fn load_wpp(path: &Path) -> Option<(Profile, WppSection)> {
    let profile = load(path)?;
    let section = section(&profile, path)?;
    Some((profile, section))
}

/// The `"wpp"` field of `profile` (read from `path`), or says on stderr why there is none.
pub(super) fn section(profile: &Profile, path: &Path) -> Option<WppSection> {
    match (&profile.mode, &profile.wpp) {
        (Mode::Wpp, Some(section)) => Some(section.clone()),
        (Mode::Wpp, None) => {
            eprintln!(
                "error: {}: the wpp profile has no `wpp` field",
                path.display()
            );
            None
        }
        (mode, _) => {
            eprintln!(
                "error: {}: a {mode} profile has no whole program path; make one with \
                 `pcc run PROGRAM --profile=wpp`",
                path.display()
            );
            None
        }
    }
}

/// `pcc wpp expand`: every acyclic path of the trace in order, one per line: `FUNCTION PATH`.
pub fn expand(path: &Path) -> i32 {
    let Some((_, section)) = load_wpp(path) else {
        return 1;
    };
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let written = section.rules.iter().try_for_each(|t| {
        // Reading the profile checked that every terminal has a symbol.
        let s = &section.symbols[t as usize];
        writeln!(out, "{} {}", s.function, s.path)
    });
    match written.and_then(|()| out.flush()) {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("error: cannot write the trace: {error}");
            1
        }
        _ => 0,
    }
}

/// `pcc wpp hot`: the minimal hot subpaths, most costly first.
pub fn hot(path: &Path, params: HotParams, json: bool) -> i32 {
    let Some((profile, section)) = load_wpp(path) else {
        return 1;
    };
    let cost = |t: u32| section.symbols[t as usize].cost.unwrap_or(1);
    let mut found = match hot_subpaths(&section.rules, cost, &params) {
        Ok(found) => found,
        Err(error) => {
            eprintln!("error: {}: {error}", path.display());
            return 1;
        }
    };
    found.sort_by_key(|h| std::cmp::Reverse(h.cost));
    let name = |t: u32| {
        let s = &section.symbols[t as usize];
        format!("{}:{}", s.function, s.path)
    };
    if json {
        #[derive(Serialize)]
        struct HotJson<'a> {
            profile: String,
            min_cost: u64,
            max_len: usize,
            min_len: usize,
            trace_length: u64,
            subpaths: Vec<Entry<'a>>,
        }
        #[derive(Serialize)]
        struct Entry<'a> {
            #[serde(flatten)]
            subpath: &'a HotSubpath,
            paths: Vec<String>,
        }
        return print_json(&HotJson {
            profile: path.display().to_string(),
            min_cost: params.min_cost,
            max_len: params.max_len,
            min_len: params.min_len,
            trace_length: section.trace_length,
            subpaths: found
                .iter()
                .map(|h| Entry {
                    subpath: h,
                    paths: h.path.iter().map(|&t| name(t)).collect(),
                })
                .collect(),
        });
    }
    let mut text = format!(
        "{}\nminimal hot subpaths (cost >= {}, {} to {} acyclic paths; cost = frequency x the \
         paths' MIR instructions): {} found, most costly first\n",
        summary(&profile, &section),
        params.min_cost,
        params.min_len,
        params.max_len,
        found.len()
    );
    if !found.is_empty() {
        text.push_str("  #  cost  frequency  length  subpath (function:path ...)\n");
    }
    for (i, h) in found.iter().enumerate() {
        let paths: Vec<String> = h.path.iter().map(|&t| name(t)).collect();
        text.push_str(&format!(
            "{:>3}  {}  {}  {}  {}\n",
            i + 1,
            h.cost,
            h.frequency,
            h.path.len(),
            paths.join(" ")
        ));
    }
    print_text(&text)
}

/// One line on a whole program path: its program and size.
pub(super) fn summary(profile: &Profile, section: &WppSection) -> String {
    let size = section.rules.size();
    format!(
        "whole program path of {}{}: trace of {} acyclic paths ({} distinct), grammar of {} \
         symbols in {} rules (compression {:.1})",
        printable(&profile.program),
        if profile.args.is_empty() {
            String::new()
        } else {
            format!(" (args: {})", printable(&profile.args.join(" ")))
        },
        section.trace_length,
        section.symbols.len(),
        size,
        section.rules.num_rules(),
        section.rules.compression_ratio(),
    )
}
