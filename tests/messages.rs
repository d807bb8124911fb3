//! End-to-end tests of messages that used to mislead (issue 14): warnings for options the chosen
//! mode ignores, the hint for program arguments given without `--`, `--help` on `--interesting`,
//! usage errors' exit status 2, `pcc pgo` on a program too short to time, and the location of
//! running out of memory in a string concatenation, and output into a pipe closed early.

use crate::common;

use std::process::Command;

use common::{Scratch, pcc_in, run_command};

fn program(scratch: &Scratch, source: &str) -> String {
    let file = scratch.file("p.pl");
    std::fs::write(&file, source).unwrap();
    file
}

const HELLO: &str = "fn main() { println(\"hello\"); }\n";

fn ignored_options_are_warned_about() {
    let scratch = Scratch::new("ignored");
    let file = program(&scratch, HELLO);
    let out = scratch.file("x.json");
    let edge = scratch.file("e.json");
    for (flags, warning) in [
        (
            vec!["--profile-out", out.as_str()],
            "pcc: warning: --profile-out is ignored with no --profile (it applies to --profile)",
        ),
        (
            vec!["--profile", "bl", "--k", "3"],
            "pcc: warning: --k is ignored with --profile=bl (it applies to --profile=kbl)",
        ),
        (
            vec!["--profile", "edge", "--interesting", out.as_str()],
            "pcc: warning: --interesting is ignored with --profile=edge (it applies to \
             --profile=ppp)",
        ),
        (
            vec!["--profile", "kbl", "--edge-profile", edge.as_str()],
            "pcc: warning: --edge-profile is ignored with --profile=kbl (it applies to \
             --profile=tpp)",
        ),
    ] {
        let mut args = vec!["run", file.as_str()];
        args.extend(&flags);
        let run = pcc_in(&scratch.0, &args, "");
        assert_eq!(run.status, 0, "{flags:?}: {}", run.stderr);
        assert_eq!(run.stdout, "hello\n");
        assert!(run.stderr.contains(warning), "{flags:?}: {}", run.stderr);
    }
    // Options that apply are not warned about.
    let run = pcc_in(
        &scratch.0,
        &["run", &file, "--profile", "kbl", "--k", "3"],
        "",
    );
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
}

fn program_arguments_without_dashes_get_a_hint() {
    let scratch = Scratch::new("dashes");
    let file = program(&scratch, HELLO);
    let run = pcc_in(&scratch.0, &["run", &file, "5", "6"], "");
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains(&format!(
            "hint: the program's arguments go after `--`: pcc run {file} -- 5 6"
        )),
        "{}",
        run.stderr
    );
    // Any usage error exits 2, as docs/CLI.md says.
    assert_eq!(pcc_in(&scratch.0, &["run", "--no-such-flag"], "").status, 2);
}

fn interesting_help_names_the_newest_path_profile() {
    let scratch = Scratch::new("help");
    let help = pcc_in(&scratch.0, &["run", "--help"], "");
    assert!(
        help.stdout
            .contains("ones (default: the newest of those at"),
        "{}",
        help.stdout
    );
}

fn pgo_does_not_time_a_program_too_short() {
    let scratch = Scratch::new("pgo_short");
    let file = program(&scratch, HELLO);
    let pgo = pcc_in(&scratch.0, &["pgo", &file], "");
    assert_eq!(pgo.status, 0, "{}", pgo.stderr);
    assert_eq!(pgo.stdout, "hello\n");
    assert!(
        pgo.stderr.contains("interleaved rounds") && pgo.stderr.contains("too short to time"),
        "{}",
        pgo.stderr
    );
    assert!(!pgo.stderr.contains("as fast"), "{}", pgo.stderr);
}

/// Out of memory in `s + s` is reported at the concatenation, like an array allocation, by
/// compiled code and by the interpreter.
fn string_concatenation_out_of_memory_has_a_location() {
    let scratch = Scratch::new("oom");
    let file = program(
        &scratch,
        "fn main() {\n    let s = \"x\";\n    for i in 0..64 {\n        s = s + s;\n    }\n    \
         println(len(s));\n}\n",
    );
    for engine in ["jit", "interp"] {
        // A small address space, so that memory runs out early: the smallest (in KiB) in which
        // pcc starts the program's thread (a 256 MiB stack) at all.
        let run = [800_000, 1_000_000, 1_500_000]
            .into_iter()
            .map(|limit| {
                let mut command = Command::new("sh");
                command.args([
                    "-c",
                    &format!("ulimit -v {limit} && exec \"$0\" run --engine \"$2\" \"$1\""),
                    env!("CARGO_BIN_EXE_pcc"),
                    &file,
                    engine,
                ]);
                run_command(command, "").unwrap()
            })
            .find(|run| !run.stderr.contains("cannot start"))
            .expect("pcc runs in 1.5 GB");
        assert_eq!(run.status, 101, "{engine}: {}", run.stderr);
        assert!(
            run.stderr
                .starts_with("runtime error: out of memory\n  --> ")
                && run.stderr.contains("p.pl:4:"),
            "{engine}: {}",
            run.stderr
        );
    }
}

