//! The memory layout of PL values (CONVENTIONS.md), in one place: reading strings and arrays, and building
//! strings.
//!
//! - `str`: pointer to `[len: i64][bytes...]`;
//! - `[T]`: pointer to `[data: ptr][cap: i64][len: i64]`, then, for an array made at its size, its
//!   elements inline (`data` points right after the header); `push` and `insert` past `cap` move
//!   the length and the elements to a separate buffer object (`Kind::Buffer`, `[len][elements]`)
//!   of twice the capacity. The length is always the word before `data`, so that code holding
//!   an array's data pointer needs nothing else to check and access its elements (a loop's
//!   accesses then keep one value live per array, as they did when the elements were always
//!   inline);
//! - struct: pointer to `[field 0][field 1]...`, `null` is 0.
//!
//! Every slot is 8 bytes: an `i64`, the bits of an `f64`, a pointer, or a bool in its low byte.
//! Before every object, heap or static, is the collector's header word (`crate::gc::header`).

use crate::gc::{self, Header, Kind, STATIC};

/// Bytes before a string's bytes: the length.
pub const HEADER: usize = 8;

/// Bytes of an array's header: its data pointer, its capacity (in elements) and, while its
/// elements are inline, its length.
pub const ARRAY_HEADER: usize = 24;
/// Offset of an array's data pointer: the address of element 0.
pub const ARRAY_DATA: usize = 0;
/// Offset of an array's capacity: the elements `data` has room for.
pub const ARRAY_CAP: usize = 8;
/// How far before an array's data pointer its length is: the header's last word while the
/// elements are inline, a buffer's first word once they moved.
pub const ARRAY_LEN_BEFORE_DATA: usize = 8;

/// A `B` argument (`i8`, 0 or 1) as a Rust `bool`. Only bit 0 is read, so the result is right even if the
/// caller left garbage above the low byte (the generated code should still extend `B` arguments, `uext`).
pub fn bool_arg(b: i8) -> bool {
    b & 1 != 0
}

/// The empty string, shared: strings are immutable and compared by content, so sharing is unobservable.
static EMPTY_STR: [u64; 2] = [STATIC, 0];

/// Pointer to the shared empty string.
pub fn empty_str() -> *const u8 {
    EMPTY_STR[1..].as_ptr().cast()
}

/// A static (never collected) PL string holding `bytes`, which lives until the process ends:
/// for the program's arguments.
pub fn static_str(bytes: &[u8]) -> *const u8 {
    let mut words = vec![0u64; 2 + bytes.len().div_ceil(8)];
    words[0] = STATIC;
    words[1] = bytes.len() as u64;
    let words = Box::leak(words.into_boxed_slice());
    let string: *mut u8 = words[1..].as_mut_ptr().cast();
    // SAFETY: the words after the length have room for the bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), string.add(HEADER), bytes.len()) };
    string
}

/// The bytes of the string at `s`.
///
/// # Safety
/// `s` must point to a PL string that stays alive while the slice is used (the caller keeps it
/// reachable, or allocates nothing meanwhile).
pub unsafe fn str_bytes<'a>(s: *const u8) -> &'a [u8] {
    // SAFETY: by the layout, `s` holds the length followed by that many bytes.
    unsafe {
        let len = s.cast::<i64>().read() as usize;
        std::slice::from_raw_parts(s.add(HEADER), len)
    }
}

/// Length of the array at `a`.
///
/// # Safety
/// `a` must point to a PL array.
pub unsafe fn array_len(a: *const u8) -> usize {
    // SAFETY: an array's length is the word before its data.
    unsafe { array_len_slot(a).read() as usize }
}

/// Sets the length of the array at `a` (its capacity must hold `len` elements).
///
/// # Safety
/// `a` must point to a PL array.
pub unsafe fn set_array_len(a: *mut u8, len: usize) {
    // SAFETY: as for `array_len`.
    unsafe { array_len_slot(a).write(len as i64) }
}

/// The word holding the length of the array at `a`.
///
/// # Safety
/// `a` must point to a PL array.
unsafe fn array_len_slot(a: *const u8) -> *mut i64 {
    // SAFETY: the header or the buffer has the length right before the data.
    unsafe { array_data(a).sub(ARRAY_LEN_BEFORE_DATA).cast::<i64>() }
}

/// The buffer object holding the length and elements of the array at `a`, which is not inline.
///
/// # Safety
/// `a` must point to a PL array whose elements are in a buffer.
pub unsafe fn array_buffer(a: *const u8) -> *const u8 {
    // SAFETY: a buffer starts with the length, right before the data.
    unsafe { array_len_slot(a).cast_const().cast() }
}

