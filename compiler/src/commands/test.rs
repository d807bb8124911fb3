//! `pcc test`: golden tests for course assignments, with the sidecar files of the project's own
//! golden tests (docs/CONVENTIONS.md): `X.pl` runs with `X.args` as arguments and `X.stdin` as
//! input, and its stdout, stderr and exit status must be `X.stdout`, `X.stderr` (absent = empty)
//! and `X.exit` (absent = 0). Each program runs as `pcc run X.pl` of this very binary, in the
//! program's folder, so a test sees exactly what a student sees.

use std::fs::File;
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
    match std::fs::read(&path) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(format!("cannot read `{}`: {error}", path.display())),
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
    let stdin_path = program.with_extension("stdin");
    let stdin = if stdin_path.exists() {
        Stdio::from(
            File::open(&stdin_path)
                .map_err(|e| format!("cannot read `{}`: {e}", stdin_path.display()))?,
        )
    } else {
        Stdio::null()
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
    let status = wait(&mut child, options.timeout)?;
    let text = |handle: JoinHandle<Vec<u8>>| {
        String::from_utf8_lossy(&handle.join().unwrap_or_default()).into_owned()
    };
    Ok(Ran {
        status,
        stdout: text(stdout),
        stderr: text(stderr),
    })
}

fn read_all(pipe: Option<impl Read + Send + 'static>) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// The exit status of `child`, killed when it runs longer than `timeout`.
fn wait(child: &mut Child, timeout: Option<Duration>) -> Result<i32, String> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                return status
                    .code()
                    .ok_or_else(|| format!("killed by a signal ({status})"));
            }
            Ok(None) => {}
            Err(error) => return Err(format!("cannot wait for pcc: {error}")),
        }
        if let Some(limit) = timeout
            && start.elapsed() >= limit
        {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("timed out after {} s", limit.as_secs_f64()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
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
            let diff = TextDiff::from_lines(&expected, &actual)
                .unified_diff()
                .header("expected", "actual")
                .to_string();
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
    let mut groups: Vec<(String, Vec<Profile>)> = Vec::new();
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
            .find(|(_, group)| group[0].kinship(&profile) != Kinship::Other)
        {
            Some((_, group)) => group.push(profile),
            None => {
                // Two programs of the same name in different folders get `a`, `a-2`, ...
                let stem = program.file_stem().unwrap_or_default().to_string_lossy();
                let taken = |name: &String| groups.iter().any(|(output, _)| output == name);
                let mut output = driver::default_profile_path(&format!("{stem}.pl"), mode);
                for n in 2.. {
                    if !taken(&output) {
                        break;
                    }
                    output = driver::default_profile_path(&format!("{stem}-{n}.pl"), mode);
                }
                groups.push((output, vec![profile]));
            }
        }
    }
    for (output, group) in groups {
        let written = profile::merge(&group)
            .map_err(|refusal| refusal.error.to_string())
            .and_then(|merged| {
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
