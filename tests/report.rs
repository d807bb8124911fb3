//! End-to-end tests of the views of a profile: `pcc profile report` (HTML, also rendered in
//! headless Chromium), `pcc profile annotate`, `pcc profile export --format lcov|folded`
//! (checked by `genhtml`) and `pcc paths --format dot --profile`. Counts are checked against
//! counts worked out by hand and across modes. A test that needs a tool the machine lacks
//! (Chromium, genhtml, Graphviz) is reported ignored, with the tool's name ([`main`]).

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Run, Scratch, pcc_in, read_json, root};
use serde_json::Value;

/// `program` copied into a scratch directory and profiled there in `mode`, into `MODE.json`
/// (`tpp` from `edge.json`, which must exist); returns the profile's path.
fn profiled(scratch: &Scratch, program: &str, mode: &str) -> PathBuf {
    let source = scratch.path(program);
    if !source.exists() {
        std::fs::copy(root().join("programs").join(program), &source).unwrap();
    }
    let out = scratch.path(&format!("{mode}.json"));
    let mut args = vec!["run", program, "--profile", mode, "--profile-out"];
    let out_name = out.to_str().unwrap().to_string();
    args.push(&out_name);
    if mode == "tpp" {
        args.extend(["--edge-profile", "edge.json"]);
    }
    let run = pcc_in(&scratch.0, &args, "");
    assert_eq!(run.status, 0, "{}", run.stderr);
    out
}

fn pcc(scratch: &Scratch, args: &[&str]) -> Run {
    let run = pcc_in(&scratch.0, args, "");
    assert_eq!(run.status, 0, "pcc {args:?}: {}", run.stderr);
    run
}

fn report(scratch: &Scratch, profile: &Path, extra: &[&str]) -> String {
    let out = profile.with_extension("html");
    let mut args = vec!["profile", "report", profile.to_str().unwrap()];
    args.extend_from_slice(extra);
    args.extend(["-o", out.to_str().unwrap()]);
    pcc(scratch, &args);
    std::fs::read_to_string(out).unwrap()
}

/// `find_pair`'s lines in a run of control_flow.pl, each with its count worked out by hand by
/// gcov's rule (the times control entered the line; `None`: no code, `Some(0)`: code that never
/// ran). `find_pair(91)` runs the outer loop 7 times and returns at i = 7, j = 13; `find_pair(401)`
/// runs it 20 times. Every mode's every view must show these.
const FIND_PAIR_LINES: [(u32, Option<u64>); 17] = [
    (34, None),      // fn find_pair(target: int) -> str {
    (35, Some(2)),   // let i = 1;
    (36, Some(27)),  // while true {        1 + 6 iterations, 1 + 19
    (37, Some(27)),  // let j = i;
    (38, Some(322)), // while j < 20 {      27 entries + 295 iterations
    (39, Some(296)), // if i * j == target {
    (40, Some(1)),   // return str(i) + "*" + str(j);
    (41, None),      // }
    (42, Some(295)), // j += 1;
    (43, None),      // }
    (44, Some(26)),  // i += 1;
    (45, Some(26)),  // if i > 20 {
    (46, Some(1)),   // return "none";
    (47, None),      // }
    (48, None),      // }
    (49, Some(0)),   // return "unreachable";  (after `while true`: never runs)
    (50, None),      // }
];

/// How a view writes a line's count: `#####` for code that never ran, nothing (or gcov's `-`)
/// for a line without code.
fn count_text(count: Option<u64>, no_code: &str) -> String {
    match count {
        None => no_code.to_string(),
        Some(0) => "#####".to_string(),
        Some(n) => n.to_string(),
    }
}

/// The text of the count cell of source line `n` in a function section of the report.
fn html_line_cell(section: &str, n: u32) -> Option<&str> {
    let row = section.split(&format!("<tr data-line=\"{n}\">")).nth(1)?;
    let cell = row.split("<td class=\"n\"").nth(1)?;
    cell.split('>').nth(1)?.split('<').next()
}

/// The count of source line `n` in a function section of the report.
fn html_line_count(section: &str, n: u32) -> Option<u64> {
    html_line_cell(section, n)?.parse().ok()
}

fn section<'a>(html: &'a str, function: &str) -> &'a str {
    let start = html
        .find(&format!(
            "<section class=\"function\" id=\"fn-{function}\">"
        ))
        .unwrap_or_else(|| panic!("no section for {function}"));
    let rest = &html[start..];
    &rest[..rest.find("</section>").unwrap()]
}

/// The value of attribute `name` in `tag` (its text up to the closing `>`).
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(&tag[start..start + tag[start..].find('"')?])
}

