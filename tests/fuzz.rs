//! Differential testing on generated programs (`pcc-fuzz`'s generator and checks, the quick
//! set): each of `PCC_FUZZ_COUNT` (default 200) programs, the same every run, must behave in the
//! reference interpreter as compiled at `-O0` and `-O2`, and its `bl` profile at `-O2` must be
//! the interpreter's. A failure names the seed; `cargo run --release -p pcc-fuzz -- --seed S
//! --count 1` shrinks it and runs every check. Bugs the generator found are regression tests in
//! `tests/fixtures/fuzz/`, checked the same way.

mod common;

use std::path::Path;

use common::{Scratch, pl_files, root};
use libtest_mimic::{Arguments, Failed, Trial};
use pcc_fuzz::check::{Depth, Runner, Verdict, check};

fn main() {
    let args = Arguments::from_args();
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
    libtest_mimic::run(&args, trials).exit();
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
