//! The block trace of `pcc run --trace-blocks PATH`, a testing facility (docs/TESTING.md): every
//! function entry, MIR block entry and function exit of the run, in order, written to `PATH` as
//! JSON at every kind of exit. The profiling tests rebuild each activation's acyclic paths from it,
//! independently of the counters the instrumentation keeps, and compare them with the profile.
//!
//! The file: `{"format": "pcc-block-trace", "version": 1, "functions": [...], "events": [...]}`,
//! `events` last. `functions` names the MIR function ids. `events` is flat, one integer per
//! event, for size (a deeply recursive program makes millions):
//! - `-2 - f`: an activation of function `f` starts;
//! - `b >= 0`: the innermost unfinished activation enters its block `b` (the MIR's as lowered);
//! - `-1`: the innermost unfinished activation ends, at a `return` or at `exit()`.
//!
//! Activations still unfinished at the end were cut short by `exit()` in a callee or by an error.

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

/// The event that ends the innermost unfinished activation.
pub const LEAVE: i64 = -1;

/// The event that starts an activation of function `function`.
pub fn enter(function: i64) -> i64 {
    -2 - function
}

static EVENTS: Mutex<Vec<i64>> = Mutex::new(Vec::new());

/// Records one event: `kind` 0 = `function` starts, 1 = it enters `block`, 2 = it ends.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_trace_event(kind: i64, function: i64, block: i64) {
    crate::interrupt::section(|| {
        let event = match kind {
            0 => enter(function),
            1 => block,
            _ => LEAVE,
        };
        EVENTS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event);
    })
}

/// Arranges for the trace to be written to `path` at every kind of exit; `functions` names the
/// function ids of the events.
pub fn install_block_trace(path: PathBuf, functions: Vec<String>) {
    crate::register_exit_hook(Box::new(move || {
        // On a thread of its own, like the profile: a runtime error may have left little stack.
        let writer = std::thread::Builder::new()
            .name("pcc-trace".into())
            .stack_size(16 << 20)
            .spawn(move || write_trace(&path, functions));
        match writer.map(|thread| thread.join()) {
            Ok(Ok(Ok(()))) => return true,
            Ok(Ok(Err(error))) => eprintln!("pcc: error: cannot write the block trace: {error}"),
            _ => eprintln!("pcc: error: the block trace could not be written"),
        }
        false
    }));
}

fn write_trace(path: &std::path::Path, functions: Vec<String>) -> std::io::Result<()> {
    let events = std::mem::take(&mut *EVENTS.lock().unwrap_or_else(PoisonError::into_inner));
    let header = serde_json::json!({
        "format": "pcc-block-trace",
        "version": 1,
        "functions": functions,
    })
    .to_string();
    // The events by hand: millions of them, and this code is often a debug build.
    let mut text = Vec::with_capacity(header.len() + 16 + events.len() * 8);
    text.extend_from_slice(&header.as_bytes()[..header.len() - 1]);
    text.extend_from_slice(b",\"events\":[");
    for (i, &event) in events.iter().enumerate() {
        if i > 0 {
            text.push(b',');
        }
        if event < 0 {
            text.push(b'-');
        }
        let mut digits = [0u8; 20];
        let mut n = event.unsigned_abs();
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        text.extend_from_slice(&digits[at..]);
    }
    text.extend_from_slice(b"]}\n");
    let mut file = std::fs::File::create(path)?;
    file.write_all(&text)?;
    file.flush()
}
