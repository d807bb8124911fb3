//! The differential checks: one program through pcc's reference interpreter and every compiled
//! configuration, by running the `pcc` binary. Plain runs must print the same stdout and stderr
//! and exit alike; profiled runs must behave as plain ones (but for pcc's own `pcc: ` lines)
//! and write the interpreter's `bl`, `edge` and `block` profiles byte for byte; `ppp` (its
//! interesting and residual paths), `tpp` at TPP(0, 0) (rebuilt), `kbl` (its paths and level 1
//! of its k-IPF) and `wpp` (its rejoined paths) must have the `bl` profile's paths; and
//! recompiling with the program's own `kbl` and `bl` profiles must not change what it does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::generate::{ARGS, STDIN};

/// How much of the matrix a program goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// Every stage (the `pcc-fuzz` driver).
    Full,
    /// The interpreter (profiling `bl`), `-O0` and `-O2`, `-O2` under `PCC_GC_STRESS=1`, and the
    /// `bl` profile at `-O2` (quick enough for CI).
    Quick,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stderr without pcc's own lines (`pcc: …`).
    fn program_stderr(&self) -> String {
        (self.stderr.split_inclusive('\n'))
            .filter(|line| !line.starts_with("pcc: "))
            .collect()
    }
}

/// A difference between the interpreter and a compiled configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Which check: `-O2`, `aot`, `profile=edge -O0`, `use-profile kbl`, ….
    pub stage: String,
    pub detail: String,
    /// The `pcc` arguments (after `pcc run FILE`) of the run that differs.
    pub flags: Vec<String>,
}

/// Why a program was not checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    /// The interpreter did not finish in time.
    Timeout,
    /// The interpreter hit its depth limit (compiled code's depends on frame sizes).
    StackOverflow,
}

pub enum Verdict {
    Same,
    Differs(Mismatch),
    Skipped(Skip),
}

/// The most CPU time a single run may take. CPU, not wall time: on a loaded machine a run can
/// wait for a processor far longer than it computes, which is no reason to call it a hang.
const TIMEOUT: Duration = Duration::from_secs(30);
/// The most wall time a single run may take, whatever its CPU time.
const WALL_TIMEOUT: Duration = Duration::from_secs(600);

/// Runs `pcc` (or, with `exe`, a built program) in `dir`.
pub struct Runner {
    pub pcc: PathBuf,
    pub dir: PathBuf,
}

impl Runner {
    /// `pcc ARGS` (or the executable `exe` with the program's arguments), with the program's
    /// stdin; `None` on a timeout.
    fn run(&self, program: Option<&Path>, args: &[String]) -> Option<Run> {
        self.run_with(program, args, &[])
    }

    /// [`Runner::run`] with the environment variables `env` set.
    fn run_with(
        &self,
        program: Option<&Path>,
        args: &[String],
        env: &[(&str, &str)],
    ) -> Option<Run> {
        let mut command = match program {
            Some(exe) => {
                let mut c = Command::new(exe);
                c.args(ARGS);
                c
            }
            None => {
                let mut c = Command::new(&self.pcc);
                c.args(args);
                c
            }
        };
        command.current_dir(&self.dir).envs(env.iter().copied());
        let stdin = self.dir.join("stdin.txt");
        let input = std::fs::File::open(&stdin).ok()?;
        let out = self.dir.join(".stdout");
        let err = self.dir.join(".stderr");
        let mut child = command
            .stdin(Stdio::from(input))
            .stdout(Stdio::from(std::fs::File::create(&out).ok()?))
            .stderr(Stdio::from(std::fs::File::create(&err).ok()?))
            .spawn()
            .ok()?;
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().ok()? {
                break status;
            }
            let elapsed = started.elapsed();
            let over = match cpu_time(child.id()) {
                Some(cpu) => cpu > TIMEOUT || elapsed > WALL_TIMEOUT,
                None => elapsed > TIMEOUT,
            };
            if over {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into();
        Some(Run {
            // Killed by a signal: a status no program exits with.
            status: status.code().unwrap_or(-1),
            stdout: read(&out),
            stderr: read(&err),
        })
    }

    /// `pcc run prog.pl FLAGS -- ARGS`.
    fn pcc_run(&self, flags: &[String]) -> Option<Run> {
        self.pcc_run_with(flags, &[])
    }

    /// [`Runner::pcc_run`] with the environment variables `env` set.
    fn pcc_run_with(&self, flags: &[String], env: &[(&str, &str)]) -> Option<Run> {
        let mut args = vec!["run".to_string(), "prog.pl".to_string()];
        args.extend(flags.iter().cloned());
        args.push("--".into());
        args.extend(ARGS.iter().map(|a| a.to_string()));
        self.run_with(None, &args, env)
    }
}

/// The CPU time process `pid` and its finished children (the linker under `pcc build`) have
/// used so far, from `/proc` (`None` where there is none).
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which is in parentheses and may hold spaces: utime,
    // stime, cutime and cstime are the 14th to 17th fields of the line, in clock ticks.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields
        .get(11..15)?
        .iter()
        .filter_map(|f| f.parse::<u64>().ok())
        .sum();
    // SAFETY: sysconf only reads a configuration value.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (per_second > 0).then(|| Duration::from_secs_f64(ticks as f64 / per_second as f64))
}

