//! End-to-end tests of whole program paths (`pcc run --profile=wpp`, `pcc wpp expand|hot`; [WPP]).
//!
//! For every program of `programs/`, `tests/runtime/` (runtime errors) and
//! `tests/fixtures/profiling/` (`exit()` anywhere, many paths), at `-O0` and `-O2`:
//! - the program behaves as without profiling (stdout, exit status, its stderr);
//! - **losslessness**: `pcc wpp expand` prints exactly the raw trace of acyclic paths the runtime
//!   received (kept uncompressed beside the grammar when `PCC_WPP_RAW_TRACE` is set), and
//!   `trace_length` is its length;
//! - **cross-check with `bl`**: the profile's Ball-Larus paths, which the runtime rejoins from the
//!   trace's pieces (paths are also cut before calls), are those of the `bl` profile of the same
//!   run, with the same `cfg_hash`, `num_paths` and lines;
//! - the profile is the same at both levels (instrumentation precedes optimization), unless the
//!   stack overflows (its depth depends on frame sizes).
//!
//! And: `pcc wpp hot` on the grammar of [WPP] Fig. 5 and on real runs (every reported subpath
//! occurs in the trace and costs what it says), and what `show`, `merge`, `diff` and `pcc wpp`
//! say about wpp and other profiles.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{
    Run, Scratch, functions, json, paths, pcc_in, program_args, program_trials, read_json, root,
    run_args, run_command, sidecar,
};

use libtest_mimic::{Failed, Trial};
use serde_json::Value;

/// Where the runtime writes the raw trace, relative to each run's working directory.
const RAW_TRACE: &str = "wpp.raw.trace";

/// This file's trials (`tests/main.rs` runs them).
pub fn trials() -> Vec<Trial> {
    let dirs = ["programs", "tests/runtime", "tests/fixtures/profiling"];
    let mut trials = program_trials(&dirs, check_program);
    trials.push(Trial::test("hot_subpaths_of_figure_5", figure_5));
    trials.push(Trial::test(
        "hot_subpaths_of_a_run_occur_in_its_trace",
        hot_subpaths_of_a_run,
    ));
    trials.push(Trial::test(
        "a_loop_path_is_one_subpath_with_its_total_frequency",
        loop_path_total_frequency,
    ));
    trials.push(Trial::test("profile_commands_on_wpp_profiles", commands));
    trials
}

/// `pcc run SOURCE FLAGS -- ARGS` in `dir`, whose wpp runtime also keeps the raw trace
/// ([`RAW_TRACE`]).
fn run(dir: &Path, source: &Path, flags: &[&str], args: &[String], stdin: &str) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pcc"));
    (command.args(run_args(source, flags, args)))
        .current_dir(dir)
        .env("PCC_WPP_RAW_TRACE", RAW_TRACE);
    let run = run_command(command, stdin).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !run.stderr.contains("panicked"),
        "pcc panicked: {}",
        run.stderr
    );
    run
}

/// `pcc ARGS` in `dir`.
fn pcc(dir: &Path, args: &[&str]) -> Run {
    pcc_in(dir, args, "")
}

