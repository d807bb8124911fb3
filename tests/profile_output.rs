//! Where profiles go: an output that is not a regular file (a FIFO, a character device, a
//! directory, also behind a symbolic link) or whose directory is missing is refused before the
//! program runs, and left as it was; a symbolic link is written through; a profile that cannot
//! be written at the end makes the status non-zero; and SIGINT, SIGTERM and SIGHUP write the
//! profile of the paths completed so far, then end the process by the signal. Each for `pcc run`
//! and for an executable of `pcc build` (through `PCC_PROFILE_OUT`), and for `pcc profile merge`
//! and `pcc pgo`.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::FileTypeExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{Run, Scratch, function, paths, read_json, run_command};

/// Prints a line, then waits for a line of input: a signal sent after the line arrives while
/// the program waits. `step`'s activations have all ended by then; `main`'s has not.
const WAITS: &str = "fn step(i: int) -> int {
    if i % 3 == 0 {
        return i / 3;
    }
    return i + 1;
}

fn main() {
    let s = 0;
    for i in 0..10 {
        s += step(i);
    }
    println(\"ready\");
    let line = read_line();
    println(s + len(line));
}
";

/// `pcc ARGS` in `dir`, with `stdin`.
fn pcc(dir: &Path, args: &[&str], stdin: &str) -> Run {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pcc"));
    command.current_dir(dir).args(args);
    run_command(command, stdin).unwrap()
}

/// The executable `exe`, run in `dir` with `PCC_PROFILE_OUT=out`.
fn execute(exe: &Path, dir: &Path, out: &str, stdin: &str) -> Run {
    let mut command = Command::new(exe);
    command.current_dir(dir).env("PCC_PROFILE_OUT", out);
    run_command(command, stdin).unwrap()
}

/// A scratch directory with `wait.pl` and its instrumented executable `wait-MODE`.
fn setup(test: &str, modes: &[&str]) -> Scratch {
    let scratch = Scratch::new(test);
    std::fs::write(scratch.path("wait.pl"), WAITS).unwrap();
    for mode in modes {
        let exe = format!("wait-{mode}");
        let built = pcc(
            &scratch.0,
            &["build", "wait.pl", "-o", &exe, "--profile", mode],
            "",
        );
        assert_eq!(built.status, 0, "{}", built.stderr);
    }
    scratch
}

/// Makes `name` in the scratch directory with the command `make NAME ARGS`; false (and why, on
/// stderr) if that is not permitted here.
fn make_special(scratch: &Scratch, make: &str, args: &[&str], name: &str) -> bool {
    let made = Command::new(make)
        .arg(scratch.path(name))
        .args(args)
        .output()
        .unwrap();
    if !made.status.success() {
        eprintln!(
            "skipped {name}: `{make}` is not permitted here: {}",
            String::from_utf8_lossy(&made.stderr)
        );
    }
    made.status.success()
}

/// The JIT and the executable refuse `out` before the program runs (no output, status 1), with
/// a message that says `what` is wrong (naming the file); what is there stays as it was.
fn assert_refused(scratch: &Scratch, out: &str, what: &str) {
    let before = std::fs::symlink_metadata(scratch.path(out)).ok();
    let exe = scratch.path("wait-bl");
    let jit = pcc(
        &scratch.0,
        &["run", "wait.pl", "--profile", "bl", "--profile-out", out],
        "x\n",
    );
    let aot = execute(&exe, &scratch.0, out, "x\n");
    for (how, run) in [("pcc run", &jit), ("executable", &aot)] {
        assert_eq!(run.status, 1, "{how}, {out}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{how}, {out}: the program must not run");
        assert!(
            run.stderr.contains(what),
            "{how}, {out}: the message says {what}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains("the program was not run"),
            "{}",
            run.stderr
        );
    }
    let after = std::fs::symlink_metadata(scratch.path(out)).ok();
    assert_eq!(
        before.map(|m| m.file_type()),
        after.map(|m| m.file_type()),
        "{out} is left as it was"
    );
}

fn outputs_that_are_not_regular_files_are_refused_before_the_run() {
    let scratch = setup("refused", &["bl"]);
    if make_special(&scratch, "mkfifo", &[], "fifo") {
        assert_refused(&scratch, "fifo", "`fifo` is a FIFO");
        std::os::unix::fs::symlink("fifo", scratch.path("to-fifo")).unwrap();
        assert_refused(
            &scratch,
            "to-fifo",
            "`fifo` (the target of the symbolic link `to-fifo`) is a FIFO",
        );
        assert!(
            std::fs::metadata(scratch.path("fifo"))
                .unwrap()
                .file_type()
                .is_fifo()
        );
    }
    if make_special(&scratch, "mknod", &["c", "1", "3"], "null") {
        assert_refused(&scratch, "null", "`null` is a character device");
        assert!(
            std::fs::metadata(scratch.path("null"))
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
    std::fs::create_dir(scratch.path("dir")).unwrap();
    assert_refused(&scratch, "dir", "`dir` is a directory");
    assert_refused(
        &scratch,
        "missing/p.json",
        "the directory `missing` does not exist",
    );
    std::fs::write(scratch.path("file"), "").unwrap();
    assert_refused(&scratch, "file/p.json", "`file` is not a directory");
    // Issue 52: a path ending in `/` names a directory, even one that does not exist; it was
    // taken for the file `newdir`, and the write failed after the run.
    for out in ["newdir/", "newdir/.", "file/"] {
        assert_refused(
            &scratch,
            out,
            &format!("`{out}` ends with `/`, so it names a directory, not a file"),
        );
    }
    assert!(!scratch.path("newdir").exists());
}

fn a_symbolic_link_is_written_through_and_stays() {
    let scratch = setup("symlink", &["bl"]);
    std::fs::write(scratch.path("real.json"), "old").unwrap();
    std::os::unix::fs::symlink("real.json", scratch.path("link")).unwrap();
    let link_is_kept = || {
        assert!(
            std::fs::symlink_metadata(scratch.path("link"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    };
    let jit = pcc(
        &scratch.0,
        &["run", "wait.pl", "--profile", "bl", "--profile-out", "link"],
        "x\n",
    );
    assert_eq!(
        (jit.status, jit.stdout.as_str()),
        (0, "ready\n40\n"),
        "{}",
        jit.stderr
    );
    link_is_kept();
    let jit_profile = std::fs::read(scratch.path("real.json")).unwrap();
    std::fs::write(scratch.path("real.json"), "old").unwrap();
    let aot = execute(&scratch.path("wait-bl"), &scratch.0, "link", "x\n");
    assert_eq!(aot.status, 0, "{}", aot.stderr);
    link_is_kept();
    assert_eq!(
        std::fs::read(scratch.path("real.json")).unwrap(),
        jit_profile
    );
    read_json(&scratch.path("link"));
    // `pcc profile merge -o` writes through the link too.
    let merged = pcc(
        &scratch.0,
        &["profile", "merge", "real.json", "real.json", "-o", "link"],
        "",
    );
    assert_eq!(merged.status, 0, "{}", merged.stderr);
    link_is_kept();
    let step = function(&read_json(&scratch.path("real.json")), "step").clone();
    let counts: u64 = paths(&step, "paths").iter().map(|p| p.1).sum();
    assert_eq!(
        counts, 20,
        "10 executions of `step` in each of two profiles"
    );
}

fn merge_and_pgo_refuse_outputs_that_are_not_regular_files() {
    let scratch = setup("commands", &[]);
    std::fs::create_dir(scratch.path("dir")).unwrap();
    let jit = pcc(
        &scratch.0,
        &[
            "run",
            "wait.pl",
            "--profile",
            "bl",
            "--profile-out",
            "p.json",
        ],
        "x\n",
    );
    assert_eq!(jit.status, 0, "{}", jit.stderr);
    let merged = pcc(&scratch.0, &["profile", "merge", "p.json", "-o", "dir"], "");
    assert_eq!(merged.status, 1);
    assert!(
        merged.stderr.contains("`dir` is a directory"),
        "{}",
        merged.stderr
    );
    let pgo = pcc(
        &scratch.0,
        &["pgo", "wait.pl", "--profile-out", "dir"],
        "x\n",
    );
    assert_eq!(pgo.status, 1);
    assert!(
        pgo.stderr.contains("`dir` is a directory"),
        "{}",
        pgo.stderr
    );
    assert_eq!(pgo.stdout, "", "no run was made");
    let merged = pcc(
        &scratch.0,
        &["profile", "merge", "p.json", "-o", "missing/m.json"],
        "",
    );
    assert_eq!(merged.status, 1);
    assert!(
        merged.stderr.contains("`missing` does not exist"),
        "{}",
        merged.stderr
    );
}

/// Starts `command` with piped stdin and stdout, waits for its `ready` line, and returns the
/// child (its stdin still open).
fn start_until_ready(mut command: Command) -> std::process::Child {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "ready\n");
    child
}

fn jit_command(dir: &Path, mode: &str, out: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pcc"));
    command
        .current_dir(dir)
        .args(["run", "wait.pl", "--profile", mode, "--profile-out", out]);
    command
}

fn exe_command(dir: &Path, mode: &str, out: &str) -> Command {
    let mut command = Command::new(dir.join(format!("wait-{mode}")));
    command.current_dir(dir).env("PCC_PROFILE_OUT", out);
    command
}

fn a_profile_that_cannot_be_written_at_the_end_makes_the_status_non_zero() {
    let scratch = setup("late", &["bl"]);
    for (how, make) in [
        ("pcc run", jit_command as fn(&Path, &str, &str) -> Command),
        ("executable", exe_command),
    ] {
        std::fs::create_dir(scratch.path("gone")).unwrap();
        let mut child = start_until_ready(make(&scratch.0, "bl", "gone/p.json"));
        // The directory was there when the program started; it goes while it runs.
        std::fs::remove_dir(scratch.path("gone")).unwrap();
        child.stdin.take().unwrap().write_all(b"x\n").unwrap();
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{how}: {stderr}");
        assert_eq!(String::from_utf8_lossy(&output.stdout), "40\n", "{how}");
        assert!(
            stderr.contains("cannot write the profile"),
            "{how}: {stderr}"
        );
    }
}

/// The profile a run that gets `x` as input writes (it ends normally).
fn finished_profile(scratch: &Scratch, mode: &str) -> serde_json::Value {
    let out = format!("finished.{mode}.json");
    let run = pcc(
        &scratch.0,
        &["run", "wait.pl", "--profile", mode, "--profile-out", &out],
        "x\n",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    read_json(&scratch.path(&out))
}

fn signals_write_the_profile_then_end_the_process_by_the_signal() {
    let modes = ["bl", "edge", "kbl"];
    let scratch = setup("signals", &modes);
    for mode in modes {
        let finished = finished_profile(&scratch, mode);
        for (signal, number) in [("INT", 2), ("TERM", 15), ("HUP", 1)] {
            let mut profiles = Vec::new();
            for (how, make) in [
                ("pcc run", jit_command as fn(&Path, &str, &str) -> Command),
                ("executable", exe_command),
            ] {
                let out = format!("{mode}-{signal}-{}.json", profiles.len());
                let mut child = start_until_ready(make(&scratch.0, mode, &out));
                // Kept open until the child is gone: at the end of its input the program
                // would end by itself.
                let stdin = child.stdin.take();
                let killed = Command::new("kill")
                    .args(["-s", signal, &child.id().to_string()])
                    .status()
                    .unwrap();
                assert!(killed.success());
                let output = child.wait_with_output().unwrap();
                drop(stdin);
                let stderr = String::from_utf8_lossy(&output.stderr);
                let context = format!("{how}, {mode}, SIG{signal}: {stderr}");
                assert_eq!(output.status.signal(), Some(number), "{context}");
                let profile = read_json(&scratch.path(&out));
                // `step` ran to completion 10 times: its record is the finished run's.
                assert_eq!(
                    function(&profile, "step"),
                    function(&finished, "step"),
                    "{context}"
                );
                if mode == "kbl" {
                    // `main` streams its paths, which its forest counts: those of the finished
                    // run but the one still running (to the return), first level of its k-IPF.
                    let counts = |profile, key: &str| -> Vec<(u64, u64)> {
                        let list = function(profile, "main")[key].as_array().unwrap().clone();
                        (list.iter())
                            .map(|p| (p["id"].as_u64().unwrap(), p["count"].as_u64().unwrap()))
                            .collect()
                    };
                    let total = |list: Vec<(u64, u64)>| list.iter().map(|p| p.1).sum::<u64>();
                    assert_eq!(
                        total(counts(&profile, "paths")) + 1,
                        total(counts(&finished, "paths")),
                        "{context}"
                    );
                    assert_eq!(
                        counts(&profile, "paths"),
                        counts(&profile, "kipf"),
                        "{context}"
                    );
                }
                if mode == "edge" {
                    // `main`'s activation is still running, in the block that reads a line: its
                    // edges are the finished run's but its return.
                    // An edge into EXIT goes to block `num_blocks`.
                    let edges = |profile| {
                        let main = function(profile, "main");
                        let exit = main["num_blocks"].as_u64();
                        let edges = main["edges"].as_array().unwrap();
                        edges
                            .iter()
                            .map(|e| {
                                let returns = e["to_block"].as_u64() == exit;
                                (returns, e["count"].as_u64().unwrap())
                            })
                            .collect::<Vec<_>>()
                    };
                    let expected: Vec<_> = edges(&finished)
                        .into_iter()
                        .map(|(returns, count)| (returns, if returns { 0 } else { count }))
                        .collect();
                    assert_eq!(edges(&profile), expected, "{context}");
                    assert_eq!(function(&profile, "main")["unfinished"], 1, "{context}");
                    assert!(function(&profile, "step").get("unfinished").is_none());
                    assert!(
                        expected
                            .iter()
                            .any(|&(returns, count)| !returns && count == 10)
                    );
                }
                if mode == "bl" {
                    // `main`'s completed paths: all the finished run's but the one that was
                    // running (from the loop's exit to the end).
                    let main = paths(function(&profile, "main"), "paths");
                    let all = paths(function(&finished, "main"), "paths");
                    assert_eq!(main.len() + 1, all.len(), "{context}");
                    assert!(main.iter().all(|p| all.contains(p)), "{context}");
                }
                profiles.push(std::fs::read(scratch.path(&out)).unwrap());
            }
            assert_eq!(
                profiles[0], profiles[1],
                "{mode}, SIG{signal}: JIT = executable"
            );
        }
    }
}

/// A run by root in a sticky directory everyone may write to (like `/tmp`) does not follow a
/// symbolic link another user planted at its default profile output: pcc follows links itself,
/// so it applies the kernel's `fs.protected_symlinks` rule itself, and the program does not run.
/// Skipped unless the tests run as root and `runuser` can act as the user nobody.
fn a_link_another_user_planted_in_a_sticky_directory_is_refused() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let scratch = setup("planted", &["bl"]);
    let root = std::fs::metadata(scratch.path("wait.pl")).unwrap().uid() == 0;
    let nobody = |args: &[&str]| {
        Command::new("runuser")
            .args(["-u", "nobody", "--"])
            .args(args)
            .status()
            .is_ok_and(|status| status.success())
    };
    if !root || !nobody(&["true"]) {
        eprintln!(
            "skipped a_link_another_user_planted_in_a_sticky_directory_is_refused: needs root \
             and `runuser -u nobody`"
        );
        return;
    }
    let mode = |path: &Path, mode| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    mode(&scratch.0, 0o755);
    std::fs::write(scratch.path("victim"), "root's").unwrap();
    let shared = scratch.path("shared");
    std::fs::create_dir(&shared).unwrap();
    mode(&shared, 0o1777);
    std::fs::copy(scratch.path("wait.pl"), shared.join("wait.pl")).unwrap();
    let link = shared.join("wait.bl.profile.json");
    assert!(nobody(&["ln", "-s", "../victim", link.to_str().unwrap()]));
    let jit = pcc(&shared, &["run", "wait.pl", "--profile", "bl"], "x\n");
    let mut command = Command::new(scratch.path("wait-bl"));
    command.current_dir(&shared).env_remove("PCC_PROFILE_OUT");
    let aot = run_command(command, "x\n").unwrap();
    for (how, run) in [("pcc run", &jit), ("executable", &aot)] {
        assert_eq!(run.status, 1, "{how}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{how}: the program must not run");
        for part in [
            "cannot write the profile: refusing to follow the symbolic link \
             `wait.bl.profile.json`: it belongs to user",
            "sits in the current directory, which is sticky and writable by anyone",
            "the program was not run",
        ] {
            assert!(run.stderr.contains(part), "{how}: {part}: {}", run.stderr);
        }
    }
    assert_eq!(std::fs::read(scratch.path("victim")).unwrap(), b"root's");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

/// This file's tests (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        outputs_that_are_not_regular_files_are_refused_before_the_run,
        a_symbolic_link_is_written_through_and_stays,
        merge_and_pgo_refuse_outputs_that_are_not_regular_files,
        a_profile_that_cannot_be_written_at_the_end_makes_the_status_non_zero,
        signals_write_the_profile_then_end_the_process_by_the_signal,
        a_link_another_user_planted_in_a_sticky_directory_is_refused
    ]
}