/// The address of element 0 of the array at `a`: after its header, or in its buffer once it grew.
/// Valid until the array is resized.
///
/// # Safety
/// `a` must point to a PL array.
pub unsafe fn array_data(a: *const u8) -> *mut u8 {
    // SAFETY: an array's header holds its data pointer.
    unsafe { a.add(ARRAY_DATA).cast::<*mut u8>().read() }
}

/// The capacity of the array at `a`: the elements its data has room for.
///
/// # Safety
/// `a` must point to a PL array.
pub unsafe fn array_cap(a: *const u8) -> usize {
    // SAFETY: an array's header holds its capacity.
    unsafe { a.add(ARRAY_CAP).cast::<i64>().read() as usize }
}

/// Whether the array at `a` holds its elements inline, after its header (not in a buffer).
///
/// # Safety
/// `a` must point to a PL array.
pub unsafe fn array_is_inline(a: *const u8) -> bool {
    // SAFETY: as the caller guarantees.
    unsafe { array_data(a).cast_const() == a.add(ARRAY_HEADER) }
}

/// Writes the header of the array at `a`: `len` elements at `data`, room for `cap`; the word
/// before `data` takes the length.
///
/// # Safety
/// `a` must point to an array object (at least [`ARRAY_HEADER`] bytes), `data` right after its
/// header or after the length word of a buffer with room for `cap` elements.
pub unsafe fn set_array_header(a: *mut u8, len: usize, data: *mut u8, cap: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        a.add(ARRAY_DATA).cast::<*mut u8>().write(data);
        a.add(ARRAY_CAP).cast::<i64>().write(cap as i64);
        set_array_len(a, len);
    }
}

/// Slot `i` of the array at `a`, as raw bits.
///
/// # Safety
/// `a` must point to a PL array with more than `i` elements.
pub unsafe fn array_slot(a: *const u8, i: usize) -> u64 {
    // SAFETY: slots are at the data pointer.
    unsafe { array_data(a).cast::<u64>().add(i).read() }
}

/// The address of slot `i` of the array at `a` (of 8-byte elements).
///
/// # Safety
/// `a` must point to a PL array with room for more than `i` slots.
pub unsafe fn array_slot_mut(a: *const u8, i: usize) -> *mut u64 {
    // SAFETY: slots are at the data pointer.
    unsafe { array_data(a).cast::<u64>().add(i) }
}

/// All slots of the array at `a`, to write (a split's pieces) or permute (`sort`).
///
/// # Safety
/// `a` must point to a PL array of slots (not `[bool]`) that stays alive while the slice is
/// used, and no other reference to its slots may be used meanwhile.
pub unsafe fn array_slots_mut<'a>(a: *const u8) -> &'a mut [u64] {
    // SAFETY: the array's `len` slots are at its data pointer.
    unsafe { std::slice::from_raw_parts_mut(array_data(a).cast::<u64>(), array_len(a)) }
}

/// The bytes a `[bool]` array gives each element: half a slot. Less than a slot, so that a
/// sieve's flags stay in the L1 cache; not the single byte of C's `bool`, because this machine's
/// CPU (AMD EPYC) hands a 4- or 8-byte store to a following load of the same address at once,
/// and a 1- or 2-byte store three times slower (3 ns instead of 1 for a store and load in a
/// dependent chain), which code that stores a flag and soon reads it back (`awfy_queens`) pays.
pub const BOOL_SIZE: usize = 4;

/// Element `i` of the `[bool]` array at `a` (each [`BOOL_SIZE`] bytes, 0 or 1).
///
/// # Safety
/// `a` must point to a PL array of bools with more than `i` elements.
pub unsafe fn array_bool(a: *const u8, i: usize) -> bool {
    // SAFETY: the elements are at the data pointer.
    unsafe { array_data(a).cast::<u32>().add(i).read() != 0 }
}

/// Field `i` of the struct at `s`, as raw bits.
///
/// # Safety
/// `s` must point to a PL struct with more than `i` fields.
pub unsafe fn struct_field(s: *const u8, i: usize) -> u64 {
    // SAFETY: fields are consecutive 8-byte slots.
    unsafe { s.cast::<u64>().add(i).read() }
}

/// A new PL string holding `bytes`; `None` when out of memory.
pub fn new_str(bytes: &[u8]) -> Option<*const u8> {
    if bytes.is_empty() {
        return Some(empty_str());
    }
    let ptr = new_str_of(bytes.len(), bytes.len(), Header::new(Kind::Str), &[])?;
    // SAFETY: the string has room for the bytes.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr.add(HEADER), bytes.len()) };
    Some(ptr)
}

