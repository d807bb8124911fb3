//! Golden tests of the `pcc` binary: every `NAME.pl` under `programs/`, `tests/errors/` and
//! `tests/runtime/` is run and its stdout, stderr and exit status compared with the files beside it
//! (docs/CONVENTIONS.md): adding a program and its expected output is all it takes to add a test.
//! Programs of `programs/` and `tests/runtime/` run at every optimization level against the same
//! expectations, so the levels must agree.
//!
//! `PCC_BLESS=1 cargo test --test golden` writes the actual results as the expectations: only for
//! new programs, and read every file it writes before committing it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut trials = Vec::new();
    for (dir, levels) in [
        ("programs", &[0, 1, 2][..]),
        ("tests/runtime", &[0, 1, 2][..]),
        ("tests/errors", &[1][..]),
    ] {
        for program in pl_files(&root.join(dir)) {
            for &level in levels {
                let name = format!(
                    "{}/{} -O{level}",
                    dir,
                    program.strip_prefix(root.join(dir)).unwrap().display()
                );
                let program = program.clone();
                trials.push(Trial::test(name, move || check_program(&program, level)));
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
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

/// The contents of the file beside `program` with extension `ext`, if it exists.
fn sidecar(program: &Path, ext: &str) -> Option<String> {
    std::fs::read_to_string(program.with_extension(ext)).ok()
}

fn check_program(program: &Path, level: u8) -> Result<(), Failed> {
    let dir = program.parent().unwrap();
    let file = program.file_name().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_pcc"));
    cmd.current_dir(dir)
        .arg("run")
        .arg(file)
        .arg(format!("-O{level}"));
    if let Some(args) = sidecar(program, "args") {
        cmd.arg("--").args(args.lines());
    }
    let stdin = sidecar(program, "stdin").unwrap_or_default();
    let output = run_with_stdin(cmd, &stdin)?;
    let actual_stdout = String::from_utf8_lossy(&output.stdout);
    let actual_stderr = String::from_utf8_lossy(&output.stderr);
    let actual_exit = output
        .status
        .code()
        .ok_or_else(|| format!("killed by a signal: {:?}", output.status))?;

    if std::env::var_os("PCC_BLESS").is_some() {
        std::fs::write(program.with_extension("stdout"), actual_stdout.as_bytes())?;
        if !actual_stderr.is_empty() {
            std::fs::write(program.with_extension("stderr"), actual_stderr.as_bytes())?;
        }
        if actual_exit != 0 {
            std::fs::write(program.with_extension("exit"), format!("{actual_exit}\n"))?;
        }
        return Ok(());
    }

    let expected_stdout = sidecar(program, "stdout")
        .ok_or_else(|| format!("missing {}", program.with_extension("stdout").display()))?;
    let expected_stderr = sidecar(program, "stderr").unwrap_or_default();
    let expected_exit: i32 = match sidecar(program, "exit") {
        Some(text) => text.trim().parse().map_err(|_| "bad .exit file")?,
        None => 0,
    };
    let mut problems = Vec::new();
    if actual_stdout != expected_stdout {
        problems.push(format!(
            "stdout differs\n--- expected\n{expected_stdout}\n--- actual\n{actual_stdout}"
        ));
    }
    if actual_stderr != expected_stderr {
        problems.push(format!(
            "stderr differs\n--- expected\n{expected_stderr}\n--- actual\n{actual_stderr}"
        ));
    }
    if actual_exit != expected_exit {
        problems.push(format!(
            "exit status {actual_exit}, expected {expected_exit}"
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

fn run_with_stdin(mut cmd: Command, stdin: &str) -> Result<std::process::Output, Failed> {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_string();
    // Write from another thread so a program that never reads cannot deadlock the test.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(input.as_bytes());
    });
    let output = child.wait_with_output()?;
    let _ = writer.join();
    Ok(output)
}
