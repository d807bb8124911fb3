//! `pcc test`: the golden-test runner for course assignments (X.pl with X.args, X.stdin,
//! X.stdout, X.stderr, X.exit beside it): passes and failures with their diffs, the summary and
//! exit status, `--update`, `--timeout`, `--format json` and `--profile`.

use crate::common;

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

fn missing_targets_are_errors() {
    let scratch = Scratch::new("missing");
    let run = pcc_in(&scratch.0, &["test", "nope"], "");
    assert_eq!(run.status, 1);
    assert_eq!(run.stderr, "error: `nope` does not exist\n");
    let run = pcc_in(&scratch.0, &["test"], "");
    assert_eq!(run.status, 1);
    assert_eq!(run.stderr, "error: no test programs (`.pl` files) found\n");
}

/// Issue 52: `X.stdin` that is a FIFO would block the program outside `--timeout` (opening it
/// waits for a writer); a device never ends. Only regular files are taken, the others fail the
/// test at once, saying why; so are expected files that are not regular files.
fn inputs_that_are_not_regular_files_fail_at_once() {
    let scratch = Scratch::new("fifo-stdin");
    echo_test(&scratch, "echo");
    std::fs::remove_file(scratch.path("echo.stdin")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(scratch.path("echo.stdin"))
        .status()
        .unwrap();
    assert!(made.success());
    // Were the FIFO opened, this would free the test after 20 s rather than let it hang.
    let fifo = scratch.path("echo.stdin");
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(20));
        let _ = std::fs::OpenOptions::new().write(true).open(fifo);
    });
    write(&scratch, "dev.pl", ECHO);
    std::os::unix::fs::symlink("/dev/zero", scratch.path("dev.stdout")).unwrap();
    let run = pcc_in(&scratch.0, &["test", "--timeout", "0"], "");
    assert_eq!(
        run.stdout,
        "FAIL dev.pl\n  cannot read `./dev.stdout`: it is a character device, not a regular \
         file; pcc test reads only regular files\n\
         FAIL echo.pl\n  cannot read `./echo.stdin`: it is a FIFO (named pipe), not a regular \
         file; pcc test reads only regular files\n0 passed, 2 failed\n"
    );
    assert_eq!(run.status, 1);
}

/// A program printing 200,000 wrong lines: the diff skips the common lines in linear time and
/// shows at most 200 lines from the first difference, saying so (an O(N·D) diff of the whole
/// took 29 s).
fn a_long_wrong_output_gets_a_bounded_diff() {
    let scratch = Scratch::new("long-diff");
    write(
        &scratch,
        "many.pl",
        "fn main() {\n    for i in 0..200000 {\n        println(i * 2);\n    }\n}\n",
    );
    let expected: String = (0..200_000).map(|i| format!("{}\n", i * 3)).collect();
    write(&scratch, "many.stdout", &expected);
    let run = pcc_in(&scratch.0, &["test"], "");
    assert_eq!(run.status, 1);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines[0], "FAIL many.pl");
    assert_eq!(lines[1], "  stdout differs:");
    assert!(lines[4].starts_with("  @@ -1,"), "{}", &run.stdout[..500]);
    assert!(
        run.stdout.contains(
            "  ... diff cut after 200 lines from line 2, the first that differs (expected: \
             200000 lines, actual: 200000 lines)\n"
        ),
        "{}",
        &run.stdout[run.stdout.len() - 500..]
    );
    assert!(lines.len() < 500, "{} lines", lines.len());
    // A difference further down: its hunk is numbered where it is.
    let mut near: String = (0..200_000).map(|i| format!("{}\n", i * 2)).collect();
    near = near.replacen("\n300000\n", "\n300001\n", 1);
    write(&scratch, "many.stdout", &near);
    let run = pcc_in(&scratch.0, &["test"], "");
    assert_eq!(
        run.stdout,
        "FAIL many.pl\n  stdout differs:\n  --- expected\n  +++ actual\n  \
         @@ -149998,7 +149998,7 @@\n   299994\n   299996\n   299998\n  -300001\n  +300000\n   \
         300002\n   300004\n   300006\n0 passed, 1 failed\n"
    );
}

