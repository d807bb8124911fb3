//! The runtime of `kbl`, k-iteration path profiling ([KBLPP]): the stream of Ball-Larus path ids
//! the instrumented functions emit, fed to one k-slab forest per function, and the forests'
//! k-IPFs when the program ends.
//!
//! [KBLPP] decouples tracing paths from building the forest (§"Approach", Fig. "kblpp-approach");
//! so does the runtime. The generated code appends each event to its function's stream buffer
//! ([`crate::stream`]) with no call; when a buffer fills up, it calls [`pcc_kbl_flush`], which
//! runs the buffered events through the function's forest (`process_bl_path_id`) and empties
//! the buffer; at exit the runtime flushes every buffer and converts the forests (`make_k_ipf`).
//!
//! Buffers are per function, so a call to another function leaves the caller's ids contiguous;
//! the enter and leave markers let a recursive activation have its own cursor: the runtime keeps
//! each function's current cursor and those of the activations it interrupted. An activation
//! the buffer holds whole (its enter marker, its ids, its leave marker) needs no cursor kept:
//! short ones are counted in [`Activations`] and reach the forest at exit.
//!
//! Threads: the buffers are written by the program's thread; they are read, and the state is
//! used, only by [`pcc_kbl_flush`] on that thread, and by the exit hook once the program's
//! thread has stopped running generated code (after it ended and was joined, or from
//! `exit()`/a runtime error on that very thread, which then waits for the hook). A mutex
//! taken once per flush (thousands of events) guards the state.

use std::sync::{Mutex, PoisonError};

use crate::activations::{self, Activations};
use crate::stream::{self, Event};
use pcc_profiler::kbl::{Cursor, KSlabForest};
use pcc_profiler::mode::Plan;
use pcc_profiler::profile::{KipfNode, Profile};
use pcc_profiler::spec::ProfileSpec;

/// One function's stream: its forest, its buffer and the cursors of its activations.
struct FunctionStream {
    forest: KSlabForest,
    /// The program's buffer for this function (null until the program registers it).
    buffer: *mut u64,
    /// The innermost activation's cursor.
    current: Cursor,
    /// The cursors of the activations a recursive call interrupted, innermost last.
    interrupted: Vec<Cursor>,
    /// The short activations a buffer held whole, to be given to the forest at exit.
    activations: Activations,
}

// SAFETY: `buffer` points to a data object of the program, alive until the process ends; the
// module documentation says which threads touch it, and when.
unsafe impl Send for FunctionStream {}

impl FunctionStream {
    /// Runs the buffered events through the forest and empties the buffer.
    fn flush(&mut self) {
        let Self {
            forest,
            buffer,
            current,
            interrupted,
            activations,
        } = self;
        // SAFETY: see the module documentation.
        unsafe {
            stream::drain(*buffer, |mut words| {
                // A local cursor, which the compiler keeps in registers.
                let mut cursor = *current;
                loop {
                    let ids = forest.process_bl_path_ids(&mut cursor, words);
                    words = match &words[ids..] {
                        [stream::MARKER, kind, rest @ ..] => {
                            match stream::marker(*kind) {
                                Event::Enter(_) => match whole_activation(rest) {
                                    Some(run) => {
                                        // Its own cursor, and no other's to keep.
                                        if run.len() < activations::MIN_IDS || !activations.add(run)
                                        {
                                            let mut fresh = Cursor::ROUTINE_ENTRY;
                                            forest.process_bl_path_ids(&mut fresh, run);
                                        }
                                        words = &rest[run.len() + 2..];
                                        continue;
                                    }
                                    None => {
                                        interrupted.push(cursor);
                                        cursor = Cursor::ROUTINE_ENTRY;
                                    }
                                },
                                _ => cursor = interrupted.pop().unwrap_or_default(),
                            }
                            rest
                        }
                        // The end (or a marker cut off: the buffer ends with a whole one).
                        [] | [stream::MARKER] => break,
                        [id, ..] => panic!("path id {id} out of range"),
                    };
                }
                *current = cursor;
            })
        };
    }
}

/// The ids of the activation whose enter marker `words` follow, if its return follows them in
/// `words` with no marker between (no call of the function itself), and they are few.
fn whole_activation(words: &[u64]) -> Option<&[u64]> {
    let len = words
        .iter()
        .take(activations::MAX_IDS + 1)
        .position(|&w| w == stream::MARKER)?;
    (words.get(len + 1) == Some(&stream::LEAVE)).then(|| &words[..len])
}

static STATE: Mutex<Vec<FunctionStream>> = Mutex::new(Vec::new());

/// Prepares one forest per instrumented function of `spec` (counter table `i` is function `i`).
pub fn install(spec: &ProfileSpec) {
    let k = spec.k.clamp(1, u32::MAX as usize);
    *STATE.lock().unwrap_or_else(PoisonError::into_inner) = spec
        .functions
        .iter()
        .map(|function| FunctionStream {
            forest: KSlabForest::new(k, function.plan.num_paths()),
            buffer: std::ptr::null_mut(),
            current: Cursor::ROUTINE_ENTRY,
            interrupted: Vec::new(),
            activations: Activations::default(),
        })
        .collect();
}

/// Registers `buffer` (a zeroed data object of [`stream::BUFFER_WORDS`] words, alive until the
/// process ends) as the stream buffer of the function of counter table `table`.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_kbl_buffer(table: i64, buffer: *mut u64) {
    crate::interrupt::section(|| {
        if let Some(stream) = STATE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_mut(table as usize)
        {
            stream.buffer = buffer;
        }
    })
}

/// The stream buffer of table `table` is full: processes it.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_kbl_flush(table: i64) {
    crate::interrupt::section(|| {
        if let Some(stream) = STATE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_mut(table as usize)
        {
            stream.flush();
        }
    })
}

/// Flushes every buffer and gives each function of `profile` (named as in `spec`) that streams
/// the record its k-IPF makes; returns what went wrong.
pub fn add_k_ipfs(spec: &ProfileSpec, profile: &mut Profile) -> Vec<String> {
    let mut problems = Vec::new();
    let mut streams = STATE.lock().unwrap_or_else(PoisonError::into_inner);
    for (function, stream) in spec.functions.iter().zip(streams.iter_mut()) {
        // A function that streams nothing has its k-IPF from its counters already.
        let Plan::Kbl(plan) = &function.plan else {
            continue;
        };
        if !plan.streams() {
            continue;
        }
        stream.flush();
        stream.activations.drain_into(&mut stream.forest);
        let kipf: Vec<KipfNode> = stream.forest.make_k_ipf();
        let Some(record) = (profile.functions.iter_mut()).find(|f| f.name == function.name) else {
            continue;
        };
        match pcc_profiler::mode::kbl::with_forest(plan, function, kipf) {
            Ok(made) => *record = made,
            Err(problem) => problems.push(format!("function `{}`: {problem}", function.name)),
        }
    }
    problems
}
