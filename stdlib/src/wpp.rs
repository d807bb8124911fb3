//! The runtime of `--profile=wpp` (Larus, *Whole Program Paths*, 002 §2–3).
//!
//! The instrumented program reports `EnterRoutine(f)` (`pcc_wpp_enter`), `NewPath(p)`
//! (`pcc_wpp_path`) and `LeaveRoutine()` (`pcc_wpp_leave`). Each executed (routine, path) pair
//! becomes a terminal symbol the first time it is seen (§3.3), and the symbols go, in chunks, to
//! a background thread that builds the SEQUITUR(1) grammar while the program runs (§1.1: "compression
//! can run concurrently"), so only the grammar is ever kept. At exit the grammar and the symbol
//! table become the profile (`pcc_profiler::wpp::wpp_profile`).
//!
//! Testing: with `PCC_WPP_RAW_TRACE=FILE` in the environment, the uncompressed trace is also kept
//! and written to `FILE` at exit, one `FUNCTION PATH` line per path, the format of
//! `pcc wpp expand`, so that tests can check that the grammar loses nothing.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Mutex, PoisonError};
use std::thread::JoinHandle;

use pcc_profiler::profile::Profile;
use pcc_profiler::spec::ProfileSpec;
use pcc_profiler::wpp::{PathSymbols, Sequitur, wpp_profile};

/// Symbols per chunk handed to the grammar builder.
const CHUNK: usize = 1 << 16;
/// Chunks in flight at most: when the builder falls behind, the program waits for it (a bounded
/// buffer of 8 MiB rather than an unbounded trace in memory).
const CHUNKS_IN_FLIGHT: usize = 32;
/// The environment variable that asks for the raw trace (testing).
const RAW_TRACE: &str = "PCC_WPP_RAW_TRACE";

struct Recorder {
    symbols: PathSymbols,
    chunk: Vec<u32>,
    to_builder: SyncSender<Vec<u32>>,
    builder: JoinHandle<Sequitur>,
    /// Testing: every symbol, when `PCC_WPP_RAW_TRACE` is set.
    raw: Option<Vec<u32>>,
}

static WPP: Mutex<Option<Recorder>> = Mutex::new(None);

/// Starts the grammar builder; called when an instrumented program starts.
pub(crate) fn start() {
    let (to_builder, chunks) = sync_channel(CHUNKS_IN_FLIGHT);
    let builder = std::thread::Builder::new()
        .name("pcc-wpp".into())
        .spawn(move || build(chunks));
    let builder = match builder {
        Ok(builder) => builder,
        Err(error) => {
            eprintln!("pcc: error: cannot start the wpp grammar builder: {error}");
            return;
        }
    };
    *WPP.lock().unwrap_or_else(PoisonError::into_inner) = Some(Recorder {
        symbols: PathSymbols::new(),
        chunk: Vec::with_capacity(CHUNK),
        to_builder,
        builder,
        raw: std::env::var_os(RAW_TRACE).map(|_| Vec::new()),
    });
}

/// The background thread: SEQUITUR(1) over the chunks, until the program ends.
fn build(chunks: Receiver<Vec<u32>>) -> Sequitur {
    let mut grammar = Sequitur::new();
    for chunk in chunks {
        grammar.extend(chunk);
    }
    grammar
}

/// `EnterRoutine(f)`: an activation of the function of counter table `table` starts.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_wpp_enter(table: i64) {
    if let Some(r) = WPP.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
        r.symbols.enter_routine(table as u32);
    }
}

/// `NewPath(p)`: the current activation ran path `id` (of its function's numbering with paths
/// cut before calls).
#[unsafe(no_mangle)]
pub extern "C" fn pcc_wpp_path(id: i64) {
    let mut state = WPP.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(r) = state.as_mut() else {
        return;
    };
    let symbol = r.symbols.new_path(id as u64);
    r.chunk.push(symbol);
    if let Some(raw) = r.raw.as_mut() {
        raw.push(symbol);
    }
    if r.chunk.len() == CHUNK {
        let full = std::mem::replace(&mut r.chunk, Vec::with_capacity(CHUNK));
        // The builder only stops when the sender is dropped; if it died, `finish` says so.
        let _ = r.to_builder.send(full);
    }
}

/// `LeaveRoutine()`: the current activation returns.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_wpp_leave() {
    if let Some(r) = WPP.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
        r.symbols.leave_routine();
    }
}

/// Ends the trace and builds the profile of the run, with the problems found on the way.
pub(crate) fn finish(spec: &ProfileSpec, args: Vec<String>) -> (Profile, Vec<String>) {
    let Some(r) = WPP.lock().unwrap_or_else(PoisonError::into_inner).take() else {
        let problem = "the wpp trace was not recorded".to_string();
        return (
            Profile::new(spec.mode, spec.program.clone(), args),
            vec![problem],
        );
    };
    let _ = r.to_builder.send(r.chunk);
    drop(r.to_builder);
    let grammar = match r.builder.join() {
        Ok(builder) => builder.finish(),
        Err(_) => {
            let problem = "the wpp grammar builder failed".to_string();
            return (
                Profile::new(spec.mode, spec.program.clone(), args),
                vec![problem],
            );
        }
    };
    let trace = r.symbols.trace(grammar);
    let (profile, mut problems) = wpp_profile(spec, args, &trace);
    if let (Some(raw), Some(path)) = (r.raw, std::env::var_os(RAW_TRACE)) {
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