fn flags(list: &[&str]) -> Vec<String> {
    list.iter().map(|f| f.to_string()).collect()
}

/// The command that shows a mismatch, for the report.
pub fn command_line(file: &str, flags: &[String]) -> String {
    format!(
        "printf '{}' | pcc run {file} {} -- {}",
        STDIN.replace('\n', "\\n"),
        flags.join(" "),
        ARGS.join(" ")
    )
}

/// Checks `source` in `runner.dir` (which it writes `prog.pl`, `stdin.txt` and profiles into).
pub fn check(runner: &Runner, source: &str, depth: Depth) -> Verdict {
    match check_stages(runner, source, depth) {
        Ok(()) => Verdict::Same,
        Err(Stop::Mismatch(m)) => Verdict::Differs(m),
        Err(Stop::Skip(s)) => Verdict::Skipped(s),
    }
}

enum Stop {
    Mismatch(Mismatch),
    Skip(Skip),
}

fn mismatch(stage: impl Into<String>, detail: impl Into<String>, flags: &[String]) -> Stop {
    Stop::Mismatch(Mismatch {
        stage: stage.into(),
        detail: detail.into(),
        flags: flags.to_vec(),
    })
}

/// Compares `run` with `reference`: all of stderr when `exact`, else the program's lines.
fn compare(stage: &str, reference: &Run, run: &Run, exact: bool, f: &[String]) -> Result<(), Stop> {
    let (a, b) = if exact {
        (reference.stderr.clone(), run.stderr.clone())
    } else {
        (reference.program_stderr(), run.program_stderr())
    };
    let what = if reference.status != run.status {
        format!(
            "exit status {} (interpreter) vs {}",
            reference.status, run.status
        )
    } else if reference.stdout != run.stdout {
        format!(
            "stdout differs:\n--- interpreter\n{}\n--- {stage}\n{}",
            clip(&reference.stdout, 2000),
            clip(&run.stdout, 2000)
        )
    } else if a != b {
        format!("stderr differs:\n--- interpreter\n{a}--- {stage}\n{b}")
    } else {
        return Ok(());
    };
    Err(mismatch(stage, what, f))
}

/// At most the first `max` bytes of `text` (cut at a character boundary).
pub fn clip(text: &str, max: usize) -> &str {
    let end = (0..=text.len().min(max))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    &text[..end]
}

/// The environment of the stress stages: the collector runs at every allocation.
const GC_STRESS: (&str, &str) = ("PCC_GC_STRESS", "1");

