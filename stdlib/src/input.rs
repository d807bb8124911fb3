//! Reading stdin: `read_line()`, `eof()`, `read_int()`, over one buffer.
//!
//! Before blocking on stdin (the buffer is empty and must be refilled) the stdout buffer is flushed, so a
//! prompt printed without a newline shows; a program that reads a large input while printing does not pay a
//! flush per read. A read error counts as the end of the input.

use std::io::{self, BufRead, BufReader, ErrorKind, Read, Stdin};
use std::sync::{LazyLock, Mutex, PoisonError};

use crate::errors::{RuntimeError, raise, text_of};
use crate::{output, value};

const CAPACITY: usize = 64 << 10;

/// A buffered input; generic so tests can read from byte slices.
pub struct Input<R> {
    reader: BufReader<R>,
    /// Whitespace `eof()` took out of the reader to look past it (a run of blanks longer than the
    /// buffer), still unread by the program: read before the reader's buffer.
    peeked: Vec<u8>,
    /// How much of `peeked` was read.
    peeked_read: usize,
}

impl<R: Read> Input<R> {
    pub fn new(source: R) -> Self {
        Self {
            reader: BufReader::with_capacity(CAPACITY, source),
            peeked: Vec::new(),
            peeked_read: 0,
        }
    }

    /// The unread bytes at hand, refilled when none are; empty at the end of the input.
    fn fill(&mut self) -> &[u8] {
        if self.peeked_read < self.peeked.len() {
            return &self.peeked[self.peeked_read..];
        }
        refill(&mut self.reader)
    }

    /// Marks `n` bytes of what [`Self::fill`] returned as read.
    fn consume(&mut self, n: usize) {
        if self.peeked_read < self.peeked.len() {
            self.peeked_read += n;
            if self.peeked_read == self.peeked.len() {
                self.peeked.clear();
                self.peeked_read = 0;
            }
        } else {
            self.reader.consume(n);
        }
    }

    /// `eof()`: true when nothing but whitespace is left, so `while !eof() { read_int() }` ends on a file
    /// whose last line ends in a newline. Reads nothing: whitespace it had to look past is kept for the
    /// program's next read (a `read_line` loop still sees every line that has text, and blank lines
    /// before them).
    pub fn at_eof(&mut self) -> bool {
        if self.fill().iter().any(|b| !b.is_ascii_whitespace()) {
            return false;
        }
        // Everything at hand is whitespace: set it aside and look at what follows.
        loop {
            let buf = refill(&mut self.reader);
            if buf.is_empty() {
                return true;
            }
            if buf.iter().any(|b| !b.is_ascii_whitespace()) {
                return false;
            }
            let len = buf.len();
            self.peeked.extend_from_slice(buf);
            self.reader.consume(len);
        }
    }

    /// `read_line()`: the next line without its `\n` and without a `\r` before it; `""` at the end of input.
    /// A last line without `\n` is returned whole.
    pub fn read_line(&mut self) -> Vec<u8> {
        let mut line = Vec::new();
        loop {
            let buf = self.fill();
            if buf.is_empty() {
                break;
            }
            match buf.iter().position(|&b| b == b'\n') {
                Some(end) => {
                    line.extend_from_slice(&buf[..end]);
                    self.consume(end + 1);
                    break;
                }
                None => {
                    let len = buf.len();
                    line.extend_from_slice(buf);
                    self.consume(len);
                }
            }
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        line
    }

    /// `read_int()`: skips ASCII whitespace, then reads one whitespace-delimited token as a decimal `i64`
    /// with an optional sign. The whitespace after the token is left in the input (so a following
    /// `read_line` returns the rest of the token's line).
    pub fn read_int(&mut self) -> Result<i64, RuntimeError> {
        loop {
            let buf = self.fill();
            if buf.is_empty() {
                return Err(RuntimeError::ReadIntNoInput);
            }
            let blanks = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
            let found = blanks < buf.len();
            self.consume(blanks);
            if found {
                break;
            }
        }
        let mut token = Vec::new();
        loop {
            let buf = self.fill();
            let len = buf.iter().take_while(|b| !b.is_ascii_whitespace()).count();
            token.extend_from_slice(&buf[..len]);
            let complete = len < buf.len() || buf.is_empty();
            self.consume(len);
            if complete {
                break;
            }
        }
        std::str::from_utf8(&token)
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| RuntimeError::ReadIntInvalid(text_of(&token)))
    }
}

/// The reader's buffered bytes, refilled when empty; empty at the end of the input.
fn refill<R: Read>(reader: &mut BufReader<R>) -> &[u8] {
    if reader.buffer().is_empty() {
        output::flush();
    }
    loop {
        match reader.fill_buf() {
            Ok(_) => return reader.buffer(),
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(_) => return &[],
        }
    }
}

static STDIN: LazyLock<Mutex<Input<Stdin>>> = LazyLock::new(|| Mutex::new(Input::new(io::stdin())));

fn with_stdin<T>(read: impl FnOnce(&mut Input<Stdin>) -> T) -> T {
    read(&mut STDIN.lock().unwrap_or_else(PoisonError::into_inner))
}

crate::gc::stack::entry_points! {
    fn pcc_read_line() -> *const u8 => read_line;
}