/// A new PL string holding bytes `range` of string `s`; `None` when out of memory. A collection
/// may run first: `keep` are the references the caller holds and still reads, `s` among them.
///
/// # Safety
/// `s` must point to a PL string with at least `range.end` bytes.
pub unsafe fn new_str_part(
    s: *const u8,
    range: std::ops::Range<usize>,
    keep: &[*const u8],
) -> Option<*const u8> {
    if range.is_empty() {
        return Some(empty_str());
    }
    let part = new_str_of(range.len(), range.len(), Header::new(Kind::Str), keep)?;
    // SAFETY: `s` was kept alive and has the range; `part` has room for it.
    unsafe {
        let bytes = &str_bytes(s)[range];
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), part.add(HEADER), bytes.len());
    }
    Some(part)
}

/// A new PL string holding string `a` followed by string `b`; `None` when out of memory.
///
/// # Safety
/// `a` and `b` must point to PL strings.
pub unsafe fn new_str_concat(a: *const u8, b: *const u8) -> Option<*const u8> {
    // SAFETY: `a` and `b` are strings; they are kept while the new one is allocated.
    unsafe {
        let len = str_bytes(a).len().checked_add(str_bytes(b).len())?;
        let ptr = new_str_of(len, len, Header::new(Kind::Str), &[a, b])?;
        append_bytes(ptr, 0, a);
        append_bytes(ptr, str_bytes(a).len(), b);
        Some(ptr)
    }
}

/// A new, zeroed PL string object of length `len` and room for `capacity >= len` bytes.
pub fn new_str_of(
    len: usize,
    capacity: usize,
    header: Header,
    keep: &[*const u8],
) -> Option<*mut u8> {
    let ptr = gc::alloc(HEADER.checked_add(capacity)?, header, keep)?.as_ptr();
    // SAFETY: the allocation starts with room for the length.
    unsafe { ptr.cast::<i64>().write(len as i64) };
    Some(ptr)
}

/// Copies string `s`'s bytes into string `into` at byte `at`.
///
/// # Safety
/// `into` must have room for `at + len(s)` bytes; `s` must be a PL string.
pub unsafe fn append_bytes(into: *mut u8, at: usize, s: *const u8) {
    // SAFETY: as the caller guarantees; `copy` because `s` may be `into` itself.
    unsafe {
        let bytes = str_bytes(s);
        std::ptr::copy(bytes.as_ptr(), into.add(HEADER + at), bytes.len());
    }
}

/// A new PL array of `len` slots, each set to `fill` (a reference when `refs`, which the array's
/// header then says its elements are); `None` when out of memory.
pub fn new_array(len: usize, fill: u64, refs: bool) -> Option<*const u8> {
    let (kind, keep) = match refs {
        true => (Kind::Refs, [fill as *const u8]),
        false => (Kind::Scalars, [std::ptr::null()]),
    };
    let ptr = new_zeroed_array(len, 8, Header::new(kind), &keep)?;
    if fill != 0 {
        // SAFETY: the array has room for `len` slots after its header.
        unsafe { std::slice::from_raw_parts_mut(array_data(ptr).cast::<u64>(), len).fill(fill) };
    }
    Some(ptr.cast_const())
}

/// A new PL array of `len` bools ([`BOOL_SIZE`] bytes each), each set to `fill`; `None` when out
/// of memory.
pub fn new_bool_array(len: usize, fill: bool) -> Option<*const u8> {
    let ptr = new_zeroed_array(len, BOOL_SIZE, Header::new(Kind::Scalars), &[])?;
    if fill {
        // SAFETY: the array has room for `len` elements after its header.
        unsafe { std::slice::from_raw_parts_mut(array_data(ptr).cast::<u32>(), len).fill(1) };
    }
    Some(ptr.cast_const())
}

/// A new PL struct of `fields` zeroed slots, number `id` of the program's structs; `None` when out
/// of memory.
pub fn new_struct(fields: usize, id: usize) -> Option<*const u8> {
    let size = fields.checked_mul(8)?;
    Some(
        gc::alloc(size, Header::of_struct(id), &[])?
            .as_ptr()
            .cast_const(),
    )
}

/// A new PL array of `len` zeroed elements of `size` bytes, inline (its capacity `len`); `None`
/// when out of memory. A collection may run first: `keep` are the references the caller holds and
/// still reads.
pub fn new_zeroed_array(
    len: usize,
    size: usize,
    header: Header,
    keep: &[*const u8],
) -> Option<*mut u8> {
    let bytes = array_size(len, size)?;
    // The interpreter refuses the same sizes (`object_fits` there).
    if !gc::object_fits(bytes) {
        return None;
    }
    let ptr = gc::alloc(bytes, header, keep)?.as_ptr();
    // SAFETY: the allocation starts with room for the header, its elements follow.
    unsafe { set_array_header(ptr, len, ptr.add(ARRAY_HEADER), len) };
    Some(ptr)
}

