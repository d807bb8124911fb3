//! `pcc test`: golden tests for course assignments, with the sidecar files of the project's own
//! golden tests (`golden.rs`: `X.args`, `X.stdin`, `X.stdout`, `X.stderr`, `X.exit`). Each
//! program runs as `pcc run X.pl` of this very binary, in the program's folder, so a test sees
//! exactly what a student sees.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use pcc_profiler::profile::{self, Kinship, Mode, Profile};
use serde::Serialize;

use crate::driver;

pub mod golden;

use golden::{Mismatch, Outputs, unreadable};

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
        golden::update(program, &ran.outputs(&ran.stderr))
    } else {
        compare(program, &ran, options.profile.is_some()).map(|m| outcome.mismatches = m)
    };
    match result {
        Ok(()) => outcome.passed = outcome.mismatches.is_empty(),
        Err(error) => outcome.error = Some(error),
    }
    outcome
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
    command.args(golden::args(program)?);
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

impl Ran {
    fn outputs<'a>(&'a self, stderr: &'a str) -> Outputs<'a> {
        Outputs {
            status: self.status,
            stdout: &self.stdout,
            stderr,
        }
    }
}

/// The differences between what `program` did and its expected files. A profiled run's own
/// `pcc: ` lines (where its profile went) are not the program's and are not compared.
fn compare(program: &Path, ran: &Ran, profiled: bool) -> Result<Vec<Mismatch>, String> {
    let stderr: String = if profiled {
        (ran.stderr.split_inclusive('\n'))
            .filter(|line| !line.starts_with("pcc: "))
            .collect()
    } else {
        ran.stderr.clone()
    };
    golden::compare(program, &ran.outputs(&stderr))
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
