//! Runtime errors: their messages (CONVENTIONS.md), the report on stderr, and the `pcc_err_*` entry points
//! the generated code calls for checks it makes inline.
//!
//! A report is
//! ```text
//! runtime error: index 10 out of bounds for length 10
//!   --> prog.pl:12:9 in function `fill`
//! ```
//! written after flushing stdout (so output written before the error stays in order), followed by the exit
//! hooks and exit status 101.

use std::io::Write;
use std::sync::atomic::{AtomicI64, Ordering};

use crate::program::{self, Location};
use crate::value;

/// Exit status after a runtime error.
pub const ERROR_EXIT_CODE: i32 = 101;

/// A runtime error; `Display` gives the message after `runtime error: `.
// `{0:?}` quotes the text and escapes control characters, so the message stays on one line.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RuntimeError {
    #[error("index {index} out of bounds for length {len}")]
    IndexOutOfBounds { index: i64, len: i64 },
    #[error("field access on null: `{struct_name}.{field}`")]
    NullFieldAccess { struct_name: String, field: String },
    #[error("division by zero")]
    DivisionByZero,
    #[error("remainder by zero")]
    RemainderByZero,
    #[error("negative array length {0}")]
    NegativeArrayLength(i64),
    #[error("assertion failed{}", assertion_message(.0.as_deref()))]
    AssertionFailed(Option<String>),
    #[error("invalid integer: {0:?}")]
    InvalidInteger(String),
    #[error("invalid float: {0:?}")]
    InvalidFloat(String),
    #[error("stack overflow (recursion too deep)")]
    StackOverflow,
    #[error("out of memory")]
    OutOfMemory,
    #[error("pop from an empty array")]
    PopFromEmpty,
    #[error("substr({start}, {n}) out of bounds for string of length {len}")]
    SubstrOutOfBounds { start: i64, n: i64, len: usize },
    #[error("chr({0}): argument must be in 0..=255")]
    ChrOutOfRange(i64),
    #[error("arg({index}): index out of range ({count} arguments)")]
    ArgOutOfRange { index: i64, count: usize },
    #[error("read_int: no integer left, only the end of input")]
    ReadIntNoInput,
    #[error("read_int: the next input is {0:?}, not an integer")]
    ReadIntInvalid(String),
    #[error("fixed(f, {0}): digits must be non-negative")]
    NegativeFixedDigits(i64),
    #[error("split: empty separator")]
    SplitEmptySeparator,
    #[error("find(s, sub, {from}): start out of bounds for string of length {len}")]
    FindOutOfBounds { from: i64, len: usize },
    #[error("replace: empty string to replace")]
    ReplaceEmptyPattern,
    /// Not a PL error but the runtime's: stdout could not be written (e.g. a closed pipe).
    #[error("cannot write to stdout: {0}")]
    StdoutFailed(String),
}

/// What follows `assertion failed` in its message: `: ` and the assertion's message, if any.
fn assertion_message(message: Option<&str>) -> String {
    message
        .map(|message| format!(": {message}"))
        .unwrap_or_default()
}

/// At most this many bytes of the input a message quotes (`parse_int`, `parse_float`, `read_int`).
pub const QUOTED_BYTES: usize = 64;

