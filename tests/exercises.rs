//! docs/exercises: `pcc test docs/exercises` passes, and every answer in an `answer.stdout` is
//! what pcc computes today (so an exercise cannot go stale when the numbering, the profiles or
//! the optimizer change).

use crate::common;

use std::path::{Path, PathBuf};

use common::{Run, Scratch, function, json, pcc_in, read_json, root};
use serde_json::Value;

fn exercise(name: &str) -> PathBuf {
    root().join("docs/exercises").join(name)
}

/// The lines of an exercise's `answer.stdout`.
fn answers(name: &str) -> Vec<String> {
    std::fs::read_to_string(exercise(name).join("answer.stdout"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// A scratch folder with the files `files` of the exercise `name` (or of `programs/`).
fn scratch_with(test: &str, files: &[PathBuf]) -> Scratch {
    let scratch = Scratch::new(test);
    for file in files {
        std::fs::copy(
            file,
            scratch.path(file.file_name().unwrap().to_str().unwrap()),
        )
        .unwrap();
    }
    scratch
}

fn ok(dir: &Path, args: &[&str]) -> Run {
    let run = pcc_in(dir, args, "");
    assert_eq!(run.status, 0, "pcc {args:?}: {}", run.stderr);
    run
}

fn every_exercise_passes_pcc_test() {
    let run = pcc_in(&root(), &["test", "docs/exercises"], "");
    assert_eq!(run.status, 0, "{}", run.stdout);
    let folders = std::fs::read_dir(root().join("docs/exercises"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("answer.pl").is_file())
        .count();
    assert!(folders >= 5, "{folders} exercises");
    assert!(
        run.stdout.ends_with(" passed, 0 failed\n"),
        "{}",
        run.stdout
    );
}

fn numbering_answers() {
    let answers = answers("01-numbering");
    let scratch = scratch_with("numbering", &[exercise("01-numbering/grade.pl")]);
    let listing = json(&ok(&scratch.0, &["paths", "grade.pl", "--format", "json"]).stdout);
    assert_eq!(
        function(&listing, "grade")["num_paths"].to_string(),
        answers[0]
    );
    ok(&scratch.0, &["run", "grade.pl", "--profile=bl", "--", "77"]);
    let profile = read_json(&scratch.path("grade.bl.profile.json"));
    let paths = common::paths(function(&profile, "grade"), "paths");
    assert_eq!(paths.len(), 1);
    assert_eq!(paths[0].0.to_string(), answers[1]);
    // NumPaths of the block of line 7, as --explain computes it.
    let text = ok(
        &scratch.0,
        &["paths", "grade.pl", "--function", "grade", "--explain"],
    )
    .stdout;
    let block = text
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_suffix("line 7")
                .map(|b| b.trim().to_string())
        })
        .expect("a block of line 7");
    let prefix = format!("NumPaths({block}) = ");
    let line = text
        .lines()
        .find(|l| l.trim().starts_with(&prefix))
        .unwrap();
    assert!(line.ends_with(&format!(" = {}", answers[2])), "{line}");
}

/// The paper's letters of a y2k loop-body path's decisions.
fn letters(path: &Value) -> String {
    let mut out = String::new();
    for decision in path["decisions"].as_array().unwrap() {
        let taken = decision["outcome"] == "true";
        let (yes, no) = match decision["condition"].as_str().unwrap() {
            "age < 15" => ('B', 'C'),
            "p.college" => ('D', 'E'),
            "p.items > 3" => ('F', 'G'),
            _ => continue,
        };
        out.push(if taken { yes } else { no });
    }
    out
}

fn hot_path_answers() {
    let answers = answers("02-hot-path");
    let scratch = scratch_with("hot", &[root().join("programs/y2k.pl")]);
    ok(
        &scratch.0,
        &["run", "y2k.pl", "--profile=bl", "--", "1994", "2004", "1"],
    );
    let profile = read_json(&scratch.path("y2k.bl.profile.json"));
    let hottest = common::paths(function(&profile, "main"), "paths")
        .into_iter()
        .filter(|(_, _, lines)| lines.contains(&57))
        .max_by_key(|&(id, count, _)| (count, std::cmp::Reverse(id)))
        .unwrap();
    assert_eq!(hottest.0.to_string(), answers[0]);
    let listing = json(
        &ok(
            &scratch.0,
            &["paths", "y2k.pl", "--function", "main", "--format", "json"],
        )
        .stdout,
    );
    let path = function(&listing, "main")["paths"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == hottest.0)
        .unwrap()
        .clone();
    assert_eq!(letters(&path), answers[1]);
}

fn spectra_answers() {
    let answers = answers("03-spectra");
    let scratch = scratch_with("spectra", &[root().join("programs/y2k.pl")]);
    let flags = ["--profile=bl", "--profile-out"];
    ok(
        &scratch.0,
        &[
            "run", "y2k.pl", flags[0], flags[1], "a.json", "--", "1994", "1999", "1",
        ],
    );
    let after = ok(
        &scratch.0,
        &[
            "run", "y2k.pl", flags[0], flags[1], "b.json", "--", "1994", "2004", "1",
        ],
    );
    let diff = json(
        &ok(
            &scratch.0,
            &["profile", "diff", "a.json", "b.json", "--format", "json"],
        )
        .stdout,
    );
    let only_in_b = function(&diff, "main")["only_in_b"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(only_in_b.to_string(), answers[0]);
    // The program prints the loop-body paths that appeared since the first year.
    let appeared: Vec<&str> = after
        .stdout
        .lines()
        .last()
        .unwrap()
        .split_whitespace()
        .filter_map(|w| w.strip_prefix('+'))
        .collect();
    assert_eq!(appeared.join(" "), answers[1]);
}

fn ppp_against_bl_answers() {
    let answers = answers("04-ppp-vs-bl");
    let scratch = scratch_with("ppp", &[exercise("04-ppp-vs-bl/many_paths.pl")]);
    ok(
        &scratch.0,
        &["run", "many_paths.pl", "--profile=bl", "--", "1000"],
    );
    let interesting = ["--interesting", "many_paths.bl.profile.json"];
    ok(
        &scratch.0,
        &[
            "run",
            "many_paths.pl",
            "--profile=ppp",
            interesting[0],
            interesting[1],
            "--",
            "1000",
        ],
    );
    let storage = |file: &str| {
        let profile = read_json(&scratch.path(file));
        match function(&profile, "mix")["storage"].as_str().unwrap() {
            "hash" => "hash table".to_string(),
            other => other.to_string(),
        }
    };
    assert_eq!(storage("many_paths.bl.profile.json"), answers[0]);
    assert_eq!(storage("many_paths.ppp.profile.json"), answers[1]);
    let ppp = read_json(&scratch.path("many_paths.ppp.profile.json"));
    assert_eq!(function(&ppp, "mix")["range"].to_string(), answers[2]);
}

fn unroll_answer_is_the_smallest_run() {
    let answer: u32 = answers("05-unroll")[0].parse().unwrap();
    let scratch = scratch_with("unroll", &[exercise("05-unroll/stripes.pl")]);
    let unrolled = |run: u32| {
        let run = run.to_string();
        ok(
            &scratch.0,
            &[
                "run",
                "stripes.pl",
                "--profile=kbl",
                "--k",
                "6",
                "--",
                "4000",
                &run,
            ],
        );
        let guided = ok(
            &scratch.0,
            &[
                "run",
                "stripes.pl",
                "-O1",
                "--use-profile",
                "stripes.kbl.profile.json",
                "--",
                "4000",
                &run,
            ],
        );
        guided.stderr.contains("`total`: loop")
    };
    assert!(unrolled(answer), "RUN = {answer} does not unroll");
    assert!(
        !unrolled(answer - 1),
        "RUN = {} unrolls already",
        answer - 1
    );
}

/// This file's tests (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        every_exercise_passes_pcc_test,
        numbering_answers,
        hot_path_answers,
        spectra_answers,
        ppp_against_bl_answers,
        unroll_answer_is_the_smallest_run
    ]
}