fn check_program(dir: &str, name: &str) -> Result<(), Failed> {
    let scratch = Scratch::new(name);
    let source = root().join(dir).join(format!("{name}.pl"));
    let args = program_args(&source);
    let stdin = sidecar(&source, "stdin").unwrap_or_default();

    let plain = run(&scratch.0, &source, &[], &args, &stdin);
    let bl_out = scratch.path("bl.json");
    run(
        &scratch.0,
        &source,
        &["--profile=bl", "--profile-out", bl_out.to_str().unwrap()],
        &args,
        &stdin,
    );
    let bl = functions(&read_json(&bl_out));
    let mut profiles = Vec::new();
    for level in ["-O0", "-O2"] {
        let out = scratch.path(&format!("wpp{level}.json"));
        let wpp = run(
            &scratch.0,
            &source,
            &[
                level,
                "--profile=wpp",
                "--profile-out",
                out.to_str().unwrap(),
            ],
            &args,
            &stdin,
        );
        if (&wpp.stdout, wpp.status, wpp.program_stderr().0)
            != (&plain.stdout, plain.status, plain.program_stderr().0)
        {
            return Err(format!(
                "{level}: the program behaves differently under wpp (status {} against {}):\n{}",
                wpp.status, plain.status, wpp.stderr
            )
            .into());
        }
        let profile = read_json(&out);
        if profile["mode"] != "wpp" {
            return Err(format!("{level}: mode {}", profile["mode"]).into());
        }
        // Losslessness: the grammar expands to the trace the runtime received.
        let raw = std::fs::read_to_string(scratch.path(RAW_TRACE))?;
        let expand = pcc(&scratch.0, &["wpp", "expand", out.to_str().unwrap()]);
        if expand.status != 0 || expand.stdout != raw {
            return Err(format!(
                "{level}: `pcc wpp expand` differs from the raw trace ({} and {} lines): {}",
                expand.stdout.lines().count(),
                raw.lines().count(),
                expand.stderr
            )
            .into());
        }
        if profile["wpp"]["trace_length"].as_u64() != Some(raw.lines().count() as u64) {
            return Err(format!("{level}: wrong trace_length").into());
        }
        // Cross-check: the rejoined Ball-Larus paths are bl's.
        let wpp_functions = functions(&profile);
        if wpp_functions.keys().ne(bl.keys()) {
            return Err(format!("{level}: not the functions of the bl profile").into());
        }
        for (function, record) in &wpp_functions {
            let expected = &bl[function];
            for field in ["cfg_hash", "num_paths", "storage"] {
                if record[field] != expected[field] {
                    return Err(format!("{level}: `{function}`: {field} differs from bl's").into());
                }
            }
            if paths(record, "paths") != paths(expected, "paths") {
                return Err(format!(
                    "{level}: `{function}`: paths {:?}, under bl {:?}",
                    paths(record, "paths"),
                    paths(expected, "paths")
                )
                .into());
            }
        }
        profiles.push(profile);
    }
    // How deep a recursion gets before the stack overflows depends on the frame sizes, which
    // optimization changes: such a run's trace may differ in length between the levels.
    let overflowed = plain.stderr.contains("runtime error: stack overflow");
    if profiles[0] != profiles[1] && !overflowed {
        return Err("the wpp profiles at -O0 and -O2 differ".into());
    }
    Ok(())
}

/// [WPP] Fig. 5: the WPP of `abbcabbcabbc`, S → AAA, A → BC, B → ab, C → bc, each path of cost 1.
/// With subpaths of 2 to 3 paths costing at least 6, Fig. 7 reports ab and bc (at frequency 3).
fn figure_5() -> Result<(), Failed> {
    let scratch = Scratch::new("figure5");
    let symbol = |p: u64| serde_json::json!({ "function": "f", "path": p, "cost": 1 });
    let profile = serde_json::json!({
        "format": "pcc-profile", "version": 2, "mode": "wpp", "program": "fig5.pl", "args": [],
        "source": { "path": "fig5.pl", "hash": "0000000000000000" }, "functions": [],
        "wpp": {
            "symbols": [symbol(0), symbol(1), symbol(2)],
            "trace_length": 12,
            "rules": [["R1", "R1", "R1"], ["R2", "R3"], [0, 1], [1, 2]],
        }
    });
    let file = scratch.path("fig5.json");
    std::fs::write(&file, profile.to_string())?;
    let file = file.to_str().unwrap();
    let expand = pcc(&scratch.0, &["wpp", "expand", file]);
    let abc: String = expand
        .stdout
        .lines()
        .map(|l| match l {
            "f 0" => 'a',
            "f 1" => 'b',
            _ => 'c',
        })
        .collect();
    assert_eq!(abc, "abbcabbcabbc");
    let hot = pcc(
        &scratch.0,
        &[
            "wpp",
            "hot",
            file,
            "--min-cost",
            "6",
            "--max-len",
            "3",
            "--min-len",
            "2",
            "--format",
            "json",
        ],
    );
    assert_eq!(hot.status, 0, "{}", hot.stderr);
    let found: Vec<(Vec<String>, u64, u64)> = json(&hot.stdout)["subpaths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let paths = h["paths"].as_array().unwrap();
            (
                paths
                    .iter()
                    .map(|p| p.as_str().unwrap().to_string())
                    .collect(),
                h["frequency"].as_u64().unwrap(),
                h["cost"].as_u64().unwrap(),
            )
        })
        .collect();
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(
        found,
        [(s(&["f:0", "f:1"]), 3, 6), (s(&["f:1", "f:2"]), 3, 6)]
    );
    let text = pcc(
        &scratch.0,
        &["wpp", "hot", file, "--min-cost", "6", "--max-len", "3"],
    );
    assert!(text.stdout.contains("f:0 f:1"), "{}", text.stdout);
    // A limit beyond the trace's length is the trace's length (such a limit once made an
    // allocation overflow).
    let limit = u64::MAX.to_string();
    let huge = pcc(
        &scratch.0,
        &["wpp", "hot", file, "--min-cost", "6", "--max-len", &limit],
    );
    assert_eq!(huge.status, 0, "{}", huge.stderr);
    assert!(
        huge.stdout.contains("1 to 18446744073709551615"),
        "{}",
        huge.stdout
    );
    Ok(())
}

