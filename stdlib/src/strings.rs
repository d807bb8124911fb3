//! String builtins: concatenation, comparison, conversions to and from text, `fixed`, `chr`, `substr`.
//!
//! The text functions are plain Rust functions returning `Result<_, RuntimeError>`, unit-tested; the
//! `extern "C"` functions unwrap PL strings, call them, and raise errors with the call's location.

use crate::errors::{RuntimeError, raise, text_of};
use crate::format;
use crate::gc::{self, stack::entry_points};
use crate::value::{self, str_bytes};

/// A new PL string, or the `out of memory` error (at `loc` when the ABI passes one).
fn new_str_or_raise(bytes: &[u8], loc: Option<i64>) -> *const u8 {
    value::new_str(bytes).unwrap_or_else(|| raise(RuntimeError::OutOfMemory, loc))
}

/// `parse_int(s)`: a decimal `i64` with an optional sign; surrounding ASCII whitespace is ignored (so a line
/// read with its `\r` or spaces still parses).
pub fn parse_int(text: &[u8]) -> Result<i64, RuntimeError> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.trim_ascii().parse().ok())
        .ok_or_else(|| RuntimeError::InvalidInteger(text_of(text)))
}

/// `parse_float(s)`: Rust's `f64` syntax (`1`, `-2.5`, `1e9`, `.5`, `inf`, `NaN`, ...); surrounding ASCII
/// whitespace is ignored.
pub fn parse_float(text: &[u8]) -> Result<f64, RuntimeError> {
    std::str::from_utf8(text)
        .ok()
        .and_then(|s| s.trim_ascii().parse().ok())
        .ok_or_else(|| RuntimeError::InvalidFloat(text_of(text)))
}

/// `fixed(f, digits)`: `f` with `digits` digits after the point, rounded like C's `%.*f`.
pub fn fixed(f: f64, digits: i64) -> Result<String, RuntimeError> {
    // Rust's formatting rejects precisions above u16::MAX; past 1074 digits (the last fractional digit of the
    // smallest subnormal) every digit of an f64 is an exact 0, so format 1074 and pad.
    const EXACT_DIGITS: usize = 1074;
    let digits = usize::try_from(digits).map_err(|_| RuntimeError::NegativeFixedDigits(digits))?;
    let mut text = String::new();
    // Up to 309 integer digits, sign and point; reserved fallibly so huge `digits` is an error, not an abort.
    text.try_reserve(digits.saturating_add(320))
        .map_err(|_| RuntimeError::OutOfMemory)?;
    text += &format!("{:.*}", digits.min(EXACT_DIGITS), f);
    if digits > EXACT_DIGITS && f.is_finite() {
        text.extend(std::iter::repeat_n('0', digits - EXACT_DIGITS));
    }
    Ok(text)
}

/// `substr(s, start, n)`: the byte range `start..start + n` of a string of length `len`, if in bounds.
pub fn substr_range(
    len: usize,
    start: i64,
    n: i64,
) -> Result<std::ops::Range<usize>, RuntimeError> {
    let error = RuntimeError::SubstrOutOfBounds { start, n, len };
    let (Ok(begin), Ok(count)) = (usize::try_from(start), usize::try_from(n)) else {
        return Err(error);
    };
    match begin.checked_add(count) {
        Some(end) if end <= len => Ok(begin..end),
        _ => Err(error),
    }
}

/// The 256 one-byte strings of `chr`, built at compile time so `chr` never allocates: a static header, one
/// word of length, one word holding the byte first.
static CHR_STRINGS: [[u64; 3]; 256] = {
    let mut table = [[0; 3]; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = static_words(&[i as u8]);
        i += 1;
    }
    table
};

