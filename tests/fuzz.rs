//! Differential testing on generated programs (`pcc-fuzz`'s generator and checks, the quick
//! set): each of `PCC_FUZZ_COUNT` (default 200) programs, the same every run, must behave in the
//! reference interpreter as compiled at `-O0` and `-O2` and at `-O2` with a collection at every
//! allocation (`PCC_GC_STRESS=1`), and its `bl` profile at `-O2` must be the interpreter's. A failure names the seed; `cargo run --release -p pcc-fuzz -- --seed S
//! --count 1` shrinks it and runs every check. Bugs the generator found are regression tests in
//! `tests/fixtures/fuzz/`, checked the same way.

use crate::common;

use std::path::Path;

use common::{Scratch, pl_files, root};
use libtest_mimic::{Failed, Trial};
use pcc_fuzz::check::{Depth, Runner, Verdict, check};

/// This file's trials (`tests/main.rs` runs them).
pub fn trials() -> Vec<Trial> {
    let count: u64 = std::env::var("PCC_FUZZ_COUNT")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(200);
    let mut trials: Vec<Trial> = (0..count)
        .map(|seed| {
            Trial::test(format!("generated/{seed}"), move || {
                same(&pcc_fuzz::generate::program(seed).text())
            })
        })
        .collect();
    for program in pl_files(&root().join("tests/fixtures/fuzz")) {
        let name = format!(
            "fixtures/fuzz/{}",
            program.file_name().unwrap().to_string_lossy()
        );
        trials.push(Trial::test(name, move || {
            same(&std::fs::read_to_string(&program)?)
        }));
    }
    trials.push(Trial::test(
        "regressions/an_array_of_a_third_of_memory",
        an_array_of_a_third_of_memory,
    ));
    trials
}

/// Seed 3520 of the soak: an array too large for the machine was granted by the OS and the
/// compiled program killed when it filled it, while the interpreter reported `out of memory`.
/// Now one object larger than a quarter of physical memory is out of memory in every engine.
fn an_array_of_a_third_of_memory() -> Result<(), Failed> {
    let Some(memory) = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .next()?
            .split_whitespace()
            .nth(1)?
            .parse::<u64>()
            .ok()
    }) else {
        println!("skipped: no /proc/meminfo");
        return Ok(());
    };
    let elements = memory * 1024 / 3 / 8;
    let source = format!("fn main() {{\n    let a = [7; {elements}];\n    println(len(a));\n}}\n");
    let scratch = Scratch::new("fuzz-oom");
    std::fs::write(scratch.path("big.pl"), source)?;
    for engine in [&["--engine", "interp"][..], &["-O0"], &["-O2"]] {
        let mut args = vec!["run", "big.pl"];
        args.extend_from_slice(engine);
        let run = common::pcc_in(&scratch.0, &args, "");
        if run.status != 101 || !run.stderr.contains("out of memory\n  --> big.pl:2:13") {
            return Err(format!("{engine:?}: status {}: {}", run.status, run.stderr).into());
        }
    }
    Ok(())
}

fn same(source: &str) -> Result<(), Failed> {
    let scratch = Scratch::new("fuzz");
    let runner = Runner {
        pcc: Path::new(env!("CARGO_BIN_EXE_pcc")).to_path_buf(),
        dir: scratch.0.clone(),
    };
    match check(&runner, source, Depth::Quick) {
        Verdict::Same | Verdict::Skipped(_) => Ok(()),
        Verdict::Differs(m) => Err(format!("{}: {}", m.stage, m.detail).into()),
    }
}
