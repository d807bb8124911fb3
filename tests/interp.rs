//! The reference interpreter (`pcc run --engine interp`) as a profiling oracle: for every program
//! of `programs/`, `tests/runtime/` and `tests/fixtures/profiling/` (normal ends, `exit()` deep
//! in calls, runtime errors), its `bl`, `edge` and `block` profiles are byte for byte the JIT's,
//! with the same stdout, stderr (but the profile's path) and exit status. The interpreter counts
//! paths from the edges it takes, the compiled code from the instrumentation's counters: they
//! share only the numbering and the profile format. (Its plain runs are in `tests/golden.rs`.)
//! Also: `--trace`, and the options it refuses.

use crate::common;

use std::path::Path;

use common::{Scratch, pcc_in, pl_files, program_args, root, run_args, sidecar};
use libtest_mimic::{Failed, Trial};

/// This file's trials (`tests/main.rs` runs them).
pub fn trials() -> Vec<Trial> {
    let mut trials = Vec::new();
    for dir in ["programs", "tests/runtime", "tests/fixtures/profiling"] {
        for program in pl_files(&root().join(dir)) {
            let name = format!("{dir}/{}", program.file_name().unwrap().to_string_lossy());
            for mode in ["bl", "edge", "block"] {
                let program = program.clone();
                trials.push(Trial::test(format!("{name} {mode}"), move || {
                    same_profile(&program, mode)
                }));
            }
        }
    }
    trials.push(Trial::test("trace shows blocks and returns", trace));
    trials.push(Trial::test("refused options", refusals));
    trials.push(Trial::test("long chains drop", long_chains));
    trials.push(Trial::test(
        "the call depth limit of each engine",
        call_depth,
    ));
    trials.push(Trial::test(
        "long invalid tokens are quoted in part",
        long_tokens,
    ));
    trials
}

