//! End-to-end tests of `pcc paths`: the static path listing must number paths exactly as the
//! profiles of `pcc run --profile=bl` do ([PFP] Sidebars 1–2 for `add_even`), say so when a
//! function's paths are truncated or too many to list, and give the same data as text, JSON and
//! a Graphviz drawing of the Ball-Larus DAG.

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{Scratch, function, json, root, u64s};
use serde_json::Value;

fn program(name: &str) -> PathBuf {
    root().join("programs").join(name)
}

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures").join(name)
}

/// Runs `pcc ARGS`, killing it if it takes longer than a minute (a hang, not a slow run).
fn pcc<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<std::ffi::OsStr>,
{
    let mut child = Command::new(env!("CARGO_BIN_EXE_pcc"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pcc starts");
    // Drain the pipes on threads so a large output cannot block the child.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut buf).unwrap();
        buf
    });
    let err = std::thread::spawn(move || {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut buf).unwrap();
        buf
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("pcc did not finish within a minute");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

fn paths_ok(file: &Path, extra: &[&str]) -> String {
    let mut args: Vec<std::ffi::OsString> = vec!["paths".into(), file.into()];
    args.extend(extra.iter().map(Into::into));
    let output = pcc(&args);
    assert!(
        output.status.success(),
        "pcc paths {} {extra:?} failed: {}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

fn paths_json(file: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["--format", "json"];
    args.extend_from_slice(extra);
    json(&paths_ok(file, &args))
}

fn lines_of(path: &Value) -> Vec<u64> {
    u64s(&path["lines"])
}

fn ids_of(function: &Value) -> Vec<u64> {
    function["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_u64().unwrap())
        .collect()
}

/// [PFP] Sidebars 1–2: AddEvenNumbers has six acyclic paths, numbered as in Fig. 11 — first the
/// three that start at the loop header (3,4,5,6 / 3,4,6 / 3,7), then the three from the entry.
fn add_even_has_the_six_paths_of_the_sidebar() {
    let document = paths_json(&program("add_even.pl"), &["--function", "add_even"]);
    assert_eq!(document["functions"].as_array().unwrap().len(), 1);
    let add_even = function(&document, "add_even");
    assert_eq!(add_even["num_paths"], 6);
    assert_eq!(add_even["truncated"], false);
    assert_eq!(ids_of(add_even), vec![0, 1, 2, 3, 4, 5]);
    // Lines: 3-4 `let`s (block 1 of the figure), 5 loop test (3), 6 `if` (4), 7 `sum += j` (5),
    // 9 `j += 1` (6), 11 `return` (7).
    let expected: [(&[u64], &str, &str); 6] = [
        (&[5, 6, 7, 9], "loop_header", "back_edge"),
        (&[5, 6, 9], "loop_header", "back_edge"),
        (&[5, 11], "loop_header", "return"),
        (&[3, 4, 5, 6, 7, 9], "entry", "back_edge"),
        (&[3, 4, 5, 6, 9], "entry", "back_edge"),
        (&[3, 4, 5, 11], "entry", "return"),
    ];
    for (path, (lines, start, end)) in add_even["paths"].as_array().unwrap().iter().zip(expected) {
        assert_eq!(lines_of(path), lines, "path {path}");
        assert_eq!(path["start"]["kind"], start, "path {path}");
        assert_eq!(path["end"]["kind"], end, "path {path}");
    }

    let text = paths_ok(&program("add_even.pl"), &["--function", "add_even"]);
    assert!(
        text.starts_with("fn add_even: 6 potential paths (cfg_hash "),
        "{text}"
    );
    assert!(!text.contains("fn main"), "{text}");
    assert!(
        text.contains(
            "  id 0: lines 5-7, 9; starts at loop header (line 5), ends at back edge (line 9 → 5)"
        ),
        "{text}"
    );
    assert!(
        text.contains("  id 5: lines 3-5, 11; starts at function entry, ends at return (line 11)"),
        "{text}"
    );
    // The source of each line, with the decisions the path takes.
    assert!(
        text.contains("       6 |     if j % 2 == 0 {    [j % 2 == 0: false]"),
        "{text}"
    );
    assert!(text.contains("      11 | return sum;"), "{text}");
}

/// `if (a || b) && (c || d)`: every operand is a MIR edge, so 7 paths (ARCHITECTURE.md).
fn short_circuit_condition_has_seven_paths() {
    let document = paths_json(&fixture("short_circuit.pl"), &[]);
    let decide = function(&document, "decide");
    assert_eq!(decide["num_paths"], 7);
    assert_eq!(ids_of(decide), (0..7).collect::<Vec<_>>());
    // Each path takes a different sequence of decisions on line 4.
    let mut seen: Vec<String> = decide["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["decisions"].to_string())
        .collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 7);
    // `check` ends one path in `exit(3)`.
    let check = function(&document, "check");
    let ends: Vec<&Value> = check["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["end"]["kind"])
        .collect();
    assert_eq!(ends, ["exit_call", "return"]);

    // The example program: the condition inside main's loops still yields exactly 7
    // distinct decision sequences on its line among main's paths.
    let document = paths_json(&program("paths16.pl"), &["--function", "main"]);
    let main = function(&document, "main");
    let mut conditions: Vec<String> = main["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let on_line: Vec<&Value> = p["decisions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["line"] == 27)
                .collect();
            serde_json::to_string(&on_line).unwrap()
        })
        .filter(|s| s != "[]")
        .collect();
    conditions.sort();
    conditions.dedup();
    assert_eq!(conditions.len(), 7, "{conditions:?}");
}

/// `lines 5-7, 9` → [5, 6, 7, 9].
fn expand(compact: &str) -> Vec<u64> {
    let mut lines = Vec::new();
    for part in compact.split(", ") {
        match part.split_once('-') {
            Some((lo, hi)) => lines.extend(lo.parse::<u64>().unwrap()..=hi.parse().unwrap()),
            None => lines.push(part.parse().unwrap()),
        }
    }
    lines
}

/// What the text format says: per function, (num_paths, cfg_hash, [(id, lines)]).
type TextListing = BTreeMap<String, (u64, String, Vec<(u64, Vec<u64>)>)>;

fn parse_text(text: &str) -> TextListing {
    let mut functions = TextListing::new();
    let mut current = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("fn ") {
            let (name, rest) = rest.split_once(": ").unwrap();
            let (count, rest) = rest.split_once(' ').unwrap();
            let hash = rest
                .split_once("(cfg_hash ")
                .unwrap()
                .1
                .trim_end_matches(')');
            functions.insert(
                name.to_string(),
                (count.parse().unwrap(), hash.to_string(), Vec::new()),
            );
            current = Some(name.to_string());
        } else if let Some(rest) = line.strip_prefix("  id ") {
            let (id, rest) = rest.split_once(": lines ").unwrap();
            let (lines, _) = rest.split_once("; starts at ").unwrap();
            let function = functions.get_mut(current.as_ref().unwrap()).unwrap();
            function.2.push((id.parse().unwrap(), expand(lines)));
        }
    }
    functions
}

fn json_agrees_with_text() {
    for file in [
        program("add_even.pl"),
        program("paths16.pl"),
        program("match.pl"),
        program("nqueens.pl"),
        fixture("short_circuit.pl"),
    ] {
        let text = parse_text(&paths_ok(&file, &[]));
        let document = paths_json(&file, &[]);
        let functions = document["functions"].as_array().unwrap();
        assert_eq!(functions.len(), text.len(), "{}", file.display());
        for f in functions {
            let name = f["name"].as_str().unwrap();
            assert_ne!(
                name, "<globals>",
                "the global initializers are not profiled"
            );
            let (count, hash, paths) = &text[name];
            assert_eq!(f["num_paths"].as_u64().unwrap(), *count, "{name}");
            assert_eq!(f["cfg_hash"].as_str().unwrap(), hash, "{name}");
            let json_paths: Vec<(u64, Vec<u64>)> = f["paths"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p["id"].as_u64().unwrap(), lines_of(p)))
                .collect();
            assert_eq!(&json_paths, paths, "{name} in {}", file.display());
            assert_eq!(f["listed"].as_u64().unwrap(), paths.len() as u64);
            for p in f["paths"].as_array().unwrap() {
                assert!(!p["blocks"].as_array().unwrap().is_empty());
            }
        }
    }
}

/// One edge of a dot drawing's DAG: (from, to, increment, whether it is a dummy edge).
#[derive(Debug, Clone)]
struct DotEdge {
    from: String,
    to: String,
    increment: u64,
    dummy: bool,
}

fn attribute<'a>(attributes: &'a str, name: &str) -> Option<&'a str> {
    let start = attributes.find(&format!("{name}="))? + name.len() + 1;
    let rest = &attributes[start..];
    match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next(),
        None => rest.split([',', ']']).next(),
    }
}

