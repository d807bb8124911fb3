//! End-to-end tests of targeted path profiling (`pcc run --profile=tpp`, [TPP]): an edge profile
//! of an earlier run removes cold paths from the numbering (hash tables become arrays) and
//! the instrumentation of regions whose paths are all obvious; the rebuilt profile must agree
//! with the `bl` profile of the same run, programs must behave as without profiling, and the
//! edge profile is checked (missing, stale) before it is used. Also `pcc profile aodf` and the
//! other profile commands on tpp profiles.

use crate::common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use common::{Run, Scratch, function, json, pcc_in, pl_files, read_json, root};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures/tpp").join(format!("{name}.pl"))
}

/// `pcc run SOURCE FLAGS -- ARGS` in `dir`, with the program's `.stdin`.
fn run(dir: &Path, source: &Path, flags: &[&str], args: &[String]) -> Run {
    let stdin = common::sidecar(source, "stdin").unwrap_or_default();
    pcc_in(dir, &common::run_args(source, flags, args), &stdin)
}

/// Profiles `source` with `mode` (and `flags`) into `dir/OUT`, and reads the profile.
fn profile(dir: &Scratch, source: &Path, mode: &str, flags: &[&str], args: &[String]) -> Value {
    let out = dir.file(&format!("{mode}.json"));
    let mut all = vec!["--profile", mode, "--profile-out", &out];
    all.extend(flags);
    let result = run(&dir.0, source, &all, args);
    assert!(
        Path::new(&out).exists(),
        "{}: no {mode} profile: {}",
        source.display(),
        result.stderr
    );
    read_json(Path::new(&out))
}

/// The edge, bl and tpp profiles of one run's input (`tpp_flags` added to the tpp run).
fn edge_bl_tpp(
    dir: &Scratch,
    source: &Path,
    tpp_flags: &[&str],
    args: &[String],
) -> (Value, Value) {
    profile(dir, source, "edge", &[], args);
    let bl = profile(dir, source, "bl", &[], args);
    let edge = dir.file("edge.json");
    let mut flags = vec!["--edge-profile", &edge];
    flags.extend(tpp_flags);
    let tpp = profile(dir, source, "tpp", &flags, args);
    (bl, tpp)
}

/// A function's paths as (lines, count), sorted: comparable across numberings.
fn by_lines(function: &Value, field: &str) -> Vec<(Vec<u64>, u64)> {
    let mut paths: Vec<(Vec<u64>, u64)> = function[field]
        .as_array()
        .unwrap_or_else(|| panic!("no `{field}` in {function}"))
        .iter()
        .map(|p| (common::u64s(&p["lines"]), p["count"].as_u64().unwrap()))
        .collect();
    paths.sort();
    paths
}