fn check_stages(runner: &Runner, source: &str, depth: Depth) -> Result<(), Stop> {
    let dir = &runner.dir;
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text);
    write("prog.pl", source)
        .and_then(|()| write("stdin.txt", STDIN))
        .map_err(|e| {
            mismatch(
                "setup",
                format!("cannot write to {}: {e}", dir.display()),
                &[],
            )
        })?;
    let run = |f: &[String]| runner.pcc_run(f).ok_or(Stop::Skip(Skip::Timeout));
    // The quick check takes the plain run's results from the profiled one: its stderr is the
    // plain run's plus pcc's own lines.
    let interp = match depth {
        Depth::Full => flags(&["--engine", "interp"]),
        Depth::Quick => flags(&[
            "--engine",
            "interp",
            "--profile=bl",
            "--profile-out",
            "interp.bl.json",
        ]),
    };
    let profiled_reference = run(&interp)?;
    let mut reference = profiled_reference.clone();
    reference.stderr = reference.program_stderr();
    if reference.status == 1 && reference.stderr.starts_with("error") {
        return Err(mismatch(
            "generator",
            format!("invalid program:\n{}", reference.stderr),
            &interp,
        ));
    }
    if reference
        .stderr
        .contains("stack overflow (recursion too deep)")
    {
        return Err(Stop::Skip(Skip::StackOverflow));
    }
    let timed_out = |f: &[String]| mismatch(f.join(" "), "timed out (the interpreter did not)", f);
    let levels: &[&str] = match depth {
        Depth::Full => &["-O0", "-O1", "-O2"],
        Depth::Quick => &["-O0", "-O2"],
    };
    for level in levels {
        let f = flags(&[level]);
        let jit = runner.pcc_run(&f).ok_or_else(|| timed_out(&f))?;
        compare(level, &reference, &jit, true, &f)?;
    }
    // A collection at every allocation: a reference the collector missed shows as a difference.
    // Each collection marks the whole live heap, so a program that allocates much while it holds
    // much may run out of time here alone: skipped (and reported), not a mismatch.
    for level in &levels[levels.len() - 1..] {
        let f = flags(&[level]);
        let stressed = runner
            .pcc_run_with(&f, &[GC_STRESS])
            .ok_or(Stop::Skip(Skip::Timeout))?;
        compare(
            &format!("{level} PCC_GC_STRESS=1"),
            &reference,
            &stressed,
            true,
            &f,
        )?;
    }
    if depth == Depth::Full {
        let f = flags(&["build", "-O2"]);
        let build = runner
            .run(None, &flags(&["build", "prog.pl", "-O2", "-o", "prog.exe"]))
            .ok_or_else(|| timed_out(&f))?;
        if build.status != 0 {
            return Err(mismatch(
                "aot",
                format!("pcc build failed:\n{}", build.stderr),
                &f,
            ));
        }
        let exe = runner
            .run(Some(&dir.join("prog.exe")), &[])
            .ok_or_else(|| timed_out(&f))?;
        compare("aot", &reference, &exe, true, &f)?;
        let exe = runner
            .run_with(Some(&dir.join("prog.exe")), &[], &[GC_STRESS])
            .ok_or_else(|| timed_out(&f))?;
        compare("aot PCC_GC_STRESS=1", &reference, &exe, true, &f)?;
    }
    // The interpreter's profiles are the reference ones.
    let modes: &[&str] = match depth {
        Depth::Full => &["bl", "edge", "block"],
        Depth::Quick => &["bl"],
    };
    let mut profiles = BTreeMap::new();
    if depth == Depth::Quick {
        let text = std::fs::read_to_string(dir.join("interp.bl.json")).unwrap_or_default();
        profiles.insert("bl", (text, profiled_reference.stderr.clone()));
    }
    let measured: Vec<&str> = modes
        .iter()
        .copied()
        .filter(|m| !profiles.contains_key(m))
        .collect();
    for mode in measured {
        let out = format!("interp.{mode}.json");
        let f = flags(&[
            "--engine",
            "interp",
            &format!("--profile={mode}"),
            "--profile-out",
            &out,
        ]);
        let profiled = run(&f)?;
        compare(&f.join(" "), &reference, &profiled, false, &f)?;
        let text = std::fs::read_to_string(dir.join(&out)).unwrap_or_default();
        profiles.insert(mode, (text, profiled.stderr));
    }
    let profile_levels: &[&str] = match depth {
        Depth::Full => &["-O0", "-O2"],
        Depth::Quick => &["-O2"],
    };
    for mode in modes {
        for level in profile_levels {
            let out = format!("jit.{mode}.json");
            let f = flags(&[level, &format!("--profile={mode}"), "--profile-out", &out]);
            let stage = format!("profile={mode} {level}");
            let jit = runner.pcc_run(&f).ok_or_else(|| timed_out(&f))?;
            let (expected, interp_stderr) = &profiles[mode];
            let mut expected_run = reference.clone();
            expected_run.stderr = interp_stderr.replace(&format!("interp.{mode}.json"), &out);
            compare(&stage, &expected_run, &jit, true, &f)?;
            let text = std::fs::read_to_string(dir.join(&out)).unwrap_or_default();
            if &text != expected {
                return Err(mismatch(
                    stage,
                    "the profile differs from the interpreter's",
                    &f,
                ));
            }
        }
    }
    if depth == Depth::Quick {
        return Ok(());
    }
    let bl = paths(&profiles["bl"].0, false).ok_or_else(|| {
        mismatch(
            "profile=bl",
            "the interpreter's bl profile is unreadable",
            &[],
        )
    })?;
    let path_modes: [(&str, Vec<&str>); 4] = [
        (
            "ppp",
            vec!["--profile=ppp", "--interesting", "interp.bl.json"],
        ),
        (
            "tpp",
            vec![
                "--profile=tpp",
                "--edge-profile",
                "interp.edge.json",
                "--cold-threshold",
                "0",
                "--loop-threshold",
                "0",
            ],
        ),
        ("kbl", vec!["--profile=kbl"]),
        ("wpp", vec!["--profile=wpp"]),
    ];
    for (mode, extra) in path_modes {
        let out = format!("jit.{mode}.json");
        let mut f = flags(&["-O2", "--profile-out", &out]);
        f.extend(flags(&extra));
        let stage = format!("profile={mode}");
        let jit = runner.pcc_run(&f).ok_or_else(|| timed_out(&f))?;
        compare(&stage, &reference, &jit, false, &f)?;
        let text = std::fs::read_to_string(dir.join(&out)).unwrap_or_default();
        let got = paths(&text, mode == "ppp");
        if got.as_ref() != Some(&bl) {
            return Err(mismatch(
                stage,
                format!("its paths are not the bl profile's: {got:?}\nvs {bl:?}"),
                &f,
            ));
        }
        if mode == "kbl" && kipf_level_one(&text) != counts(&bl) {
            return Err(mismatch(
                "profile=kbl",
                "level 1 of a k-IPF is not the bl counts",
                &f,
            ));
        }
    }
    for profile in ["jit.kbl.json", "interp.bl.json"] {
        let f = flags(&["-O2", "--use-profile", profile]);
        let stage = format!("use-profile {profile}");
        let jit = runner.pcc_run(&f).ok_or_else(|| timed_out(&f))?;
        compare(&stage, &reference, &jit, false, &f)?;
    }
    Ok(())
}