/// Per path row of a function's section: its id, and the sum of the increments (`data-val`) the
/// CFG drawing gives its edges and dummy edges, as the page's self-check adds them up.
fn drawn_increment_sums(section: &str) -> Vec<(u64, u64)> {
    let arrows: Vec<&str> = section.split("<path ").skip(1).collect();
    let val = |edge: &str| -> u64 {
        let arrow = arrows
            .iter()
            .find(|a| attribute(a, "data-e").is_some_and(|e| e.split(' ').any(|x| x == edge)))
            .unwrap_or_else(|| panic!("edge {edge} is drawn"));
        let at = (attribute(arrow, "data-e").unwrap().split(' ')).position(|x| x == edge);
        let val = attribute(arrow, "data-val")
            .unwrap()
            .split(' ')
            .nth(at.unwrap());
        val.unwrap().parse().unwrap_or(0) // "-": a back edge, whose dummy carries it
    };
    let dummy = |d: &str| -> u64 {
        let arrow = (arrows.iter())
            .find(|a| attribute(a, "data-d") == Some(d))
            .unwrap_or_else(|| panic!("dummy {d} is drawn"));
        attribute(arrow, "data-val").unwrap().parse().unwrap()
    };
    (section.split("<tr class=\"path").skip(1))
        .map(|row| {
            let ids = |name| attribute(row, name).unwrap().split_whitespace();
            let sum = ids("data-edges").map(val).sum::<u64>()
                + ids("data-dummies").map(dummy).sum::<u64>();
            (attribute(row, "data-id").unwrap().parse().unwrap(), sum)
        })
        .collect()
}

