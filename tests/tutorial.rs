//! docs/TUTORIAL.md is executable: every ```console block's `$ COMMAND` lines run, in order, in
//! one scratch folder holding a copy of `programs/` and of `tests/fixtures/` as `fixtures/` (so
//! later commands see the profiles earlier ones wrote), with `pcc` this build's binary; what a command prints (stdout and stderr, as one
//! stream) must be the lines below it. A line `...` stands for any number of lines and `...`
//! inside a line for any text (timings); a non-zero exit status is printed as a last line
//! `[exit N]`. `PCC_BLESS=1` writes the actual outputs into the tutorial instead: read the diff.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{Scratch, root};

/// One command of the tutorial and the output written below it.
struct Step {
    command: String,
    expected: Vec<String>,
    /// The lines of the file that the expected output occupies.
    lines: std::ops::Range<usize>,
}

fn steps(text: &str) -> Vec<Step> {
    let lines: Vec<&str> = text.lines().collect();
    let mut steps: Vec<Step> = Vec::new();
    let mut in_console = false;
    for (i, line) in lines.iter().enumerate() {
        if !in_console {
            in_console = line.trim_end() == "```console";
            continue;
        }
        if line.trim_end() == "```" {
            in_console = false;
        } else if let Some(command) = line.strip_prefix("$ ") {
            steps.push(Step {
                command: command.to_string(),
                expected: Vec::new(),
                lines: i + 1..i + 1,
            });
        } else if let Some(step) = steps.last_mut().filter(|s| s.lines.end == i) {
            step.expected.push(line.to_string());
            step.lines.end = i + 1;
        } else {
            panic!("TUTORIAL.md:{}: output before any `$ ` command", i + 1);
        }
    }
    steps
}

/// Whether `actual` matches `expected` with its `...` elisions.
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => {
            !actual.is_empty() && line_matches(first, actual[0]) && matches(rest, &actual[1..])
        }
    }
}

fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split("...").collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    if !actual.ends_with(last) {
        return false;
    }
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// A copy of the files of `from` (not its folders) in `to`.
fn copy_files(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        if entry.path().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

fn every_command_of_the_tutorial_prints_what_it_shows() {
    let tutorial = root().join("docs/TUTORIAL.md");
    let text = std::fs::read_to_string(&tutorial).unwrap();
    let steps = steps(&text);
    assert!(steps.len() >= 20, "only {} commands found", steps.len());
    let scratch = Scratch::new("tutorial");
    let work = scratch.path("work");
    let bin = scratch.path("bin");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    copy_files(&root().join("programs"), &work);
    copy_files(&root().join("tests/fixtures"), &work.join("fixtures"));
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pcc"), bin.join("pcc")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let bless = std::env::var_os("PCC_BLESS").is_some();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut failures = Vec::new();
    // Replaced from the end, so that the earlier ranges stay valid.
    let mut replacements = Vec::new();
    for step in &steps {
        let output = Command::new("sh")
            .arg("-c")
            // Everything on one stream, also the stderr of commands in a pipeline.
            .arg(format!("exec 2>&1\n{}", step.command))
            .current_dir(&work)
            .env("PATH", &path)
            // Every command also checks the collector: one runs at every allocation, and
            // nothing the tutorial shows may change.
            .env("PCC_GC_STRESS", "1")
            .output()
            .unwrap();
        let mut actual = String::from_utf8_lossy(&output.stdout).into_owned();
        match output.status.code() {
            Some(0) => {}
            Some(code) => actual.push_str(&format!("[exit {code}]\n")),
            None => actual.push_str(&format!("[{}]\n", output.status)),
        }
        let actual: Vec<&str> = actual.lines().collect();
        if !matches(&step.expected, &actual) {
            failures.push(format!(
                "$ {}\n--- expected\n{}\n--- actual\n{}",
                step.command,
                step.expected.join("\n"),
                actual.join("\n")
            ));
            replacements.push((
                step.lines.clone(),
                actual.iter().map(|l| l.to_string()).collect::<Vec<_>>(),
            ));
        }
    }
    if bless {
        for (range, actual) in replacements.into_iter().rev() {
            lines.splice(range, actual);
        }
        std::fs::write(&tutorial, lines.join("\n") + "\n").unwrap();
        return;
    }
    assert!(
        failures.is_empty(),
        "{} of {} commands print something else:\n\n{}",
        failures.len(),
        steps.len(),
        failures.join("\n\n")
    );
}

fn elisions_match_lines_and_text() {
    let expected = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(matches(
        &expected(&["a", "...", "d"]),
        &["a", "b", "c", "d"]
    ));
    assert!(matches(&expected(&["a", "...", "b"]), &["a", "b"]));
    assert!(!matches(&expected(&["a", "...", "d"]), &["a", "b", "c"]));
    assert!(matches(
        &expected(&["took ... s (...)"]),
        &["took 1.5 s (x)"]
    ));
    assert!(!matches(&expected(&["took ... s"]), &["took 1.5 ms!"]));
    assert!(!matches(&expected(&["ab...ba"]), &["aba"]));
}

/// This file's tests (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        every_command_of_the_tutorial_prints_what_it_shows,
        elisions_match_lines_and_text
    ]
}
