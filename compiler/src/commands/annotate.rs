//! `pcc profile annotate P [--function F]`: the profiled source in the terminal, each line with
//! its count and its share of the function's line executions, as gcov's `.gcov` files and
//! `perf annotate` show them. Coloured as `--color` says ([`crate::terminal::colour`]).

use std::fmt::Write as _;
use std::path::Path;

use pcc_profiler::profile::{printable, printable_line, printable_path};

use super::print_text;
use crate::profile_view::{Cold, FunctionView, ProgramView};

pub fn run(profile: &Path, function: Option<&str>) -> i32 {
    let Some(view) = ProgramView::load(profile) else {
        return 1;
    };
    view.warn();
    let functions: Vec<&FunctionView> = match function {
        None => view.functions.iter().collect(),
        Some(name) => match view.functions.iter().find(|f| f.name == name) {
            Some(f) => vec![f],
            None => {
                let names: Vec<&str> = view.functions.iter().map(|f| f.name.as_str()).collect();
                eprintln!(
                    "error: {}: no function `{name}` in the profile; its functions are: {}",
                    profile.display(),
                    names.join(", ")
                );
                return 1;
            }
        },
    };
    let colour = crate::terminal::colour(crate::terminal::Stream::Stdout);
    print_text(&annotate(&view, &functions, colour))
}

/// ANSI colours of a count by its share of the hottest line: red, yellow, or dim for none.
fn paint(text: &str, count: Option<u64>, max: u64) -> String {
    let code = match count {
        None | Some(0) => "2",
        Some(c) if c * 2 >= max => "1;31",
        Some(c) if c * 10 >= max => "33",
        Some(_) => "0",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

fn annotate(view: &ProgramView, functions: &[&FunctionView], colour: bool) -> String {
    let profile = &view.profile;
    let unit = profile.mode.unit();
    let total: u64 = view.functions.iter().map(|f| f.total).sum();
    let mut out = format!(
        "{}: {} profile of {}{}, {total} {unit}\n",
        view.profile_path.display(),
        profile.mode,
        printable_path(&view.source_file),
        if profile.args.is_empty() {
            String::new()
        } else {
            format!(" (args: {})", printable(&profile.args.join(" ")))
        }
    );
    let mut sorted = functions.to_vec();
    sorted.sort_by_key(|f| std::cmp::Reverse(f.total));
    for f in sorted {
        let lines: u64 = f.line_counts.values().sum();
        let max = f.line_counts.values().copied().max().unwrap_or(0);
        let cold = match f.cold.map(Cold::count) {
            Some(n) if n > 0 => format!(", {n} of them on cold paths (not shown)"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "\nfn {}: {} {unit} ({:.1}%){cold}; count = times control entered the line, share = \
             of the function's {lines}",
            f.name,
            f.total,
            share(f.total, total)
        );
        let _ = writeln!(out, "{:>12} {:>6}  {:>5}", "count", "share", "line");
        if f.span.0 == 0 {
            continue;
        }
        for n in f.span.0..=f.span.1 {
            let count = f.line_counts.get(&n).copied();
            // gcov's marks: `#####` for code that never ran, `-` for a line without code.
            let (number, percent) = match count {
                Some(0) => ("#####".to_string(), String::new()),
                Some(c) => (c.to_string(), format!("{:.1}%", share(c, lines))),
                None => ("-".to_string(), String::new()),
            };
            let columns = format!("{number:>12} {percent:>6}");
            let columns = if colour {
                paint(&columns, count, max)
            } else {
                columns
            };
            let _ = writeln!(out, "{columns}  {n:>5} | {}", printable_line(view.line(n)));
        }
    }
    out
}

fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}