/// Issue 14: the body path of `for i in 0..8 { s += i; }` ran 7 times (the first iteration
/// is part of the path entering the loop); the grammar holds it under several rules, and
/// `wpp hot` lists it once with its total frequency, also when only the total is hot.
fn loop_path_total_frequency() -> Result<(), Failed> {
    let scratch = Scratch::new("loop_total");
    let file = scratch.file("loop.pl");
    std::fs::write(
        &file,
        "fn main() {\n    let s = 0;\n    for i in 0..8 {\n        s += i;\n    }\n    \
         println(s);\n}\n",
    )?;
    let out = scratch.file("loop.wpp.json");
    let run = pcc(
        &scratch.0,
        &["run", &file, "--profile=wpp", "--profile-out", &out],
    );
    assert_eq!(run.stdout, "28\n", "{}", run.stderr);
    let trace = pcc(&scratch.0, &["wpp", "expand", &out]).stdout;
    let hot = |min_cost: &str| {
        let hot = pcc(
            &scratch.0,
            &[
                "wpp",
                "hot",
                &out,
                "--min-cost",
                min_cost,
                "--max-len",
                "1",
                "--format",
                "json",
            ],
        );
        assert_eq!(hot.status, 0, "{}", hot.stderr);
        json(&hot.stdout)["subpaths"].as_array().unwrap().clone()
    };
    let all = hot("1");
    let names: Vec<&str> = all
        .iter()
        .map(|h| h["paths"][0].as_str().unwrap())
        .collect();
    let mut distinct = names.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(names.len(), distinct.len(), "listed twice: {names:?}");
    // Each frequency is the path's number of occurrences in the trace.
    for h in &all {
        let name = h["paths"][0].as_str().unwrap().replace(':', " ");
        let occurs = trace.lines().filter(|l| *l == name).count() as u64;
        assert_eq!(h["frequency"], occurs, "{name}: {all:?}");
    }
    let body = all
        .iter()
        .find(|h| h["frequency"] == 7)
        .unwrap_or_else(|| panic!("no path ran 7 times: {all:?}"));
    let cost = body["cost"].as_u64().unwrap();
    assert_eq!(cost, 7 * body["path_cost"].as_u64().unwrap());
    // Hot by its total alone: no grammar rule holds as many as 4 of its 7 runs.
    let above = hot(&(cost - 1).to_string());
    assert!(
        above.iter().any(|h| h["paths"] == body["paths"]),
        "{above:?}"
    );
    assert!(
        hot(&(cost + 1).to_string())
            .iter()
            .all(|h| h["paths"] != body["paths"])
    );
    Ok(())
}

