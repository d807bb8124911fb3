//! `--error-format json`: one JSON object per compile error and line on stderr, from `check`,
//! `run`, `build` and `test`, with the positions, message, notes and help of the text form.

use crate::common;

use common::{Scratch, json, pcc_in};
use serde_json::Value;

const BROKEN: &str = "fn square(x: int) -> int {
    return x * x;
}

fn main() {
    let f = square;
    let n = 3;
    for i in 0..n {
        i = 2;
    }
}
";

/// The JSON lines of stderr.
fn records(stderr: &str) -> Vec<Value> {
    stderr.lines().map(json).collect()
}

fn check_records(records: &[Value]) {
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(
        records[0],
        serde_json::json!({
            "file": "broken.pl", "line": 6, "column": 13, "end_line": 6, "end_column": 19,
            "label": "", "severity": "error", "message": "`square` is a function, not a variable",
            "related": [], "notes": [], "help": ["call it with `square(...)`"]
        })
    );
    assert_eq!(records[1]["line"], 9);
    assert_eq!(records[1]["related"][0]["line"], 8);
    assert_eq!(records[1]["related"][0]["label"], "declared here");
    assert_eq!(
        records[1]["help"][0],
        "to change it, copy it first: `let j = i;`"
    );
}

fn check_run_and_build_print_json_lines() {
    let scratch = Scratch::new("errors");
    std::fs::write(scratch.path("broken.pl"), BROKEN).unwrap();
    for args in [
        &["check", "--error-format", "json", "broken.pl"][..],
        &["run", "broken.pl", "--error-format=json", "--", "1"],
        &["build", "--error-format", "json", "broken.pl", "-o", "exe"],
    ] {
        let run = pcc_in(&scratch.0, args, "");
        assert_eq!(run.status, 1, "{args:?}");
        assert_eq!(run.stdout, "");
        check_records(&records(&run.stderr));
    }
    // The default stays text.
    let run = pcc_in(&scratch.0, &["check", "broken.pl"], "");
    assert!(
        run.stderr.starts_with("error: `square` is a function"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("= help: call it with `square(...)`"));
}

fn test_compares_the_json_diagnostics() {
    let scratch = Scratch::new("test-errors");
    std::fs::write(scratch.path("broken.pl"), BROKEN).unwrap();
    let run = pcc_in(
        &scratch.0,
        &["test", "--update", "--error-format", "json"],
        "",
    );
    assert_eq!(run.status, 0, "{}", run.stdout);
    let stderr = std::fs::read_to_string(scratch.path("broken.stderr")).unwrap();
    check_records(&records(&stderr));
    assert_eq!(
        std::fs::read_to_string(scratch.path("broken.exit")).unwrap(),
        "1\n"
    );
    let run = pcc_in(&scratch.0, &["test", "--error-format", "json"], "");
    assert_eq!(run.stdout, "ok broken.pl\n1 passed, 0 failed\n");
    // Without the flag the text differs from the expected JSON.
    let run = pcc_in(&scratch.0, &["test"], "");
    assert_eq!(run.status, 1);
    assert!(run.stdout.contains("FAIL broken.pl\n  stderr differs:"));
}

/// This file's tests (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        check_run_and_build_print_json_lines,
        test_compares_the_json_diagnostics
    ]
}
