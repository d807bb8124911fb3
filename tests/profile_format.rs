//! The profile file format, version 2 (docs/PROFILE-FORMAT.md): block ids and lines on every
//! edge (no line 0), the source identity every reader checks (a changed source is warned
//! about, a profile of another program refused), and version-1 files refused with a message
//! that says what to do.

use crate::common;

use std::path::Path;

use common::{Run, Scratch, function, read_json, root};
use serde_json::Value;

fn pcc(dir: &Path, args: &[&str]) -> Run {
    common::pcc_in(dir, args, "")
}

/// The example of issue 13: a `for` loop with an `if` and no `else`, on 9 lines.
const EDGE_MIN: &str = "fn main() {
    let s = 0;
    for i in 0..10 {
        if i % 3 == 0 {
            s += i;
        }
    }
    println(s);
}
";

/// Every edge of `main` as (from_block, to_block, from_line, to_line, count).
fn edges(profile: &Value) -> Vec<(u64, u64, u64, u64, u64)> {
    function(profile, "main")["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let field = |name: &str| e[name].as_u64().unwrap();
            (
                field("from_block"),
                field("to_block"),
                field("from_line"),
                field("to_line"),
                field("count"),
            )
        })
        .collect()
}

fn edge_profile_of_a_loop_with_an_if_names_blocks_and_real_lines() {
    let dir = Scratch::new("edge-min");
    std::fs::write(dir.path("edge_min.pl"), EDGE_MIN).unwrap();
    let run = pcc(&dir.0, &["run", "edge_min.pl", "--profile", "edge"]);
    assert_eq!(
        (run.status, run.stdout.as_str()),
        (0, "18\n"),
        "{}",
        run.stderr
    );
    let profile = read_json(&dir.path("edge_min.edge.profile.json"));
    assert_eq!(profile["version"], 2);
    let main = function(&profile, "main");
    let exit = main["num_blocks"].as_u64().unwrap();
    let edges = edges(&profile);
    assert!(edges.iter().all(|e| e.2 != 0 && e.3 != 0), "{edges:?}");
    // Flow: main ran once; the loop's test ran 11 times, its body 10 times, `s += i` 4 times.
    let into = |block: u64| -> u64 { edges.iter().filter(|e| e.1 == block).map(|e| e.4).sum() };
    let out_of = |block: u64| -> u64 { edges.iter().filter(|e| e.0 == block).map(|e| e.4).sum() };
    assert_eq!(out_of(0), 1, "the entry runs once");
    assert_eq!(into(exit), 1, "main returns once");
    for block in 1..exit {
        assert_eq!(into(block), out_of(block), "flow through bb{block}");
    }
    let counts: Vec<u64> = edges.iter().map(|e| e.4).collect();
    assert_eq!(counts.iter().sum::<u64>(), 47, "{edges:?}");
    // The edge into EXIT comes from the `println` block and has the closing brace's line.
    let to_exit: Vec<_> = edges.iter().filter(|e| e.1 == exit).collect();
    assert_eq!(to_exit.len(), 1);
    assert_eq!((to_exit[0].3, to_exit[0].4), (9, 1));
    // The join after the `if` is a block of its own with a real line.
    assert!(edges.iter().any(|e| e.2 == 5 && e.4 == 4 && e.3 == 7));
    // Edges with the same lines are told apart by their blocks.
    let mut ids: Vec<(u64, u64)> = edges.iter().map(|e| (e.0, e.1)).collect();
    ids.dedup();
    assert_eq!(ids.len(), edges.len());

    let show = pcc(&dir.0, &["profile", "show", "edge_min.edge.profile.json"]);
    assert_eq!(show.status, 0, "{}", show.stderr);
    assert_eq!(show.stderr, "");
    assert!(
        show.stdout.contains("bb0 (line 3) → bb1 (line 3)"),
        "{}",
        show.stdout
    );
    assert!(show.stdout.contains("bb4 (line 9) → exit (line 9)"));
    assert!(!show.stdout.contains("line 0"));
    let json = pcc(
        &dir.0,
        &[
            "profile",
            "show",
            "edge_min.edge.profile.json",
            "--format",
            "json",
        ],
    );
    let report: Value = common::json(&json.stdout);
    let hot = &report["edges"][0];
    assert!(
        hot["from_block"].is_u64() && hot["to_block"].is_u64(),
        "{hot}"
    );
    let exits: Vec<&Value> = report["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["to_exit"] == true)
        .collect();
    assert_eq!(exits.len(), 1);
    assert_eq!(exits[0]["to_block"].as_u64(), Some(exit));
}

/// A profile of `file` (in `dir`) in `mode`, at the default place.
fn profile_of(dir: &Scratch, file: &str, mode: &str, args: &[&str]) -> String {
    let mut all = vec!["run", file, "--profile", mode, "--"];
    all.extend_from_slice(args);
    let run = pcc(&dir.0, &all);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let stem = file.trim_end_matches(".pl");
    dir.file(&format!("{stem}.{mode}.profile.json"))
}

fn readers_warn_when_the_source_changed_or_is_gone() {
    let dir = Scratch::new("stale-source");
    let source = std::fs::read_to_string(root().join("programs/add_even.pl")).unwrap();
    std::fs::write(dir.path("add_even.pl"), &source).unwrap();
    let bl = profile_of(&dir, "add_even.pl", "bl", &["10"]);
    let edge = profile_of(&dir, "add_even.pl", "edge", &["10"]);
    let show = pcc(&dir.0, &["profile", "show", &bl]);
    assert_eq!(show.stderr, "", "an unchanged source: no warning");

    // Two comment lines at the top move every line down by two.
    std::fs::write(dir.path("add_even.pl"), format!("// a\n// b\n{source}")).unwrap();
    let warning = "the source add_even.pl has changed since the profile was written (hash \
                   mismatch); re-run the program to profile it again";
    for args in [
        vec!["profile", "show", bl.as_str()],
        vec!["profile", "diff", bl.as_str(), bl.as_str()],
        vec!["profile", "merge", bl.as_str(), bl.as_str(), "-o", "m.json"],
    ] {
        let run = pcc(&dir.0, &args);
        assert_eq!(run.status, 0, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!("warning: {bl}: {warning}")),
            "{args:?}: {}",
            run.stderr
        );
    }
    // A profile given as input: the same program, edited.
    let run = pcc(
        &dir.0,
        &[
            "run",
            "add_even.pl",
            "--profile=tpp",
            "--edge-profile",
            &edge,
            "--",
            "10",
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "pcc: warning: `{edge}`: the source `add_even.pl` changed since the profile was taken"
        )),
        "{}",
        run.stderr
    );

    std::fs::remove_file(dir.path("add_even.pl")).unwrap();
    let run = pcc(&dir.0, &["profile", "show", &bl]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(&format!(
            "warning: {bl}: the profiled source file is gone (tried add_even.pl"
        )),
        "{}",
        run.stderr
    );
}

