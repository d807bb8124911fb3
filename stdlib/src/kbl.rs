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
    /// Whether the forest has room for `ids` more path ids, within the memory the forests
    /// may take (`others` bytes taken by the other functions' forests): the runtime's own
    /// memory has run out otherwise (the `out of memory` error, not an abort in the
    /// allocator).
    fn room(&mut self, ids: usize, others: usize) -> bool {
        // Growing may double the forest's tables: within the budget even then.
        others.saturating_add(self.forest.memory().saturating_mul(2)) <= forest_budget()
            && self.forest.try_reserve(ids).is_ok()
    }

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

/// The bytes all forests together may take: an eighth of the machine's physical memory, or an
/// eighth of what the process's address-space limit (`ulimit -v`) leaves it when that is
/// lower (computed at the first flush). Past it the forests stop
/// growing and the program ends with the `out of memory` error, leaving the memory that decoding
/// the forests and writing the profile need: the allocator failing only when nothing is left
/// would leave none (the profile's writer then aborted in its own allocations).
fn forest_budget() -> usize {
    static BYTES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BYTES.get_or_init(|| {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the limit it is given the address of.
        let address_space = match unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } {
            // What the limit leaves: the process already maps its code, stacks and arenas.
            0 if limit.rlim_cur != libc::RLIM_INFINITY => {
                let limit = usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX);
                limit.saturating_sub(mapped_bytes()) / 2
            }
            _ => usize::MAX,
        };
        (crate::gc::physical_memory() / 8).min(address_space / 4)
    })
}

/// The bytes of address space the process maps now (`/proc/self/statm`'s first field), 0 if
/// unknown.
fn mapped_bytes() -> usize {
    let pages = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|statm| statm.split_whitespace().next()?.parse::<usize>().ok())
        .unwrap_or(0);
    // SAFETY: sysconf only reads a configuration value.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
    pages.saturating_mul(page)
}

/// The bytes the forests of `streams` but `but` take.
fn others(streams: &[FunctionStream], but: usize) -> usize {
    (streams.iter().enumerate())
        .filter(|&(i, _)| i != but)
        .map(|(_, s)| s.forest.memory())
        .sum()
}

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

/// The stream buffer of table `table` is full: processes it. Ends the program with the
/// `out of memory` runtime error (the profile of what was counted written) when the forest
/// cannot grow.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_kbl_flush(table: i64) {
    let out_of_memory = crate::interrupt::section(|| {
        let mut state = STATE.lock().unwrap_or_else(PoisonError::into_inner);
        let others = others(&state, table as usize);
        let Some(stream) = state.get_mut(table as usize) else {
            return false;
        };
        if !stream.room(stream::BUFFER_CAPACITY as usize, others) {
            return true;
        }
        stream.flush();
        false
    });
    if out_of_memory {
        // No source location: the flush is the generated code's, not a statement's.
        crate::errors::raise(crate::errors::RuntimeError::OutOfMemory, None);
    }
}

/// Flushes every buffer and gives each function of `profile` (named as in `spec`) that streams
/// the record its k-IPF makes; returns what went wrong.
pub fn add_k_ipfs(spec: &ProfileSpec, profile: &mut Profile) -> Vec<String> {
    let mut problems = Vec::new();
    let mut streams = STATE.lock().unwrap_or_else(PoisonError::into_inner);
    for (i, function) in spec.functions.iter().enumerate() {
        let others = others(&streams, i);
        let Some(stream) = streams.get_mut(i) else {
            break;
        };
        // A function that streams nothing has its k-IPF from its counters already.
        let Plan::Kbl(plan) = &function.plan else {
            continue;
        };
        if !plan.streams() {
            continue;
        }
        if stream.room(stream::BUFFER_CAPACITY as usize, others) {
            stream.flush();
        } else {
            problems.push(format!(
                "function `{}`: out of memory: the path ids still in its stream buffer are not counted",
                function.name
            ));
        }
        let short = stream.activations.ids();
        if short == 0 || stream.room(short, others) {
            stream.activations.drain_into(&mut stream.forest);
        } else {
            problems.push(format!(
                "function `{}`: out of memory: its short activations are not counted",
                function.name
            ));
        }
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
