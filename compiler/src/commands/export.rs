//! `pcc profile export P --format lcov|folded [-o OUT]`: a profile in the formats other viewers
//! read. `lcov`: a tracefile for `genhtml` (and editors' coverage gutters): line counts, each
//! function's activations, and the count of each branch out of a block that decides. `folded`:
//! one line per executed path, `function;line a;line b;… count`, the folded stacks of flame
//! graphs (`flamegraph.pl`, speedscope, inferno): each path is a stack of its lines; for `wpp`,
//! each acyclic path of the trace under the call stack it ran in.

use std::fmt::Write as _;
use std::path::Path;

use pcc_profiler::cfg::NodeId;
use pcc_profiler::profile::{Mode, printable_path};

use std::collections::BTreeMap;

use super::print_text;
use super::profile_view::ProgramView;
use crate::profiling::call_split;

#[derive(Clone, Copy, Debug)]
pub enum Format {
    Lcov,
    Folded,
}

pub fn run(profile: &Path, format: Format, output: Option<&Path>) -> i32 {
    let Some(view) = ProgramView::load(profile) else {
        return 1;
    };
    view.warn();
    let text = match format {
        Format::Lcov => lcov(&view),
        Format::Folded if view.profile.mode == Mode::Edge => {
            eprintln!(
                "error: {}: an edge profile counts edges, not paths, so it has no stacks to                  fold; `--format lcov` exports it",
                profile.display()
            );
            return 1;
        }
        Format::Folded if view.profile.mode == Mode::Wpp => match wpp_folded(&view) {
            Some(text) => text,
            None => return 1,
        },
        Format::Folded => folded(&view),
    };
    match output {
        None => print_text(&text),
        Some(path) => match std::fs::write(path, text) {
            Ok(()) => 0,
            Err(error) => {
                eprintln!("error: cannot write {}: {error}", path.display());
                1
            }
        },
    }
}

/// The lcov tracefile (geninfo(1) "TRACEFILE FORMAT"): one record for the program's source.
fn lcov(view: &ProgramView) -> String {
    let source = std::fs::canonicalize(&view.source_file).unwrap_or(view.source_file.clone());
    // A record per line: a newline in the path must not start another.
    let mut out = format!("TN:\nSF:{}\n", printable_path(&source));
    let mut functions = 0;
    let mut functions_hit = 0;
    for f in &view.functions {
        let Some(cfg) = &f.cfg else { continue };
        let _ = writeln!(out, "FN:{},{}", f.span.0, f.name);
        let _ = writeln!(out, "FNDA:{},{}", cfg.activations(), f.name);
        functions += 1;
        functions_hit += usize::from(cfg.activations() > 0);
    }
    let _ = write!(out, "FNF:{functions}\nFNH:{functions_hit}\n");

    // A branch: an edge out of a block with several successors, on the line that decides.
    let mut branches = Vec::new();
    for f in &view.functions {
        // A block profile has no edge counts, so no branches.
        let Some(cfg) = f.cfg.as_ref().filter(|cfg| cfg.edges_known) else {
            continue;
        };
        let graph = &cfg.fcfg.cfg;
        for v in 0..graph.num_nodes() {
            let succs = graph.succs(NodeId(v));
            if succs.len() < 2 {
                continue;
            }
            let line = cfg.branch_line(NodeId(v), &view.index);
            for (i, e) in succs.iter().enumerate() {
                // lcov's `-`: the block never ran, so its branches were not taken or not.
                let taken = if cfg.node_counts[v] == 0 {
                    "-".to_string()
                } else {
                    cfg.edge_counts[e.0].to_string()
                };
                branches.push((line, v, i, taken));
            }
        }
    }
    branches.sort_by_key(|b| b.0);
    for (line, block, i, taken) in &branches {
        let _ = writeln!(out, "BRDA:{line},{block},{i},{taken}");
    }
    let hit = branches.iter().filter(|b| b.3 != "-" && b.3 != "0").count();
    let _ = write!(out, "BRF:{}\nBRH:{hit}\n", branches.len());

    // Every line of a block is instrumented (count 0 when it never ran).
    let mut lines = BTreeMap::new();
    for f in &view.functions {
        if let Some(cfg) = &f.cfg {
            for &n in cfg.node_lines.iter().flatten() {
                lines.entry(n).or_insert(0u64);
            }
        }
        for (&n, &count) in &f.line_counts {
            *lines.entry(n).or_insert(0) += count;
        }
    }
    for (n, count) in &lines {
        let _ = writeln!(out, "DA:{n},{count}");
    }
    let hit = lines.values().filter(|&&c| c > 0).count();
    let _ = write!(out, "LF:{}\nLH:{hit}\nend_of_record\n", lines.len());
    out
}

/// A whole program path's folded stacks: each acyclic path of the trace (a Ball-Larus path cut
/// at calls, [WPP] §2) under the functions whose activations it runs in, `main;f;line 3 count`.
/// The counts sum to the trace's length. Says why on stderr when the trace cannot be decoded.
fn wpp_folded(view: &ProgramView) -> Option<String> {
    let section = super::wpp::section(&view.profile, &view.profile_path)?;
    // Per terminal: its function, whether it starts and ends an activation, and its frame text.
    let mut splits = std::collections::HashMap::new();
    let mut symbols = Vec::new();
    for symbol in &section.symbols {
        let name = symbol.function.as_str();
        if !splits.contains_key(name) {
            let func = view
                .functions
                .iter()
                .find(|f| f.name == name)
                .and_then(|f| f.cfg.as_ref());
            splits.insert(name, func.and_then(|cfg| call_split(&cfg.func).ok()));
        }
        let Some(effect) = splits[name].as_ref().and_then(|s| s.effect(symbol.path)) else {
            eprintln!(
                "error: {}: path {} of `{name}` is not a piece of its code (the profile is stale)",
                view.profile_path.display(),
                symbol.path
            );
            return None;
        };
        let lines: String = symbol.lines.iter().map(|l| format!(";line {l}")).collect();
        symbols.push((name, effect.starts, effect.ends, lines));
    }
    let mut stacks: BTreeMap<String, u64> = BTreeMap::new();
    let mut stack: Vec<&str> = Vec::new();
    for t in section.rules.iter() {
        let (name, starts, ends, lines) = &symbols[t as usize];
        if *starts {
            stack.push(name);
        }
        *stacks.entry(stack.join(";") + lines).or_default() += 1;
        if *ends {
            stack.pop();
        }
    }
    Some(
        stacks
            .iter()
            .map(|(stack, count)| format!("{stack} {count}\n"))
            .collect(),
    )
}

/// Folded stacks: `function;line 3;line 4 count`, one line per executed path.
fn folded(view: &ProgramView) -> String {
    let mut out = String::new();
    for f in &view.functions {
        for path in &f.paths {
            let mut stack = f.name.clone();
            for line in &path.lines {
                let _ = write!(stack, ";line {line}");
            }
            let _ = writeln!(out, "{stack} {}", path.count);
        }
    }
    out
}
