//! `pcc test`: the golden-test runner for course assignments (X.pl with X.args, X.stdin,
//! X.stdout, X.stderr, X.exit beside it): passes and failures with their diffs, the summary and
//! exit status, `--update`, `--timeout`, `--format json` and `--profile`.

mod common;

use common::{Scratch, json, pcc_in, read_json};

/// Echoes its arguments and the lines of its input, then exits with the first argument.
const ECHO: &str = "fn main() -> int {
    for i in 0..argc() {
        println(arg(i));
    }
    while !eof() {
        println(\"in: \" + read_line());
    }
    return parse_int(arg(0));
}
";

const LOOPS: &str = "fn main() {
    let i = 0;
    while true {
        i = i + 1;
    }
}
";

fn write(scratch: &Scratch, name: &str, text: &str) {
    std::fs::write(scratch.path(name), text).unwrap();
}

/// A passing test of `ECHO` named `name` in the scratch folder.
fn echo_test(scratch: &Scratch, name: &str) {
    write(scratch, &format!("{name}.pl"), ECHO);
    write(scratch, &format!("{name}.args"), "3\nb\n");
    write(scratch, &format!("{name}.stdin"), "x\ny\n");
    write(scratch, &format!("{name}.stdout"), "3\nb\nin: x\nin: y\n");
    write(scratch, &format!("{name}.exit"), "3\n");
}