/// Edges and nodes (name → label) of the drawing.
fn parse_dot(text: &str) -> (Vec<DotEdge>, HashMap<String, String>) {
    let mut edges = Vec::new();
    let mut nodes = HashMap::new();
    for line in text.lines().map(str::trim) {
        if let Some((from, rest)) = line.split_once(" -> ") {
            let (to, attributes) = rest.split_once(" [").unwrap();
            // The back edges are drawn too, dashed, but are not DAG edges.
            if attribute(attributes, "tooltip") == Some("back edge") {
                assert_eq!(attribute(attributes, "style"), Some("dashed"), "{line}");
                continue;
            }
            let label = attribute(attributes, "label").expect("every DAG edge is labelled");
            let increment = label.split(' ').next().unwrap().parse().unwrap();
            edges.push(DotEdge {
                from: from.to_string(),
                to: to.to_string(),
                increment,
                // A dummy edge: dotted, as the report draws it.
                dummy: attribute(attributes, "tooltip").is_some_and(|t| t.starts_with("dummy"))
                    && attribute(attributes, "style") == Some("dotted"),
            });
        } else if line.starts_with('f')
            && let Some((name, attributes)) = line.split_once(" [")
        {
            nodes.insert(
                name.to_string(),
                attribute(attributes, "label").unwrap().to_string(),
            );
        }
    }
    (edges, nodes)
}