/// PL string bytes as text for a message quoting the input: their first [`QUOTED_BYTES`] (less
/// the start of a character cut there) followed by `…` if there are more, so that a 100 MB token
/// makes a one-line message. PL strings are bytes: invalid UTF-8 is replaced.
pub fn text_of(bytes: &[u8]) -> String {
    if bytes.len() <= QUOTED_BYTES {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut end = QUOTED_BYTES;
    // Back to the start of a UTF-8 character cut at the bound (at most 3 continuation bytes).
    while end > QUOTED_BYTES - 3 && bytes[end] & 0xc0 == 0x80 {
        end -= 1;
    }
    format!("{}…", String::from_utf8_lossy(&bytes[..end]))
}

/// The full report for `error` at `location` in `file`; no location line when the location is unknown
/// (errors raised where the ABI passes none, like out of memory reading a line of input).
pub fn report(error: &RuntimeError, location: Option<&Location>, file: &str) -> String {
    let mut text = format!("runtime error: {error}\n");
    if let Some(Location {
        line,
        col,
        function,
    }) = location
    {
        text += &format!("  --> {file}:{line}:{col} in function `{function}`\n");
    }
    text
}

/// Reports `error` at location id `loc` and ends the program with status 101.
pub fn raise(error: RuntimeError, loc: Option<i64>) -> ! {
    // Not stopped by a signal while holding stdout's or stderr's lock (`crate::interrupt`).
    crate::interrupt::section(|| {
        crate::output::flush();
        let info = program::info();
        let text = report(&error, loc.and_then(|id| info.location(id)), &info.file);
        // Nothing better to do if stderr is gone too.
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
        program::terminate(ERROR_EXIT_CODE)
    })
}

/// The operands of a failing check, stored by the generated code just before it calls one of
/// the functions below, which take none (each says what its operands are): in memory rather
/// than in argument registers, so that a cold call that never happens ties none of the hot
/// code's values (a loop counter, a length) to a fixed register. Same layout as three `i64`s.
#[allow(non_upper_case_globals)] // the symbol name is part of the ABI
#[unsafe(no_mangle)]
pub static pcc_error_operands: [AtomicI64; 3] = [const { AtomicI64::new(0) }; 3];

/// The first `N` of [`pcc_error_operands`].
fn operands<const N: usize>() -> [i64; N] {
    std::array::from_fn(|i| pcc_error_operands[i].load(Ordering::Relaxed))
}

/// `assert(c)` / `assert(c, msg)` failed. Operands: the message (a PL string, or null without
/// one), the location.
///
/// # Safety
/// The first operand must be null or point to a PL string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_assert_fail() -> ! {
    let [message, loc] = operands();
    let message = message as *const u8;
    // SAFETY: non-null `message` is a PL string (caller's contract). The program's own message
    // is shown whole.
    let message = (!message.is_null())
        .then(|| String::from_utf8_lossy(unsafe { value::str_bytes(message) }).into_owned());
    raise(RuntimeError::AssertionFailed(message), Some(loc))
}

/// An index check failed (arrays and `s[i]` on strings). Operands: the index, the length, the
/// location.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_err_index() -> ! {
    let [index, len, loc] = operands();
    raise(RuntimeError::IndexOutOfBounds { index, len }, Some(loc))
}

/// A field was accessed through null. Operands: the struct's id, the field's index, the
/// location.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_err_null() -> ! {
    let [struct_id, field, loc] = operands();
    let info = program::info();
    let decl = usize::try_from(struct_id)
        .ok()
        .and_then(|i| info.structs.get(i));
    let struct_name = decl.map_or_else(|| format!("struct#{struct_id}"), |s| s.name.clone());
    let field = decl
        .and_then(|s| s.fields.get(usize::try_from(field).ok()?))
        .map_or_else(|| format!("field#{field}"), |f| f.name.clone());
    raise(
        RuntimeError::NullFieldAccess { struct_name, field },
        Some(loc),
    )
}

/// Integer division by zero. Operand: the location.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_err_div_zero() -> ! {
    let [loc] = operands();
    raise(RuntimeError::DivisionByZero, Some(loc))
}

/// Integer remainder by zero. Operand: the location.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_err_rem_zero() -> ! {
    let [loc] = operands();
    raise(RuntimeError::RemainderByZero, Some(loc))
}