/// A wpp run of `program` with `args` in `scratch`; returns the profile's path.
fn wpp_run(scratch: &Scratch, program: &str, args: &[&str], out: &str) -> String {
    let out = scratch.path(out);
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let run = run(
        &scratch.0,
        &root().join(program),
        &["--profile=wpp", "--profile-out", out.to_str().unwrap()],
        &args,
        "",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    out.to_str().unwrap().to_string()
}

/// Every subpath `pcc wpp hot` reports has at most L paths, costs at least C, and occurs in the
/// expanded trace at least as often as its reported frequency; its cost is that frequency times
/// the sum of its paths' costs.
fn hot_subpaths_of_a_run() -> Result<(), Failed> {
    let scratch = Scratch::new("hot");
    for (program, args) in [
        ("programs/add_even.pl", &["50"][..]),
        ("programs/nqueens.pl", &["6"][..]),
        ("programs/sorting.pl", &[][..]),
    ] {
        let file = wpp_run(&scratch, program, args, "hot.json");
        let section = read_json(Path::new(&file))["wpp"].clone();
        let cost_of = |name: &str| -> u64 {
            let (f, p) = name.rsplit_once(':').unwrap();
            section["symbols"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["function"] == f && s["path"].as_u64() == p.parse().ok())
                .and_then(|s| s["cost"].as_u64())
                .unwrap()
        };
        let trace: Vec<String> = pcc(&scratch.0, &["wpp", "expand", &file])
            .stdout
            .lines()
            .map(|l| l.replace(' ', ":"))
            .collect();
        for (min_cost, max_len) in [(50, 4), (500, 16), (5, 1)] {
            let hot = pcc(
                &scratch.0,
                &[
                    "wpp",
                    "hot",
                    &file,
                    "--min-cost",
                    &min_cost.to_string(),
                    "--max-len",
                    &max_len.to_string(),
                    "--format",
                    "json",
                ],
            );
            let report = json(&hot.stdout);
            let subpaths = report["subpaths"].as_array().unwrap();
            // Some path of each program runs in a loop, more than 5 times.
            assert!(
                min_cost > 5 || !subpaths.is_empty(),
                "{program}: nothing hot"
            );
            for h in subpaths {
                let names: Vec<String> = h["paths"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p.as_str().unwrap().to_string())
                    .collect();
                let frequency = h["frequency"].as_u64().unwrap();
                let cost = h["cost"].as_u64().unwrap();
                let occurs = trace.windows(names.len()).filter(|w| *w == names).count() as u64;
                let path_cost: u64 = names.iter().map(|n| cost_of(n)).sum();
                assert!(names.len() <= max_len, "{program}: {names:?} too long");
                assert!(cost >= min_cost, "{program}: {names:?} not hot");
                assert_eq!(cost, frequency * path_cost, "{program}: {names:?}");
                assert_eq!(
                    occurs, frequency,
                    "{program}: {names:?} occurs {occurs} times"
                );
            }
        }
    }
    Ok(())
}

/// `show` sums the trace up, `diff` compares the rejoined paths, `merge` refuses, and `pcc wpp`
/// refuses other modes and malformed grammars with a message.
fn commands() -> Result<(), Failed> {
    let scratch = Scratch::new("commands");
    let a = wpp_run(&scratch, "programs/add_even.pl", &["10"], "a.json");
    let b = wpp_run(&scratch, "programs/add_even.pl", &["3"], "b.json");
    let show = pcc(&scratch.0, &["profile", "show", &a]);
    assert_eq!(show.status, 0, "{}", show.stderr);
    assert!(
        show.stdout
            .contains("trace of 13 acyclic paths (6 distinct), grammar of"),
        "{}",
        show.stdout
    );
    assert!(
        show.stdout.contains("add_even     0  5 6 7 9"),
        "{}",
        show.stdout
    );
    let show_json = json(&pcc(&scratch.0, &["profile", "show", &a, "--format", "json"]).stdout);
    assert_eq!(show_json["wpp"]["trace_length"], 13);
    let diff = pcc(&scratch.0, &["profile", "diff", &b, &a]);
    assert_eq!(diff.status, 0, "{}", diff.stderr);
    assert!(diff.stdout.contains("only in B"), "{}", diff.stdout);
    let merged = scratch.path("m.json");
    let merge = pcc(
        &scratch.0,
        &["profile", "merge", &a, &b, "-o", merged.to_str().unwrap()],
    );
    assert_eq!(merge.status, 1);
    assert!(
        merge.stderr.contains("`wpp` profiles cannot be merged"),
        "{}",
        merge.stderr
    );
    assert!(!merged.exists());

    let bl = scratch.path("bl.json");
    run(
        &scratch.0,
        &root().join("programs/add_even.pl"),
        &["--profile=bl", "--profile-out", bl.to_str().unwrap()],
        &["4".to_string()],
        "",
    );
    for command in ["expand", "hot"] {
        let mut args = vec!["wpp", command, bl.to_str().unwrap()];
        if command == "hot" {
            args.extend(["--min-cost", "1", "--max-len", "2"]);
        }
        let refused = pcc(&scratch.0, &args);
        assert_eq!(refused.status, 1);
        assert!(
            refused
                .stderr
                .contains("a bl profile has no whole program path"),
            "{}",
            refused.stderr
        );
    }
    // A grammar with a cycle, and one using a path the symbol table lacks.
    let mut profile: Value = read_json(Path::new(&a));
    for (rules, error) in [
        (serde_json::json!([["R1"], ["R1", 0]]), "cyclic"),
        (serde_json::json!([[0, 99]]), "symbol table has"),
    ] {
        profile["wpp"]["rules"] = rules;
        let bad = scratch.path("bad.json");
        std::fs::write(&bad, profile.to_string())?;
        for args in [
            vec!["wpp", "expand", bad.to_str().unwrap()],
            vec!["profile", "show", bad.to_str().unwrap()],
        ] {
            let refused = pcc(&scratch.0, &args);
            assert_eq!(refused.status, 1);
            assert!(refused.stderr.contains(error), "{}", refused.stderr);
        }
    }
    Ok(())
}