fn dot_draws_the_dag_with_increments() {
    let text = paths_ok(
        &program("add_even.pl"),
        &["--function", "add_even", "--format", "dot"],
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("digraph \"") && lines[0].ends_with(" {"),
        "{text}"
    );
    assert_eq!(lines.last(), Some(&"}"), "{text}");
    assert!(text.contains("  subgraph \"cluster_0\" {\n"), "{text}");
    assert!(text.contains("\n  }\n}"), "{text}");
    let (edges, nodes) = parse_dot(&text);
    // 8 CFG edges, the back edge bb5→bb1 replaced by two dummies: 9 DAG edges.
    assert_eq!(edges.len(), 9, "{text}");
    assert_eq!(edges.iter().filter(|e| e.dummy).count(), 2, "{text}");
    assert_eq!(text.matches("tooltip=\"back edge\"").count(), 1, "{text}");
    assert!(nodes.values().any(|l| l.starts_with("ENTRY")));
    assert!(nodes.values().any(|l| l == "EXIT"));
    assert!(
        nodes.values().any(|l| l.contains("5: while j <= limit {")),
        "{nodes:?}"
    );
    // The increments reproduce every path id: walk each path's blocks through the drawn edges.
    check_increments(&program("add_even.pl"), "add_even");
    check_increments(&fixture("short_circuit.pl"), "decide");
    check_increments(&fixture("short_circuit.pl"), "check");
    check_increments(&program("paths16.pl"), "main");
}

/// Sums the drawn increments along each listed path and compares with its id.
fn check_increments(file: &Path, name: &str) {
    let text = paths_ok(file, &["--function", name, "--format", "dot"]);
    let (edges, nodes) = parse_dot(&text);
    let exit = nodes
        .iter()
        .find(|(_, l)| *l == "EXIT")
        .map(|(n, _)| n.clone())
        .unwrap();
    let entry = nodes
        .iter()
        .find(|(_, l)| l.starts_with("ENTRY"))
        .map(|(n, _)| n.clone())
        .unwrap();
    let node = |b: &Value| format!("f0_n{}", b.as_u64().unwrap());
    let find = |from: &str, to: &str, dummy: bool| -> u64 {
        let matching: Vec<&DotEdge> = edges
            .iter()
            .filter(|e| e.from == from && e.to == to && e.dummy == dummy)
            .collect();
        assert_eq!(matching.len(), 1, "{from} -> {to} dummy={dummy} in\n{text}");
        matching[0].increment
    };
    let document = paths_json(file, &["--function", name]);
    let f = function(&document, name);
    assert!(edges.iter().any(|e| e.to == exit), "{text}");
    for path in f["paths"].as_array().unwrap() {
        let blocks = path["blocks"].as_array().unwrap();
        let mut sum = 0;
        if path["start"]["kind"] != "entry" {
            sum += find(&entry, &node(&blocks[0]), true);
        }
        for pair in blocks.windows(2) {
            sum += find(&node(&pair[0]), &node(&pair[1]), false);
        }
        let last = node(blocks.last().unwrap());
        sum += match path["end"]["kind"].as_str().unwrap() {
            "return" => find(&last, &exit, false),
            "back_edge" => find(&last, &exit, true),
            _ => {
                edges
                    .iter()
                    .find(|e| e.from == last && e.to == exit)
                    .unwrap()
                    .increment
            }
        };
        assert_eq!(sum, path["id"].as_u64().unwrap(), "{path}");
    }
}

