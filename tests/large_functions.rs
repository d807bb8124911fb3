//! End-to-end tests that every function can be profiled in every mode whatever its size
//! (issue 14): long stacks of `if`s have far more than 2^64 paths, so path numbering truncates
//! ([BL96]'s dummy edges) until ids fit, the profile says which functions were truncated, edge
//! profiles never number paths, and the output is that of the unprofiled program. Also
//! `pcc paths` and `pcc pgo` on such a function. The programs are generated here.

use crate::common;

use common::{Scratch, assert_same_behaviour, function, pcc_in, read_json};

const MODES: [&str; 7] = ["block", "edge", "bl", "ppp", "tpp", "kbl", "wpp"];

/// `main` with `n` `if`s in a row, each adding to a sum: 2^n paths.
fn stacked_ifs(n: usize) -> String {
    let mut source = String::from("fn main() {\n    let s = 0;\n    let x = 7;\n");
    for k in 1..=n {
        source.push_str(&format!("    if (x + {k}) % 3 == 0 {{ s += {k}; }}\n"));
    }
    source.push_str("    println(s);\n}\n");
    source
}

/// Loops nested three deep, each body a stack of `depth` `if`s on the loop variables.
fn nested_loops(depth: usize) -> String {
    let ifs = |var: &str| -> String {
        (1..=depth)
            .map(|k| format!("if ({var} * {k} + s) % 5 < 2 {{ s += {k}; }} else {{ s -= 1; }}\n"))
            .collect()
    };
    format!(
        "fn main() {{\n    let s = 0;\n    for i in 0..3 {{\n{}        for j in 0..4 {{\n{}\
         for k in 0..2 {{\n{}}}\n}}\n}}\n    println(s);\n}}\n",
        ifs("i"),
        ifs("j"),
        ifs("k")
    )
}

/// Every mode profiles `source` with the plain run's output; path profiles of `main` are
/// truncated when `truncated`.
fn profile_in_every_mode(name: &str, source: &str, truncated: bool) {
    let scratch = Scratch::new(name);
    let file = scratch.file(&format!("{name}.pl"));
    std::fs::write(&file, source).unwrap();
    let plain = pcc_in(&scratch.0, &["run", &file], "");
    assert_eq!(plain.status, 0, "{name}: {}", plain.stderr);
    for mode in MODES {
        let out = scratch.file(&format!("{name}.{mode}.profile.json"));
        let profiled = pcc_in(
            &scratch.0,
            &["run", &file, "--profile", mode, "--profile-out", &out],
            "",
        );
        assert_same_behaviour(&format!("{name} {mode}"), &plain, &profiled);
        // TPP numbers its hot paths without truncation: past 2^63 of them a function is
        // profiled like bl, with a warning (docs/CLI.md).
        let fallback = "it is profiled like bl";
        assert!(
            !profiled.stderr.contains("warning")
                || (mode == "tpp" && profiled.stderr.contains(fallback)),
            "{name} {mode}: {}",
            profiled.stderr
        );
        let profile = read_json(std::path::Path::new(&out));
        let main = function(&profile, "main");
        match mode {
            // Edges or blocks are counted, paths never numbered.
            "edge" | "block" => assert_eq!(main["num_paths"], 0, "{name} {mode}"),
            // TPP numbers only the hot paths (or falls back to bl, then truncated).
            "tpp" => assert!(
                main["bl_fallback"] == true || main["truncated"] != true,
                "{name}"
            ),
            _ => assert_eq!(main["truncated"] == true, truncated, "{name} {mode}"),
        }
    }
}

fn stacks_of_255_and_1000_ifs() {
    profile_in_every_mode("ifs255", &stacked_ifs(255), true);
    profile_in_every_mode("ifs1000", &stacked_ifs(1000), true);
}

fn a_stack_of_10000_ifs() {
    profile_in_every_mode("ifs10000", &stacked_ifs(10_000), true);
}