/// The JIT at `-O0` and the interpreter write the same `mode` profile and behave the same.
fn same_profile(program: &Path, mode: &str) -> Result<(), Failed> {
    let scratch = Scratch::new("interp");
    let args = program_args(program);
    let stdin = sidecar(program, "stdin").unwrap_or_default();
    let dir = program.parent().unwrap();
    let run = |engine: &str| {
        let out = scratch.file(&format!("{engine}.json"));
        let flags = [
            "--engine",
            engine,
            "-O0",
            &format!("--profile={mode}"),
            "--profile-out",
            &out,
        ];
        let run = pcc_in(dir, &run_args(program, &flags, &args), &stdin);
        let profile = std::fs::read_to_string(&out).map_err(|e| format!("{engine}: {e}"));
        (run, profile, out)
    };
    // A stack overflow's depth depends on frame sizes in compiled code, not in the
    // interpreter: only the paths, which all activations lose, can agree.
    let depth_dependent = program.ends_with("tests/runtime/stack_overflow.pl") && mode != "bl";
    let (jit, jit_profile, jit_out) = run("jit");
    let (interp, interp_profile, interp_out) = run("interp");
    let mut problems = Vec::new();
    if jit.status != interp.status {
        problems.push(format!("exit status {} vs {}", jit.status, interp.status));
    }
    if jit.stdout != interp.stdout {
        problems.push(format!(
            "stdout differs:\n--- jit\n{}--- interp\n{}",
            jit.stdout, interp.stdout
        ));
    }
    let interp_stderr = interp.stderr.replace(&interp_out, &jit_out);
    if depth_dependent {
        if jit.program_stderr().0 != interp.program_stderr().0 {
            problems.push("the program's stderr differs".to_string());
        }
    } else if jit.stderr != interp_stderr {
        problems.push(format!(
            "stderr differs:\n--- jit\n{}--- interp\n{interp_stderr}",
            jit.stderr
        ));
    }
    if jit_profile? != interp_profile? && !depth_dependent {
        problems.push(format!("the {mode} profiles differ"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

fn trace() -> Result<(), Failed> {
    let scratch = Scratch::new("trace");
    let source = scratch.path("t.pl");
    std::fs::write(
        &source,
        "fn twice(x: int) -> int {\n    return 2 * x;\n}\n\nfn main() {\n    println(twice(3));\n}\n",
    )?;
    let run = pcc_in(
        &scratch.0,
        &run_args(&source, &["--engine", "interp", "--trace"], &[] as &[&str]),
        "",
    );
    assert_eq!((run.status, run.stdout.as_str()), (0, "6\n"));
    let expected = "trace: <globals> bb0 line 1\n\
                    trace: <globals> returns\n\
                    trace: main bb0 line 6\n\
                    trace:   twice bb0 line 2\n\
                    trace:   twice returns\n\
                    trace: main returns\n";
    assert_eq!(run.stderr, expected);
    let jit = pcc_in(
        &scratch.0,
        &run_args(&source, &["--trace"], &[] as &[&str]),
        "",
    );
    assert_eq!(jit.status, 1);
    assert!(jit.stderr.contains("--trace needs --engine interp"));
    Ok(())
}

fn refusals() -> Result<(), Failed> {
    let program = root().join("programs/add_even.pl");
    for (flags, message) in [
        (&["--profile=kbl"][..], "bl, edge or block only"),
        (&["--use-profile", "x.json"][..], "no --use-profile"),
        (&["--trace-blocks", "x.json"][..], "no --trace-blocks"),
    ] {
        let mut all = vec!["--engine", "interp"];
        all.extend(flags);
        let run = pcc_in(&root(), &run_args(&program, &all, &["2"] as &[&str]), "");
        assert_eq!(run.status, 1, "{flags:?}");
        assert!(run.stderr.contains(message), "{flags:?}: {}", run.stderr);
    }
    Ok(())
}

/// Dropping a long chain of values does not overflow the interpreter's stack, which a drop that
/// recursed once per link did (a debug build overflowed at 50,000 links): a list, a chain through
/// arrays, and a list of structs holding arrays of arrays and the shared tails of another list,
/// whose tails stay whole.
fn long_chains() -> Result<(), Failed> {
    let scratch = Scratch::new("chains");
    let source = scratch.path("chains.pl");
    std::fs::write(&source, CHAINS)?;
    let run = pcc_in(
        &scratch.0,
        &run_args(&source, &["--engine", "interp"], &[] as &[&str]),
        "",
    );
    let expected = (0, "list\nchain\nmix 100000\n", "");
    assert_eq!(
        (run.status, run.stdout.as_str(), run.stderr.as_str()),
        expected
    );
    Ok(())
}

/// `parse_int`, `parse_float` and `read_int` of a 200 KB token: the message quotes its first 64
/// bytes and `…`, under the JIT and the interpreter alike.
fn long_tokens() -> Result<(), Failed> {
    let scratch = Scratch::new("tokens");
    let source = scratch.path("tokens.pl");
    std::fs::write(
        &source,
        "fn main() {\n    let how = arg(0);\n    if how == \"int\" { println(parse_int(read_line())); }\n    \
         if how == \"float\" { println(parse_float(read_line())); }\n    println(read_int());\n}\n",
    )?;
    let stdin = format!("{}\n", "x".repeat(200_000));
    let quoted = format!("\"{}…\"", "x".repeat(64));
    for (how, message) in [
        ("int", format!("invalid integer: {quoted}")),
        ("float", format!("invalid float: {quoted}")),
        (
            "read",
            format!("read_int: the next input is {quoted}, not an integer"),
        ),
    ] {
        for engine in ["jit", "interp"] {
            let flags = ["--engine", engine];
            let run = pcc_in(&scratch.0, &run_args(&source, &flags, &[how]), &stdin);
            let first = run.stderr.lines().next().unwrap_or_default();
            if run.status != 101
                || first != format!("runtime error: {message}")
                || run.stderr.len() > 400
            {
                return Err(
                    format!("{how} under {engine}: {} {:?}", run.status, run.stderr).into(),
                );
            }
        }
    }
    Ok(())
}

const CHAINS: &str = r#"struct Node { v: int, next: Node }
struct Link { v: int, next: [Link] }
struct Mix { list: Node, links: [[Link]], next: Mix }

fn main() {
    let n = 100000;
    // A list: each node dropped by the one before it.
    let head: Node = null;
    for i in 0..n {
        head = new Node { v: i, next: head };
    }
    head = null;
    println("list");
    // Object, array, object, array, ...
    let chain: [Link] = [];
    for i in 0..n {
        chain = [new Link { v: i, next: chain }];
    }
    chain = [];
    println("chain");
    // A list of structs holding arrays of arrays and the tails of a list that stays alive.
    let shared: Node = null;
    let mix: Mix = null;
    for i in 0..n {
        shared = new Node { v: i, next: shared };
        mix = new Mix { list: shared, links: [[new Link { v: i, next: [] }], []], next: mix };
    }
    mix = null;
    let count = 0;
    let node = shared;
    while node != null {
        count += 1;
        node = node.next;
    }
    node = null;
    shared = null;
    println("mix", count);
}
"#;

/// The documented call depth limit (docs/LANGUAGE.md, "Runtime errors"): up to 200,000
/// activations every engine and level runs the program the same; an unbounded recursion is the
/// same `stack overflow` error, at the same location, with status 101; between the
/// interpreter's limit and the end of compiled code's stack (frames of a few words: millions of
/// calls), the interpreter reports the overflow and compiled code runs on.
fn call_depth() -> Result<(), Failed> {
    let scratch = Scratch::new("depth");
    let source = scratch.path("deep.pl");
    std::fs::write(
        &source,
        "fn down(n: int) -> int {\n    if n == 0 { return 0; }\n    return 1 + down(n - 1);\n}\n\n\
         fn main() {\n    println(down(parse_int(arg(0))));\n}\n",
    )?;
    let engines: [&[&str]; 3] = [&["--engine", "interp"], &["-O", "0"], &["-O", "2"]];
    let run = |flags: &[&str], depth: usize| {
        pcc_in(
            &scratch.0,
            &run_args(&source, flags, &[depth.to_string()]),
            "",
        )
    };
    let overflow = format!(
        "runtime error: stack overflow (recursion too deep)\n  --> {}:1:4 in function `down`\n",
        source.display()
    );
    let overflow = overflow.as_str();
    // `main` and 199,999 activations of `down`: at the limit.
    let limit = pcc::interp::MAX_DEPTH;
    assert_eq!(limit, 200_000);
    for flags in engines {
        let at = run(flags, limit - 2);
        assert_eq!(
            (at.status, at.stdout),
            (0, format!("{}\n", limit - 2)),
            "{flags:?}"
        );
        let unbounded = run(flags, 1 << 40);
        assert_eq!(
            (unbounded.status, unbounded.stderr.as_str()),
            (101, overflow),
            "{flags:?}"
        );
    }
    let past = run(engines[0], limit - 1);
    assert_eq!((past.status, past.stderr.as_str()), (101, overflow));
    for flags in &engines[1..] {
        let compiled = run(flags, 1_000_000);
        assert_eq!(
            (compiled.status, compiled.stdout),
            (0, "1000000\n".to_string()),
            "{flags:?}"
        );
    }
    Ok(())
}
