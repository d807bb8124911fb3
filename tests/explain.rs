//! `pcc paths --explain`: the numbering explained is the one the profiles use. Each regenerated
//! path is the path `pcc paths` lists under that id ([PFP] Fig. 11 for `add_even`), PPP's range
//! is the one `--profile=ppp` gets from the same interesting paths, and TPP's hot paths are as
//! many as `--profile=tpp` numbers from the same edge profile.

use crate::common;

use std::path::Path;

use common::{Scratch, function, json, pcc_in, read_json, root, u64s};

fn copy_program(scratch: &Scratch, name: &str) {
    std::fs::copy(root().join("programs").join(name), scratch.path(name)).unwrap();
}

fn explain(dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["paths"];
    all.extend(args);
    all.push("--explain");
    let run = pcc_in(dir, &all, "");
    assert_eq!(run.status, 0, "{}", run.stderr);
    run.stdout
}

fn every_regenerated_path_is_the_listed_path_of_its_id() {
    let scratch = Scratch::new("regenerate");
    copy_program(&scratch, "add_even.pl");
    let listing = pcc_in(
        &scratch.0,
        &["paths", "add_even.pl", "--format", "json"],
        "",
    );
    let listing = json(&listing.stdout);
    let add_even = function(&listing, "add_even");
    for path in add_even["paths"].as_array().unwrap() {
        let id = path["id"].as_u64().unwrap().to_string();
        let text = explain(
            &scratch.0,
            &["add_even.pl", "--function", "add_even", "--path", &id],
        );
        let blocks: Vec<String> = u64s(&path["blocks"])
            .iter()
            .map(|b| format!("bb{b}"))
            .collect();
        assert!(
            text.contains(&format!("   path {id}: {},", blocks.join(" "))),
            "path {id} is {blocks:?}:\n{text}"
        );
        assert!(text.contains(&format!(" = {id}, its id.\n")), "{text}");
    }
    let text = explain(&scratch.0, &["add_even.pl", "--function", "add_even"]);
    assert!(
        text.contains("NumPaths(bb1) = NumPaths(bb2) + NumPaths(bb3) = 2 + 1 = 3"),
        "{text}"
    );
    assert!(text.contains("The function has NumPaths(bb0) = 6 potential paths, ids 0 to 5."));
    // Without --function, every function; the default path is the last one.
    let text = explain(&scratch.0, &["add_even.pl"]);
    assert!(text.contains("fn add_even:") && text.contains("fn main:"));
    assert!(text.contains("5. Regenerating path 5 "));
}

fn ppp_range_is_the_profiles() {
    let scratch = Scratch::new("ppp");
    copy_program(&scratch, "add_even.pl");
    let run = |args: &[&str]| assert_eq!(pcc_in(&scratch.0, args, "").status, 0);
    run(&["run", "add_even.pl", "--profile=bl", "--", "10"]);
    let text = explain(
        &scratch.0,
        &[
            "add_even.pl",
            "--function",
            "add_even",
            "--interesting",
            "add_even.bl.profile.json",
        ],
    );
    assert!(
        text.contains("     BL path 0    ran 5 times: interesting"),
        "{text}"
    );
    assert!(
        text.contains("the other 2 paths never ran in the profile"),
        "{text}"
    );
    run(&[
        "run",
        "add_even.pl",
        "--profile=ppp",
        "--interesting",
        "add_even.bl.profile.json",
        "--",
        "10",
    ]);
    let profile = read_json(&scratch.path("add_even.ppp.profile.json"));
    let range = function(&profile, "add_even")["range"].as_u64().unwrap();
    assert!(
        text.contains(&format!("   range = {range} for 4 interesting paths")),
        "range {range}:\n{text}"
    );
}

fn tpp_hot_paths_are_the_profiles() {
    let scratch = Scratch::new("tpp");
    copy_program(&scratch, "y2k.pl");
    let run = |args: &[&str]| {
        let run = pcc_in(&scratch.0, args, "");
        assert_eq!(run.status, 0, "{}", run.stderr);
    };
    run(&["run", "y2k.pl", "--profile=edge", "--", "1994", "1999", "1"]);
    let text = explain(
        &scratch.0,
        &[
            "y2k.pl",
            "--function",
            "main",
            "--edge-profile",
            "y2k.edge.profile.json",
        ],
    );
    run(&["run", "y2k.pl", "--profile=tpp", "--", "1994", "1999", "1"]);
    let profile = read_json(&scratch.path("y2k.tpp.profile.json"));
    let hot = function(&profile, "main")["num_paths"].as_u64().unwrap();
    assert!(
        text.contains(&format!("the DAG of the hot edges: {hot} paths")),
        "{hot} hot paths:\n{text}"
    );
    assert!(text.contains("TPP(5, 15) from the edge profile"));
    assert!(text.contains(": cold: below 5%"), "{text}");
}

fn bad_requests_are_refused() {
    let scratch = Scratch::new("bad");
    copy_program(&scratch, "add_even.pl");
    let run = pcc_in(
        &scratch.0,
        &[
            "paths",
            "add_even.pl",
            "--explain",
            "--function",
            "add_even",
            "--path",
            "6",
        ],
        "",
    );
    assert_eq!(run.status, 1);
    assert_eq!(
        run.stderr,
        "error: --path 6: `add_even` has 6 paths, numbered 0 to 5\n"
    );
    let run = pcc_in(&scratch.0, &["paths", "add_even.pl", "--path", "1"], "");
    assert_eq!(run.status, 2, "--path needs --explain");
    let run = pcc_in(
        &scratch.0,
        &[
            "paths",
            "add_even.pl",
            "--explain",
            "--interesting",
            "missing.json",
        ],
        "",
    );
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.starts_with("error: --interesting: "),
        "{}",
        run.stderr
    );
}

/// This file's tests (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        every_regenerated_path_is_the_listed_path_of_its_id,
        ppp_range_is_the_profiles,
        tpp_hot_paths_are_the_profiles,
        bad_requests_are_refused
    ]
}