#[test]
fn passing_tests_use_args_stdin_and_every_expected_file() {
    let scratch = Scratch::new("pass");
    echo_test(&scratch, "echo");
    std::fs::create_dir(scratch.path("sub")).unwrap();
    write(&scratch, "sub/hello.pl", "fn main() { println(\"hi\"); }\n");
    write(&scratch, "sub/hello.stdout", "hi\n");
    let run = pcc_in(&scratch.0, &["test"], "");
    assert_eq!(
        run.stdout,
        "ok echo.pl\nok sub/hello.pl\n2 passed, 0 failed\n"
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    // Files and folders as arguments, from elsewhere.
    let run = pcc_in(
        std::path::Path::new("/"),
        &["test", &scratch.file("echo.pl"), &scratch.file("sub")],
        "",
    );
    assert!(
        run.stdout.ends_with("2 passed, 0 failed\n"),
        "{}",
        run.stdout
    );
    assert_eq!(run.status, 0);
}

#[test]
fn failures_show_a_diff_and_exit_with_1() {
    let scratch = Scratch::new("fail");
    echo_test(&scratch, "echo");
    write(&scratch, "echo.stdout", "3\nb\nin: x\nin: z\n");
    write(&scratch, "echo.exit", "0\n");
    write(&scratch, "bad.pl", "fn main() { println(1 + true); }\n");
    write(&scratch, "bad.stdout", "");
    write(&scratch, "nothing.pl", "fn main() { }\n");
    let run = pcc_in(&scratch.0, &["test", "."], "");
    assert_eq!(run.status, 1);
    let out = &run.stdout;
    assert!(out.contains("FAIL echo.pl\n  stdout differs:\n"), "{out}");
    assert!(out.contains("  -in: z\n  +in: y\n"), "{out}");
    assert!(out.contains("  exit differs:\n"), "{out}");
    assert!(out.contains("  -0\n  +3\n"), "{out}");
    // A compile error is the program's stderr and status 1.
    assert!(out.contains("FAIL bad.pl\n  stderr differs:"), "{out}");
    assert!(
        out.contains("FAIL nothing.pl\n  no `./nothing.stdout`; `pcc test --update` writes it\n"),
        "{out}"
    );
    assert!(out.ends_with("0 passed, 3 failed\n"), "{out}");
}

#[test]
fn update_writes_the_expected_files_and_removes_default_ones() {
    let scratch = Scratch::new("update");
    echo_test(&scratch, "echo");
    write(&scratch, "echo.stdout", "wrong\n");
    write(&scratch, "echo.exit", "0\n");
    write(&scratch, "quiet.pl", "fn main() { println(7); }\n");
    write(&scratch, "quiet.stderr", "stale\n");
    write(
        &scratch,
        "crash.pl",
        "fn main() { let a = [1]; println(a[1]); }\n",
    );
    let run = pcc_in(&scratch.0, &["test", "--update"], "");
    assert_eq!(
        run.stdout,
        "updated crash.pl\nupdated echo.pl\nupdated quiet.pl\n3 updated, 0 failed\n"
    );
    assert_eq!(run.status, 0);
    let read = |name: &str| std::fs::read_to_string(scratch.path(name)).ok();
    assert_eq!(read("echo.stdout").unwrap(), "3\nb\nin: x\nin: y\n");
    assert_eq!(read("echo.exit").unwrap(), "3\n");
    assert_eq!(read("quiet.stdout").unwrap(), "7\n");
    assert_eq!(read("quiet.stderr"), None);
    assert_eq!(read("quiet.exit"), None);
    assert_eq!(read("crash.stdout").unwrap(), "");
    assert_eq!(
        read("crash.stderr").unwrap(),
        "runtime error: index 1 out of bounds for length 1\n  --> crash.pl:1:34 in function `main`\n"
    );
    assert_eq!(read("crash.exit").unwrap(), "101\n");
    let run = pcc_in(&scratch.0, &["test"], "");
    assert_eq!(run.status, 0, "{}", run.stdout);
}

#[test]
fn a_run_past_the_timeout_is_killed_and_fails() {
    let scratch = Scratch::new("timeout");
    write(&scratch, "loops.pl", LOOPS);
    write(&scratch, "loops.stdout", "");
    let start = std::time::Instant::now();
    let run = pcc_in(&scratch.0, &["test", "--timeout", "0.5"], "");
    assert!(start.elapsed().as_secs() < 5);
    assert_eq!(
        run.stdout,
        "FAIL loops.pl\n  timed out after 0.5 s\n0 passed, 1 failed\n"
    );
    assert_eq!(run.status, 1);
    let run = pcc_in(&scratch.0, &["test", "--timeout", "-1"], "");
    assert_eq!(run.status, 2, "{}", run.stderr);
}

#[test]
fn json_format_for_graders() {
    let scratch = Scratch::new("json");
    echo_test(&scratch, "echo");
    write(&scratch, "two.pl", "fn main() { println(2); }\n");
    write(&scratch, "two.stdout", "3\n");
    let run = pcc_in(&scratch.0, &["test", "--format", "json"], "");
    assert_eq!(run.status, 1);
    let report = json(&run.stdout);
    assert_eq!(report["passed"], 1);
    assert_eq!(report["failed"], 1);
    let tests = report["tests"].as_array().unwrap();
    assert_eq!(tests[0]["name"], "echo.pl");
    assert_eq!(tests[0]["passed"], true);
    assert_eq!(tests[0]["exit"], 3);
    assert_eq!(tests[1]["passed"], false);
    let mismatch = &tests[1]["mismatches"][0];
    assert_eq!(mismatch["what"], "stdout");
    assert_eq!(mismatch["expected"], "3\n");
    assert_eq!(mismatch["actual"], "2\n");
    assert!(mismatch["diff"].as_str().unwrap().contains("-3\n+2\n"));
}

#[test]
fn profiles_of_every_run_are_merged_per_program() {
    let scratch = Scratch::new("profile");
    // Two tests of the same program (a copy), and another program.
    echo_test(&scratch, "a");
    echo_test(&scratch, "b");
    write(&scratch, "b.args", "3\nb\nc\n");
    write(&scratch, "b.stdout", "3\nb\nc\nin: x\nin: y\n");
    write(&scratch, "hello.pl", "fn main() { println(\"hi\"); }\n");
    write(&scratch, "hello.stdout", "hi\n");
    let run = pcc_in(&scratch.0, &["test", "--profile", "bl"], "");
    assert_eq!(run.status, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("pcc test: 2 profiles of a.pl merged into a.bl.profile.json"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("pcc test: 1 profiles of hello.pl merged into hello.bl.profile.json")
    );
    let merged = read_json(&scratch.path("a.bl.profile.json"));
    let main = common::function(&merged, "main");
    let runs: u64 = common::paths(main, "paths").iter().map(|p| p.1).sum();
    // Each run ends `main` once and takes the loop once per argument and input line:
    // a: 2 + 2 + 1, b: 3 + 2 + 1.
    assert_eq!(runs, 11, "{main}");
    assert!(!scratch.path("b.bl.profile.json").exists());
}

#[test]
fn missing_targets_are_errors() {
    let scratch = Scratch::new("missing");
    let run = pcc_in(&scratch.0, &["test", "nope"], "");
    assert_eq!(run.status, 1);
    assert_eq!(run.stderr, "error: `nope` does not exist\n");
    let run = pcc_in(&scratch.0, &["test"], "");
    assert_eq!(run.status, 1);
    assert_eq!(run.stderr, "error: no test programs (`.pl` files) found\n");
}
