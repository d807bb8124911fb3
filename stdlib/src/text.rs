//! String built-ins over bytes: `split`, `join`, `find`, `replace`, `trim`, `starts_with`,
//! `ends_with`, `to_upper`, `to_lower`.
//!
//! As in `strings`, the text functions are plain Rust functions on byte slices, unit-tested and
//! shared with the interpreter; the `extern "C"` functions unwrap PL strings, call them, and
//! raise errors with the call's location.

use std::borrow::Cow;
use std::ops::Range;

use crate::errors::{RuntimeError, raise};
use crate::gc::{self, Header, Kind, stack::entry_points};
use crate::value::{self, str_bytes};

/// The first occurrence of `needle` in `hay` at or after byte `from` (`from <= hay.len()`).
fn find_at(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let Some((&first, rest)) = needle.split_first() else {
        return Some(from);
    };
    let last_start = hay.len().checked_sub(needle.len())?;
    let mut at = from;
    while at <= last_start {
        // The first byte by `position` (which the compiler vectorizes), then the rest.
        at += hay[at..=last_start].iter().position(|&b| b == first)?;
        if hay[at + 1..].starts_with(rest) {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// The byte ranges of `s` between the non-overlapping occurrences of the non-empty `pattern`,
/// left to right: one more than the occurrences. Out of memory (a gigabyte of separators) is
/// the runtime error, not an abort.
fn pieces(s: &[u8], pattern: &[u8]) -> Result<Vec<Range<usize>>, RuntimeError> {
    let mut pieces = Vec::new();
    let mut start = 0;
    loop {
        pieces
            .try_reserve(1)
            .map_err(|_| RuntimeError::OutOfMemory)?;
        let Some(at) = find_at(s, pattern, start) else {
            pieces.push(start..s.len());
            return Ok(pieces);
        };
        pieces.push(start..at);
        start = at + pattern.len();
    }
}

/// `split(s, sep)`: the byte ranges of the pieces of `s` between the occurrences of `sep`, like
/// Python's `s.split(sep)` (`"a,,b"` has three pieces, `""` one).
pub fn split(s: &[u8], sep: &[u8]) -> Result<Vec<Range<usize>>, RuntimeError> {
    if sep.is_empty() {
        return Err(RuntimeError::SplitEmptySeparator);
    }
    pieces(s, sep)
}

/// `join(parts, sep)`: the parts with `sep` between each two; out of memory when the result
/// would be larger than a string can be (`gc::object_fits`) or cannot be allocated.
pub fn join<'a, I>(parts: I, sep: &[u8]) -> Result<Vec<u8>, RuntimeError>
where
    I: IntoIterator<Item = &'a [u8]>,
    I::IntoIter: Clone,
{
    let parts = parts.into_iter();
    let mut len = 0usize;
    for (i, part) in parts.clone().enumerate() {
        let glue = if i > 0 { sep.len() } else { 0 };
        len = (len.checked_add(glue))
            .and_then(|len| len.checked_add(part.len()))
            .ok_or(RuntimeError::OutOfMemory)?;
    }
    let mut text = Vec::new();
    if !gc::object_fits(len.saturating_add(value::HEADER)) || text.try_reserve_exact(len).is_err() {
        return Err(RuntimeError::OutOfMemory);
    }
    for (i, part) in parts.enumerate() {
        if i > 0 {
            text.extend_from_slice(sep);
        }
        text.extend_from_slice(part);
    }
    Ok(text)
}

/// `find(s, sub, from)`: the byte index of the first occurrence of `sub` at or after `from`, or
/// -1; `from` must be in `0..=len(s)`.
pub fn find(s: &[u8], sub: &[u8], from: i64) -> Result<i64, RuntimeError> {
    let start = usize::try_from(from)
        .ok()
        .filter(|&start| start <= s.len())
        .ok_or(RuntimeError::FindOutOfBounds { from, len: s.len() })?;
    Ok(find_at(s, sub, start).map_or(-1, |at| at as i64))
}

/// `replace(s, old, new)`: every non-overlapping occurrence of `old`, left to right, replaced by
/// `new`; `s` itself when there is none.
pub fn replace<'a>(s: &'a [u8], old: &[u8], new: &[u8]) -> Result<Cow<'a, [u8]>, RuntimeError> {
    if old.is_empty() {
        return Err(RuntimeError::ReplaceEmptyPattern);
    }
    let pieces = pieces(s, old)?;
    if pieces.len() == 1 {
        return Ok(Cow::Borrowed(s));
    }
    Ok(Cow::Owned(join(pieces.iter().map(|r| &s[r.clone()]), new)?))
}

/// `trim(s)`: the byte range of `s` without its leading and trailing ASCII whitespace (space,
/// `\t`, `\n`, `\r`, form feed: Rust's `u8::is_ascii_whitespace`, as `parse_int` ignores).
pub fn trim(s: &[u8]) -> Range<usize> {
    let trimmed = s.trim_ascii();
    let start = trimmed.as_ptr() as usize - s.as_ptr() as usize;
    start..start + trimmed.len()
}

entry_points! {
    /// # Safety
    /// `s` and `sep` must point to PL strings.
    fn pcc_split(s: *const u8, sep: *const u8, loc: i64) -> *const u8 => split_str;
    /// # Safety
    /// `parts` must point to a PL array of strings, `sep` to a PL string.
    fn pcc_join(parts: *const u8, sep: *const u8, loc: i64) -> *const u8 => join_str;
    /// # Safety
    /// `s`, `old` and `new` must point to PL strings.
    fn pcc_replace(s: *const u8, old: *const u8, new: *const u8, loc: i64) -> *const u8 => replace_str;
    /// # Safety
    /// `s` must point to a PL string.
    fn pcc_trim(s: *const u8, loc: i64) -> *const u8 => trim_str;
    /// # Safety
    /// `s` must point to a PL string.
    fn pcc_to_upper(s: *const u8, loc: i64) -> *const u8 => to_upper;
    /// # Safety
    /// `s` must point to a PL string.
    fn pcc_to_lower(s: *const u8, loc: i64) -> *const u8 => to_lower;
}

/// The `out of memory` error at `loc`.
fn out_of_memory(loc: i64) -> ! {
    raise(RuntimeError::OutOfMemory, Some(loc))
}

unsafe extern "C" fn split_str(s: *const u8, sep: *const u8, loc: i64) -> *const u8 {
    // SAFETY: `s` and `sep` are PL strings (caller's contract), not collected before the
    // ranges are found.
    let ranges = match split(unsafe { str_bytes(s) }, unsafe { str_bytes(sep) }) {
        Ok(ranges) => ranges,
        Err(error) => raise(error, Some(loc)),
    };
    // The pieces are allocated after the array, which the collector sees as all nulls until
    // each is stored; `s` and the array are kept meanwhile.
    let header = Header::new(Kind::Refs);
    let Some(array) = value::new_zeroed_array(ranges.len(), 8, header, &[s]) else {
        out_of_memory(loc)
    };
    for (i, range) in ranges.into_iter().enumerate() {
        // SAFETY: `s` holds the range; both are kept while the piece is allocated.
        let piece = unsafe { value::new_str_part(s, range, &[s, array]) }
            .unwrap_or_else(|| out_of_memory(loc));
        // SAFETY: `array` is a live array of as many slots as there are ranges.
        unsafe { value::array_slots_mut(array)[i] = piece as u64 };
    }
    array
}

unsafe extern "C" fn join_str(parts: *const u8, sep: *const u8, loc: i64) -> *const u8 {
    // SAFETY: `parts` is an array of strings, `sep` a string (caller's contract); all are read
    // before the result is allocated.
    let text = unsafe {
        let len = value::array_len(parts);
        let part = |i| str_bytes(value::array_slot(parts, i) as *const u8);
        join((0..len).map(part), str_bytes(sep))
    };
    match text {
        Ok(text) => value::new_str(&text).unwrap_or_else(|| out_of_memory(loc)),
        Err(error) => raise(error, Some(loc)),
    }
}

unsafe extern "C" fn replace_str(
    s: *const u8,
    old: *const u8,
    new: *const u8,
    loc: i64,
) -> *const u8 {
    // SAFETY: all three are PL strings (caller's contract), read before anything is allocated.
    let replaced = unsafe { replace(str_bytes(s), str_bytes(old), str_bytes(new)) };
    match replaced {
        Ok(Cow::Borrowed(_)) => s,
        Ok(Cow::Owned(text)) => value::new_str(&text).unwrap_or_else(|| out_of_memory(loc)),
        Err(error) => raise(error, Some(loc)),
    }
}

unsafe extern "C" fn trim_str(s: *const u8, loc: i64) -> *const u8 {
    // SAFETY: `s` is a PL string (caller's contract).
    let bytes = unsafe { str_bytes(s) };
    let range = trim(bytes);
    if range.len() == bytes.len() {
        return s;
    }
    // SAFETY: `s` holds the range and is kept while the part is allocated.
    unsafe { value::new_str_part(s, range, &[s]) }.unwrap_or_else(|| out_of_memory(loc))
}

unsafe extern "C" fn to_upper(s: *const u8, loc: i64) -> *const u8 {
    // SAFETY: `s` is a PL string (caller's contract), copied before anything is allocated.
    let text = unsafe { str_bytes(s) }.to_ascii_uppercase();
    value::new_str(&text).unwrap_or_else(|| out_of_memory(loc))
}

unsafe extern "C" fn to_lower(s: *const u8, loc: i64) -> *const u8 {
    // SAFETY: as in `to_upper`.
    let text = unsafe { str_bytes(s) }.to_ascii_lowercase();
    value::new_str(&text).unwrap_or_else(|| out_of_memory(loc))
}

/// `find(s, sub, from)`.
///
/// # Safety
/// `s` and `sub` must point to PL strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_find(s: *const u8, sub: *const u8, from: i64, loc: i64) -> i64 {
    // SAFETY: both are PL strings (caller's contract).
    let (s, sub) = unsafe { (str_bytes(s), str_bytes(sub)) };
    find(s, sub, from).unwrap_or_else(|error| raise(error, Some(loc)))
}