/// `pcc run --emit mir BIG | head` stops quietly when `head` closes the pipe: no panic, status 0.
fn a_listing_into_a_closed_pipe_ends_quietly() {
    let big = common::root().join("programs/bench/awfy_deltablue.pl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_pcc"))
        .args(["run", "-O2", "--emit", "mir"])
        .arg(big)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("pcc starts");
    // The listing is larger than a pipe's buffer, so pcc writes into the closed pipe.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}

/// Issue 52: `pcc run prog.pl | head -1` of a program printing a lot: the error of writing into
/// the closed pipe is a runtime error like the others, with the location of the `print` that
/// found the pipe closed, from the JIT, the interpreter and an executable.
fn a_print_into_a_closed_pipe_has_a_location() {
    let scratch = Scratch::new("pipe");
    let file = program(
        &scratch,
        "fn main() {\n    let i = 0;\n    while true {\n        println(\"line\", i);\n        \
         i = i + 1;\n    }\n}\n",
    );
    let exe = scratch.file("p");
    let built = pcc_in(&scratch.0, &["build", &file, "-o", &exe], "");
    assert_eq!(built.status, 0, "{}", built.stderr);
    let commands: [(&str, Vec<&str>); 3] = [
        ("jit", vec![env!("CARGO_BIN_EXE_pcc"), "run", &file]),
        (
            "interp",
            vec![
                env!("CARGO_BIN_EXE_pcc"),
                "run",
                "--engine",
                "interp",
                &file,
            ],
        ),
        ("executable", vec![&exe]),
    ];
    for (how, args) in commands {
        let mut child = Command::new(args[0])
            .args(&args[1..])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("starts");
        // As `head -1` does: one line read, then the pipe closed.
        let mut first = [0u8; 6];
        std::io::Read::read_exact(child.stdout.as_mut().unwrap(), &mut first).unwrap();
        assert_eq!(&first, b"line 0");
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(101), "{how}: {stderr}");
        assert!(
            stderr.starts_with("runtime error: cannot write to stdout: Broken pipe")
                && stderr.ends_with("/p.pl:4:9 in function `main`\n")
                && stderr.lines().count() == 2,
            "{how}: {stderr}"
        );
    }
}

/// This file's tests (`tests/main.rs` runs them).
/// `[[0; w]; h]` shares one row: `pcc run`, `check` and `build` warn, once, with the source
/// location, and still run the program (whose output shows the sharing).
fn shared_rows_are_warned_about() {
    let scratch = Scratch::new("shared_rows");
    let file = program(
        &scratch,
        "fn main() {\n    let grid = [[0; 3]; 2];\n    grid[0][1] = 5;\n    println(grid);\n}\n",
    );
    let warning = "warning: every element of this array is the same array";
    let exe = scratch.file("grid");
    for args in [
        vec!["run", file.as_str()],
        vec!["run", file.as_str(), "--engine", "interp"],
        vec!["check", file.as_str()],
        vec!["build", file.as_str(), "-o", exe.as_str()],
    ] {
        let run = pcc_in(&scratch.0, &args, "");
        assert_eq!(run.status, 0, "{args:?}: {}", run.stderr);
        assert_eq!(
            run.stderr.matches(warning).count(),
            1,
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stderr.contains("p.pl:2:16"), "{args:?}: {}", run.stderr);
        if args[0] == "run" {
            assert_eq!(run.stdout, "[[0, 5, 0], [0, 5, 0]]\n");
        }
    }
    let built = run_command(Command::new(&exe), "").unwrap();
    assert_eq!(
        (built.stdout.as_str(), built.stderr.as_str()),
        ("[[0, 5, 0], [0, 5, 0]]\n", "")
    );
    // Rows made one by one are not warned about.
    let file = program(
        &scratch,
        "fn main() {\n    let grid = [[0; 0]; 2];\n    for i in 0..2 { grid[i] = [0; 3]; }\n    println(grid);\n}\n",
    );
    let run = pcc_in(&scratch.0, &["run", file.as_str()], "");
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);
}

pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        ignored_options_are_warned_about,
        program_arguments_without_dashes_get_a_hint,
        interesting_help_names_the_newest_path_profile,
        pgo_does_not_time_a_program_too_short,
        string_concatenation_out_of_memory_has_a_location,
        a_listing_into_a_closed_pipe_ends_quietly,
        a_print_into_a_closed_pipe_has_a_location,
        shared_rows_are_warned_about
    ]
}