/// A function's prologue found the stack pointer below `pcc_stack_limit`. Operand: the
/// location of the function's name.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_err_stack_overflow() -> ! {
    let [loc] = operands();
    raise(RuntimeError::StackOverflow, Some(loc))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(error: RuntimeError) -> String {
        error.to_string()
    }

    #[test]
    fn messages_match_conventions() {
        use RuntimeError::*;
        assert_eq!(
            message(IndexOutOfBounds { index: 10, len: 10 }),
            "index 10 out of bounds for length 10"
        );
        assert_eq!(
            message(IndexOutOfBounds { index: -1, len: 0 }),
            "index -1 out of bounds for length 0"
        );
        assert_eq!(
            message(NullFieldAccess {
                struct_name: "Node".into(),
                field: "key".into()
            }),
            "field access on null: `Node.key`"
        );
        assert_eq!(message(DivisionByZero), "division by zero");
        assert_eq!(message(RemainderByZero), "remainder by zero");
        assert_eq!(message(NegativeArrayLength(-3)), "negative array length -3");
        assert_eq!(message(AssertionFailed(None)), "assertion failed");
        assert_eq!(
            message(AssertionFailed(Some("x > 0".into()))),
            "assertion failed: x > 0"
        );
        assert_eq!(
            message(InvalidInteger("abc".into())),
            r#"invalid integer: "abc""#
        );
        assert_eq!(
            message(InvalidInteger("a\"b\n".into())),
            r#"invalid integer: "a\"b\n""#
        );
        assert_eq!(
            message(InvalidFloat("abc".into())),
            r#"invalid float: "abc""#
        );
        assert_eq!(
            message(StackOverflow),
            "stack overflow (recursion too deep)"
        );
        assert_eq!(message(OutOfMemory), "out of memory");
        assert_eq!(
            message(SubstrOutOfBounds {
                start: 2,
                n: 5,
                len: 4
            }),
            "substr(2, 5) out of bounds for string of length 4"
        );
        assert_eq!(
            message(ChrOutOfRange(300)),
            "chr(300): argument must be in 0..=255"
        );
        assert_eq!(
            message(ArgOutOfRange { index: 3, count: 2 }),
            "arg(3): index out of range (2 arguments)"
        );
        assert_eq!(
            message(ReadIntNoInput),
            "read_int: no integer left, only the end of input"
        );
        assert_eq!(
            message(ReadIntInvalid("x".into())),
            r#"read_int: the next input is "x", not an integer"#
        );
        assert_eq!(
            message(NegativeFixedDigits(-1)),
            "fixed(f, -1): digits must be non-negative"
        );
    }

    #[test]
    fn report_names_file_line_column_and_function() {
        let location = Location {
            line: 12,
            col: 9,
            function: "fill".into(),
        };
        assert_eq!(
            report(
                &RuntimeError::IndexOutOfBounds { index: 10, len: 10 },
                Some(&location),
                "prog.pl"
            ),
            "runtime error: index 10 out of bounds for length 10\n  --> prog.pl:12:9 in function `fill`\n"
        );
        assert_eq!(
            report(&RuntimeError::OutOfMemory, None, "prog.pl"),
            "runtime error: out of memory\n"
        );
    }

    #[test]
    fn quoted_text_is_bounded() {
        let long = vec![b'7'; 100_000];
        assert_eq!(text_of(&long), format!("{}…", "7".repeat(QUOTED_BYTES)));
        assert_eq!(text_of(&long[..QUOTED_BYTES]), "7".repeat(QUOTED_BYTES));
        // A character cut at the bound is left out whole; invalid bytes stay replaced.
        let mut cut = vec![b'a'; QUOTED_BYTES - 1];
        cut.extend_from_slice("é and more".as_bytes());
        assert_eq!(text_of(&cut), format!("{}…", "a".repeat(QUOTED_BYTES - 1)));
        let invalid = vec![0xff; QUOTED_BYTES + 1];
        assert_eq!(
            text_of(&invalid),
            format!("{}…", "\u{fffd}".repeat(QUOTED_BYTES))
        );
        let message = RuntimeError::InvalidInteger(text_of(&long)).to_string();
        assert!(message.len() < 100, "{message}");
    }

    #[test]
    fn message_text_tolerates_invalid_utf8() {
        assert_eq!(text_of(b"ok\xff"), "ok\u{fffd}");
    }
}