extern "C" fn read_line() -> *const u8 {
    let line = with_stdin(Input::read_line);
    value::new_str(&line).unwrap_or_else(|| raise(RuntimeError::OutOfMemory, None))
}

/// Returns `i8` 0 or 1.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_eof() -> i8 {
    with_stdin(Input::at_eof) as i8
}

#[unsafe(no_mangle)]
pub extern "C" fn pcc_read_int(loc: i64) -> i64 {
    with_stdin(Input::read_int).unwrap_or_else(|error| raise(error, Some(loc)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Delivers its bytes a few at a time, to exercise lines and tokens split across refills.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.0.len()).min(3);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn lines(text: &[u8]) -> Vec<String> {
        let mut input = Input::new(Trickle(text));
        let mut lines = Vec::new();
        while !input.at_eof() {
            lines.push(String::from_utf8(input.read_line()).unwrap());
        }
        assert_eq!(input.read_line(), b"", "read_line at end of input");
        lines
    }

    #[test]
    fn read_line_strips_newline_and_carriage_return() {
        assert_eq!(lines(b"one\ntwo\r\n\nlast"), ["one", "two", "", "last"]);
        assert_eq!(
            lines(b"a long line that spans refills\n"),
            ["a long line that spans refills"]
        );
        assert_eq!(lines(b"a\rb\n"), ["a\rb"]);
        assert_eq!(lines(b""), Vec::<String>::new());
        // Trailing blank lines are past `eof()`.
        assert_eq!(lines(b"\n"), Vec::<String>::new());
        assert_eq!(lines(b"a\n\n\n"), ["a"]);
    }

    #[test]
    fn eof_peeks() {
        let mut input = Input::new(&b"x\n"[..]);
        assert!(!input.at_eof());
        assert!(!input.at_eof());
        assert_eq!(input.read_line(), b"x");
        assert!(input.at_eof());
    }

    /// Only whitespace left is the end of the input, also when the whitespace spans refills; the
    /// whitespace `eof()` looked past is still there for the next read.
    #[test]
    fn eof_looks_past_whitespace() {
        let mut input = Input::new(Trickle(b"7  \n \t\n"));
        assert!(!input.at_eof());
        assert_eq!(input.read_int(), Ok(7));
        assert!(input.at_eof());
        assert_eq!(input.read_line(), b"  ");
        assert_eq!(input.read_line(), b" \t");
        assert!(input.at_eof());
        let mut input = Input::new(Trickle(b"a\n\n    \n\nb  \n\n"));
        assert!(!input.at_eof());
        assert_eq!(input.read_line(), b"a");
        assert!(!input.at_eof(), "text after blank lines");
        assert_eq!(input.read_line(), b"");
        assert_eq!(input.read_line(), b"    ");
        assert_eq!(input.read_line(), b"");
        assert!(!input.at_eof());
        assert_eq!(input.read_line(), b"b  ");
        assert!(input.at_eof(), "trailing blank lines");
        assert_eq!(input.read_int(), Err(RuntimeError::ReadIntNoInput));
    }

    #[test]
    fn read_int_reads_whitespace_separated_integers() {
        let mut input = Input::new(Trickle(b"  12 -345\n\t+6\r\n  9223372036854775807"));
        assert_eq!(input.read_int(), Ok(12));
        assert_eq!(input.read_int(), Ok(-345));
        assert_eq!(input.read_int(), Ok(6));
        assert_eq!(input.read_int(), Ok(i64::MAX));
        assert_eq!(input.read_int(), Err(RuntimeError::ReadIntNoInput));
    }

    #[test]
    fn read_int_leaves_rest_of_line() {
        let mut input = Input::new(&b"5 apples\nnext\n"[..]);
        assert_eq!(input.read_int(), Ok(5));
        assert_eq!(input.read_line(), b" apples");
        assert_eq!(input.read_line(), b"next");
    }

    #[test]
    fn read_int_errors() {
        assert_eq!(
            Input::new(&b"  \n "[..]).read_int(),
            Err(RuntimeError::ReadIntNoInput)
        );
        assert_eq!(
            Input::new(&b"12x 3"[..]).read_int(),
            Err(RuntimeError::ReadIntInvalid("12x".into()))
        );
        assert_eq!(
            Input::new(Trickle(b" x"))
                .read_int()
                .unwrap_err()
                .to_string(),
            r#"read_int: the next input is "x", not an integer"#
        );
        assert_eq!(
            Input::new(&b"99999999999999999999"[..]).read_int(),
            Err(RuntimeError::ReadIntInvalid("99999999999999999999".into()))
        );
    }

    /// A long token is consumed whole but quoted in part.
    #[test]
    fn read_int_quotes_a_long_token_in_part() {
        let mut text = vec![b'9'; 1 << 20];
        text.extend_from_slice(b"x 5");
        let mut input = Input::new(&text[..]);
        let error = input.read_int().unwrap_err().to_string();
        let quoted = format!("{}…", "9".repeat(crate::errors::QUOTED_BYTES));
        assert_eq!(
            error,
            format!("read_int: the next input is {quoted:?}, not an integer")
        );
        assert_eq!(input.read_int(), Ok(5));
    }
}
