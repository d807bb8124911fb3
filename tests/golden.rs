//! Golden tests of the `pcc` binary: every `NAME.pl` under `programs/`, `tests/errors/` and
//! `tests/runtime/` is run and its stdout, stderr and exit status compared with the files beside it
//! (docs/CONVENTIONS.md; read and compared by `pcc test`'s own code, `commands/test/golden.rs`):
//! adding a program and its expected output is all it takes to add a test.
//! Programs of `programs/` and `tests/runtime/` run at every optimization level against the same
//! expectations, so the levels must agree; and each also runs as a native executable made by
//! `pcc build` (at `-O1`, collecting at every allocation: `PCC_GC_STRESS=1`), whose stdout,
//! stderr and exit status must be those of `pcc run`.
//! Erroneous programs must fail `pcc build` as they fail `pcc run`. Every program also runs in the
//! reference interpreter (`pcc run --engine interp`), which must agree with the expectations too,
//! and at `-O2` with a collection at every allocation (`PCC_GC_STRESS=1`), which must not change
//! anything either.
//!
//! IR snapshots: every `tests/snapshots/NAME.pl` is compiled with `--emit mir` and `--emit clif`
//! at `-O 0` and `-O 2`, plain and instrumented for `bl` and `edge`, and each output compared with
//! `NAME.CONFIG.mir` / `.clif` beside it (`NAME.O2.bl.clif`): a pass that must not change the IR is
//! checked by these, not by hand.
//!
//! `PCC_BLESS=1 cargo test --test it -- '[golden]'` writes the actual results as the expectations: only for
//! new programs (or an IR change meant), and read every file it writes before committing it.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Scratch, program_args, run_command, sidecar};
use libtest_mimic::{Failed, Trial};
use pcc::commands::test::golden;

/// How a program is run.
#[derive(Clone, Copy)]
enum Mode {
    /// `pcc run`.
    Jit,
    /// `pcc build`, then the executable.
    Aot,
    /// `pcc run --engine interp`.
    Interp,
    /// `pcc run` with `PCC_GC_STRESS=1`.
    Stressed,
}

/// The `-O` level of the native executables.
const AOT_LEVEL: u8 = 1;

/// This file's trials (`tests/main.rs` runs them).
pub fn trials() -> Vec<Trial> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut trials = Vec::new();
    for (dir, levels) in [
        ("programs", &[0, 1, 2][..]),
        ("tests/runtime", &[0, 1, 2][..]),
        ("tests/errors", &[1][..]),
    ] {
        for program in pl_files(&root.join(dir)) {
            let name = format!(
                "{}/{}",
                dir,
                program.strip_prefix(root.join(dir)).unwrap().display()
            );
            for &level in levels {
                let program = program.clone();
                trials.push(Trial::test(format!("{name} -O{level}"), move || {
                    check_program(&program, level, Mode::Jit)
                }));
            }
            let interpreted = program.clone();
            trials.push(Trial::test(format!("{name} interp"), move || {
                check_program(&interpreted, 0, Mode::Interp)
            }));
            if levels.len() > 1 {
                let stressed = program.clone();
                trials.push(Trial::test(format!("{name} -O2 gc-stress"), move || {
                    check_program(&stressed, 2, Mode::Stressed)
                }));
            }
            trials.push(Trial::test(
                format!("{name} aot -O{AOT_LEVEL}"),
                move || check_program(&program, AOT_LEVEL, Mode::Aot),
            ));
        }
    }
    for program in pl_files(&root.join("tests/snapshots")) {
        for &(level, profile) in SNAPSHOTS {
            for ir in ["mir", "clif"] {
                let program = program.clone();
                let config = snapshot_config(level, profile);
                let stem = program.file_stem().unwrap().to_string_lossy().into_owned();
                trials.push(Trial::test(
                    format!("tests/snapshots/{stem}.{config}.{ir}"),
                    move || check_snapshot(&program, level, profile, ir),
                ));
            }
        }
    }
    trials
}

/// The `-O` levels and profiling modes the IR snapshots are taken at.
const SNAPSHOTS: &[(u8, Option<&str>)] = &[
    (0, None),
    (2, None),
    (0, Some("bl")),
    (0, Some("edge")),
    (2, Some("bl")),
];

