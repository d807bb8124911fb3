//! `pcc profile export P --format lcov|folded [-o OUT]`: a profile in the formats other viewers
//! read. `lcov`: a tracefile for `genhtml` (and editors' coverage gutters): line counts, each
//! function's activations, and the count of each branch out of a block that decides. `folded`:
//! one line per executed path, `function;path N (lines) count`, the folded stacks of flame
//! graphs (`flamegraph.pl`, speedscope, inferno): each path one frame under its function; for
//! `wpp`, each acyclic piece of the trace, `piece N (lines)`, under the call stack it ran in.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

use pcc_profiler::cfg::NodeId;
use pcc_profiler::profile::{Mode, printable_path};

use std::collections::BTreeMap;

use super::paths::compact_lines;
use super::print_text;
use crate::profile_view::{Cold, ProgramView};
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
        Format::Folded if matches!(view.profile.mode, Mode::Edge | Mode::Block) => {
            let counts = if view.profile.mode == Mode::Edge {
                "an edge profile counts edges"
            } else {
                "a block profile counts blocks"
            };
            eprintln!(
                "error: {}: {counts}, not paths, so it has no stacks to fold; `--format lcov` \
                 exports its counts",
                profile.display()
            );
            return 1;
        }
        Format::Folded if view.profile.mode == Mode::Wpp => return wpp_folded(&view, output),
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

    // Every line of code has a count (0 when it never ran).
    let mut lines = BTreeMap::new();
    for f in &view.functions {
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
/// Written to `output` (stdout when `None`) line by line; returns the exit status.
fn wpp_folded(view: &ProgramView, output: Option<&Path>) -> i32 {
    let Some(section) = super::wpp::section(&view.profile, &view.profile_path) else {
        return 1;
    };
    // Per terminal: its function, whether it starts and ends an activation, and its frame text.
    let mut splits = HashMap::new();
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
            return 1;
        };
        let lines = format!(";piece {} ({})", symbol.path, compact_lines(&symbol.lines));
        symbols.push((name, effect.starts, effect.ends, lines));
    }
    // The call stacks as a tree of frames (node 0 the empty stack), so that a stack costs one
    // node whatever its depth: a 60,000-deep recursion's stacks as strings were quadratic in
    // memory. Each line is written out frame by frame from its node.
    let mut frames = Frames::default();
    let mut lines_ids: HashMap<&str, u32> = HashMap::new();
    let mut counts: HashMap<(u32, u32), u64> = HashMap::new();
    let mut stack: Vec<u32> = vec![0];
    for t in section.rules.iter() {
        let (name, starts, ends, lines) = &symbols[t as usize];
        let top = *stack.last().expect("the root stays");
        if *starts {
            stack.push(frames.child(top, name));
        }
        let next = lines_ids.len() as u32;
        let lines_id = *lines_ids.entry(lines.as_str()).or_insert(next);
        *counts
            .entry((*stack.last().expect("a frame"), lines_id))
            .or_default() += 1;
        if *ends && stack.len() > 1 {
            stack.pop();
        }
    }
    let mut lines_text = vec![""; lines_ids.len()];
    for (text, id) in lines_ids {
        lines_text[id as usize] = text;
    }
    // Sorted by stack, frame by frame (a stack before those it calls), then by lines.
    let order = frames.preorder();
    let mut keys: Vec<(u32, u32, u64)> = counts.into_iter().map(|((n, l), c)| (n, l, c)).collect();
    keys.sort_unstable_by(|a, b| {
        (order[a.0 as usize], lines_text[a.1 as usize])
            .cmp(&(order[b.0 as usize], lines_text[b.1 as usize]))
    });
    write_to(output, |out| {
        let mut path = Vec::new();
        for (node, lines, count) in keys {
            frames.path(node, &mut path);
            for (i, name) in path.iter().enumerate() {
                if i > 0 {
                    out.write_all(b";")?;
                }
                out.write_all(name.as_bytes())?;
            }
            writeln!(out, "{} {count}", lines_text[lines as usize])?;
        }
        Ok(())
    })
}

/// Runs `write` on `output` (stdout when `None`), buffered; the exit status, after saying
/// what failed (a closed pipe on stdout is no failure).
fn write_to(
    output: Option<&Path>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> i32 {
    let (result, name) = match output {
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let result = write(&mut out).and_then(|()| out.flush());
            (result, "to stdout".to_string())
        }
        Some(path) => {
            let result = std::fs::File::create(path).and_then(|file| {
                let mut out = std::io::BufWriter::new(file);
                write(&mut out)?;
                out.flush()
            });
            (result, path.display().to_string())
        }
    };
    match result {
        Err(error) if output.is_some() || error.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("error: cannot write {name}: {error}");
            1
        }
        _ => 0,
    }
}

/// The call stacks of a trace, each a node: its caller's node and its function's name.
#[derive(Default)]
struct Frames<'a> {
    /// Per node but the root (node 0, the empty stack): its parent and its name.
    nodes: Vec<(u32, &'a str)>,
    children: HashMap<(u32, &'a str), u32>,
}

impl<'a> Frames<'a> {
    /// The node of `name` called on the stack `parent`.
    fn child(&mut self, parent: u32, name: &'a str) -> u32 {
        let next = self.nodes.len() as u32 + 1;
        *self.children.entry((parent, name)).or_insert_with(|| {
            self.nodes.push((parent, name));
            next
        })
    }

    /// The names of `node`'s stack, outermost first, into `path`.
    fn path(&self, mut node: u32, path: &mut Vec<&'a str>) {
        path.clear();
        while node != 0 {
            let (parent, name) = self.nodes[node as usize - 1];
            path.push(name);
            node = parent;
        }
        path.reverse();
    }

    /// Per node, its place in a depth-first walk of the tree, children by name.
    fn preorder(&self) -> Vec<u32> {
        let mut children = vec![Vec::new(); self.nodes.len() + 1];
        for (i, &(parent, name)) in self.nodes.iter().enumerate() {
            children[parent as usize].push((name, i as u32 + 1));
        }
        let mut order = vec![0; self.nodes.len() + 1];
        let mut next = 0;
        let mut todo = vec![0u32];
        while let Some(n) = todo.pop() {
            order[n as usize] = next;
            next += 1;
            let kids = &mut children[n as usize];
            kids.sort_unstable();
            todo.extend(kids.iter().rev().map(|&(_, c)| c));
        }
        order
    }
}

/// Folded stacks: `function;line 3;line 4 count`, one line per executed path.
fn folded(view: &ProgramView) -> String {
    let mut out = String::new();
    for f in &view.functions {
        for path in &f.paths {
            let lines = compact_lines(&path.lines);
            let _ = writeln!(out, "{};path {} ({lines}) {}", f.name, path.id, path.count);
        }
        if let Some(cold) = f.cold.map(Cold::count).filter(|&n| n > 0) {
            let _ = writeln!(out, "{};cold paths {cold}", f.name);
        }
    }
    out
}
