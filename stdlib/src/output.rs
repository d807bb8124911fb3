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

/// Runs `write` on the stdout buffer; the write error if one happened (a closed pipe).
fn try_with_stdout(write: impl FnOnce(&mut Stdout)) -> Result<(), RuntimeError> {
    let error = {
        let mut stdout = STDOUT.lock().unwrap_or_else(PoisonError::into_inner);
        write(&mut stdout);
        stdout.error.take()
    };
    match error {
        Some(error) => Err(RuntimeError::StdoutFailed(error.to_string())),
        None => Ok(()),
    }
}

/// Runs `write` on the stdout buffer, then reports a write error if one happened (outside the lock, since
/// reporting flushes) at location id `loc`: the `print` that found stdout closed, like any other runtime
/// error; none when the program has ended or waits for input.
fn with_stdout(loc: Option<i64>, write: impl FnOnce(&mut Stdout)) {
    if let Err(error) = try_with_stdout(write) {
        raise(error, loc);
    }
}

/// Writes the buffered output.
pub fn flush() {
    with_stdout(None, Stdout::flush);
}

/// Prints `bytes` as they are (the reference interpreter's output; compiled code prints through
/// [`pcc_print`]); the error if stdout cannot be written, which the interpreter reports at the `print`.
pub fn print_bytes(bytes: &[u8]) -> Result<(), RuntimeError> {
    try_with_stdout(|out| out.put(bytes))
}

/// Ends the line; flushes it when stdout is a terminal. As [`print_bytes`].
pub fn print_newline() -> Result<(), RuntimeError> {
    try_with_stdout(put_newline)
}

fn put_newline(out: &mut Stdout) {
    out.put(b"\n");
    if *out
        .line_buffered
        .get_or_insert_with(|| io::stdout().is_terminal())
    {
        out.flush();
    }
}

/// One value of a `print` or `println` call, as the generated code lays it out for [`pcc_print`]:
/// `kind` says how to read `bits`.
#[repr(C)]
pub struct PrintArg {
    pub kind: i64,
    pub bits: u64,
}

/// [`PrintArg::kind`] of an `int`.
pub const PRINT_INT: i64 = 0;
/// [`PrintArg::kind`] of a `float` (`bits` are its IEEE bits).
pub const PRINT_FLOAT: i64 = 1;
/// [`PrintArg::kind`] of a `bool` (`bits` 0 or 1).
pub const PRINT_BOOL: i64 = 2;
/// [`PrintArg::kind`] of a string (`bits` point to it).
pub const PRINT_STR: i64 = 3;
/// [`PrintArg::kind`] of an array, struct or null is this plus its type's index in
/// `ProgramInfo::types`.
pub const PRINT_VALUE: i64 = 4;

/// `print(args...)` (`newline` 0) or `println(args...)` (`newline` 1): the `count` values at
/// `args`, separated by spaces. One call per statement, so that the generated code keeps none
/// of the values live across calls while the line is printed.
///
/// # Safety
/// `args` must point to `count` arguments whose bits are values of the kinds they give. `loc` is the
/// location id of the `print` (reported if stdout cannot be written, e.g. a closed pipe).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_print(args: *const PrintArg, count: i64, newline: i8, loc: i64) {
    // SAFETY: `args` holds `count` arguments (caller's contract).
    let args = unsafe { std::slice::from_raw_parts(args, count as usize) };
    let info = args
        .iter()
        .any(|a| a.kind >= PRINT_VALUE)
        .then(program::info);
    with_stdout(Some(loc), |out| {
        for (i, arg) in args.iter().enumerate() {
            if i > 0 {
                out.put(b" ");
            }
            match arg.kind {
                PRINT_INT => format::put_int(out, arg.bits as i64),
                PRINT_FLOAT => format::put_float(out, f64::from_bits(arg.bits)),
                PRINT_BOOL => format::put_bool(out, value::bool_arg(arg.bits as i8)),
                // SAFETY: the bits are a PL string (caller's contract).
                PRINT_STR => out.put(unsafe { value::str_bytes(arg.bits as *const u8) }),
                kind => {
                    let info = info.as_ref().expect("looked up for values");
                    let ty = &info.types[(kind - PRINT_VALUE) as usize];
                    // SAFETY: the bits are a value of type `ty` (caller's contract).
                    unsafe { format::put_value(out, info, ty, arg.bits, false) }
                }
            }
        }
        if value::bool_arg(newline) {
            put_newline(out);
        }
    });
}
