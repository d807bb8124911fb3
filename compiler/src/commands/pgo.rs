//! `pcc pgo FILE [-O N] [-- ARGS]`: the profile-guided workflow in one command ([KBLPP]'s selective
//! unrolling study done end to end). Three runs of the same input, each a `pcc run` child
//! process: a training run with `--profile=kbl`, a plain run at `-O N`, and the guided run at
//! `-O N --use-profile`, whose stdout and exit status are the program's. On stderr: the guided
//! compilation's `use-profile` report (what changed), what it gained (the median CPU time of
//! repeated interleaved runs of both builds, against the noise floor: the plain build timed
//! against itself in the same rounds; runs too short to time, or a difference within the noise,
//! claim nothing), and whether both runs printed the same and exited the same.
//!
//! Child processes rather than in-process JIT runs: a program may end the process (`exit()`, a
//! runtime error), and each run needs its own fresh runtime state.

use std::io::{IsTerminal, Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::driver::EXIT_COMPILE_ERROR;

/// Rounds of short runs continue past `--runs` until the plain runs took this much CPU in all,
/// up to [`MAX_ROUNDS`].
const TIMED_TOTAL: Duration = Duration::from_secs(1);
const MAX_ROUNDS: usize = 20;
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
    /// Rounds of timed runs, at least.
    pub runs: usize,
}

/// One `pcc run` child of `file` with `flags`, fed `stdin`; stdout captured, stderr captured
/// too unless `show_stderr`. Returns its output and CPU time (user and system, of the child
/// and its threads: what the machine's other work disturbs least).
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
    let before = children_cpu();
    let mut child = command.spawn()?;
    if let Some(input) = stdin {
        // A program that stops reading early closes the pipe: not an error of ours.
        let _ = child.stdin.take().expect("piped").write_all(input);
    }
    let output = child.wait_with_output()?;
    Ok((output, children_cpu().saturating_sub(before)))
}

/// The CPU time of this process's children that have ended and been waited for; the runs are
/// waited for one at a time, so the difference across one run is that run's.
fn children_cpu() -> Duration {
    // SAFETY: `getrusage` fills the zeroed struct it is given and has no other effect.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// The median of `times` (not empty).
fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    let mid = times.len() / 2;
    if times.len() % 2 == 1 {
        times[mid]
    } else {
        (times[mid - 1] + times[mid]) / 2
    }
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

    // Rounds of three interleaved runs: plain, guided, plain again. The two plain runs of a
    // round are the same build, so how far their medians differ is the noise floor: what the
    // machine alone makes of a difference.
    // The first round's plain and guided runs are the two above.
    let (mut plain_a, mut guided_t) = (vec![plain_time], vec![guided_time]);
    let mut plain_b = Vec::new();
    loop {
        plain_b.push(pcc_run(file, plain_flags, args, stdin, false)?.1);
        let rounds = plain_b.len();
        let timed_enough = plain_a.iter().sum::<Duration>() >= TIMED_TOTAL;
        if rounds >= options.runs && (timed_enough || rounds >= MAX_ROUNDS) {
            break;
        }
        plain_a.push(pcc_run(file, plain_flags, args, stdin, false)?.1);
        guided_t.push(pcc_run(file, &guided_flags, args, stdin, false)?.1);
    }
    let rounds = plain_b.len();
    let (plain_m, guided_m, again_m) = (
        median(&mut plain_a),
        median(&mut guided_t),
        median(&mut plain_b),
    );
    let (plain_s, guided_s) = (plain_m.as_secs_f64(), guided_m.as_secs_f64());
    let speedup = plain_s / guided_s;
    let again_s = again_m.as_secs_f64();
    let noise = (plain_s / again_s).max(again_s / plain_s);
    let timed = format!(
        "median CPU of {rounds} interleaved rounds, JIT compilation included; noise floor: the plain \
         build against itself {noise:.3}×"
    );
    if plain_m.min(guided_m) < TOO_SHORT {
        eprintln!(
            "pcc: pgo: {level}: {plain_s:.3} s; {level} --use-profile: {guided_s:.3} s ({timed}): \
             too short to time, no speedup claimed"
        );
    } else if speedup.max(1.0 / speedup) <= noise {
        eprintln!(
            "pcc: pgo: {level}: {plain_s:.3} s; {level} --use-profile: {guided_s:.3} s \
             ({speedup:.3}×, within the noise: no speedup claimed; {timed})"
        );
    } else {
        eprintln!(
            "pcc: pgo: {level}: {plain_s:.3} s; {level} --use-profile: {guided_s:.3} s \
             ({speedup:.2}× as fast; {timed})"
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
