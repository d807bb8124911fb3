//! `pcc test`: golden tests for course assignments, with the sidecar files of the project's own
//! golden tests (docs/CONVENTIONS.md): `X.pl` runs with `X.args` as arguments and `X.stdin` as
//! input, and its stdout, stderr and exit status must be `X.stdout`, `X.stderr` (absent = empty)
//! and `X.exit` (absent = 0). Each program runs as `pcc run X.pl` of this very binary, in the
//! program's folder, so a test sees exactly what a student sees.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pcc_profiler::profile::{self, Kinship, Mode, Profile};
use serde::Serialize;
use similar::TextDiff;

use crate::driver;

pub struct Options {
    /// Write the actual results as the expected files instead of comparing.
    pub update: bool,
    /// A run longer than this is killed and fails; `None`: no limit.
    pub timeout: Option<Duration>,
    pub json: bool,
    /// Profile every run in this mode and merge the profiles of each program.
    pub profile: Option<Mode>,
    /// Ask `pcc run` for JSON diagnostics (`--error-format json`).
    pub json_errors: bool,
}

/// How one test ended.
#[derive(Serialize)]
struct Outcome {
    /// The program as found (the argument, or the folder joined with its name).
    name: String,
    passed: bool,
    /// Why the test did not run or was cut short (a timeout, a missing `.stdout`).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// The outputs that differ from the expected ones.
    mismatches: Vec<Mismatch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exit: Option<i32>,
    millis: u128,
}

#[derive(Serialize)]
struct Mismatch {
    /// `stdout`, `stderr` or `exit`.
    what: &'static str,
    expected: String,
    actual: String,
    /// A unified diff of the two (for `exit`, the two statuses).
    diff: String,
}

#[derive(Serialize)]
struct Summary {
    passed: usize,
    failed: usize,
    tests: Vec<Outcome>,
}

/// What a program did.
struct Ran {
    status: i32,
    stdout: String,
    stderr: String,
    /// Notes on outputs cut at [`CAPTURE_LIMIT`] ("stdout truncated after 4194304 bytes").
    truncated: Vec<String>,
}

/// The most bytes of each output (stdout, stderr) a test keeps: a runaway program's output is
/// read to its end (so the program is not stalled on a full pipe) but not kept past this.
const CAPTURE_LIMIT: usize = 4 << 20;

/// The most bytes of an expected file (`X.stdout`, `X.args`, ...) a test reads.
const SIDECAR_LIMIT: u64 = 64 << 20;

/// The most lines of each output a diff shows, from just before the first difference on. The
/// common lines before and after the differences are found in linear time first, so a diff
/// takes time linear in the outputs plus a bounded diff of at most this many lines.
const DIFF_LINES: usize = 200;

/// Lines of context around a change in a diff.
const DIFF_CONTEXT: usize = 3;

/// `X.EXT` is not a regular file (a FIFO would block the test outside `--timeout`, a device
/// such as `/dev/zero` never ends), or is too large: why, for a test's failure.
fn unreadable(path: &Path, error: &std::io::Error) -> String {
    if error.kind() == std::io::ErrorKind::InvalidInput {
        format!(
            "cannot read `{}`: {error}; pcc test reads only regular files",
            path.display()
        )
    } else {
        format!("cannot read `{}`: {error}", path.display())
    }
}