/// `main` with `n` loops in a row over one array, each with a bounds-checked access that only
/// the loop's range proves in bounds.
fn many_loops(n: usize) -> String {
    let mut source = String::from("fn main() {\n    let a = [3; 10];\n    let s = 0;\n");
    for k in 0..n {
        source.push_str(&format!(
            "    for i in 0..len(a) - 1 {{ if a[i + 1] > {} {{ s += a[i] + {k}; }} }}\n",
            k % 5
        ));
    }
    source.push_str("    println(s);\n}\n");
    source
}

/// A function of hundreds of loops compiles at `-O 2` in every mode (the passes that work loop by
/// loop once rebuilt whole-function facts per loop: 1,500 loops took 23 s and 1.2 GB).
fn a_function_of_many_loops_at_o2() {
    let scratch = Scratch::new("many_loops");
    let file = scratch.file("loops.pl");
    let n = 300;
    std::fs::write(&file, many_loops(n)).unwrap();
    let expected = (0..n)
        .map(|k| if 3 > k % 5 { 9 * (3 + k) } else { 0 })
        .sum::<usize>();
    let plain = pcc_in(&scratch.0, &["run", "-O2", &file], "");
    assert_eq!(plain.stdout, format!("{expected}\n"), "{}", plain.stderr);
    for mode in MODES {
        let out = scratch.file(&format!("loops.{mode}.profile.json"));
        let args = [
            "run",
            "-O2",
            &file,
            "--profile",
            mode,
            "--profile-out",
            &out,
        ];
        assert_same_behaviour(mode, &plain, &pcc_in(&scratch.0, &args, ""));
    }
}

/// A function of more than 4096 blocks is compiled with the single-pass register allocator
/// (codegen's `LARGE_FUNCTION_BLOCKS`), in the JIT and in an executable alike.
fn a_large_function_compiles_alike_at_every_level() {
    let scratch = Scratch::new("levels");
    let file = scratch.file("ifs.pl");
    std::fs::write(&file, stacked_ifs(3000)).unwrap();
    let expected = format!("{}\n", (1..=3000).filter(|k| (7 + k) % 3 == 0).sum::<u64>());
    for level in ["-O0", "-O1", "-O2"] {
        let run = pcc_in(&scratch.0, &["run", &file, level], "");
        assert_eq!(run.stdout, expected, "{level}: {}", run.stderr);
    }
    let exe = scratch.file("ifs");
    let build = pcc_in(&scratch.0, &["build", &file, "-o", &exe], "");
    assert_eq!(build.status, 0, "{}", build.stderr);
    let output = std::process::Command::new(&exe).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), expected);
}

fn nested_loops_of_stacked_ifs() {
    // 70 `if`s per loop body: 2^70 paths through each.
    profile_in_every_mode("loops", &nested_loops(70), true);
    profile_in_every_mode("small_loops", &nested_loops(3), false);
}

/// `pcc paths` lists a truncated function and `pcc pgo` recompiles it.
fn paths_and_pgo_of_255_ifs() {
    let scratch = Scratch::new("paths_pgo");
    let file = scratch.file("ifs.pl");
    std::fs::write(&file, stacked_ifs(255)).unwrap();
    let paths = pcc_in(&scratch.0, &["paths", &file], "");
    assert_eq!(paths.status, 0, "{}", paths.stderr);
    assert!(
        paths.stdout.contains("  truncated: "),
        "{}",
        &paths.stdout[..400]
    );
    let plain = pcc_in(&scratch.0, &["run", &file], "");
    let pgo = pcc_in(&scratch.0, &["pgo", &file], "");
    assert_eq!(pgo.status, 0, "{}", pgo.stderr);
    assert_eq!(pgo.stdout, plain.stdout);
    assert!(pgo.stderr.contains("same output"), "{}", pgo.stderr);
}

/// This file's tests (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        stacks_of_255_and_1000_ifs,
        a_stack_of_10000_ifs,
        a_function_of_many_loops_at_o2,
        a_large_function_compiles_alike_at_every_level,
        nested_loops_of_stacked_ifs,
        paths_and_pgo_of_255_ifs
    ]
}