/// The bytes of an array of `len` elements of `size` bytes, header included.
pub fn array_size(len: usize, size: usize) -> Option<usize> {
    len.checked_mul(size)?.checked_add(ARRAY_HEADER)
}

/// Hand-built PL values for unit tests, in the documented layout.
#[cfg(test)]
pub mod testing {
    use crate::gc::STATIC;

    /// Leaks a static object's header and `words`, and returns a pointer to the first word.
    pub fn leak_words(words: Vec<u64>) -> *const u8 {
        let mut object = vec![STATIC];
        object.extend(words);
        Box::leak(object.into_boxed_slice())[1..].as_ptr().cast()
    }

    /// Leaks a static array of `len` elements whose `words` follow the header.
    fn leak_array(len: usize, words: Vec<u64>) -> *const u8 {
        let cap = len as u64;
        let mut object = vec![0, cap, len as u64];
        object.extend(words);
        let array = leak_words(object);
        // SAFETY: the header's data pointer is the address after it.
        unsafe {
            let data = array.add(super::ARRAY_HEADER) as u64;
            array
                .cast_mut()
                .add(super::ARRAY_DATA)
                .cast::<u64>()
                .write(data);
        }
        array
    }

    /// A PL string, built by hand.
    pub fn str_value(text: &str) -> *const u8 {
        let mut words = vec![text.len() as u64];
        for chunk in text.as_bytes().chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            words.push(u64::from_ne_bytes(word));
        }
        leak_words(words)
    }

    /// A PL array of the given slots, built by hand.
    pub fn array_value(slots: &[u64]) -> *const u8 {
        leak_array(slots.len(), slots.to_vec())
    }

    /// A PL `[bool]` array (a `u32` per element), built by hand.
    pub fn bool_array_value(flags: &[bool]) -> *const u8 {
        let mut words = Vec::new();
        for pair in flags.chunks(2) {
            let low = u64::from(pair[0]);
            let high = pair.get(1).map_or(0, |&f| u64::from(f));
            words.push(if cfg!(target_endian = "little") {
                low | high << 32
            } else {
                low << 32 | high
            });
        }
        leak_array(flags.len(), words)
    }

    /// A PL struct with the given fields, built by hand.
    pub fn struct_value(fields: &[u64]) -> *const u8 {
        leak_words(fields.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    #[test]
    fn reads_hand_built_values() {
        // SAFETY: all values are built in the documented layout.
        unsafe {
            assert_eq!(str_bytes(str_value("hello, world")), b"hello, world");
            assert_eq!(str_bytes(str_value("")), b"");
            let a = array_value(&[10, 20, 30]);
            assert_eq!(array_len(a), 3);
            assert_eq!(array_slot(a, 2), 30);
            assert_eq!(struct_field(struct_value(&[1, 2]), 1), 2);
        }
    }

    #[test]
    fn bool_arguments_read_bit_zero() {
        assert!(bool_arg(1));
        assert!(!bool_arg(0));
    }

    #[test]
    fn builds_values() {
        // SAFETY: the pointers come from the constructors under test.
        unsafe {
            assert_eq!(str_bytes(new_str(b"abc").unwrap()), b"abc");
            assert_eq!(str_bytes(new_str(b"").unwrap()), b"");
            let (ab, cde) = (new_str(b"ab").unwrap(), new_str(b"cde").unwrap());
            assert_eq!(str_bytes(new_str_concat(ab, cde).unwrap()), b"abcde");
            assert_eq!(str_bytes(static_str(b"argument")), b"argument");
            let a = new_array(3, 7, false).unwrap();
            assert_eq!(array_len(a), 3);
            assert_eq!(
                (0..3).map(|i| array_slot(a, i)).collect::<Vec<_>>(),
                [7, 7, 7]
            );
            let z = new_array(2, 0, true).unwrap();
            assert_eq!((array_slot(z, 0), array_slot(z, 1)), (0, 0));
            assert_eq!(gc::header(z).kind(), Kind::Refs);
            assert_eq!(array_len(new_array(0, 5, false).unwrap()), 0);
            let b = new_bool_array(9, true).unwrap();
            assert_eq!(array_len(b), 9);
            assert!((0..9).all(|i| array_bool(b, i)));
            let z = new_bool_array(3, false).unwrap();
            assert!((0..3).all(|i| !array_bool(z, i)));
            let hand = bool_array_value(&[true, false, true]);
            assert_eq!(
                (0..3).map(|i| array_bool(hand, i)).collect::<Vec<_>>(),
                [true, false, true]
            );
        }
    }

    #[test]
    fn huge_arrays_are_out_of_memory() {
        assert!(new_array(usize::MAX / 8, 0, false).is_none());
        assert!(new_array(1 << 60, 0, false).is_none());
        assert!(new_bool_array(usize::MAX / 2, false).is_none());
    }
}
