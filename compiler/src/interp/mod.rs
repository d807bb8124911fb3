//! The reference interpreter (`pcc run --engine interp`): runs the MIR as lowered, before any
//! instrumentation or optimization, one statement at a time. It is the semantics every pass
//! and mode must keep, written to be obviously right rather than fast; differential testing
//! compares compiled code with it (`fuzz/`, docs/TESTING.md).
//!
//! Output, input, formatting and the messages of runtime errors are the runtime's own code
//! (`pcc_stdlib::interp_support`), so a program prints, reads and fails exactly as compiled.

mod builtins;
mod eval;
mod machine;
mod map;
mod recorder;
mod value;

use pcc_profiler::profile::{Mode, Profile, SourceFile};
use pcc_stdlib::interp_support::{ERROR_EXIT_CODE, flush, report, write_profile_file};

pub use machine::MAX_DEPTH;
use machine::{Machine, Stop};
use recorder::Recorder;

use crate::mir::Program;

/// The modes the interpreter profiles: those whose counts follow from the blocks and edges a
/// run takes.
pub const PROFILE_MODES: [Mode; 3] = [Mode::Bl, Mode::Edge, Mode::Block];

pub struct Options {
    pub profile: Option<ProfileOptions>,
    /// Print every block entered, and every return, on stderr.
    pub trace: bool,
}

pub struct ProfileOptions {
    /// One of [`PROFILE_MODES`].
    pub mode: Mode,
    pub output: String,
    /// Functions with more paths than this count them in a hash table (the record's `storage`).
    pub array_limit: u64,
    pub source: SourceFile,
}

/// Runs `program` (as lowered from `source`) with `args` and returns its exit status: `main`'s
/// result, `exit()`'s code, or 101 after a runtime error, which is reported on stderr as
/// compiled code reports it. The profile, if asked for, is written at every kind of end.
pub fn run(program: &Program, source: &str, args: Vec<String>, options: &Options) -> i32 {
    let recorder = match &options.profile {
        Some(_) => Recorder::on(program),
        None => Recorder::off(program),
    };
    let mut machine = Machine::new(program, source, args.clone(), options.trace, recorder);
    let status = match machine.run_program() {
        Ok(code) => code as i32,
        Err(Stop::Exit(code)) => code,
        Err(Stop::Error(error, location)) => {
            flush();
            eprint!("{}", report(&error, location.as_ref(), &program.file_name));
            ERROR_EXIT_CODE
        }
    };
    flush();
    if let Some(profile) = &options.profile {
        let empty = Profile::new(profile.mode, profile.source.clone(), args);
        let (written, problems) = machine.recorder.profile(empty, source, profile.array_limit);
        for problem in problems {
            eprintln!("pcc: warning: {} profile: {problem}", profile.mode);
        }
        write_profile_file(&written, &profile.output);
    }
    status
}