entry_points! {
    /// `a + b`.
    ///
    /// # Safety
    /// `a` and `b` must point to PL strings.
    fn pcc_str_concat(a: *const u8, b: *const u8, loc: i64) -> *const u8 => str_concat;
    /// `s = s + t` where the compiler proved the old `s` dead afterwards
    /// (`compiler/src/mir/appends.rs`): the result holds `s` followed by `t`, and is never `t`
    /// itself. It is a string with room to grow (twice its length), or `s` grown in place: when
    /// `in_place` is 1 the caller guarantees that nothing else references `s`'s object, and a
    /// string an earlier append made grows in place while it has room (as CPython grows a string
    /// whose only reference is the one being appended to).
    ///
    /// # Safety
    /// `s` and `t` must point to PL strings.
    fn pcc_str_append(s: *const u8, t: *const u8, in_place: i8, loc: i64) -> *const u8 => str_append;
    fn pcc_int_to_str(v: i64) -> *const u8 => int_to_str;
    fn pcc_float_to_str(v: f64) -> *const u8 => float_to_str;
    fn pcc_fixed(f: f64, digits: i64, loc: i64) -> *const u8 => fixed_str;
    /// # Safety
    /// `s` must point to a PL string.
    fn pcc_substr(s: *const u8, start: i64, n: i64, loc: i64) -> *const u8 => substr;
}

unsafe extern "C" fn str_concat(a: *const u8, b: *const u8, loc: i64) -> *const u8 {
    // SAFETY: `a` and `b` are PL strings (caller's contract).
    let (x, y) = unsafe { (str_bytes(a), str_bytes(b)) };
    // Strings are immutable and compared by content, so an empty side can share the other.
    if y.is_empty() {
        return a;
    }
    if x.is_empty() {
        return b;
    }
    // SAFETY: as above.
    unsafe { value::new_str_concat(a, b) }
        .unwrap_or_else(|| raise(RuntimeError::OutOfMemory, Some(loc)))
}

unsafe extern "C" fn str_append(s: *const u8, t: *const u8, in_place: i8, loc: i64) -> *const u8 {
    // SAFETY: `s` and `t` are PL strings (caller's contract), with headers.
    let (old, added, header) = unsafe { (str_bytes(s).len(), str_bytes(t).len(), gc::header(s)) };
    let in_place = value::bool_arg(in_place);
    let out_of_memory = || -> ! { raise(RuntimeError::OutOfMemory, Some(loc)) };
    let len = old.checked_add(added).unwrap_or_else(|| out_of_memory());
    // Only an appendable string is ever grown in place, so any other `s` may be the result.
    if added == 0 && (in_place || !header.is_appendable()) {
        return s;
    }
    if in_place && header.is_appendable() && value::HEADER + len <= header.capacity() {
        // SAFETY: `s` is this append chain's own string, with room for `len` bytes.
        unsafe {
            value::append_bytes(s.cast_mut(), old, t);
            s.cast_mut().cast::<i64>().write(len as i64);
        }
        return s;
    }
    let capacity = len.saturating_mul(2).max(MIN_APPENDABLE);
    let appendable = gc::Header::new(gc::Kind::Str).appendable();
    let grown = value::new_str_of(len, capacity, appendable, &[s, t])
        .or_else(|| value::new_str_of(len, len, appendable, &[s, t]))
        .unwrap_or_else(|| out_of_memory());
    // SAFETY: `grown` has room for both; `s` and `t` were kept alive.
    unsafe {
        value::append_bytes(grown, 0, s);
        value::append_bytes(grown, old, t);
    }
    grown
}

/// The fewest bytes an appendable string has room for.
const MIN_APPENDABLE: usize = 24;

/// Bytewise lexicographic comparison: -1, 0 or 1.
///
/// # Safety
/// `a` and `b` must point to PL strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_str_cmp(a: *const u8, b: *const u8) -> i64 {
    // SAFETY: `a` and `b` are PL strings (caller's contract).
    let (x, y) = unsafe { (str_bytes(a), str_bytes(b)) };
    x.cmp(y) as i64
}

/// Content equality, as `i8` 0 or 1.
///
/// # Safety
/// `a` and `b` must point to PL strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_str_eq(a: *const u8, b: *const u8) -> i8 {
    // SAFETY: `a` and `b` are PL strings (caller's contract).
    (a == b || unsafe { str_bytes(a) == str_bytes(b) }) as i8
}

extern "C" fn int_to_str(v: i64) -> *const u8 {
    new_str_or_raise(format::int_digits(v, &mut [0; 20]), None)
}

