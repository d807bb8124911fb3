//! The runtime of `--profile=wpp` (Larus, *Whole Program Paths*, [WPP] §2–3).
//!
//! The instrumented program appends its events, `EnterRoutine(f)`, `NewPath(p)` and
//! `LeaveRoutine()`, inline to one stream buffer for the whole program ([`crate::stream`]); when
//! the buffer is full, it calls [`pcc_wpp_flush`], which copies the events into a chunk for a
//! background thread and empties the buffer, so the program's thread only appends (a chunk
//! gathers many buffers, so that the threads meet rarely). The background thread makes each
//! executed (routine, path) pair a terminal symbol the first time it is seen (§3.3) and builds a
//! grammar of the symbols while the program runs (§1.1: "compression can run concurrently"), so
//! only the grammar is ever kept: SEQUITUR(1) over the trace a repeated block of paths at a time
//! (`pcc_profiler::wpp::BlockSequitur`, a documented departure from §3 that keeps up with loops),
//! with a shortcut for blocks whose stream words were seen before ([`builder`]). At exit the
//! grammar and the symbol table become the profile (`pcc_profiler::mode::wpp::decode`). Runs of
//! one path are run-length coded on the way to the chunk ([`repeats`]), so that a loop repeating
//! one path costs the builder one event per run.
//!
//! Threads: the buffer is written by the program's thread; it is read only by [`pcc_wpp_flush`]
//! on that thread, and by the exit hook once the program's thread has stopped running generated
//! code (as for `kbl`, see `crate::kbl`).
//!
//! Testing: with `PCC_WPP_RAW_TRACE=FILE` in the environment, the uncompressed trace is also kept
//! and written to `FILE` at exit, one `FUNCTION PATH` line per path, the format of
//! `pcc wpp expand`, so that tests can check that the grammar loses nothing.

mod builder;
mod repeats;

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Mutex, PoisonError};
use std::thread::JoinHandle;

use crate::stream;
use builder::Builder;
use pcc_profiler::mode;
use pcc_profiler::profile::Profile;
use pcc_profiler::spec::ProfileSpec;

/// Words a chunk gathers before it goes to the builder: 64 KiB, four stream buffers. Larger
/// chunks fall out of the caches between the copy and the builder's read (512 KiB ones made
/// the copy a quarter of the program thread's time).
const CHUNK_WORDS: usize = 1 << 13;
/// Chunks in flight at most: when the builder falls behind, the program waits for it (a bounded
/// buffer of about 10 MiB rather than an unbounded trace in memory).
const CHUNKS_IN_FLIGHT: usize = 128;
/// The environment variable that asks for the raw trace (testing).
const RAW_TRACE: &str = "PCC_WPP_RAW_TRACE";

struct Recorder {
    /// The program's stream buffer (null until the program registers it).
    buffer: *mut u64,
    /// The chunk being gathered.
    chunk: Vec<u64>,
    to_builder: SyncSender<Vec<u64>>,
    /// Chunks the builder is done with, to be filled again (no allocation per chunk).
    spare: Receiver<Vec<u64>>,
    builder: JoinHandle<Builder>,
}

// SAFETY: `buffer` points to a data object of the program, alive until the process ends; the
// module documentation says which threads touch it, and when.
unsafe impl Send for Recorder {}

impl Recorder {
    /// Moves the buffered events to the chunk, and the chunk to the builder once it is full
    /// (or `whole`: the trace ends).
    fn flush(&mut self, whole: bool) {
        // SAFETY: see the module documentation.
        unsafe {
            stream::drain(self.buffer, |words| {
                repeats::compress(words, &mut self.chunk)
            })
        };
        if self.chunk.len() >= CHUNK_WORDS || whole {
            let mut next = self.spare.try_recv().unwrap_or_default();
            next.clear();
            next.reserve(CHUNK_WORDS + stream::BUFFER_WORDS as usize);
            // The builder only stops when the sender is dropped; if it died, `finish` says so.
            let _ = self
                .to_builder
                .send(std::mem::replace(&mut self.chunk, next));
        }
    }
}

static WPP: Mutex<Option<Recorder>> = Mutex::new(None);

/// Starts the grammar builder; called when an instrumented program starts.
pub(crate) fn start() {
    let (to_builder, chunks) = sync_channel(CHUNKS_IN_FLIGHT);
    let (to_recorder, spare) = sync_channel(CHUNKS_IN_FLIGHT);
    let raw = std::env::var_os(RAW_TRACE).is_some();
    let builder = std::thread::Builder::new()
        .name("pcc-wpp".into())
        .spawn(move || build(chunks, to_recorder, raw));
    let builder = match builder {
        Ok(builder) => builder,
        Err(error) => {
            eprintln!("pcc: error: cannot start the wpp grammar builder: {error}");
            return;
        }
    };
    *WPP.lock().unwrap_or_else(PoisonError::into_inner) = Some(Recorder {
        buffer: std::ptr::null_mut(),
        chunk: Vec::new(),
        to_builder,
        spare,
        builder,
    });
}

/// The background thread: symbols and SEQUITUR(1) over the chunks, until the program ends;
/// each chunk goes back to the recorder once consumed.
fn build(chunks: Receiver<Vec<u64>>, spare: SyncSender<Vec<u64>>, raw: bool) -> Builder {
    let mut builder = Builder::new(raw);
    for chunk in chunks {
        builder.consume(&chunk);
        let _ = spare.try_send(chunk);
    }
    builder
}

/// Registers `buffer` (a zeroed data object of [`stream::BUFFER_WORDS`] words, alive until the
/// process ends) as the program's stream buffer; `table` is unused (one buffer for all
/// functions), the signature is `pcc_kbl_buffer`'s.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_wpp_buffer(_table: i64, buffer: *mut u64) {
    crate::interrupt::section(|| {
        if let Some(r) = WPP.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
            r.buffer = buffer;
        }
    })
}

/// The stream buffer is full: hands its events to the grammar builder. `table` is unused, the
/// signature is `pcc_kbl_flush`'s.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_wpp_flush(_table: i64) {
    crate::interrupt::section(|| {
        if let Some(r) = WPP.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
            r.flush(false);
        }
    })
}

/// Ends the trace and builds the profile of the run, with the problems found on the way.
pub(crate) fn finish(spec: &ProfileSpec, args: Vec<String>) -> (Profile, Vec<String>) {
    let Some(mut r) = WPP.lock().unwrap_or_else(PoisonError::into_inner).take() else {
        let problem = "the wpp trace was not recorded".to_string();
        return (spec.new_profile(args), vec![problem]);
    };
    r.flush(true);
    drop(r.to_builder);
    let b = match r.builder.join() {
        Ok(b) => b,
        Err(_) => {
            let problem = "the wpp grammar builder failed".to_string();
            return (spec.new_profile(args), vec![problem]);
        }
    };
    let (trace, raw) = b.finish();
    let (profile, mut problems) = mode::wpp::decode(spec, args, &trace);
    if let (Some(raw), Some(path)) = (raw, std::env::var_os(RAW_TRACE)) {
        let name = |f: u32| spec.functions.get(f as usize).map_or("?", |f| &f.name);
        let text: String = raw
            .iter()
            .map(|&t| {
                let k = trace.symbols[t as usize];
                format!("{} {}\n", name(k.function), k.path)
            })
            .collect();
        if let Err(error) = std::fs::write(&path, text) {
            problems.push(format!("cannot write the raw trace: {error}"));
        }
    }
    (profile, problems)
}