pub fn run(targets: &[PathBuf], options: &Options) -> i32 {
    let tests = match collect(targets) {
        Ok(tests) if tests.is_empty() => {
            eprintln!("error: no test programs (`.pl` files) found");
            return 1;
        }
        Ok(tests) => tests,
        Err(message) => {
            eprintln!("error: {message}");
            return 1;
        }
    };
    let scratch = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(error) => {
            eprintln!("error: cannot create a temporary folder: {error}");
            return 1;
        }
    };
    let mut outcomes = Vec::new();
    let mut profiles = Vec::new();
    for (index, program) in tests.iter().enumerate() {
        let profile_out = options
            .profile
            .map(|_| scratch.path().join(format!("{index}.json")));
        let outcome = run_one(program, options, profile_out.as_deref());
        if let Some(path) = profile_out.filter(|p| p.exists()) {
            profiles.push((program.clone(), path));
        }
        if !options.json {
            print_outcome(&outcome, options.update);
        }
        outcomes.push(outcome);
    }
    let failed = outcomes.iter().filter(|o| !o.passed).count();
    let passed = outcomes.len() - failed;
    let merged_ok = match options.profile {
        Some(mode) => merge_profiles(&profiles, mode),
        None => true,
    };
    if options.json {
        let summary = Summary {
            passed,
            failed,
            tests: outcomes,
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&summary).expect("a summary is JSON")
        );
    } else if options.update {
        println!("{passed} updated, {failed} failed");
    } else {
        println!("{passed} passed, {failed} failed");
    }
    if failed == 0 && merged_ok { 0 } else { 1 }
}

/// The programs to test: each `.pl` argument, and every `.pl` file below each folder argument
/// (sorted); the current folder when there are no arguments.
fn collect(targets: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let here = [PathBuf::from(".")];
    let targets = if targets.is_empty() {
        &here[..]
    } else {
        targets
    };
    let mut tests = Vec::new();
    for target in targets {
        if target.is_dir() {
            pl_files(target, &mut tests)
                .map_err(|e| format!("cannot read `{}`: {e}", target.display()))?;
        } else if target.extension().is_some_and(|e| e == "pl") && target.is_file() {
            tests.push(target.clone());
        } else if target.exists() {
            return Err(format!(
                "`{}` is neither a folder nor a `.pl` program",
                target.display()
            ));
        } else {
            return Err(format!("`{}` does not exist", target.display()));
        }
    }
    Ok(tests)
}

fn pl_files(dir: &Path, into: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            pl_files(&path, into)?;
        } else if path.extension().is_some_and(|e| e == "pl") {
            into.push(path);
        }
    }
    Ok(())
}

fn run_one(program: &Path, options: &Options, profile_out: Option<&Path>) -> Outcome {
    let start = Instant::now();
    let mut outcome = Outcome {
        name: program
            .strip_prefix(".")
            .unwrap_or(program)
            .display()
            .to_string(),
        passed: false,
        error: None,
        mismatches: Vec::new(),
        exit: None,
        millis: 0,
    };
    let ran = execute(program, options, profile_out);
    outcome.millis = start.elapsed().as_millis();
    let ran = match ran {
        Ok(ran) => ran,
        Err(error) => {
            outcome.error = Some(error);
            return outcome;
        }
    };
    outcome.exit = Some(ran.status);
    if !ran.truncated.is_empty() {
        // What was kept is not what the program printed: neither compared as if it were, nor
        // written as the expected output.
        outcome.error = Some(ran.truncated.join("; "));
        if options.update {
            return outcome;
        }
        if let Ok(mismatches) = compare(program, &ran, options.profile.is_some()) {
            outcome.mismatches = mismatches;
        }
        return outcome;
    }
    let result = if options.update {
        update(program, &ran)
    } else {
        compare(program, &ran, options.profile.is_some()).map(|m| outcome.mismatches = m)
    };
    match result {
        Ok(()) => outcome.passed = outcome.mismatches.is_empty(),
        Err(error) => outcome.error = Some(error),
    }
    outcome
}

/// A sidecar file of `program` (`X.EXT`), if it exists.
fn sidecar(program: &Path, ext: &str) -> Result<Option<String>, String> {
    let path = program.with_extension(ext);
    match profile::read_regular(&path, SIDECAR_LIMIT, "an expected file") {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(unreadable(&path, &error)),
    }
}

