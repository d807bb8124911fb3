//! `pcc pgo FILE [-O N] [-- ARGS]`: the profile-guided workflow in one command ([KBLPP]'s selective
//! unrolling study done end to end). Three runs of the same input, each a `pcc run` child
//! process: a training run with `--profile=kbl`, a plain run at `-O N`, and the guided run at
//! `-O N --use-profile`, whose stdout and exit status are the program's. On stderr: the guided
//! compilation's `use-profile` report (what changed), the two runs' wall times (what it gained;
//! short runs are repeated, and runs too short to time claim nothing), and whether both runs
//! printed the same and exited the same.
//!
//! Child processes rather than in-process JIT runs: a program may end the process (`exit()`, a
//! runtime error), and each run needs its own fresh runtime state.

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::driver::EXIT_COMPILE_ERROR;

/// Plain runs shorter than this in all are timed again, up to [`MAX_TIMED_RUNS`] of each.
const TIMED_TOTAL: Duration = Duration::from_secs(1);
const MAX_TIMED_RUNS: usize = 20;
/// Runs this fast are mostly process start and JIT compilation: no speedup is claimed.
const TOO_SHORT: Duration = Duration::from_millis(50);

/// What `pcc pgo` was asked for.
pub struct PgoOptions<'a> {
    pub opt_level: u8,
    /// `--k` of the training run ([KBLPP] profiles the masked convolution with k = 10; 6 is the
    /// default, since the forest of branchy code grows about tenfold per level: 3.7 MB at k = 6
    /// and 584 MB at k = 10 for `programs/bench/dijkstra.pl`, read at every guided compile).
    pub k: u8,
    /// Where the training run writes its profile (kept, for `pcc run --use-profile` later).
    pub profile_out: &'a Path,
}

/// One `pcc run` child of `file` with `flags`, fed `stdin`; stdout captured, stderr captured
/// too unless `show_stderr`. Returns its output and wall time.
fn pcc_run(
    file: &Path,
    flags: &[String],
    args: &[String],
    stdin: Option<&[u8]>,
    show_stderr: bool,
) -> std::io::Result<(Output, Duration)> {
    let mut command = Command::new(std::env::current_exe()?);
    command
        .arg("run")
        .arg(file)
        .args(flags)
        .arg("--")
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(if show_stderr {
            Stdio::inherit()
        } else {
            Stdio::piped()
        });
    let start = Instant::now();
    let mut child = command.spawn()?;
    if let Some(input) = stdin {
        // A program that stops reading early closes the pipe: not an error of ours.
        let _ = child.stdin.take().expect("piped").write_all(input);
    }
    let output = child.wait_with_output()?;
    Ok((output, start.elapsed()))
}

/// The exit status `pcc` reports for a child's: its code, or 128 + the signal that ended it.
fn status_code(output: &Output) -> i32 {
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&output.status) {
        return 128 + signal;
    }
    output.status.code().unwrap_or(EXIT_COMPILE_ERROR)
}

pub fn run(file: &Path, options: &PgoOptions, args: &[String]) -> i32 {
    match pgo(file, options, args) {
        Ok(status) => status,
        Err(error) => {
            eprintln!("error: pcc pgo: {error}");
            EXIT_COMPILE_ERROR
        }
    }
}

fn pgo(file: &Path, options: &PgoOptions, args: &[String]) -> std::io::Result<i32> {
    // Every run gets the same input: stdin is read to its end once, first (from a terminal,
    // which would have to be typed three times, the runs get none).
    let stdin = if std::io::stdin().is_terminal() {
        None
    } else {
        let mut input = Vec::new();
        std::io::stdin().read_to_end(&mut input)?;
        Some(input)
    };
    let stdin = stdin.as_deref();
    let level = format!("-O{}", options.opt_level);
    let profile = options.profile_out.display().to_string();

    // Checked before any run; the old profile (through a symbolic link, its target) is removed
    // so that a training run that writes none is noticed.
    let target = match pcc_profiler::output_file::check_output(options.profile_out) {
        Ok(target) => target,
        Err(problem) => {
            eprintln!("error: pcc pgo: cannot write the profile: {problem}");
            return Ok(EXIT_COMPILE_ERROR);
        }
    };
    let _ = std::fs::remove_file(target);
    let train = [
        "--profile=kbl".to_string(),
        "--k".into(),
        options.k.to_string(),
        "--profile-out".into(),
        profile.clone(),
    ];
    let (training, _) = pcc_run(file, &train, args, stdin, false)?;
    if !options.profile_out.is_file() {
        // A compile error, or a program that never got to write its profile.
        std::io::stderr().write_all(&training.stderr)?;
        eprintln!("error: pcc pgo: the training run wrote no profile");
        return Ok(match status_code(&training) {
            0 => EXIT_COMPILE_ERROR,
            status => status,
        });
    }
    eprintln!(
        "pcc: pgo: trained: kbl profile (k = {}) of this input at `{profile}`",
        options.k
    );

    let plain_flags = std::slice::from_ref(&level);
    let (plain, plain_time) = pcc_run(file, plain_flags, args, stdin, false)?;
    let guided_flags = [level.clone(), "--use-profile".into(), profile.clone()];
    // The guided run's stderr is shown as it comes: the report, then the program's own.
    let (guided, guided_time) = pcc_run(file, &guided_flags, args, stdin, true)?;
    std::io::stdout().write_all(&guided.stdout)?;

    // Short runs are timed again, alternately, until each side has run for a while; the
    // fastest run of each is compared (the least disturbed by the machine's other work).
    let (mut plain_best, mut guided_best) = (plain_time, guided_time);
    let (mut total, mut runs) = (plain_time, 1);
    while total < TIMED_TOTAL && runs < MAX_TIMED_RUNS {
        let (_, p) = pcc_run(file, plain_flags, args, stdin, false)?;
        let (_, g) = pcc_run(file, &guided_flags, args, stdin, false)?;
        (plain_best, guided_best) = (plain_best.min(p), guided_best.min(g));
        total += p;
        runs += 1;
    }
    let (plain_s, guided_s) = (plain_best.as_secs_f64(), guided_best.as_secs_f64());
    let timing = if runs == 1 {
        "single-run wall times".to_string()
    } else {
        format!("fastest of {runs} runs each")
    };
    if plain_best.min(guided_best) < TOO_SHORT {
        eprintln!(
            "pcc: pgo: {level}: {plain_s:.3} s; {level} --use-profile: {guided_s:.3} s ({timing}, \
             JIT compilation included): too short to time, no speedup claimed"
        );
    } else {
        eprintln!(
            "pcc: pgo: {level}: {plain_s:.3} s; {level} --use-profile: {guided_s:.3} s ({:.2}× as \
             fast); {timing} of the same input, JIT compilation included",
            plain_s / guided_s
        );
    }
    if plain.stdout == guided.stdout && plain.status == guided.status {
        eprintln!("pcc: pgo: same output and exit status as without the profile");
    } else {
        eprintln!(
            "pcc: warning: pcc pgo: the guided run's output or exit status differs from the \
             plain run's (exit {} vs {}) — please report this",
            status_code(&guided),
            status_code(&plain)
        );
    }
    Ok(status_code(&guided))
}
