//! The golden-test protocol that `pcc test` and the project's own tests (`tests/golden.rs`)
//! share (docs/CONVENTIONS.md): `X.pl` runs with the lines of `X.args` as arguments and `X.stdin`
//! as input; its stdout, stderr and exit status must be `X.stdout`, `X.stderr` (absent = empty)
//! and `X.exit` (absent = 0). Reading the expected files, comparing with a bounded diff, and
//! writing what a run did as the new expectation.

use std::path::Path;

use pcc_profiler::profile;
use serde::Serialize;
use similar::TextDiff;

/// What a program did: its exit status and its outputs.
pub struct Outputs<'a> {
    pub status: i32,
    pub stdout: &'a str,
    pub stderr: &'a str,
}

/// An output that is not what was expected.
#[derive(Serialize)]
pub struct Mismatch {
    /// `stdout`, `stderr` or `exit`.
    pub what: &'static str,
    pub expected: String,
    pub actual: String,
    /// A unified diff of the two (for `exit`, the two statuses).
    pub diff: String,
}

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
pub(super) fn unreadable(path: &Path, error: &std::io::Error) -> String {
    if error.kind() == std::io::ErrorKind::InvalidInput {
        format!(
            "cannot read `{}`: {error}; pcc test reads only regular files",
            path.display()
        )
    } else {
        format!("cannot read `{}`: {error}", path.display())
    }
}

/// A sidecar file of `program` (`X.EXT`), if it exists.
pub fn sidecar(program: &Path, ext: &str) -> Result<Option<String>, String> {
    let path = program.with_extension(ext);
    match profile::read_regular(&path, SIDECAR_LIMIT, "an expected file") {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(unreadable(&path, &error)),
    }
}

/// The arguments of `program`: the lines of `X.args`, none without it.
pub fn args(program: &Path) -> Result<Vec<String>, String> {
    Ok(sidecar(program, "args")?
        .map_or_else(Vec::new, |args| args.lines().map(str::to_string).collect()))
}

/// The differences between what a program did and its expected files.
pub fn compare(program: &Path, actual: &Outputs) -> Result<Vec<Mismatch>, String> {
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
    let mut mismatches = Vec::new();
    for (what, expected, actual) in [
        ("stdout", expected_stdout, actual.stdout.to_string()),
        ("stderr", expected_stderr, actual.stderr.to_string()),
        (
            "exit",
            format!("{expected_exit}\n"),
            format!("{}\n", actual.status),
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
pub fn update(program: &Path, actual: &Outputs) -> Result<(), String> {
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
    write("stdout", Some(actual.stdout.to_string()))?;
    write(
        "stderr",
        Some(actual.stderr.to_string()).filter(|s| !s.is_empty()),
    )?;
    write(
        "exit",
        (actual.status != 0).then(|| format!("{}\n", actual.status)),
    )
}