/// A program printing forever is read to its end (so it never stalls on a full pipe) but
/// only its first 4 MiB are kept: the timeout ends it, in bounded memory, and the result says
/// the output was truncated. An output past 4 MiB fails the test even if it ends.
fn a_runaway_output_is_truncated() {
    let scratch = Scratch::new("runaway");
    write(
        &scratch,
        "forever.pl",
        "fn main() {\n    while true {\n        println(\"all work and no play\");\n    }\n}\n",
    );
    write(&scratch, "forever.stdout", "");
    let run = pcc_in(&scratch.0, &["test", "--timeout", "2"], "");
    assert_eq!(run.status, 1);
    assert!(
        run.stdout.starts_with(
            "FAIL forever.pl\n  timed out after 2 s; stdout truncated after 4194304 bytes (of "
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("; pcc test keeps the first 4 MiB of each output)\n"),
        "{}",
        run.stdout
    );
    write(
        &scratch,
        "forever.pl",
        "fn main() {\n    for i in 0..300000 {\n        println(\"all work and no play\");\n    }\n}\n",
    );
    let run = pcc_in(&scratch.0, &["test", "--format", "json"], "");
    let report = json(&run.stdout);
    assert_eq!(
        report["tests"][0]["error"],
        "stdout truncated after 4194304 bytes (of 6300000; pcc test keeps the first 4 MiB of \
         each output)"
    );
    assert_eq!(report["tests"][0]["passed"], false);
    let run = pcc_in(&scratch.0, &["test", "--update"], "");
    assert_eq!(run.status, 1);
    assert_eq!(
        std::fs::read_to_string(scratch.path("forever.stdout")).unwrap(),
        "",
        "a truncated output is not written as the expected one"
    );
}

/// Issue 52: the merged profile is written here, so it names its source as found from here
/// (each run recorded `X.pl`, relative to the test's folder): `show` and `annotate` find it.
fn a_merged_profile_names_its_source_from_where_it_is_written() {
    let scratch = Scratch::new("profile-source");
    std::fs::create_dir(scratch.path("sub")).unwrap();
    echo_test(&scratch, "sub/a");
    let run = pcc_in(&scratch.0, &["test", "--profile", "bl"], "");
    assert_eq!(run.status, 0, "{}{}", run.stdout, run.stderr);
    let merged = read_json(&scratch.path("a.bl.profile.json"));
    assert_eq!(merged["source"]["path"], "sub/a.pl");
    assert_eq!(merged["program"], "sub/a.pl");
    let run = pcc_in(
        &scratch.0,
        &["profile", "annotate", "a.bl.profile.json"],
        "",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains("println(arg(i));"), "{}", run.stdout);
    let run = pcc_in(&scratch.0, &["profile", "show", "a.bl.profile.json"], "");
    assert_eq!(run.stderr, "");
    // From another folder the profile's own folder is where it is looked up.
    let run = pcc_in(
        std::path::Path::new("/"),
        &["profile", "show", &scratch.file("a.bl.profile.json")],
        "",
    );
    assert_eq!(run.stderr, "");
}

/// This file's tests (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        passing_tests_use_args_stdin_and_every_expected_file,
        failures_show_a_diff_and_exit_with_1,
        update_writes_the_expected_files_and_removes_default_ones,
        a_run_past_the_timeout_is_killed_and_fails,
        json_format_for_graders,
        profiles_of_every_run_are_merged_per_program,
        missing_targets_are_errors,
        inputs_that_are_not_regular_files_fail_at_once,
        a_long_wrong_output_gets_a_bounded_diff,
        a_runaway_output_is_truncated,
        a_merged_profile_names_its_source_from_where_it_is_written
    ]
}