fn aodf(dir: &Scratch, tpp: &str, bl: &str) -> Value {
    let out = pcc_in(
        &dir.0,
        &["profile", "aodf", tpp, bl, "--format", "json"],
        "",
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    json(&out.stdout)
}

fn args(values: &[&str]) -> Vec<String> {
    values.iter().map(|s| s.to_string()).collect()
}

/// [TPP] §4.1 / Fig. 9: 20 stacked conditionals, 17 of them biased, need a hash table under `bl`
/// (2^20 paths) and an array under `tpp` (2^3 hot paths), with a cold counter for the rest.
fn biased_stacked_conditionals_move_from_a_hash_table_to_an_array() {
    let dir = Scratch::new("stack");
    let (bl, tpp) = edge_bl_tpp(&dir, &fixture("biased_stack"), &[], &args(&["20000"]));
    // Instrumentation precedes the MIR optimizations, which keep every count.
    let edge = dir.file("edge.json");
    let optimized = profile(
        &dir,
        &fixture("biased_stack"),
        "tpp",
        &["-O2", "--edge-profile", &edge],
        &args(&["20000"]),
    );
    assert_eq!(optimized, tpp);
    let (b, t) = (function(&bl, "classify"), function(&tpp, "classify"));
    assert_eq!(
        (b["num_paths"].as_u64(), &b["storage"]),
        (Some(1 << 20), &Value::from("hash"))
    );
    assert_eq!(
        (t["num_paths"].as_u64(), &t["storage"]),
        (Some(8), &Value::from("array"))
    );
    // 17 rare arms run 20 times each in 20000 calls: 340 paths through a cold edge.
    assert_eq!(t["cold_count"], 340);
}

/// [TPP] §5: with a representative edge profile (the same input), AoDF ≥ 98%, and every hot
/// path TPP measures has the count `bl` gives the path with the same lines.
fn representative_edge_profile_attributes_almost_all_flow() {
    let dir = Scratch::new("aodf");
    let (bl, tpp) = edge_bl_tpp(&dir, &fixture("biased_stack"), &[], &args(&["20000"]));
    let report = aodf(&dir, &dir.file("tpp.json"), &dir.file("bl.json"));
    let percent = report["percent"].as_f64().unwrap();
    assert!((98.0..100.0).contains(&percent), "{report}");
    assert_eq!(report["overcount"], 0);
    let bl_paths = by_lines(function(&bl, "classify"), "paths");
    let tpp_paths = by_lines(function(&tpp, "classify"), "paths");
    assert_eq!(tpp_paths.len(), 8);
    for path in &tpp_paths {
        assert!(bl_paths.contains(path), "{path:?} not in bl: {bl_paths:?}");
    }
}

/// [TPP] Fig. 2 / §4.2.2: a function whose paths are all obvious gets no code at all, and its
/// path profile, derived from the edge profile, is `bl`'s.
fn all_obvious_function_is_not_instrumented() {
    let dir = Scratch::new("obvious");
    let source = fixture("all_obvious");
    let (bl, tpp) = edge_bl_tpp(&dir, &source, &[], &[]);
    let t = function(&tpp, "grade");
    assert_eq!(t["storage"], "none");
    assert_eq!(t["cold_count"], 0);
    assert_eq!(by_lines(t, "obvious"), by_lines(t, "paths"));
    assert_eq!(
        by_lines(t, "paths"),
        by_lines(function(&bl, "grade"), "paths")
    );
    let edge = dir.file("edge.json");
    let mir = |flags: &[&str]| {
        let mut all = vec!["--emit", "mir", "--function", "grade"];
        all.extend(flags);
        let out = run(&dir.0, &source, &all, &[]);
        assert_eq!(out.status, 0, "{}", out.stderr);
        out.stdout
    };
    let plain = mir(&[]);
    assert_eq!(mir(&["--profile", "tpp", "--edge-profile", &edge]), plain);
    assert!(mir(&["--profile", "bl"]).contains("count table"));
}

/// `--emit mir --profile tpp` shows the code: a poisoning on the cold edges, and path ends that
/// count into `min(id, cold)`.
fn emitted_mir_shows_poisoning_and_clamped_counts() {
    let dir = Scratch::new("mir");
    let source = fixture("biased_stack");
    profile(&dir, &source, "edge", &[], &args(&["3000"]));
    let edge = dir.file("edge.json");
    let flags = ["--profile", "tpp", "--edge-profile", &edge];
    let mir = run(
        &dir.0,
        &source,
        &[&["--emit", "mir"][..], &flags].concat(),
        &[],
    );
    assert_eq!(mir.status, 0, "{}", mir.stderr);
    assert!(mir.stdout.contains("[min("), "{}", mir.stdout);
    assert!(
        mir.stdout.contains("= -9223372036854775808"),
        "{}",
        mir.stdout
    );
}

/// TPP(0, 0) with the edge profile of the same run keeps every path and derives the obvious
/// ones exactly: the rebuilt profile is the `bl` profile, path for path (compared by lines,
/// the numberings differ), on every program; and profiling changes no program's behaviour.
/// Runs that end in `exit()` or a runtime error (`tests/runtime/`, the profiling fixtures)
/// mark the functions still running in the edge profile (`unfinished`): those fall back to
/// `bl`.
fn zero_thresholds_rebuild_the_bl_profile_of_every_program() {
    let programs: Vec<PathBuf> = ["programs", "tests/runtime", "tests/fixtures/profiling"]
        .iter()
        .flat_map(|dir| pl_files(&root().join(dir)))
        .collect();
    assert!(programs.len() > 40);
    for source in programs {
        let name = source.display().to_string();
        let dir = Scratch::new("zero");
        let args = common::program_args(&source);
        let plain = run(&dir.0, &source, &[], &args);
        let zero = ["--cold-threshold", "0", "--loop-threshold", "0"];
        let (bl, tpp) = edge_bl_tpp(&dir, &source, &zero, &args);
        for f in bl["functions"].as_array().unwrap() {
            let fname = f["name"].as_str().unwrap();
            let t = function(&tpp, fname);
            assert_eq!(
                by_lines(t, "paths"),
                by_lines(f, "paths"),
                "{name}: `{fname}`"
            );
            assert_eq!(t["cold_count"], 0, "{name}: `{fname}`");
        }
        // The same behaviour under tpp (default thresholds).
        let edge = dir.file("edge.json");
        let tpp_run = run(
            &dir.0,
            &source,
            &["--profile=tpp", "--edge-profile", &edge],
            &args,
        );
        common::assert_same_behaviour(&name, &plain, &tpp_run);
    }
}

/// docs/CLI.md: without `--edge-profile` and without `<stem>.edge.profile.json` here, tpp stops
/// with the command that makes one; that command works, and then so does tpp.
fn missing_edge_profile_gives_the_command_to_make_one() {
    let dir = Scratch::new("missing");
    let source = dir.path("add_even.pl");
    std::fs::copy(root().join("programs/add_even.pl"), &source).unwrap();
    let out = pcc_in(
        &dir.0,
        &["run", "add_even.pl", "--profile=tpp", "--", "10"],
        "",
    );
    assert_eq!(out.status, 1, "{}", out.stderr);
    assert!(out.stdout.is_empty());
    let command = "pcc run add_even.pl --profile=edge -- 10";
    assert!(out.stderr.contains(command), "{}", out.stderr);
    let made = pcc_in(&dir.0, &command.split(' ').skip(1).collect::<Vec<_>>(), "");
    assert_eq!(made.status, 0, "{}", made.stderr);
    let out = pcc_in(
        &dir.0,
        &["run", "add_even.pl", "--profile=tpp", "--", "10"],
        "",
    );
    assert_eq!(
        (out.status, out.stdout.as_str()),
        (0, "30\n"),
        "{}",
        out.stderr
    );
    assert!(dir.path("add_even.tpp.profile.json").exists());
    // An explicit --edge-profile that is not an edge profile is an error too.
    let bl = dir.file("add_even.tpp.profile.json");
    let out = pcc_in(
        &dir.0,
        &["run", "add_even.pl", "--profile=tpp", "--edge-profile", &bl],
        "",
    );
    assert_eq!(out.status, 1);
    assert!(
        out.stderr
            .contains("is a tpp profile; tpp plans from an edge profile"),
        "{}",
        out.stderr
    );
}

/// A function whose code changed since the edge profile (another cfg_hash), that was still
/// running when the edge profile's run ended, or that the edge profile lacks, is refused with a
/// warning and profiled like `bl`; the others use the plan.
fn stale_or_missing_functions_fall_back_to_bl_with_a_warning() {
    let dir = Scratch::new("stale");
    let source = dir.path("prog.pl");
    let original = std::fs::read_to_string(fixture("biased_stack")).unwrap();
    std::fs::write(&source, &original).unwrap();
    profile(&dir, &source, "edge", &[], &args(&["2000"]));
    // The edited `classify` has other code; `main` is unchanged.
    std::fs::write(&source, original.replace("s = s + 17;", "s = s * 17;")).unwrap();
    let edge = dir.file("edge.json");
    let out = run(
        &dir.0,
        &source,
        &[
            "--profile=tpp",
            "--edge-profile",
            &edge,
            "--profile-out",
            &dir.file("tpp.json"),
        ],
        &args(&["2000"]),
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("is stale for function `classify`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("`classify` is profiled like bl"),
        "{}",
        out.stderr
    );
    let tpp = read_json(&dir.path("tpp.json"));
    let classify = function(&tpp, "classify");
    assert_eq!(classify["bl_fallback"], true);
    assert_eq!(classify["num_paths"], 1 << 20);
    assert_eq!(classify["storage"], "hash");
    let main = function(&tpp, "main");
    assert!(main.get("bl_fallback").is_none());
    assert!(main["edge_counts"].is_array());

    // A function with an activation still running when the edge profile's run ended: its
    // edges would count a path that never ended.
    std::fs::write(&source, &original).unwrap();
    let mut running = read_json(Path::new(&edge));
    for f in running["functions"].as_array_mut().unwrap() {
        if f["name"] == "main" {
            f["unfinished"] = 1.into();
        }
    }
    std::fs::write(&edge, running.to_string()).unwrap();
    let out = run(
        &dir.0,
        &source,
        &["--profile=tpp", "--edge-profile", &edge],
        &args(&["2000"]),
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("1 activation(s) of `main` still running when its run ended"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("`classify`"), "{}", out.stderr);

    // A function the edge profile lacks.
    let mut edited = read_json(Path::new(&edge));
    edited["functions"]
        .as_array_mut()
        .unwrap()
        .retain(|f| f["name"] != "main");
    std::fs::write(&edge, edited.to_string()).unwrap();
    std::fs::write(&source, &original).unwrap();
    let out = run(
        &dir.0,
        &source,
        &["--profile=tpp", "--edge-profile", &edge],
        &args(&["2000"]),
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("has no counts for function `main`"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("`classify`"), "{}", out.stderr);
}

/// `pcc profile aodf`: a report per function and in total; bad arguments are errors.
fn aodf_command_reports_and_refuses() {
    let dir = Scratch::new("aodf-cmd");
    edge_bl_tpp(&dir, &fixture("biased_stack"), &[], &args(&["5000"]));
    let (tpp, bl, edge) = (
        dir.file("tpp.json"),
        dir.file("bl.json"),
        dir.file("edge.json"),
    );
    let text = pcc_in(&dir.0, &["profile", "aodf", &tpp, &bl], "");
    assert_eq!(text.status, 0, "{}", text.stderr);
    assert!(
        text.stdout.starts_with("attribution of definite flow"),
        "{}",
        text.stdout
    );
    for word in ["classify", "main", "total", "AoDF", "%"] {
        assert!(text.stdout.contains(word), "{}", text.stdout);
    }
    let report = aodf(&dir, &tpp, &bl);
    assert_eq!(report["functions"].as_array().unwrap().len(), 2);
    let f = function(&report, "main");
    assert_eq!(f["percent"], 100.0);

    let refuse = |a: &str, b: &str, message: &str| {
        let out = pcc_in(&dir.0, &["profile", "aodf", a, b], "");
        assert_eq!(out.status, 1, "{a} {b}: {}", out.stdout);
        assert!(out.stderr.contains(message), "{}", out.stderr);
    };
    refuse(&bl, &tpp, "takes a tpp profile there");
    refuse(&tpp, &edge, "takes a bl profile there");
    refuse(&tpp, &dir.file("none.json"), "none.json");
    // A bl profile of another program.
    let other = dir.file("other.json");
    run(
        &dir.0,
        &root().join("programs/add_even.pl"),
        &["--profile=bl", "--profile-out", &other],
        &args(&["4"]),
    );
    refuse(&tpp, &other, "AoDF compares profiles of the same program");
}

/// `pcc profile show` marks obvious paths and reports cold counts; merge sums tpp profiles of
/// the same plan and refuses others; diff refuses functions numbered from other edge profiles.
fn profile_commands_on_tpp_profiles() {
    let dir = Scratch::new("commands");
    let source = fixture("biased_stack");
    edge_bl_tpp(&dir, &source, &[], &args(&["3000"]));
    let (tpp, edge) = (dir.file("tpp.json"), dir.file("edge.json"));
    let show = pcc_in(&dir.0, &["profile", "show", &tpp], "");
    assert_eq!(show.status, 0, "{}", show.stderr);
    for word in ["obvious", "cold path executions"] {
        assert!(show.stdout.contains(word), "{}", show.stdout);
    }
    // `pcc run --profile=tpp` of the same input, from `edge_profile`, into `out`.
    let tpp_run = |edge_profile: &str, out: &str, flags: &[&str]| {
        let mut all = vec!["--profile=tpp", "--edge-profile", edge_profile];
        all.extend(flags);
        all.extend(["--profile-out", out]);
        run(&dir.0, &source, &all, &args(&["3000"]));
    };
    let merged = dir.file("merged.json");
    let merge = |other: &str| {
        pcc_in(
            &dir.0,
            &["profile", "merge", &tpp, other, "-o", &merged],
            "",
        )
    };
    let refused = |out: Run, message: &str| {
        assert_eq!(out.status, 1, "{}", out.stdout);
        assert!(out.stderr.contains(message), "{}", out.stderr);
    };

    let again = dir.file("again.json");
    tpp_run(&edge, &again, &[]);
    let out = merge(&again);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let (one, two) = (read_json(Path::new(&tpp)), read_json(Path::new(&merged)));
    let cold = |p: &Value| function(p, "classify")["cold_count"].as_u64().unwrap();
    assert_eq!(cold(&two), 2 * cold(&one));

    // Another edge profile (another input) numbers `classify`'s paths differently.
    let edge2 = dir.file("edge2.json");
    run(
        &dir.0,
        &source,
        &["--profile=edge", "--profile-out", &edge2],
        &args(&["7"]),
    );
    let other = dir.file("other.json");
    tpp_run(&edge2, &other, &[]);
    refused(merge(&other), "different edge profiles");
    let out = pcc_in(&dir.0, &["profile", "diff", &tpp, &other], "");
    assert!(
        out.stdout.contains("not compared: tpp numbered its paths"),
        "{}",
        out.stdout
    );
    // Other thresholds: refused as a whole.
    let loose = dir.file("loose.json");
    tpp_run(&edge, &loose, &["--cold-threshold", "1"]);
    refused(merge(&loose), "tpp thresholds");
}

/// The flags are checked: thresholds are percentages.
fn thresholds_are_percentages() {
    let dir = Scratch::new("flags");
    let source = root().join("programs/add_even.pl");
    let flags: [&OsStr; 3] = [
        "--profile=tpp".as_ref(),
        "--cold-threshold".as_ref(),
        "101".as_ref(),
    ];
    let out = pcc_in(&dir.0, &common::run_args(&source, &flags, &["3"]), "");
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(out.stderr.contains("101"), "{}", out.stderr);
}

/// This file's tests (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        biased_stacked_conditionals_move_from_a_hash_table_to_an_array,
        representative_edge_profile_attributes_almost_all_flow,
        all_obvious_function_is_not_instrumented,
        emitted_mir_shows_poisoning_and_clamped_counts,
        zero_thresholds_rebuild_the_bl_profile_of_every_program,
        missing_edge_profile_gives_the_command_to_make_one,
        stale_or_missing_functions_fall_back_to_bl_with_a_warning,
        aodf_command_reports_and_refuses,
        profile_commands_on_tpp_profiles,
        thresholds_are_percentages
    ]
}