/// Each function's executed paths as (id, count, lines), from `paths` (and, with `residual`,
/// from `residual` too: a ppp profile's executed paths are both).
type Paths = BTreeMap<String, Vec<(u64, u64, Vec<u64>)>>;

fn paths(text: &str, residual: bool) -> Option<Paths> {
    let profile: Value = serde_json::from_str(text).ok()?;
    let mut all = Paths::new();
    for function in profile.get("functions")?.as_array()? {
        let name = function.get("name")?.as_str()?.to_string();
        let mut list = Vec::new();
        let keys: &[&str] = if residual {
            &["paths", "residual"]
        } else {
            &["paths"]
        };
        for key in keys {
            for path in function
                .get(*key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let lines = path.get("lines")?.as_array()?;
                list.push((
                    path.get("id")?.as_u64()?,
                    path.get("count")?.as_u64()?,
                    lines.iter().filter_map(Value::as_u64).collect(),
                ));
            }
        }
        list.sort();
        all.insert(name, list);
    }
    Some(all)
}

/// Each function's path counts (id → count).
fn counts(paths: &Paths) -> BTreeMap<String, BTreeMap<u64, u64>> {
    (paths.iter())
        .map(|(name, list)| (name.clone(), list.iter().map(|p| (p.0, p.1)).collect()))
        .collect()
}

/// Each function's k-IPF roots (id → count): the sequences of one path id.
fn kipf_level_one(text: &str) -> BTreeMap<String, BTreeMap<u64, u64>> {
    let profile: Value = serde_json::from_str(text).unwrap_or_default();
    let mut all = BTreeMap::new();
    for function in profile
        .get("functions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = function
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let roots = function
            .get("kipf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        let level: BTreeMap<u64, u64> = roots
            .filter_map(|r| Some((r.get("id")?.as_u64()?, r.get("count")?.as_u64()?)))
            .collect();
        all.insert(name, level);
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The timeout's clock: this process's own CPU time, which grows as it computes.
    #[test]
    fn cpu_time_counts_what_a_process_computed() {
        let Some(before) = cpu_time(std::process::id()) else {
            println!("skipped: no /proc on this system (the timeout is wall time here)");
            return;
        };
        // Compute until the clock shows 100 ms more, for at most 20 s of wall time (a loaded
        // machine gives this thread only part of it).
        let started = Instant::now();
        let mut x = 0u64;
        let mut after = before;
        while after < before + Duration::from_millis(100)
            && started.elapsed() < Duration::from_secs(20)
        {
            for _ in 0..100_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
            after = cpu_time(std::process::id()).unwrap();
        }
        assert!(
            after >= before + Duration::from_millis(100),
            "{before:?} → {after:?}"
        );
    }
}