/// Runs `pcc run X.pl -- ARGS` in the program's folder with `X.stdin` as input.
fn execute(program: &Path, options: &Options, profile_out: Option<&Path>) -> Result<Ran, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find pcc itself: {e}"))?;
    let dir = match program.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let file = program.file_name().expect("a .pl file has a name");
    let mut command = Command::new(exe);
    command.current_dir(dir).arg("run").arg(file);
    if options.json_errors {
        command.args(["--error-format", "json"]);
    }
    if let (Some(mode), Some(out)) = (options.profile, profile_out) {
        command
            .arg(format!("--profile={mode}"))
            .arg("--profile-out")
            .arg(out);
    }
    command.arg("--");
    if let Some(args) = sidecar(program, "args")? {
        command.args(args.lines());
    }
    // Only a regular file: the program reading a FIFO would wait for a writer, and a test
    // blocked there is a test whose input is wrong, not a slow one.
    let stdin_path = program.with_extension("stdin");
    let stdin = match profile::open_regular(&stdin_path, u64::MAX, "an input file") {
        Ok(file) => Stdio::from(file),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Stdio::null(),
        Err(error) => return Err(unreadable(&stdin_path, &error)),
    };
    let mut child = command
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start pcc: {e}"))?;
    // Read both pipes while the program runs, so that a full pipe cannot stall it.
    let stdout = read_all(child.stdout.take());
    let stderr = read_all(child.stderr.take());
    let status = wait(&mut child, options.timeout);
    let mut truncated = Vec::new();
    let mut text = |what: &str, handle: JoinHandle<Captured>| {
        let captured = handle.join().unwrap_or_default();
        if captured.total > captured.bytes.len() as u64 {
            truncated.push(format!(
                "{what} truncated after {} bytes (of {}; pcc test keeps the first {} MiB of \
                 each output)",
                captured.bytes.len(),
                captured.total,
                CAPTURE_LIMIT >> 20
            ));
        }
        String::from_utf8_lossy(&captured.bytes).into_owned()
    };
    let (stdout, stderr) = (text("stdout", stdout), text("stderr", stderr));
    let status = status.map_err(|error| {
        std::iter::once(error)
            .chain(truncated.iter().cloned())
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    Ok(Ran {
        status,
        stdout,
        stderr,
        truncated,
    })
}

/// The first [`CAPTURE_LIMIT`] bytes of an output, and how many it had.
#[derive(Default)]
struct Captured {
    bytes: Vec<u8>,
    total: u64,
}

/// Reads `pipe` to its end, keeping its first [`CAPTURE_LIMIT`] bytes.
fn read_all(pipe: Option<impl Read + Send + 'static>) -> JoinHandle<Captured> {
    std::thread::spawn(move || {
        let mut captured = Captured::default();
        let Some(mut pipe) = pipe else {
            return captured;
        };
        let mut buffer = vec![0u8; 64 << 10];
        loop {
            match pipe.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => {
                    let room = CAPTURE_LIMIT - captured.bytes.len();
                    captured.bytes.extend_from_slice(&buffer[..n.min(room)]);
                    captured.total += n as u64;
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        captured
    })
}

/// The exit status of `child`, killed when it runs longer than `timeout`.
fn wait(child: &mut Child, timeout: Option<Duration>) -> Result<i32, String> {
    let cannot = |error: std::io::Error| format!("cannot wait for pcc: {error}");
    let status = match timeout {
        None => child.wait().map_err(cannot)?,
        Some(limit) => match wait_timeout::ChildExt::wait_timeout(child, limit).map_err(cannot)? {
            Some(status) => status,
            None => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {} s", limit.as_secs_f64()));
            }
        },
    };
    status
        .code()
        .ok_or_else(|| format!("killed by a signal ({status})"))
}

/// The differences between what `program` did and its expected files. A profiled run's own
/// `pcc: ` lines (where its profile went) are not the program's and are not compared.
fn compare(program: &Path, ran: &Ran, profiled: bool) -> Result<Vec<Mismatch>, String> {
    let expected_stdout = sidecar(program, "stdout")?.ok_or_else(|| {
        format!(
            "no `{}`; `pcc test --update` writes it",
            program.with_extension("stdout").display()
        )
    })?;
    let expected_stderr = sidecar(program, "stderr")?.unwrap_or_default();
    let expected_exit = match sidecar(program, "exit")? {
        Some(text) => text.trim().parse::<i32>().map_err(|_| {
            format!(
                "`{}` does not hold an exit status",
                program.with_extension("exit").display()
            )
        })?,
        None => 0,
    };
    let stderr = if profiled {
        ran.stderr
            .split_inclusive('\n')
            .filter(|line| !line.starts_with("pcc: "))
            .collect()
    } else {
        ran.stderr.clone()
    };
    let mut mismatches = Vec::new();
    for (what, expected, actual) in [
        ("stdout", expected_stdout, ran.stdout.clone()),
        ("stderr", expected_stderr, stderr),
        (
            "exit",
            format!("{expected_exit}\n"),
            format!("{}\n", ran.status),
        ),
    ] {
        if expected != actual {
            let diff = bounded_diff(&expected, &actual);
            mismatches.push(Mismatch {
                what,
                expected,
                actual,
                diff,
            });
        }
    }
    Ok(mismatches)
}

/// A unified diff of `expected` and `actual` (which differ), of at most [`DIFF_LINES`] lines
/// of each from just before their first difference: the lines they share at the start and at
/// the end are skipped in linear time, so a long wrong output is not diffed in O(N·D) (200,000
/// wrong lines took 29 s). A note after the diff says when it was cut.
fn bounded_diff(expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.split_inclusive('\n').collect();
    let a: Vec<&str> = actual.split_inclusive('\n').collect();
    let prefix = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let suffix = e[prefix..]
        .iter()
        .rev()
        .zip(a[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let start = prefix.saturating_sub(DIFF_CONTEXT);
    let ends = |lines: &[&str]| {
        let changed_end = lines.len() - suffix;
        let whole = (changed_end + DIFF_CONTEXT.min(suffix)).min(lines.len());
        (whole.min(start + DIFF_LINES), whole - start > DIFF_LINES)
    };
    let ((e_end, e_cut), (a_end, a_cut)) = (ends(&e), ends(&a));
    let window = |lines: &[&str], end: usize| lines[start..end].concat();
    let (e_window, a_window) = (window(&e, e_end), window(&a, a_end));
    let diff = TextDiff::from_lines(&e_window, &a_window)
        .unified_diff()
        .context_radius(DIFF_CONTEXT)
        .header("expected", "actual")
        .to_string();
    let mut diff = shift_hunks(&diff, start);
    if e_cut || a_cut {
        if !diff.ends_with('\n') {
            diff.push('\n');
        }
        diff += &format!(
            "... diff cut after {DIFF_LINES} lines from line {}, the first that differs \
             (expected: {} lines, actual: {} lines)\n",
            prefix + 1,
            e.len(),
            a.len()
        );
    }
    diff
}

/// `diff` with the line numbers of its hunk headers (`@@ -1,3 +1,4 @@`) moved down by `by`.
fn shift_hunks(diff: &str, by: usize) -> String {
    if by == 0 {
        return diff.to_string();
    }
    let shift = |range: &str| -> String {
        let (first, rest) = range
            .split_once(',')
            .map_or((range, None), |(f, r)| (f, Some(r)));
        let first = first.parse::<usize>().map_or(first.to_string(), |n| {
            // A range of no lines names the line before it, 0 at the start.
            (n + by).to_string()
        });
        match rest {
            Some(rest) => format!("{first},{rest}"),
            None => first,
        }
    };
    diff.split_inclusive('\n')
        .map(|line| {
            let Some(inner) = line.strip_prefix("@@ -").and_then(|l| l.split_once(" @@")) else {
                return line.to_string();
            };
            let (ranges, tail) = inner;
            let Some((old, new)) = ranges.split_once(" +") else {
                return line.to_string();
            };
            format!("@@ -{} +{} @@{tail}", shift(old), shift(new))
        })
        .collect()
}

/// Writes what the program did as its expected files; an empty stderr and a status of 0 are
/// the defaults, so their files are removed.
fn update(program: &Path, ran: &Ran) -> Result<(), String> {
    let write = |ext: &str, text: Option<String>| {
        let path = program.with_extension(ext);
        let result = match text {
            Some(text) => std::fs::write(&path, text),
            None => match std::fs::remove_file(&path) {
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
        };
        result.map_err(|e| format!("cannot write `{}`: {e}", path.display()))
    };
    write("stdout", Some(ran.stdout.clone()))?;
    write("stderr", Some(ran.stderr.clone()).filter(|s| !s.is_empty()))?;
    write(
        "exit",
        (ran.status != 0).then(|| format!("{}\n", ran.status)),
    )
}

fn print_outcome(outcome: &Outcome, update: bool) {
    let verdict = match (outcome.passed, update) {
        (true, true) => "updated",
        (true, false) => "ok",
        (false, _) => "FAIL",
    };
    println!("{verdict} {}", outcome.name);
    if let Some(error) = &outcome.error {
        println!("  {error}");
    }
    for mismatch in &outcome.mismatches {
        println!("  {} differs:", mismatch.what);
        for line in mismatch.diff.lines() {
            println!("  {line}");
        }
    }
}

/// Merges the profiles of the runs, one merged profile per program (runs of copies of the same
/// code count as one program), written here as `<stem>.<mode>.profile.json` like `pcc run`
/// writes them. False if one could not be merged or written.
fn merge_profiles(profiles: &[(PathBuf, PathBuf)], mode: Mode) -> bool {
    // (output, the first program's path from here, its profiles).
    let mut groups: Vec<(String, PathBuf, Vec<Profile>)> = Vec::new();
    let mut ok = true;
    for (program, path) in profiles {
        let profile = match Profile::read(path) {
            Ok(profile) => profile,
            Err(error) => {
                eprintln!("error: the profile of {}: {error}", program.display());
                ok = false;
                continue;
            }
        };
        match groups
            .iter_mut()
            .find(|(_, _, group)| group[0].kinship(&profile) != Kinship::Other)
        {
            Some((_, _, group)) => group.push(profile),
            None => {
                // Two programs of the same name in different folders get `a`, `a-2`, ...
                let stem = program.file_stem().unwrap_or_default().to_string_lossy();
                let taken = |name: &String| groups.iter().any(|(output, _, _)| output == name);
                let mut output = driver::default_profile_path(&format!("{stem}.pl"), mode);
                for n in 2.. {
                    if !taken(&output) {
                        break;
                    }
                    output = driver::default_profile_path(&format!("{stem}-{n}.pl"), mode);
                }
                groups.push((output, program.clone(), vec![profile]));
            }
        }
    }
    for (output, program, group) in groups {
        let written = profile::merge_saturating(&group)
            .map_err(|refusal| refusal.error.to_string())
            .and_then(|merged| {
                super::profile::warn_saturated(&merged.saturated);
                let mut merged = merged.profile;
                // Each run recorded its source as `X.pl`, relative to the test's folder, where
                // it ran; the merged profile is written here, so it names the program as found
                // from here (docs/PROFILE-FORMAT.md, "Source identity": readers look a relative
                // path up from the current folder, then from the profile's, both this one).
                let from_here = program.strip_prefix(".").unwrap_or(&program);
                merged.program = from_here.display().to_string();
                merged.source.path = merged.program.clone();
                pcc_profiler::output_file::check_output(Path::new(&output))?;
                merged
                    .write_atomic(Path::new(&output))
                    .map_err(|e| e.to_string())
            });
        match written {
            Ok(()) => eprintln!(
                "pcc test: {} profiles of {} merged into {output}",
                group.len(),
                group[0].program
            ),
            Err(error) => {
                eprintln!(
                    "error: cannot merge the profiles of {}: {error}",
                    group[0].program
                );
                ok = false;
            }
        }
    }
    ok
}
