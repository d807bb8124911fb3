//! The integration tests of the `pcc` crate, in one executable (one link of the compiler instead
//! of one per file; docs/TESTING.md says what each file checks). Each file gives its trials;
//! libtest-mimic runs them all on one pool of threads, with libtest's options (a filter, `--list`,
//! `--ignored`, `--test-threads`). A trial's kind is its file: `cargo test --test it -- golden`
//! runs the golden tests, `cargo test --test it -- '[golden] programs/fib.pl'` one program's.

/// Trials of test functions that panic when they fail, named as the functions are.
macro_rules! plain_trials {
    ($($test:ident),* $(,)?) => {
        vec![$(libtest_mimic::Trial::test(stringify!($test), || {
            $test();
            Ok(())
        })),*]
    };
}
pub(crate) use plain_trials;

mod common;

mod aot;
mod editors;
mod error_format;
mod exercises;
mod explain;
mod fuzz;
mod golden;
mod interp;
mod kbl;
mod large_functions;
mod lsp;
mod messages;
mod paths;
mod pgo;
mod ppp;
mod profile_commands;
mod profile_format;
mod profile_output;
mod profiling;
mod report;
mod test_command;
mod tpp;
mod tutorial;
mod wpp;

/// A file's trials.
type Trials = fn() -> Vec<libtest_mimic::Trial>;

fn main() {
    let args = libtest_mimic::Arguments::from_args();
    let files: [(&str, Trials); 24] = [
        ("aot", aot::trials),
        ("editors", editors::trials),
        ("error_format", error_format::trials),
        ("exercises", exercises::trials),
        ("explain", explain::trials),
        ("fuzz", fuzz::trials),
        ("golden", golden::trials),
        ("interp", interp::trials),
        ("kbl", kbl::trials),
        ("large_functions", large_functions::trials),
        ("lsp", lsp::trials),
        ("messages", messages::trials),
        ("paths", paths::trials),
        ("pgo", pgo::trials),
        ("ppp", ppp::trials),
        ("profile_commands", profile_commands::trials),
        ("profile_format", profile_format::trials),
        ("profile_output", profile_output::trials),
        ("profiling", profiling::trials),
        ("report", report::trials),
        ("test_command", test_command::trials),
        ("tpp", tpp::trials),
        ("tutorial", tutorial::trials),
        ("wpp", wpp::trials),
    ];
    let trials = files
        .into_iter()
        .flat_map(|(file, trials)| trials().into_iter().map(move |t| t.with_kind(file)))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