fn a_profile_of_another_program_is_refused_naming_both() {
    let dir = Scratch::new("other-program");
    for name in ["add_even", "y2k"] {
        let source = root().join(format!("programs/{name}.pl"));
        std::fs::copy(source, dir.path(&format!("{name}.pl"))).unwrap();
    }
    let add_even = profile_of(&dir, "add_even.pl", "bl", &["10"]);
    let y2k = profile_of(&dir, "y2k.pl", "bl", &["1994", "1996"]);
    let refusal = "is a profile of another program: `add_even.pl`, not `y2k.pl`";
    for flag in ["--use-profile", "--interesting"] {
        let mut args = vec!["run", "y2k.pl", flag, add_even.as_str()];
        if flag == "--interesting" {
            args.push("--profile=ppp");
        }
        args.extend(["--", "1994", "1996"]);
        let run = pcc(&dir.0, &args);
        assert_eq!(run.status, 1, "{flag}: {}", run.stderr);
        assert!(run.stderr.contains(refusal), "{flag}: {}", run.stderr);
    }
    let run = pcc(&dir.0, &["profile", "diff", &add_even, &y2k]);
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "A is a profile of program `add_even.pl` and B of `y2k.pl`, different programs"
        ),
        "{}",
        run.stderr
    );
    let run = pcc(
        &dir.0,
        &["profile", "merge", &add_even, &y2k, "-o", "m.json"],
    );
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("a profile of program `y2k.pl` here and of `add_even.pl` in the earlier"),
        "{}",
        run.stderr
    );

    // The same program at another path is the same code: accepted, with a note.
    std::fs::create_dir(dir.path("moved")).unwrap();
    std::fs::write(
        dir.path("moved/add_even.pl"),
        format!(
            "// moved\n{}",
            std::fs::read_to_string(dir.path("add_even.pl")).unwrap()
        ),
    )
    .unwrap();
    let run = pcc(
        &dir.0,
        &[
            "run",
            "moved/add_even.pl",
            "--use-profile",
            &add_even,
            "--",
            "10",
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "pcc: note: `{add_even}` is a profile of `add_even.pl`, used for \
             `moved/add_even.pl` because they share code"
        )),
        "{}",
        run.stderr
    );
}