/// `O2`, `O0.bl`: the part of a snapshot's file name that says how it was compiled.
fn snapshot_config(level: u8, profile: Option<&str>) -> String {
    match profile {
        Some(mode) => format!("O{level}.{mode}"),
        None => format!("O{level}"),
    }
}

/// Compares `pcc run PROGRAM --emit IR` at `level` (instrumented for `profile`) with its snapshot.
fn check_snapshot(
    program: &Path,
    level: u8,
    profile: Option<&str>,
    ir: &str,
) -> Result<(), Failed> {
    let dir = program.parent().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pcc"));
    cmd.current_dir(dir)
        .arg("run")
        .arg(program.file_name().unwrap())
        .arg(format!("-O{level}"))
        .args(["--emit", ir]);
    if let Some(mode) = profile {
        // `--emit` does not run the program: no profile is written.
        cmd.args(["--profile", mode]);
    }
    let run = run_command(cmd, "")?;
    if run.status != 0 {
        return Err(format!("pcc --emit {ir} failed:\n{}", run.stderr).into());
    }
    let stem = program.file_stem().unwrap().to_string_lossy();
    let snapshot = dir.join(format!("{stem}.{}.{ir}", snapshot_config(level, profile)));
    if std::env::var_os("PCC_BLESS").is_some() {
        std::fs::write(&snapshot, run.stdout.as_bytes())?;
        return Ok(());
    }
    let expected = std::fs::read_to_string(&snapshot)
        .map_err(|e| format!("{}: {e} (PCC_BLESS=1 writes it)", snapshot.display()))?;
    if run.stdout == expected {
        return Ok(());
    }
    let diff = similar::TextDiff::from_lines(&expected, &run.stdout);
    let shown: String = diff.unified_diff().context_radius(3).to_string();
    Err(format!("{} changed:\n{shown}", snapshot.display()).into())
}

/// Every `.pl` file below `dir`, sorted.
fn pl_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return files;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(pl_files(&path));
        } else if path.extension().is_some_and(|e| e == "pl") {
            files.push(path);
        }
    }
    files.sort();
    files
}

fn check_program(program: &Path, level: u8, mode: Mode) -> Result<(), Failed> {
    let dir = program.parent().unwrap();
    let file = program.file_name().unwrap();
    let args = program_args(program);
    let stdin = sidecar(program, "stdin").unwrap_or_default();
    let run = match mode {
        Mode::Jit | Mode::Interp | Mode::Stressed => {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_pcc"));
            cmd.current_dir(dir).arg("run").arg(file);
            match mode {
                Mode::Interp => cmd.arg("--engine").arg("interp"),
                Mode::Stressed => cmd.env("PCC_GC_STRESS", "1").arg(format!("-O{level}")),
                _ => cmd.arg(format!("-O{level}")),
            };
            cmd.arg("--").args(&args);
            run_command(cmd, &stdin)?
        }
        Mode::Aot => {
            let scratch = Scratch::new("aot");
            let exe = scratch.path("program");
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_pcc"));
            cmd.current_dir(dir)
                .arg("build")
                .arg(file)
                .arg(format!("-O{level}"))
                .arg("-o")
                .arg(&exe);
            let build = run_command(cmd, "")?;
            if build.status != 0 {
                // An erroneous program: `pcc build` says what `pcc run` says.
                build
            } else if !build.stdout.is_empty() {
                return Err(format!("pcc build said something:\n{}", build.stdout).into());
            } else {
                let mut cmd = Command::new(&exe);
                // The executable's collector walks the frames through the tables in the object
                // file: it runs at every allocation here.
                cmd.current_dir(dir).args(&args).env("PCC_GC_STRESS", "1");
                let mut run = run_command(cmd, &stdin)?;
                // The compiler's warnings come first, as under `pcc run`.
                run.stderr = build.stderr + &run.stderr;
                run
            }
        }
    };
    let actual = golden::Outputs {
        status: run.status,
        stdout: &run.stdout,
        stderr: &run.stderr,
    };
    if std::env::var_os("PCC_BLESS").is_some() {
        return Ok(golden::update(program, &actual)?);
    }
    let mismatches = golden::compare(program, &actual)?;
    if mismatches.is_empty() {
        return Ok(());
    }
    let problems: Vec<String> = (mismatches.iter())
        .map(|m| format!("{} differs:\n{}", m.what, m.diff))
        .collect();
    Err(problems.join("\n").into())
}
