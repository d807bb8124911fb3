//! The program's stdout: a large buffer, because programs print in loops and a write per `print` would
//! dominate their run time. Flushed when full, at the end of the program, at `exit()`, before a runtime error
//! report, and before blocking on stdin (so prompts show). When stdout is a terminal, also at every newline,
//! like C's line-buffered stdout, so an interactive program's output appears as it is made.

use std::io::{self, IsTerminal, Write};
use std::sync::{Mutex, PoisonError};

use crate::errors::{RuntimeError, raise};
use crate::format::{self, Sink};
use crate::{program, value};

/// Buffer size: large enough that writes are rare, small enough to stay in cache.
const CAPACITY: usize = 64 << 10;

struct Stdout {
    buf: Vec<u8>,
    /// Flush at every newline (stdout is a terminal); decided at the first print.
    line_buffered: Option<bool>,
    /// A write failed: output is discarded from then on, and the first caller to see `error` reports it.
    broken: bool,
    error: Option<io::Error>,
}

static STDOUT: Mutex<Stdout> = Mutex::new(Stdout {
    buf: Vec::new(),
    line_buffered: None,
    broken: false,
    error: None,
});

impl Stdout {
    /// Writes `bytes` to stdout now; records the first failure and discards output after it.
    fn write_through(&mut self, bytes: &[u8]) {
        if self.broken || bytes.is_empty() {
            return;
        }
        let mut stdout = io::stdout().lock();
        if let Err(error) = stdout.write_all(bytes).and_then(|()| stdout.flush()) {
            self.broken = true;
            self.error = Some(error);
        }
    }

    fn flush(&mut self) {
        let mut buf = std::mem::take(&mut self.buf);
        self.write_through(&buf);
        buf.clear();
        self.buf = buf;
    }
}

impl Sink for Stdout {
    fn put(&mut self, bytes: &[u8]) {
        if self.buf.len() + bytes.len() > CAPACITY {
            self.flush();
        }
        if bytes.len() >= CAPACITY {
            // A big string: written directly rather than copied through the buffer.
            self.write_through(bytes);
        } else {
            if self.buf.capacity() == 0 {
                self.buf.reserve_exact(CAPACITY);
            }
            self.buf.extend_from_slice(bytes);
        }
    }
}

/// Runs `write` on the stdout buffer, then reports a write error if one happened (outside the lock, since
/// reporting flushes).
fn with_stdout(write: impl FnOnce(&mut Stdout)) {
    let error = {
        let mut stdout = STDOUT.lock().unwrap_or_else(PoisonError::into_inner);
        write(&mut stdout);
        stdout.error.take()
    };
    if let Some(error) = error {
        raise(RuntimeError::StdoutFailed(error.to_string()), None);
    }
}

/// Writes the buffered output.
pub fn flush() {
    with_stdout(Stdout::flush);
}

/// Prints `bytes` as they are (the reference interpreter's output; compiled code prints through
/// the `pcc_print_*` functions).
pub fn print_bytes(bytes: &[u8]) {
    with_stdout(|out| out.put(bytes));
}

#[unsafe(no_mangle)]
pub extern "C" fn pcc_print_int(v: i64) {
    with_stdout(|out| format::put_int(out, v));
}

#[unsafe(no_mangle)]
pub extern "C" fn pcc_print_float(v: f64) {
    with_stdout(|out| format::put_float(out, v));
}

/// Takes the bool as `i8` (0 or 1), not Rust `bool`, so that a stray value cannot be undefined behaviour.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_print_bool(v: i8) {
    with_stdout(|out| format::put_bool(out, value::bool_arg(v)));
}

/// # Safety
/// `s` must point to a PL string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_print_str(s: *const u8) {
    // SAFETY: `s` is a PL string (caller's contract).
    let bytes = unsafe { value::str_bytes(s) };
    with_stdout(|out| out.put(bytes));
}

/// Prints a value of any type (used for arrays, structs and null); `type_id` indexes `ProgramInfo::types`.
///
/// # Safety
/// `value` must be a valid value of type `types[type_id]`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_print_value(value: *const u8, type_id: i64) {
    let info = program::info();
    let ty = &info.types[type_id as usize];
    // SAFETY: `value` has type `ty` (caller's contract).
    with_stdout(|out| unsafe { format::put_value(out, &info, ty, value as u64, false) });
}

#[unsafe(no_mangle)]
pub extern "C" fn pcc_print_space() {
    with_stdout(|out| out.put(b" "));
}

#[unsafe(no_mangle)]
pub extern "C" fn pcc_print_newline() {
    with_stdout(|out| {
        out.put(b"\n");
        if *out
            .line_buffered
            .get_or_insert_with(|| io::stdout().is_terminal())
        {
            out.flush();
        }
    });
}
