//! The runtime of `kbl`, k-iteration path profiling (001): the stream of Ball-Larus path ids
//! the instrumented functions emit, fed to one k-slab forest per function, and the forests'
//! k-IPFs when the program ends.
//!
//! 001 decouples tracing paths from building the forest (§"Approach", Fig. "kblpp-approach");
//! so does the runtime. The generated code appends each event to its function's *stream
//! buffer*, a data object of the program ([`BUFFER_WORDS`] words: the number of words used,
//! then the words), with a few inline instructions and no call. When a buffer fills up, the
//! generated code calls [`pcc_kbl_flush`], which runs the buffered events through the
//! function's forest (`process_bl_path_id`) and empties the buffer; at exit the runtime
//! flushes every buffer and converts the forests (`make_k_ipf`).
//!
//! A word is a path id (below the function's number of paths, so never [`MARKER`]), or
//! [`MARKER`] followed by [`ENTER`] (`*`: an activation starts) or [`LEAVE`] (it returns).
//! Buffers are per function, so a call to another function leaves the caller's ids contiguous;
//! the markers let a recursive activation have its own cursor: the runtime keeps each
//! function's current cursor and those of the activations it interrupted.
//!
//! Threads: the buffers are written by the program's thread; they are read, and the state is
//! used, only by [`pcc_kbl_flush`] on that thread, and by the exit hook once the program's
//! thread has stopped running generated code (after it ended and was joined, or from
//! `exit()`/a runtime error on that very thread, which then waits for the hook). A mutex
//! taken once per flush (thousands of events) guards the state.

use std::sync::{Mutex, PoisonError};

use pcc_profiler::kbl::{Cursor, KSlabForest};
use pcc_profiler::profile::{KipfNode, Profile};
use pcc_profiler::spec::ProfileSpec;

/// Words a stream buffer holds before the generated code flushes it; it has one more word, so
/// that a two-word marker written at the last position still fits.
pub const BUFFER_CAPACITY: u64 = 2048;
/// Size of a stream buffer in 8-byte words: the count of used words, then the words.
pub const BUFFER_WORDS: u64 = 1 + BUFFER_CAPACITY + 1;
/// Starts a two-word marker; no path id equals it (ids are below `num_paths` ≤ `u64::MAX`).
pub const MARKER: u64 = u64::MAX;
/// `MARKER, ENTER`: an activation of the function starts (`*`).
pub const ENTER: u64 = 0;
/// `MARKER, LEAVE`: the function's innermost activation returns.
pub const LEAVE: u64 = 1;

/// One function's stream: its forest, its buffer and the cursors of its activations.
struct FunctionStream {
    forest: KSlabForest,
    /// The program's buffer for this function (null until the program registers it).
    buffer: *mut u64,
    /// The innermost activation's cursor.
    current: Cursor,
    /// The cursors of the activations a recursive call interrupted, innermost last.
    interrupted: Vec<Cursor>,
}

// SAFETY: `buffer` points to a data object of the program, alive until the process ends; the
// module documentation says which threads touch it, and when.
unsafe impl Send for FunctionStream {}

impl FunctionStream {
    /// Runs the buffered events through the forest and empties the buffer.
    fn flush(&mut self) {
        if self.buffer.is_null() {
            return;
        }
        // SAFETY: the buffer has BUFFER_WORDS words, and the program is not writing to it (see
        // the module documentation); the count never exceeds the capacity + 1 (the generated
        // code flushes as soon as it reaches the capacity), `min` guards it anyway.
        let words = unsafe {
            let used = (*self.buffer).min(BUFFER_WORDS - 1) as usize;
            std::slice::from_raw_parts(self.buffer.add(1), used)
        };
        // A local cursor, which the compiler keeps in registers.
        let mut current = self.current;
        let mut words = words.iter();
        while let Some(&word) = words.next() {
            if word != MARKER {
                self.forest.process_bl_path_id(&mut current, word);
                continue;
            }
            match words.next().copied() {
                Some(ENTER) => {
                    self.interrupted.push(current);
                    current = Cursor::ROUTINE_ENTRY;
                }
                Some(LEAVE) => current = self.interrupted.pop().unwrap_or_default(),
                _ => {}
            }
        }
        self.current = current;
        // SAFETY: as above.
        unsafe { *self.buffer = 0 };
    }
}

static STATE: Mutex<Vec<FunctionStream>> = Mutex::new(Vec::new());

/// Prepares one forest per instrumented function of `spec` (counter table `i` is function `i`).
pub fn install(spec: &ProfileSpec) {
    let k = spec.k.clamp(1, u32::MAX as usize);
    *STATE.lock().unwrap_or_else(PoisonError::into_inner) = spec
        .functions
        .iter()
        .map(|function| FunctionStream {
            forest: KSlabForest::new(k, function.num_paths),
            buffer: std::ptr::null_mut(),
            current: Cursor::ROUTINE_ENTRY,
            interrupted: Vec::new(),
        })
        .collect();
}

/// Registers `buffer` (a zeroed data object of [`BUFFER_WORDS`] words, alive until the process
/// ends) as the stream buffer of the function of counter table `table`.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_kbl_buffer(table: i64, buffer: *mut u64) {
    if let Some(stream) = STATE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_mut(table as usize)
    {
        stream.buffer = buffer;
    }
}

/// The stream buffer of table `table` is full: processes it.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_kbl_flush(table: i64) {
    if let Some(stream) = STATE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get_mut(table as usize)
    {
        stream.flush();
    }
}

/// Flushes every buffer and gives each function of `profile` (named as in `spec`) its k-IPF.
pub fn add_k_ipfs(spec: &ProfileSpec, profile: &mut Profile) {
    let mut streams = STATE.lock().unwrap_or_else(PoisonError::into_inner);
    for (function, stream) in spec.functions.iter().zip(streams.iter_mut()) {
        stream.flush();
        let kipf: Vec<KipfNode> = stream.forest.make_k_ipf();
        if let Some(record) = profile
            .functions
            .iter_mut()
            .find(|f| f.name == function.name)
        {
            record.kipf = Some(kipf);
        }
    }
}