extern "C" fn float_to_str(v: f64) -> *const u8 {
    let mut text = Vec::new();
    format::put_float(&mut text, v);
    new_str_or_raise(&text, None)
}

/// `str(b)`: one of two static strings, so it never allocates.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_bool_to_str(v: i8) -> *const u8 {
    static TRUE: [u64; 3] = static_words(b"true");
    static FALSE: [u64; 3] = static_words(b"false");
    let words = if value::bool_arg(v) { &TRUE } else { &FALSE };
    words[1..].as_ptr().cast()
}

/// A static string of at most 8 bytes, header first.
const fn static_words(bytes: &[u8]) -> [u64; 3] {
    let mut word = [0u8; 8];
    let mut i = 0;
    while i < bytes.len() {
        word[i] = bytes[i];
        i += 1;
    }
    [gc::STATIC, bytes.len() as u64, u64::from_ne_bytes(word)]
}

extern "C" fn fixed_str(f: f64, digits: i64, loc: i64) -> *const u8 {
    match fixed(f, digits) {
        Ok(text) => new_str_or_raise(text.as_bytes(), Some(loc)),
        Err(error) => raise(error, Some(loc)),
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn pcc_chr(code: i64, loc: i64) -> *const u8 {
    match u8::try_from(code) {
        Ok(byte) => CHR_STRINGS[byte as usize][1..].as_ptr().cast(),
        Err(_) => raise(RuntimeError::ChrOutOfRange(code), Some(loc)),
    }
}

unsafe extern "C" fn substr(s: *const u8, start: i64, n: i64, loc: i64) -> *const u8 {
    // SAFETY: `s` is a PL string (caller's contract).
    let len = unsafe { str_bytes(s) }.len();
    match substr_range(len, start, n) {
        Ok(range) if range.len() == len => s,
        // SAFETY: `s` is a PL string with the range, kept while the part is allocated.
        Ok(range) => unsafe { value::new_str_part(s, range, &[s]) }
            .unwrap_or_else(|| raise(RuntimeError::OutOfMemory, Some(loc))),
        Err(error) => raise(error, Some(loc)),
    }
}

/// # Safety
/// `s` must point to a PL string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_parse_int(s: *const u8, loc: i64) -> i64 {
    // SAFETY: `s` is a PL string (caller's contract).
    parse_int(unsafe { str_bytes(s) }).unwrap_or_else(|error| raise(error, Some(loc)))
}

/// # Safety
/// `s` must point to a PL string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_parse_float(s: *const u8, loc: i64) -> f64 {
    // SAFETY: `s` is a PL string (caller's contract).
    parse_float(unsafe { str_bytes(s) }).unwrap_or_else(|error| raise(error, Some(loc)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::testing::str_value;

    fn bytes<'a>(s: *const u8) -> &'a [u8] {
        // SAFETY: the tests only pass PL strings.
        unsafe { str_bytes(s) }
    }

    #[test]
    fn parse_int_accepts_signed_decimal_with_surrounding_whitespace() {
        assert_eq!(parse_int(b"42"), Ok(42));
        assert_eq!(parse_int(b"-42"), Ok(-42));
        assert_eq!(parse_int(b"+7"), Ok(7));
        assert_eq!(parse_int(b"  12\r\n"), Ok(12));
        assert_eq!(parse_int(b"9223372036854775807"), Ok(i64::MAX));
        assert_eq!(parse_int(b"-9223372036854775808"), Ok(i64::MIN));
    }

    #[test]
    fn parse_int_rejects_everything_else() {
        for text in [
            &b"abc"[..],
            b"",
            b" ",
            b"-",
            b"1.5",
            b"0x10",
            b"1_000",
            b"1 2",
            b"9223372036854775808",
            b"\xff",
        ] {
            assert_eq!(
                parse_int(text),
                Err(RuntimeError::InvalidInteger(text_of(text))),
                "{text:?}"
            );
        }
        assert_eq!(
            parse_int(b"abc").unwrap_err().to_string(),
            r#"invalid integer: "abc""#
        );
    }

    #[test]
    fn parse_float_accepts_rust_syntax() {
        assert_eq!(parse_float(b"1.5"), Ok(1.5));
        assert_eq!(parse_float(b" -2e3\n"), Ok(-2000.0));
        assert_eq!(parse_float(b"7"), Ok(7.0));
        assert_eq!(parse_float(b".5"), Ok(0.5));
        assert_eq!(parse_float(b"inf"), Ok(f64::INFINITY));
        assert!(parse_float(b"NaN").unwrap().is_nan());
        for text in [&b"abc"[..], b"", b"1.5.2", b"1e", b"--1"] {
            assert_eq!(
                parse_float(text),
                Err(RuntimeError::InvalidFloat(text_of(text)))
            );
        }
        assert_eq!(
            parse_float(b"abc").unwrap_err().to_string(),
            r#"invalid float: "abc""#
        );
    }

    #[test]
    fn fixed_rounds_like_c() {
        assert_eq!(fixed(12.3456, 2).unwrap(), "12.35");
        assert_eq!(fixed(2.5, 0).unwrap(), "2");
        assert_eq!(fixed(3.5, 0).unwrap(), "4");
        assert_eq!(fixed(0.125, 2).unwrap(), "0.12");
        assert_eq!(fixed(1.005, 2).unwrap(), "1.00");
        assert_eq!(fixed(-0.0, 2).unwrap(), "-0.00");
        assert_eq!(fixed(1e20, 1).unwrap(), "100000000000000000000.0");
        assert_eq!(fixed(-1.0, 3).unwrap(), "-1.000");
        assert_eq!(fixed(f64::NAN, 3).unwrap(), "NaN");
        assert_eq!(fixed(f64::INFINITY, 3).unwrap(), "inf");
    }

    #[test]
    fn fixed_with_many_digits_pads_exact_zeros() {
        let text = fixed(0.5, 100_000).unwrap();
        assert_eq!(text.len(), 2 + 100_000);
        assert!(text.starts_with("0.5000"));
        assert!(text[3..].bytes().all(|b| b == b'0'));
        let tiny = fixed(5e-324, 1100).unwrap();
        assert_eq!(tiny, format!("{:.1100}", 5e-324));
    }

    #[test]
    fn fixed_rejects_negative_digits() {
        assert_eq!(fixed(1.0, -1), Err(RuntimeError::NegativeFixedDigits(-1)));
        assert_eq!(
            fixed(1.0, -1).unwrap_err().to_string(),
            "fixed(f, -1): digits must be non-negative"
        );
    }

    #[test]
    fn fixed_with_absurd_digits_is_out_of_memory() {
        assert_eq!(fixed(1.0, i64::MAX), Err(RuntimeError::OutOfMemory));
    }

    #[test]
    fn substr_bounds() {
        assert_eq!(substr_range(5, 1, 3), Ok(1..4));
        assert_eq!(substr_range(5, 0, 5), Ok(0..5));
        assert_eq!(substr_range(5, 5, 0), Ok(5..5));
        assert_eq!(substr_range(0, 0, 0), Ok(0..0));
        let error = |start, n| Err(RuntimeError::SubstrOutOfBounds { start, n, len: 5 });
        assert_eq!(substr_range(5, 6, 0), error(6, 0));
        assert_eq!(substr_range(5, 2, 4), error(2, 4));
        assert_eq!(substr_range(5, -1, 2), error(-1, 2));
        assert_eq!(substr_range(5, 1, -1), error(1, -1));
        assert_eq!(
            substr_range(5, i64::MAX, i64::MAX),
            error(i64::MAX, i64::MAX)
        );
        assert_eq!(
            substr_range(4, 2, 5).unwrap_err().to_string(),
            "substr(2, 5) out of bounds for string of length 4"
        );
    }

    #[test]
    fn substr_extracts_bytes() {
        let s = str_value("hello");
        // SAFETY: `s` is a PL string.
        unsafe {
            assert_eq!(bytes(pcc_substr(s, 1, 3, 0)), b"ell");
            assert_eq!(bytes(pcc_substr(s, 0, 5, 0)), b"hello");
            assert_eq!(bytes(pcc_substr(s, 5, 0, 0)), b"");
        }
    }

    #[test]
    fn chr_gives_one_byte_strings() {
        assert_eq!(bytes(pcc_chr(65, 0)), b"A");
        assert_eq!(bytes(pcc_chr(0, 0)), b"\0");
        assert_eq!(bytes(pcc_chr(255, 0)), b"\xff");
        assert_eq!(
            RuntimeError::ChrOutOfRange(300).to_string(),
            "chr(300): argument must be in 0..=255"
        );
    }

    #[test]
    fn concat_compare_and_equality() {
        let (ab, abc, empty) = (str_value("ab"), str_value("abc"), str_value(""));
        // SAFETY: all arguments are PL strings.
        unsafe {
            assert_eq!(bytes(pcc_str_concat(ab, abc, 0)), b"ababc");
            assert_eq!(bytes(pcc_str_concat(empty, ab, 0)), b"ab");
            assert_eq!(bytes(pcc_str_concat(ab, empty, 0)), b"ab");
            assert_eq!(bytes(pcc_str_concat(empty, empty, 0)), b"");
            assert_eq!(pcc_str_cmp(ab, abc), -1);
            assert_eq!(pcc_str_cmp(abc, ab), 1);
            assert_eq!(pcc_str_cmp(ab, str_value("ab")), 0);
            assert_eq!(pcc_str_cmp(str_value("b"), abc), 1);
            assert_eq!(pcc_str_cmp(str_value("\u{80}"), str_value("z")), 1); // bytewise
            assert_eq!(pcc_str_eq(ab, str_value("ab")), 1);
            assert_eq!(pcc_str_eq(ab, abc), 0);
            assert_eq!(pcc_str_eq(empty, value::empty_str()), 1);
        }
    }

    #[test]
    fn conversions_to_str_match_print() {
        // SAFETY: the entry points are called as generated code would.
        unsafe {
            assert_eq!(bytes(pcc_int_to_str(-120)), b"-120");
            assert_eq!(bytes(pcc_int_to_str(i64::MIN)), b"-9223372036854775808");
            assert_eq!(bytes(pcc_float_to_str(1.0)), b"1.0");
            assert_eq!(bytes(pcc_float_to_str(1e20)), b"1e20");
            assert_eq!(bytes(pcc_float_to_str(f64::NAN)), b"NaN");
            assert_eq!(bytes(pcc_fixed(2.0 / 3.0, 3, 0)), b"0.667");
        }
        assert_eq!(bytes(pcc_bool_to_str(1)), b"true");
        assert_eq!(bytes(pcc_bool_to_str(0)), b"false");
    }

    /// An append chain grows its own string in place while it has room, and never changes a
    /// string anything else may hold.
    #[test]
    fn appends_grow_in_place_only_when_allowed() {
        let (x, literal) = (str_value("x"), str_value("ab"));
        // SAFETY: all arguments are PL strings; `in_place` only for the chain's own string.
        unsafe {
            let first = pcc_str_append(literal, x, 1, 0);
            assert_eq!((bytes(first), bytes(literal)), (&b"abx"[..], &b"ab"[..]));
            let second = pcc_str_append(first, x, 1, 0);
            assert_eq!((second, bytes(second)), (first, &b"abxx"[..]));
            let copy = pcc_str_append(second, x, 0, 0);
            assert_ne!(copy, second);
            assert_eq!((bytes(copy), bytes(second)), (&b"abxxx"[..], &b"abxx"[..]));
            let mut s = copy;
            for _ in 0..1000 {
                s = pcc_str_append(s, x, 1, 0);
            }
            assert_eq!(bytes(s).len(), 1005);
            assert!(gc::header(s).capacity() < 4 * 1005);
            assert_eq!(pcc_str_append(s, value::empty_str(), 1, 0), s);
            let doubled = pcc_str_append(s, s, 1, 0);
            assert_eq!(&bytes(doubled)[1005..], bytes(doubled).get(..1005).unwrap());
            assert_ne!(pcc_str_append(value::empty_str(), x, 1, 0), x);
        }
    }
}