/// `starts_with(s, prefix)`: 1 or 0.
///
/// # Safety
/// `s` and `prefix` must point to PL strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_starts_with(s: *const u8, prefix: *const u8) -> i8 {
    // SAFETY: both are PL strings (caller's contract).
    unsafe { i8::from(str_bytes(s).starts_with(str_bytes(prefix))) }
}

/// `ends_with(s, suffix)`: 1 or 0.
///
/// # Safety
/// `s` and `suffix` must point to PL strings.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_ends_with(s: *const u8, suffix: *const u8) -> i8 {
    // SAFETY: both are PL strings (caller's contract).
    unsafe { i8::from(str_bytes(s).ends_with(str_bytes(suffix))) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::testing::{array_value, str_value};

    fn split_text<'a>(s: &'a str, sep: &str) -> Vec<&'a str> {
        let ranges = split(s.as_bytes(), sep.as_bytes()).unwrap();
        ranges.into_iter().map(|r| &s[r]).collect()
    }

    #[test]
    fn split_is_pythons() {
        assert_eq!(split_text("a,,b", ","), ["a", "", "b"]);
        assert_eq!(split_text("", ","), [""]);
        assert_eq!(split_text(",", ","), ["", ""]);
        assert_eq!(split_text("a--b---c", "--"), ["a", "b", "-c"]);
        assert_eq!(split_text("abc", "abcd"), ["abc"]);
        assert_eq!(
            split(b"x", b"").unwrap_err().to_string(),
            "split: empty separator"
        );
    }

    #[test]
    fn find_from() {
        assert_eq!(find(b"banana", b"an", 0), Ok(1));
        assert_eq!(find(b"banana", b"an", 2), Ok(3));
        assert_eq!(find(b"banana", b"an", 4), Ok(-1));
        assert_eq!(find(b"banana", b"", 6), Ok(6));
        assert_eq!(find(b"", b"", 0), Ok(0));
        assert_eq!(find(b"ab", b"abc", 0), Ok(-1));
        assert_eq!(find(b"aab", b"ab", 0), Ok(1));
        assert_eq!(
            find(b"abc", b"a", 4).unwrap_err().to_string(),
            "find(s, sub, 4): start out of bounds for string of length 3"
        );
        assert!(find(b"abc", b"a", -1).is_err());
        assert!(find(b"abc", b"a", i64::MIN).is_err());
    }

    #[test]
    fn replace_grows_and_shrinks() {
        let text = |r: Result<Cow<[u8]>, _>| String::from_utf8(r.unwrap().into_owned()).unwrap();
        assert_eq!(text(replace(b"a.b.c", b".", b"::")), "a::b::c");
        assert_eq!(text(replace(b"aaaa", b"aa", b"b")), "bb");
        assert_eq!(text(replace(b"aaa", b"aa", b"")), "a");
        assert!(matches!(replace(b"abc", b"x", b"y"), Ok(Cow::Borrowed(_))));
        assert_eq!(
            replace(b"abc", b"", b"y").unwrap_err().to_string(),
            "replace: empty string to replace"
        );
    }

    #[test]
    fn trim_and_join() {
        assert_eq!(trim(b"  a b\t\r\n"), 2..5);
        assert_eq!(trim(b" \t "), 3..3);
        assert_eq!(trim(b""), 0..0);
        let parts: [&[u8]; 3] = [b"a", b"", b"c"];
        assert_eq!(join(parts, b", ").unwrap(), b"a, , c");
        assert_eq!(join([], b",").unwrap(), b"");
        let huge = vec![0u8; 1 << 20];
        let many = std::iter::repeat_n(&huge[..], 1 << 24);
        assert_eq!(join(many, b","), Err(RuntimeError::OutOfMemory));
    }

    #[test]
    fn entry_points_build_strings() {
        // SAFETY: the entry points are called as generated code would, on hand-built values.
        unsafe {
            let pieces = pcc_split(str_value("x y  z"), str_value(" "), 0);
            assert_eq!(value::array_len(pieces), 4);
            assert_eq!(str_bytes(value::array_slot(pieces, 2) as *const u8), b"");
            assert_eq!(str_bytes(pcc_join(pieces, str_value("+"), 0)), b"x+y++z");
            let none = array_value(&[]);
            assert_eq!(str_bytes(pcc_join(none, str_value("+"), 0)), b"");
            let s = str_value("a-b");
            assert_eq!(
                str_bytes(pcc_replace(s, str_value("-"), str_value("--"), 0)),
                b"a--b"
            );
            assert_eq!(pcc_replace(s, str_value("x"), str_value("y"), 0), s);
            assert_eq!(str_bytes(pcc_trim(str_value(" a "), 0)), b"a");
            assert_eq!(
                str_bytes(pcc_to_upper(str_value("aB-é"), 0)),
                "AB-é".as_bytes()
            );
            assert_eq!(str_bytes(pcc_to_lower(str_value("aB-Z"), 0)), b"ab-z");
            assert_eq!(pcc_find(str_value("hello"), str_value("l"), 0, 0), 2);
            assert_eq!(pcc_starts_with(str_value("hello"), str_value("he")), 1);
            assert_eq!(pcc_ends_with(str_value("hello"), str_value("he")), 0);
            assert_eq!(pcc_ends_with(str_value("hello"), str_value("")), 1);
        }
    }
}