fn report_is_self_contained_and_shows_the_profiles_counts() {
    let scratch = Scratch::new("report");
    for mode in ["bl", "edge", "ppp", "kbl", "wpp", "tpp", "block"] {
        let profile = profiled(&scratch, "control_flow.pl", mode);
        let html = report(&scratch, &profile, &[]);
        // Nothing is loaded from elsewhere (the SVG namespace is a name, not a fetch).
        for outside in ["<link", "src=", "@import", "url(http", "https://"] {
            assert!(
                !html.contains(outside),
                "{mode}: the report refers to `{outside}`"
            );
        }
        let json = read_json(&profile);
        let find_pair = section(&html, "find_pair");
        assert!(find_pair.contains("<svg class=\"cfg\""), "{mode}: no CFG");
        for (line, count) in FIND_PAIR_LINES {
            assert_eq!(
                html_line_cell(find_pair, line),
                Some(count_text(count, "").as_str()),
                "{mode}: line {line}"
            );
        }
        if !matches!(mode, "edge" | "block") {
            // The hottest path is listed first, with the lines the script highlights.
            let hottest = common::function(&json, "find_pair")["paths"]
                .as_array()
                .unwrap()
                .iter()
                .max_by_key(|p| p["count"].as_u64())
                .unwrap();
            let lines: Vec<String> = hottest["lines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.to_string())
                .collect();
            let first_row = find_pair.split("<tr class=\"path").nth(1).unwrap();
            assert!(
                first_row.contains(&format!("data-lines=\"{}\"", lines.join(" "))),
                "{mode}: {first_row}"
            );
            // Each listed path's drawn increments sum to its id, in the numbering of its mode
            // (TPP's own for `tpp`).
            for (id, sum) in drawn_increment_sums(find_pair) {
                assert_eq!(sum, id, "{mode}: path {id}");
            }
        }
    }
    // The per-mode sections.
    let html = std::fs::read_to_string(scratch.path("ppp.html")).unwrap();
    assert!(html.contains("Preferential path profiling") && html.contains("ρ"));
    let html = std::fs::read_to_string(scratch.path("kbl.html")).unwrap();
    assert!(
        html.contains("k-iteration path forests")
            && html.contains("<details open><summary>path 5 ×269")
    );
    // `classify` runs each of its five paths once, and nothing after any: five leaves, nothing
    // to open.
    let classify = &html[html.find("<h3>fn classify</h3>").unwrap()..];
    let classify = &classify[..classify.find("</p>").unwrap()];
    assert_eq!(
        classify.matches("<div class=\"leaf\">path ").count(),
        5,
        "{classify}"
    );
    assert!(!classify.contains("<details") && classify.contains("5 sequences drawn"));
    let html = std::fs::read_to_string(scratch.path("wpp.html")).unwrap();
    assert!(html.contains("Hot subpaths") && html.contains("compression"));
}

fn edge_and_block_reports_count_blocks_like_the_bl_report() {
    let scratch = Scratch::new("report-edge");
    let bl = report(&scratch, &profiled(&scratch, "control_flow.pl", "bl"), &[]);
    let edge = report(
        &scratch,
        &profiled(&scratch, "control_flow.pl", "edge"),
        &[],
    );
    // The same run: the blocks' counts (the `×N` in each CFG box) agree.
    let blocks = |html: &str| -> Vec<String> {
        html.split("<text x=")
            .filter_map(|t| t.split("class=\"bid\">").nth(1))
            .map(|t| t.split('<').next().unwrap().to_string())
            .collect()
    };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert!(blocks(&bl).len() > 20);
    assert_eq!(sorted(blocks(&bl)), sorted(blocks(&edge)));
    let block = report(
        &scratch,
        &profiled(&scratch, "control_flow.pl", "block"),
        &[],
    );
    assert_eq!(sorted(blocks(&bl)), sorted(blocks(&block)));
}

fn compare_marks_new_vanished_and_changed_paths_as_diff_does() {
    let scratch = Scratch::new("report-compare");
    std::fs::copy(root().join("programs/y2k.pl"), scratch.path("y2k.pl")).unwrap();
    // [PFP] §5.3: before 2000, and across it.
    let y2k = |out: &str, last: &str| {
        let out = scratch.path(out);
        let out_arg = out.to_str().unwrap();
        pcc(
            &scratch,
            &[
                "run",
                "y2k.pl",
                "--profile",
                "bl",
                "--profile-out",
                out_arg,
                "--",
                "1994",
                last,
            ],
        );
        out
    };
    let (a, b) = (y2k("a.json", "1999"), y2k("b.json", "2004"));
    let html = report(&scratch, &a, &["--compare", b.to_str().unwrap()]);
    let diff = pcc(
        &scratch,
        &[
            "profile",
            "diff",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let diff: Value = common::json(&diff.stdout);
    let (json_a, json_b) = (read_json(&a), read_json(&b));
    let executions = |profile: &Value, name: &str| -> f64 {
        let paths = common::function(profile, name)["paths"]
            .as_array()
            .unwrap()
            .clone();
        paths
            .iter()
            .map(|p| p["count"].as_u64().unwrap())
            .sum::<u64>() as f64
    };
    for f in diff["functions"].as_array().unwrap() {
        if f["status"] != "compared" {
            continue;
        }
        let name = f["name"].as_str().unwrap();
        let n = |field: &str| f[field].as_array().unwrap().len();
        // Changed: the count differs and the share of the function's executions moved by at
        // least a point (the runs have different lengths, so most counts differ).
        let (total_a, total_b) = (executions(&json_a, name), executions(&json_b, name));
        let changed = (f["changed"].as_array().unwrap().iter())
            .filter(|c| {
                let share_a = c["count_a"].as_u64().unwrap() as f64 / total_a;
                let share_b = c["count_b"].as_u64().unwrap() as f64 / total_b;
                (share_a - share_b).abs() >= 0.01
            })
            .count();
        let heading = format!(
            "<h3>fn {name}: {} new, {} vanished, {changed} changed",
            n("only_in_b"),
            n("only_in_a"),
        );
        assert!(html.contains(&heading), "no `{heading}`");
    }
    // A tpp profile compared with a bl one: the attribution of definite flow.
    profiled(&scratch, "control_flow.pl", "edge");
    let tpp = profiled(&scratch, "control_flow.pl", "tpp");
    let bl = profiled(&scratch, "control_flow.pl", "bl");
    let html = report(&scratch, &tpp, &["--compare", bl.to_str().unwrap()]);
    assert!(html.contains("Attribution of definite flow"));
    assert!(
        html.contains("<th class=\"n\">100.00%</th>"),
        "a deterministic run is fully attributed"
    );
}

fn annotate_prints_each_lines_count_without_colour_in_a_pipe() {
    let scratch = Scratch::new("annotate");
    let profile = profiled(&scratch, "control_flow.pl", "bl");
    let run = pcc(
        &scratch,
        &[
            "profile",
            "annotate",
            profile.to_str().unwrap(),
            "--function",
            "find_pair",
        ],
    );
    assert!(!run.stdout.contains('\x1b'), "colour in a pipe");
    for (line, count) in FIND_PAIR_LINES {
        let row = run
            .stdout
            .lines()
            .find(|l| l.contains(&format!(" {line} | ")))
            .unwrap_or_else(|| panic!("no line {line}: {}", run.stdout));
        assert_eq!(
            row.split_whitespace().next(),
            Some(count_text(count, "-").as_str()),
            "{row}"
        );
    }
    assert!(!run.stdout.contains("fn main"), "only find_pair");
    let bad = pcc_in(
        &scratch.0,
        &[
            "profile",
            "annotate",
            profile.to_str().unwrap(),
            "--function",
            "nope",
        ],
        "",
    );
    assert_eq!(bad.status, 1);
    assert!(bad.stderr.contains("no function `nope`"), "{}", bad.stderr);
}

/// Each annotated line's count, whatever order the functions are listed in.
fn annotated_counts(text: &str) -> BTreeMap<u32, String> {
    text.lines()
        .filter_map(|row| {
            let (left, _) = row.split_once(" | ")?;
            let mut cells = left.split_whitespace();
            let count = cells.next()?.to_string();
            let line = cells.last()?.parse().ok()?;
            Some((line, count))
        })
        .collect()
}

/// One line count in every mode: the same run profiled by each mode is annotated alike, line
/// for line (`tpp` with the edge profile of the same run), and exported to lcov alike.
fn every_mode_annotates_the_same_line_counts() {
    for program in [
        "precedence.pl",
        "control_flow.pl",
        "y2k.pl",
        "match.pl",
        "bst.pl",
    ] {
        let scratch = Scratch::new("annotate-modes");
        let views = |mode: &str| {
            let profile = profiled(&scratch, program, mode);
            let profile = profile.to_str().unwrap();
            let annotated = pcc(&scratch, &["profile", "annotate", profile]).stdout;
            let lcov = pcc(
                &scratch,
                &["profile", "export", profile, "--format", "lcov"],
            );
            let da = lcov_records(&lcov.stdout).0;
            (annotated_counts(&annotated), da)
        };
        let (bl, bl_da) = views("bl");
        assert!(bl.len() > 5, "{program}: {bl:?}");
        for mode in ["edge", "block", "ppp", "kbl", "wpp", "tpp"] {
            let (counts, da) = views(mode);
            assert_eq!(counts, bl, "{program}: {mode} against bl");
            assert_eq!(da, bl_da, "{program}: {mode}'s DA records against bl's");
        }
    }
}

/// gcov's conventions, on the constructs where lowering's blocks and the source's lines part:
/// a loop on one line counts each iteration, a `for` line its entries and steps, `break`,
/// `continue`, `while true` and an empty `match` arm are code, `} else {` is not, and code
/// after `while true` never runs. Counts worked out by hand.
fn annotate_counts_lines_as_gcov_does() {
    let scratch = Scratch::new("annotate-gcov");
    let program = "\
fn main() {
    let i = 0;
    while i < 5 { i += 1; }
    for k in 0..3 {
        if k == 1 { continue; }
        print(k, \"\");
    }
    let n = 0;
    while true {
        n += 1;
        match n {
            1 => { }
            3 => { break; }
            _ => { print(n, \"\"); }
        }
        if n > 100 {
            println(\"never\");
        } else {
            i -= 1;
        }
    }
    println(i);
    return;
    println(\"dead\");
}
";
    std::fs::write(scratch.path("gcov.pl"), program).unwrap();
    let expected: [(u32, &str); 25] = [
        (1, "-"),
        (2, "1"),
        (3, "6"), // entered once, and anew at each of the 5 iterations
        (4, "4"), // entered once, and at each of the 3 steps
        (5, "3"),
        (6, "2"),
        (7, "-"),
        (8, "1"),
        (9, "3"),
        (10, "3"),
        (11, "3"),
        (12, "1"),
        (13, "1"),
        (14, "1"),
        (15, "-"),
        (16, "2"),
        (17, "#####"),
        (18, "-"),
        (19, "2"),
        (20, "-"),
        (21, "-"),
        (22, "1"),
        (23, "1"),
        (24, "#####"),
        (25, "#####"), // the implicit return at the closing brace, after `return;`
    ];
    for mode in ["bl", "edge", "block"] {
        let run = pcc_in(
            &scratch.0,
            &[
                "run",
                "gcov.pl",
                "--profile",
                mode,
                "--profile-out",
                "gcov.json",
            ],
            "",
        );
        assert_eq!(run.status, 0, "{}", run.stderr);
        let annotated = pcc(&scratch, &["profile", "annotate", "gcov.json"]).stdout;
        let counts = annotated_counts(&annotated);
        for (line, count) in expected {
            assert_eq!(
                counts.get(&line).map(String::as_str),
                Some(count),
                "{mode}: line {line}\n{annotated}"
            );
        }
    }
}

/// A run that `exit()` ends inside nested calls: the edge report says where each activation
/// stopped (the block of the call that never returned, the block of `exit()`, main's entry block,
/// which no edge enters), marks the lines of those blocks, and counts main's activation.
fn edge_reports_show_where_activations_stopped() {
    let scratch = Scratch::new("report-stopped");
    std::fs::copy(
        root().join("programs/exit_code.pl"),
        scratch.path("exit_code.pl"),
    )
    .unwrap();
    let run = pcc_in(
        &scratch.0,
        &[
            "run",
            "exit_code.pl",
            "--profile=edge",
            "--profile-out",
            "edge.json",
        ],
        "",
    );
    assert_eq!(run.status, 3, "{}", run.stderr);
    let html = report(&scratch, &scratch.path("edge.json"), &[]);
    let still_running = "1 activation still running when the run ended";
    // run's loop body called check 5 times, the last one never returned; check's `exit(3)`
    // block ran once and ended the run; main stopped in its entry block, in its call of run.
    for (function, running, block) in [
        ("run", true, "bb2 ×5"),
        ("check", false, "bb1 ×1"),
        ("main", true, "ENTRY bb0 ×1"),
    ] {
        let section = section(&html, function);
        assert_eq!(section.contains(still_running), running, "{function}");
        // One block stopped: its first line, then `stopped ×1` below it.
        let parts: Vec<&str> = section.split(">stopped ×1<").collect();
        assert_eq!(parts.len(), 2, "{function}: {section}");
        let id_line = parts[0].rsplit("class=\"bid\">").next().unwrap();
        assert_eq!(id_line.split('<').next(), Some(block), "{function}");
        assert!(section.contains("<sup class=\"stop\""), "{function}");
    }
    // The line of main's call of run: entered once, and marked.
    assert_eq!(html_line_count(section(&html, "main"), 20), Some(1));
    let lcov = pcc(
        &scratch,
        &["profile", "export", "edge.json", "--format", "lcov"],
    );
    assert!(lcov.stdout.contains("FNDA:1,main"), "{}", lcov.stdout);
}

/// `(line, block, branch) → taken` of `BRDA` records.
type Branches = BTreeMap<(u32, u32, u32), String>;

/// `(line → count)` of the `DA` records and the `BRDA` ones.
fn lcov_records(text: &str) -> (BTreeMap<u32, u64>, Branches) {
    let mut lines = BTreeMap::new();
    let mut branches = BTreeMap::new();
    for record in text.lines() {
        if let Some(da) = record.strip_prefix("DA:") {
            let (line, count) = da.split_once(',').unwrap();
            lines.insert(line.parse().unwrap(), count.parse().unwrap());
        } else if let Some(brda) = record.strip_prefix("BRDA:") {
            let parts: Vec<&str> = brda.split(',').collect();
            let key = (
                parts[0].parse().unwrap(),
                parts[1].parse().unwrap(),
                parts[2].parse().unwrap(),
            );
            branches.insert(key, parts[3].to_string());
        }
    }
    (lines, branches)
}

fn lcov_counts_are_the_profiles() {
    let scratch = Scratch::new("lcov");
    let bl = profiled(&scratch, "control_flow.pl", "bl");
    let edge = profiled(&scratch, "control_flow.pl", "edge");
    let export = |profile: &Path| {
        pcc(
            &scratch,
            &[
                "profile",
                "export",
                profile.to_str().unwrap(),
                "--format",
                "lcov",
            ],
        )
        .stdout
    };
    let (bl_text, edge_text) = (export(&bl), export(&edge));
    let (lines, branches) = lcov_records(&bl_text);
    for (line, count) in FIND_PAIR_LINES {
        assert_eq!(lines.get(&line).copied(), count, "DA of line {line}");
    }
    // Branch counts from the paths equal the edge profile's own edge counts (same run).
    assert!(!branches.is_empty());
    assert_eq!(lcov_records(&edge_text), (lines.clone(), branches.clone()));
    // `if i * j == target` in find_pair: taken once, not taken 295 times.
    let at_39: Vec<&String> = branches
        .iter()
        .filter(|(k, _)| k.0 == 39)
        .map(|(_, v)| v)
        .collect();
    assert_eq!(at_39, ["1", "295"]);
    assert!(bl_text.contains("FNDA:2,find_pair") && bl_text.ends_with("end_of_record\n"));
    let hit = lines.values().filter(|&&c| c > 0).count();
    assert!(bl_text.contains(&format!("LF:{}\nLH:{hit}\n", lines.len())));
}

/// genhtml (package `lcov`) renders the tracefile without a warning, with the branches lcov says.
fn genhtml_renders_the_tracefile() {
    let scratch = Scratch::new("genhtml");
    let bl = profiled(&scratch, "control_flow.pl", "bl");
    let args = [
        "profile",
        "export",
        bl.to_str().unwrap(),
        "--format",
        "lcov",
    ];
    let bl_text = pcc(&scratch, &args).stdout;
    let info = scratch.path("bl.info");
    std::fs::write(&info, &bl_text).unwrap();
    let output = Command::new("genhtml")
        .args(["--branch-coverage", "-o"])
        .arg(scratch.path("genhtml"))
        .arg(&info)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "genhtml failed: {stderr}");
    assert!(
        !stderr.to_lowercase().contains("warning") && !stdout.to_lowercase().contains("warning"),
        "{stderr}{stdout}"
    );
    assert!(
        stdout.contains("branches...: 89.4% (59 of 66 branches)"),
        "{stdout}"
    );
}

fn folded_stacks_sum_to_the_profiles_total() {
    let scratch = Scratch::new("folded");
    for mode in ["bl", "ppp", "kbl", "wpp"] {
        let profile = profiled(&scratch, "control_flow.pl", mode);
        let run = pcc(
            &scratch,
            &[
                "profile",
                "export",
                profile.to_str().unwrap(),
                "--format",
                "folded",
            ],
        );
        let json = read_json(&profile);
        // wpp: every acyclic path of the trace (pieces cut at calls) under its call stack.
        let total: u64 = if mode == "wpp" {
            json["wpp"]["trace_length"].as_u64().unwrap()
        } else {
            json["functions"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|f| ["paths", "residual"].map(|k| f[k].clone()))
                .flat_map(|paths| paths.as_array().cloned().unwrap_or_default())
                .map(|p| p["count"].as_u64().unwrap())
                .sum()
        };
        let mut sum = 0;
        for line in run.stdout.lines() {
            let (stack, count) = line.rsplit_once(' ').unwrap();
            assert!(stack.split(';').count() >= 2, "{line}");
            sum += count.parse::<u64>().unwrap();
        }
        assert_eq!(sum, total, "{mode}");
        if mode == "wpp" {
            // find_pair's loop path, called from main.
            assert!(
                run.stdout
                    .contains("main;find_pair;piece 5 (38-39, 42) 269\n"),
                "{}",
                run.stdout
            );
        }
    }
    assert!(std::fs::read_to_string(scratch.path("bl.json")).is_ok());
    let run = pcc(
        &scratch,
        &[
            "profile",
            "export",
            scratch.file("bl.json").as_str(),
            "--format",
            "folded",
        ],
    );
    assert!(
        run.stdout
            .lines()
            .any(|l| l == "find_pair;path 5 (38-39, 42) 269"),
        "{}",
        run.stdout
    );
}

/// A deep recursion's whole program path as folded stacks: one stack per depth, each written
/// out frame by frame (the stacks as strings were quadratic in memory: a 60,000-deep recursion
/// aborted), sorted by stack frame by frame, a caller's stack before those it calls.
fn folded_stacks_of_a_deep_recursion() {
    let scratch = Scratch::new("folded-deep");
    std::fs::write(
        scratch.path("deep.pl"),
        "fn down(n: int) -> int {\n    if n == 0 {\n        return 0;\n    }\n    return 1 + down(n - 1);\n}\n\n\
         fn main() {\n    println(down(300));\n}\n",
    )
    .unwrap();
    let profile = profiled(&scratch, "deep.pl", "wpp");
    let args = [
        "profile",
        "export",
        profile.to_str().unwrap(),
        "--format",
        "folded",
    ];
    let run = pcc(&scratch, &args);
    let out = scratch.path("deep.folded");
    let mut to_file = args.to_vec();
    to_file.extend(["-o", out.to_str().unwrap()]);
    pcc(&scratch, &to_file);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), run.stdout);
    let trace_length = read_json(&profile)["wpp"]["trace_length"].as_u64().unwrap();
    let mut sum = 0;
    let mut depths = Vec::new();
    for line in run.stdout.lines() {
        let (stack, count) = line.rsplit_once(' ').unwrap();
        sum += count.parse::<u64>().unwrap();
        let frames: Vec<&str> = stack
            .split(';')
            .filter(|f| !f.starts_with("piece "))
            .collect();
        assert_eq!(frames[0], "main", "{line}");
        assert!(frames[1..].iter().all(|&f| f == "down"), "{line}");
        depths.push(frames.len());
    }
    assert_eq!(sum, trace_length);
    // 301 activations of `down` under `main`, the deepest the one that returns 0.
    assert_eq!(depths.iter().max(), Some(&302));
    assert!(depths.windows(2).all(|w| w[0] <= w[1]), "{depths:?}");
    assert!(run.stdout.contains(&format!(
        "main{} 1\n",
        ";down".repeat(301) + ";piece 1 (2-3)"
    )));
}

fn dot_with_a_profile_labels_counts_and_draws_the_hottest_path_in_blue() {
    let scratch = Scratch::new("dot");
    let profile = profiled(&scratch, "control_flow.pl", "bl");
    let run = pcc(
        &scratch,
        &[
            "paths",
            "control_flow.pl",
            "--function",
            "find_pair",
            "--format",
            "dot",
            "--profile",
            profile.to_str().unwrap(),
        ],
    );
    let red: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.contains("color=blue"))
        .collect();
    // Path 5 (269 times): ENTRY ⇢ bb3 (dummy), bb3 → bb4 → bb7, bb7 ⇢ EXIT (dummy of the back edge).
    assert_eq!(red.len(), 4, "{}", run.stdout);
    assert!(
        red.iter()
            .any(|l| l.contains("f0_n3 -> f0_n4") && l.contains("×296"))
    );
    assert!(run.stdout.contains("bb3  ×322"));
}

/// The bl profile, `large.json`, of a loop of 40 `if`s (a CFG of 124 blocks) in `scratch`.
fn large_profile(scratch: &Scratch) -> PathBuf {
    let mut source =
        String::from("fn main() {\n    let s = 0;\n    let i = 0;\n    while i < 50 {\n");
    for k in 0..40 {
        let (m, r) = (k % 7 + 2, k % 3);
        source += &format!("        if i % {m} == {r} {{ s += {k}; }} else {{ s -= 1; }}\n");
    }
    source += "        i += 1;\n    }\n    println(s);\n}\n";
    std::fs::write(scratch.path("large.pl"), source).unwrap();
    let args = [
        "run",
        "large.pl",
        "--profile",
        "bl",
        "--profile-out",
        "large.json",
    ];
    pcc(scratch, &args);
    scratch.path("large.json")
}

/// A CFG too large for layout-rs is laid out by Graphviz's `dot`, with every block and edge
/// tagged as the small ones are.
fn large_cfgs_are_drawn_by_graphviz() {
    let scratch = Scratch::new("report-large");
    let profile = large_profile(&scratch);
    let html = report(&scratch, &profile, &[]);
    // 124 blocks and EXIT; every real edge drawn, the back edge dashed.
    assert_eq!(blocks(&html), 125);
    assert_eq!(html.matches("class=\"edge back\"").count(), 1);
    assert!(html.matches("class=\"edge real\"").count() > 120);
}

/// The blocks a report draws.
fn blocks(html: &str) -> usize {
    html.matches("<g class=\"block\" data-b=").count()
}

/// Without Graphviz, a CFG too large for layout-rs is not drawn: the page says what to install.
fn without_graphviz_a_large_cfg_says_what_to_install() {
    let scratch = Scratch::new("report-nodot");
    large_profile(&scratch);
    let mut command = Command::new(env!("CARGO_BIN_EXE_pcc"));
    command
        .args(["profile", "report", "large.json", "-o", "nodot.html"])
        .current_dir(&scratch.0)
        .env("PATH", "/nonexistent");
    let run = common::run_command(command, "").unwrap();
    assert_eq!(run.status, 0, "{}", run.stderr);
    let html = std::fs::read_to_string(scratch.path("nodot.html")).unwrap();
    assert_eq!(blocks(&html), 0);
    assert!(
        html.contains("above 80 blocks it needs Graphviz"),
        "no hint"
    );
}

/// Renders reports in headless Chromium: no console error, the page's self-check passed (each
/// function's hottest path highlighted, no CFG text outside its drawing), and a screenshot of
/// each in the target directory.
fn reports_render_in_chromium_without_errors() {
    let chromium = tool(CHROMIUM).expect("the trial runs only where Chromium is installed");
    let scratch = Scratch::new("chromium");
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let mut pages: Vec<(&str, PathBuf)> = ["edge", "bl", "ppp", "kbl", "wpp", "tpp", "block"]
        .into_iter()
        .map(|mode| (mode, profiled(&scratch, "control_flow.pl", mode)))
        .collect();
    // A CFG that Graphviz lays out, when it is installed.
    pages.push(("large-bl", large_profile(&scratch)));
    // AWFY Permute: an edge label at its CFG's right border (once drawn cut off), and `main`'s
    // CFG, too wide to sit beside its source.
    std::fs::copy(
        root().join("programs/bench/awfy_permute.pl"),
        scratch.path("permute.pl"),
    )
    .unwrap();
    let permute = scratch.path("permute-bl.json");
    let out = permute.to_str().unwrap();
    pcc(
        &scratch,
        &["run", "permute.pl", "--profile=bl", "--profile-out", out],
    );
    pages.push(("permute-bl", permute));
    for (mode, profile) in pages {
        report(&scratch, &profile, &[]);
        let url = format!("file://{}", profile.with_extension("html").display());
        let headless = [
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--window-size=1400,1800",
        ];
        let dom = Command::new(chromium)
            .args(headless)
            .args(["--enable-logging=stderr", "--v=0", "--dump-dom", &url])
            .output()
            .unwrap();
        let dom_text = String::from_utf8_lossy(&dom.stdout);
        let log = String::from_utf8_lossy(&dom.stderr);
        assert!(
            dom_text.contains("data-selfcheck=\"ok\""),
            "{mode}: the page's self-check: {}",
            &dom_text[dom_text.find("<body").unwrap_or(0)..][..200.min(dom_text.len())]
        );
        let console: Vec<&str> = log
            .lines()
            .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
            .collect();
        assert!(console.is_empty(), "{mode}: console messages: {console:?}");
        let shot = shots.join(format!("{mode}.png"));
        let screenshot = Command::new(chromium)
            .args(headless)
            .arg(format!("--screenshot={}", shot.display()))
            .arg(&url)
            .output()
            .unwrap();
        assert!(
            screenshot.status.success() && shot.exists(),
            "{mode}: no screenshot"
        );
        println!("{mode}: screenshot {}", shot.display());
    }
}

/// The page's CFG layouts share one budget of counted work: the hottest functions' CFGs are laid
/// out with crossing minimization, the rest without, which their captions say (40 functions of
/// 77 blocks took 75 s, 1.9 s per layout).
fn layouts_beyond_the_pages_budget_are_simpler_and_say_so() {
    let scratch = Scratch::new("report-budget");
    let mut source = String::new();
    // Nine functions of 20 `if`s in a loop (44 blocks each), `f0` the coldest.
    for f in 0..9 {
        source += &format!(
            "fn f{f}(n: int) -> int {{\n    let s = 0;\n    let i = 0;\n    while i < n {{\n"
        );
        for k in 0..20 {
            source += &format!(
                "        if i % {} == {} {{ s += {k}; }}\n",
                k % 5 + 2,
                k % 2
            );
        }
        source += "        i += 1;\n    }\n    return s;\n}\n";
    }
    source += "fn main() {\n";
    for f in 0..9 {
        source += &format!("    println(f{f}({}));\n", 10 * (f + 1));
    }
    source += "}\n";
    std::fs::write(scratch.path("budget.pl"), source).unwrap();
    let args = [
        "run",
        "budget.pl",
        "--profile",
        "bl",
        "--profile-out",
        "budget.json",
    ];
    pcc(&scratch, &args);
    let profile = scratch.path("budget.json");
    let html = report(&scratch, &profile, &[]);
    let note =
        "drawn without crossing minimization: the page's layout budget went to hotter functions";
    let simpler = html.matches(note).count();
    assert!(
        (1..9).contains(&simpler),
        "{simpler} of 9 CFGs drawn the simpler way"
    );
    // The hottest function's CFG comes first, with crossing minimization.
    let hottest = html.find("id=\"fn-f8\"").unwrap();
    let next = html[hottest..]
        .find("<section")
        .map_or(html.len(), |i| hottest + i);
    assert!(!html[hottest..next].contains(note));
}

/// The browsers the Chromium test drives, by the names their packages install.
const CHROMIUM: &[&str] = &["chromium", "chromium-browser", "google-chrome"];

/// The first of `names` that runs (`--version`), if any is installed.
fn tool(names: &[&'static str]) -> Option<&'static str> {
    names.iter().copied().find(|name| {
        Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// A test that needs a tool, and whether this machine has it.
struct NeedsTool {
    name: &'static str,
    test: fn(),
    /// The tool, and how to install it.
    tool: &'static str,
    installed: bool,
}

/// The tests; those that need a tool this machine lacks are reported *ignored*, the tool named
/// in the test's name (`cargo test --test it -- --ignored` runs them anyway, and they fail).
/// This file's trials (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    let needing = [
        NeedsTool {
            name: "genhtml_renders_the_tracefile",
            test: genhtml_renders_the_tracefile,
            tool: "genhtml (apt-get install lcov)",
            installed: tool(&["genhtml"]).is_some(),
        },
        NeedsTool {
            name: "large_cfgs_are_drawn_by_graphviz",
            test: large_cfgs_are_drawn_by_graphviz,
            tool: "dot (apt-get install graphviz)",
            installed: Command::new("dot")
                .arg("-V")
                .output()
                .is_ok_and(|o| o.status.success()),
        },
        NeedsTool {
            name: "reports_render_in_chromium_without_errors",
            test: reports_render_in_chromium_without_errors,
            tool: "chromium (apt-get install chromium)",
            installed: tool(CHROMIUM).is_some(),
        },
    ];
    let trial = |name: String, test: fn()| {
        libtest_mimic::Trial::test(name, move || {
            test();
            Ok(())
        })
    };
    let mut trials = crate::plain_trials![
        report_is_self_contained_and_shows_the_profiles_counts,
        edge_and_block_reports_count_blocks_like_the_bl_report,
        compare_marks_new_vanished_and_changed_paths_as_diff_does,
        annotate_prints_each_lines_count_without_colour_in_a_pipe,
        every_mode_annotates_the_same_line_counts,
        annotate_counts_lines_as_gcov_does,
        edge_reports_show_where_activations_stopped,
        lcov_counts_are_the_profiles,
        folded_stacks_sum_to_the_profiles_total,
        folded_stacks_of_a_deep_recursion,
        dot_with_a_profile_labels_counts_and_draws_the_hottest_path_in_blue,
        without_graphviz_a_large_cfg_says_what_to_install,
        layouts_beyond_the_pages_budget_are_simpler_and_say_so,
    ];
    for t in needing {
        let name = match t.installed {
            true => t.name.to_string(),
            false => format!("{} (needs {})", t.name, t.tool),
        };
        trials.push(trial(name, t.test).with_ignored_flag(!t.installed));
    }
    trials
}