/// 70 stacked `if`s have 2^70 paths: the numbering truncates, and the listing stops at its cap.
fn seventy_stacked_ifs_are_truncated_and_capped() {
    let document = paths_json(&fixture("stacked_ifs.pl"), &["--function", "stacked"]);
    let stacked = function(&document, "stacked");
    assert_eq!(stacked["truncated"], true);
    let num_paths = stacked["num_paths"].as_u64().unwrap();
    assert!(num_paths > 1_000_000, "{num_paths}");
    assert!(!stacked["cut_edges"].as_array().unwrap().is_empty());
    let listed = stacked["listed"].as_u64().unwrap();
    assert_eq!(listed, 1000);
    assert_eq!(stacked["not_listed"].as_u64().unwrap(), num_paths - listed);
    assert_eq!(ids_of(stacked), (0..1000).collect::<Vec<_>>());
    // Paths starting after the cut come first; ids are still dense and unique.
    assert_eq!(stacked["paths"][0]["start"]["kind"], "after_cut");

    let text = paths_ok(&fixture("stacked_ifs.pl"), &["--function", "stacked"]);
    assert!(
        text.starts_with(&format!("fn stacked: {num_paths} potential paths")),
        "{}",
        &text[..200]
    );
    assert!(text.contains("  truncated: "), "{}", &text[..400]);
    assert!(
        text.trim_end().ends_with(&format!(
            "... {} more paths not listed (only the first 1000 are)",
            num_paths - 1000
        )),
        "{}",
        &text[text.len() - 300..]
    );

    let dot = paths_ok(
        &fixture("stacked_ifs.pl"),
        &["--function", "stacked", "--format", "dot"],
    );
    assert!(dot.contains("(cut)"));
}

/// The ids and lines `pcc paths` lists are those a real `--profile=bl` run records.
fn listed_paths_match_recorded_profiles() {
    let scratch = Scratch::new("profiles");
    for (file, args) in [
        (program("add_even.pl"), vec!["4"]),
        (program("paths16.pl"), vec!["2"]),
        (fixture("short_circuit.pl"), vec![]),
    ] {
        let out = scratch.0.join("profile.json");
        let mut command: Vec<std::ffi::OsString> = vec![
            "run".into(),
            file.clone().into(),
            "--profile=bl".into(),
            "--profile-out".into(),
            out.clone().into(),
        ];
        if !args.is_empty() {
            command.push("--".into());
            command.extend(args.iter().map(Into::into));
        }
        let run = pcc(&command);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let profile: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let listing = paths_json(&file, &[]);
        let mut recorded = 0;
        for f in profile["functions"].as_array().unwrap() {
            let name = f["name"].as_str().unwrap();
            let listed = function(&listing, name);
            assert_eq!(listed["cfg_hash"], f["cfg_hash"], "{name}");
            assert_eq!(listed["num_paths"], f["num_paths"], "{name}");
            let by_id: HashMap<u64, Vec<u64>> = listed["paths"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| (p["id"].as_u64().unwrap(), lines_of(p)))
                .collect();
            for p in f["paths"].as_array().unwrap() {
                let id = p["id"].as_u64().unwrap();
                assert_eq!(
                    by_id.get(&id),
                    Some(&lines_of(p)),
                    "{name} path {id} of {}",
                    file.display()
                );
                recorded += 1;
            }
        }
        assert!(recorded > 0);
    }
    // add_even with 4: the paths of Sidebar 1's example are recorded.
    let out = scratch.0.join("profile.json");
    let run = pcc([
        "run".as_ref(),
        program("add_even.pl").as_os_str(),
        "--profile=bl".as_ref(),
        "--profile-out".as_ref(),
        out.as_os_str(),
        "--".as_ref(),
        "4".as_ref(),
    ]);
    assert!(run.status.success());
    let profile: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let add_even = function(&profile, "add_even");
    assert_eq!(ids_of(add_even), vec![0, 1, 2, 4]);
}

fn unknown_function_lists_the_functions() {
    let output = pcc([
        "paths".as_ref(),
        program("paths16.pl").as_os_str(),
        "--function".as_ref(),
        "nope".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no function `nope`"), "{stderr}");
    assert!(stderr.contains("ev, main"), "{stderr}");
    // The global initializers are not a profiled function.
    let output = pcc([
        "paths".as_ref(),
        program("paths16.pl").as_os_str(),
        "--function".as_ref(),
        "<globals>".as_ref(),
    ]);
    assert_eq!(output.status.code(), Some(1));
}

fn compile_errors_are_reported() {
    let output = pcc(["paths".as_ref(), fixture("type_error.pl").as_os_str()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("mismatched types"), "{stderr}");
    assert!(stderr.contains("type_error.pl:3:18"), "{stderr}");
}

/// This file's tests (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        add_even_has_the_six_paths_of_the_sidebar,
        short_circuit_condition_has_seven_paths,
        json_agrees_with_text,
        dot_draws_the_dag_with_increments,
        seventy_stacked_ifs_are_truncated_and_capped,
        listed_paths_match_recorded_profiles,
        unknown_function_lists_the_functions,
        compile_errors_are_reported
    ]
}
