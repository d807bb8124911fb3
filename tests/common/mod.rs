//! Helpers shared by the end-to-end tests: the repository root, scratch directories, running
//! `pcc` and reading what it writes.

use pcc::commands::test::golden;
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

/// The root of the repository.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.pl` file in `dir` (not below it), sorted; none if `dir` cannot be read.
pub fn pl_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "pl"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// A fresh directory for one test's files, removed when the test ends (even when it fails).
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(test: &str) -> Scratch {
        // Tests run in parallel: every directory gets a name of its own.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "pcc-{}-{}-{test}-{}",
            env!("CARGO_CRATE_NAME"),
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// An absolute path in the directory, as a command-line argument.
    pub fn file(&self, name: &str) -> String {
        self.path(name)
            .to_str()
            .expect("UTF-8 temp dir")
            .to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// How a run of pcc ended.
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stderr without pcc's own lines (`pcc: ...`), and those lines.
    pub fn program_stderr(&self) -> (String, Vec<&str>) {
        let (pcc, program): (Vec<&str>, Vec<&str>) = self
            .stderr
            .split_inclusive('\n')
            .partition(|line| line.starts_with("pcc: "));
        (program.concat(), pcc)
    }
}

/// A profiled run behaved as the plain one: same exit status, stdout, and stderr but for pcc's
/// own lines.
pub fn assert_same_behaviour(name: &str, plain: &Run, profiled: &Run) {
    assert_eq!(plain.status, profiled.status, "{name}: exit status");
    assert_eq!(plain.stdout, profiled.stdout, "{name}: stdout");
    assert_eq!(
        plain.program_stderr().0,
        profiled.program_stderr().0,
        "{name}: stderr"
    );
}

/// Runs `pcc ARGS` in `dir` with `stdin` as its input; an error if it cannot start or is
/// killed by a signal.
pub fn try_pcc_in<S: AsRef<OsStr>>(dir: &Path, args: &[S], stdin: &str) -> Result<Run, String> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pcc"));
    command.args(args).current_dir(dir);
    run_command(command, stdin)
}

/// Runs `command` with `stdin` as its input; an error if it cannot start or is killed by a
/// signal.
pub fn run_command(mut command: Command, stdin: &str) -> Result<Run, String> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{command:?} does not start: {e}"))?;
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_string();
    // From another thread, so that a program that never reads cannot block the test.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(input.as_bytes());
    });
    let output = child
        .wait_with_output()
        .map_err(|e| format!("{command:?}: {e}"))?;
    let _ = writer.join();
    Ok(Run {
        status: output
            .status
            .code()
            .ok_or_else(|| format!("{command:?} killed by a signal: {:?}", output.status))?,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}

/// Runs `pcc ARGS` in `dir` with `stdin` as its input; pcc must exit, and not panic.
pub fn pcc_in<S: AsRef<OsStr>>(dir: &Path, args: &[S], stdin: &str) -> Run {
    let run = try_pcc_in(dir, args, stdin).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !run.stderr.contains("panicked"),
        "pcc panicked: {}",
        run.stderr
    );
    run
}

/// The arguments of `pcc run SOURCE FLAGS -- ARGS`.
pub fn run_args<F: AsRef<OsStr>, A: AsRef<OsStr>>(
    source: &Path,
    flags: &[F],
    args: &[A],
) -> Vec<OsString> {
    let mut all: Vec<OsString> = vec!["run".into(), source.into()];
    all.extend(flags.iter().map(|f| f.as_ref().to_os_string()));
    all.push("--".into());
    all.extend(args.iter().map(|a| a.as_ref().to_os_string()));
    all
}

/// A program's `.EXT` file beside it (docs/CONVENTIONS.md: `.args`, `.stdin`), if any: read as
/// `pcc test` reads it.
pub fn sidecar(program: &Path, ext: &str) -> Option<String> {
    golden::sidecar(program, ext).unwrap_or_else(|e| panic!("{e}"))
}

/// The program's arguments: the lines of its `.args` file, none without one.
pub fn program_args(program: &Path) -> Vec<String> {
    golden::args(program).unwrap_or_else(|e| panic!("{e}"))
}

/// `text` as JSON, however deep: a `--k 64` profile nests deeper than serde_json's default limit.
pub fn json(text: &str) -> Value {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    deserializer.disable_recursion_limit();
    serde::Deserialize::deserialize(&mut deserializer)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    json(&text)
}

/// The function `name` of a profile, report or path listing.
pub fn function<'a>(profile: &'a Value, name: &str) -> &'a Value {
    profile["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == name)
        .unwrap_or_else(|| panic!("no function `{name}` in {profile}"))
}

/// A JSON array of numbers.
pub fn u64s(values: &Value) -> Vec<u64> {
    values
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {values}"))
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

/// Path records as (id, count, lines).
pub type Paths = Vec<(u64, u64, Vec<u64>)>;

/// The path records in `function[field]` (`paths`, `residual`, a diff's `only_in_b`...).
pub fn paths(function: &Value, field: &str) -> Paths {
    function[field]
        .as_array()
        .unwrap_or_else(|| panic!("no `{field}` in {function}"))
        .iter()
        .map(|p| {
            (
                p["id"].as_u64().unwrap(),
                p["count"].as_u64().unwrap(),
                u64s(&p["lines"]),
            )
        })
        .collect()
}

/// The functions of a profile by name.
pub fn functions(profile: &Value) -> BTreeMap<String, Value> {
    profile["functions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["name"].as_str().unwrap().to_string(), f.clone()))
        .collect()
}

/// `pcc run SOURCE FLAGS -- ARGS` in `dir`, with `stdin`.
pub fn pcc_run(dir: &Path, source: &Path, flags: &[&str], args: &[String], stdin: &str) -> Run {
    pcc_in(dir, &run_args(source, flags, args), stdin)
}

/// One trial per program of each of `dirs` (relative to the root), named `DIR/NAME`, running
/// `check(dir, name)`.
pub fn program_trials(
    dirs: &[&'static str],
    check: fn(&str, &str) -> Result<(), libtest_mimic::Failed>,
) -> Vec<libtest_mimic::Trial> {
    let mut trials = Vec::new();
    for &dir in dirs {
        for path in pl_files(&root().join(dir)) {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            trials.push(libtest_mimic::Trial::test(
                format!("{dir}/{name}"),
                move || check(dir, &name),
            ));
        }
    }
    trials
}