fn version_1_profiles_are_refused_with_what_to_do() {
    let dir = Scratch::new("version-1");
    std::fs::copy(root().join("programs/add_even.pl"), dir.path("add_even.pl")).unwrap();
    let old = root().join("tests/profiles/bad/version_1.json");
    let old = old.to_str().unwrap();
    let message = "this profile was written by an older pcc (profile format version 1; this pcc \
                   reads version 2); re-run the program with --profile to make a new one";
    for args in [
        vec!["profile", "show", old],
        vec!["run", "add_even.pl", "--use-profile", old, "--", "4"],
        vec![
            "run",
            "add_even.pl",
            "--profile=ppp",
            "--interesting",
            old,
            "--",
            "4",
        ],
    ] {
        let run = pcc(&dir.0, &args);
        assert_eq!(run.status, 1, "{args:?}");
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
    }
}

/// Block counts (`block`, count) of `main` in a block profile.
fn block_counts(profile: &Value) -> Vec<(u64, u64)> {
    function(profile, "main")["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["block"].as_u64().unwrap(), b["count"].as_u64().unwrap()))
        .collect()
}

fn block_profiles_count_every_block_and_show_merge_and_diff_them() {
    let dir = Scratch::new("block");
    std::fs::write(dir.path("edge_min.pl"), EDGE_MIN).unwrap();
    let block = profile_of(&dir, "edge_min.pl", "block", &[]);
    let profile = read_json(Path::new(&block));
    assert_eq!(profile["mode"], "block");
    let main = function(&profile, "main");
    assert_eq!(main["num_blocks"], 7);
    // bb1 is the loop test (11 times), bb5 `s += i` (4 times), bb6 the join after the `if`.
    assert_eq!(
        block_counts(&profile),
        vec![(0, 1), (1, 11), (2, 10), (3, 10), (4, 1), (5, 4), (6, 10)]
    );
    let lines: Vec<Value> = main["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["lines"].clone())
        .collect();
    assert_eq!(
        lines[6],
        serde_json::json!([7]),
        "the empty join has its own line"
    );
    assert_eq!(lines[4], serde_json::json!([8, 9]));

    let show = pcc(&dir.0, &["profile", "show", &block, "--top", "2"]);
    assert_eq!(show.status, 0, "{}", show.stderr);
    assert!(
        show.stdout
            .starts_with("block profile of edge_min.pl: 47 block executions in 1 function\n"),
        "{}",
        show.stdout
    );
    assert!(
        show.stdout
            .contains("  1  23.40%     11  main      bb1    3\n      3 | for i in 0..10 {\n"),
        "{}",
        show.stdout
    );

    let merged = dir.file("merged.json");
    let run = pcc(&dir.0, &["profile", "merge", &block, &block, "-o", &merged]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stderr.ends_with(": 94 block executions\n"),
        "{}",
        run.stderr
    );
    let doubled: Vec<(u64, u64)> = block_counts(&profile)
        .into_iter()
        .map(|(b, c)| (b, 2 * c))
        .collect();
    assert_eq!(block_counts(&read_json(Path::new(&merged))), doubled);

    let diff = pcc(&dir.0, &["profile", "diff", &block, &merged]);
    assert_eq!(diff.status, 0, "{}", diff.stderr);
    assert!(
        diff.stdout
            .contains("function `main`: 7 blocks with changed counts")
    );
    assert!(
        diff.stdout
            .contains("  changed  bb5             4           8  5\n"),
        "{}",
        diff.stdout
    );
    let same = pcc(&dir.0, &["profile", "diff", &block, &block]);
    assert!(same.stdout.contains("no differences"), "{}", same.stdout);
}

fn block_profiles_of_runs_cut_short_keep_the_counts_so_far() {
    let dir = Scratch::new("block-exit");
    let source = "fn main() {
    for i in 0..10 {
        if i == 3 {
            exit(7);
        }
    }
}
";
    std::fs::write(dir.path("cut.pl"), source).unwrap();
    let run = pcc(&dir.0, &["run", "cut.pl", "--profile=block"]);
    assert_eq!(run.status, 7, "{}", run.stderr);
    let profile = read_json(&dir.path("cut.block.profile.json"));
    // The loop test and the `if` ran 4 times, the `exit` block once, the loop's end (bb4) never,
    // the join after the `if` and the latch 3 times.
    assert_eq!(
        block_counts(&profile),
        vec![(0, 1), (1, 4), (2, 4), (3, 3), (4, 0), (5, 1), (6, 3)]
    );
}

/// This file's tests (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        edge_profile_of_a_loop_with_an_if_names_blocks_and_real_lines,
        readers_warn_when_the_source_changed_or_is_gone,
        a_profile_of_another_program_is_refused_naming_both,
        version_1_profiles_are_refused_with_what_to_do,
        block_profiles_count_every_block_and_show_merge_and_diff_them,
        block_profiles_of_runs_cut_short_keep_the_counts_so_far
    ]
}
