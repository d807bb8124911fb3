//! Allocation of arrays (`[e1, e2]`, `[v; n]`, the empty default; `[bool]` arrays hold
//! `value::BOOL_SIZE` bytes per element, the others a slot) and structs (`new S {...}`), in the
//! collected heap; allocation failure is the `out of memory` runtime error, never an abort.
//! Also the growable arrays' `push`, `pop`, `insert` and `remove`.

use crate::errors::{RuntimeError, raise};
use crate::gc::stack::entry_points;
use crate::gc::{self, Header, Kind};
use crate::value;

entry_points! {
    /// A new array of `len` slots, each holding `fill_bits`; `refs` (1) when the elements are
    /// references.
    fn pcc_array_new(len: i64, fill_bits: i64, refs: i8, loc: i64) -> *const u8 => array_new;
    /// A new array of `len` bools (`value::BOOL_SIZE` bytes each), each `fill` (0 or 1).
    fn pcc_bool_array_new(len: i64, fill: i64, loc: i64) -> *const u8 => bool_array_new;
    /// A new struct of `nfields` zeroed slots (the generated code stores the fields), number
    /// `struct_id` of the program's structs.
    fn pcc_struct_new(nfields: i64, struct_id: i64, loc: i64) -> *const u8 => struct_new;
    /// `push(a, v)`: appends the element of bits `bits` (`size` bytes, `value::BOOL_SIZE` in a
    /// `[bool]` array, else 8), growing the array's buffer when full.
    fn pcc_array_push(array: *mut u8, bits: i64, size: i64, loc: i64) -> () => array_push;
    /// `insert(a, i, v)`: as `push`, at position `index` (`0..=len`), the rest moved right.
    fn pcc_array_insert(array: *mut u8, index: i64, bits: i64, size: i64, loc: i64) -> ()
        => array_insert;
}

extern "C" fn array_new(len: i64, fill_bits: i64, refs: i8, loc: i64) -> *const u8 {
    let refs = value::bool_arg(refs);
    new_array(len, loc, |len| {
        value::new_array(len, fill_bits as u64, refs)
    })
}

extern "C" fn bool_array_new(len: i64, fill: i64, loc: i64) -> *const u8 {
    new_array(len, loc, |len| value::new_bool_array(len, fill & 1 != 0))
}

/// The array `make` makes of `len` elements, or the runtime error of a negative length or of
/// running out of memory, located at `loc`.
fn new_array(len: i64, loc: i64, make: impl FnOnce(usize) -> Option<*const u8>) -> *const u8 {
    let Ok(elements) = usize::try_from(len) else {
        raise(RuntimeError::NegativeArrayLength(len), Some(loc))
    };
    make(elements).unwrap_or_else(|| raise(RuntimeError::OutOfMemory, Some(loc)))
}

extern "C" fn struct_new(nfields: i64, struct_id: i64, loc: i64) -> *const u8 {
    let (Ok(fields), Ok(id)) = (usize::try_from(nfields), usize::try_from(struct_id)) else {
        raise(RuntimeError::OutOfMemory, Some(loc))
    };
    value::new_struct(fields, id).unwrap_or_else(|| raise(RuntimeError::OutOfMemory, Some(loc)))
}

extern "C" fn array_push(array: *mut u8, bits: i64, size: i64, loc: i64) {
    // SAFETY: generated code passes an array of elements of `size` bytes.
    unsafe {
        let len = value::array_len(array);
        insert_at(array, len, bits, size as usize, loc);
    }
}

extern "C" fn array_insert(array: *mut u8, index: i64, bits: i64, size: i64, loc: i64) {
    // SAFETY: as for `array_push`.
    unsafe {
        let len = value::array_len(array);
        match usize::try_from(index) {
            Ok(at) if at <= len => insert_at(array, at, bits, size as usize, loc),
            _ => raise(out_of_bounds(index, len), Some(loc)),
        }
    }
}

/// The index error of `insert` and `remove`, indexing's.
fn out_of_bounds(index: i64, len: usize) -> RuntimeError {
    RuntimeError::IndexOutOfBounds {
        index,
        len: len as i64,
    }
}

/// Inserts the element `bits` at position `at <= len` of `array`, after making room.
///
/// # Safety
/// `array` must point to a PL array of elements of `size` bytes (4 or 8).
unsafe fn insert_at(array: *mut u8, at: usize, bits: i64, size: usize, loc: i64) {
    // SAFETY: `reserve` leaves room for one more element at the data pointer.
    unsafe {
        let len = value::array_len(array);
        reserve(array, len + 1, bits, size, loc);
        let data = value::array_data(array);
        std::ptr::copy(
            data.add(at * size),
            data.add((at + 1) * size),
            (len - at) * size,
        );
        write_element(data, at, bits, size);
        value::set_array_len(array, len + 1);
    }
}

/// Makes the capacity of `array` at least `needed`, moving its elements to a new buffer of twice
/// the capacity (at least 4) when it is smaller; out of memory exactly when an array of `needed`
/// elements could not be made (the interpreter's rule). `pending`, the element about to be
/// stored, is kept alive meanwhile if the array holds references.
///
/// # Safety
/// `array` must point to a PL array of elements of `size` bytes.
unsafe fn reserve(array: *mut u8, needed: usize, pending: i64, size: usize, loc: i64) {
    // SAFETY: the new buffer has room for the old elements; the array and the pending
    // reference are kept while it is allocated.
    unsafe {
        let cap = value::array_cap(array);
        if needed <= cap {
            return;
        }
        if !value::array_size(needed, size).is_some_and(gc::object_fits) {
            raise(RuntimeError::OutOfMemory, Some(loc))
        }
        // A buffer starts with the length (`value::ARRAY_LEN_BEFORE_DATA`).
        let buffer_bytes =
            |cap: usize| (cap.checked_mul(size)?).checked_add(value::ARRAY_LEN_BEFORE_DATA);
        let doubled = cap.saturating_mul(2).max(4).max(needed);
        let (new_cap, bytes) = match buffer_bytes(doubled) {
            Some(bytes) if gc::object_fits(bytes) => (doubled, bytes),
            // Fits: an array of `needed` elements, with its longer header, does.
            _ => (needed, value::ARRAY_LEN_BEFORE_DATA + needed * size),
        };
        let refs = gc::header(array).kind() == Kind::Refs;
        let keep = [
            array.cast_const(),
            if refs {
                pending as *const u8
            } else {
                std::ptr::null()
            },
        ];
        let Some(buffer) = gc::alloc(bytes, Header::new(Kind::Buffer), &keep) else {
            raise(RuntimeError::OutOfMemory, Some(loc))
        };
        let data = buffer.as_ptr().add(value::ARRAY_LEN_BEFORE_DATA);
        let len = value::array_len(array);
        std::ptr::copy_nonoverlapping(value::array_data(array), data, len * size);
        value::set_array_header(array, len, data, new_cap);
    }
}

/// Stores element `i` (`size` bytes) at `data`.
///
/// # Safety
/// `data` must have room for element `i`.
unsafe fn write_element(data: *mut u8, i: usize, bits: i64, size: usize) {
    // SAFETY: as the caller guarantees.
    unsafe {
        match size {
            8 => data.cast::<i64>().add(i).write(bits),
            _ => data.cast::<u32>().add(i).write(bits as u32),
        }
    }
}

/// Element `i` (`size` bytes) at `data`, as slot bits.
///
/// # Safety
/// `data` must hold element `i`.
unsafe fn read_element(data: *const u8, i: usize, size: usize) -> i64 {
    // SAFETY: as the caller guarantees.
    unsafe {
        match size {
            8 => data.cast::<i64>().add(i).read(),
            _ => i64::from(data.cast::<u32>().add(i).read()),
        }
    }
}

/// `pop(a)`: removes the last element and returns its bits; an error on an empty array.
///
/// # Safety
/// `array` must point to a PL array of elements of `size` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_array_pop(array: *mut u8, size: i64, loc: i64) -> i64 {
    // SAFETY: as the caller guarantees.
    unsafe {
        match value::array_len(array) {
            0 => raise(RuntimeError::PopFromEmpty, Some(loc)),
            len => remove_at(array, len - 1, size as usize),
        }
    }
}

/// `remove(a, i)`: removes element `index` (`0..len`), the rest moved left, and returns its bits.
///
/// # Safety
/// As [`pcc_array_pop`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_array_remove(array: *mut u8, index: i64, size: i64, loc: i64) -> i64 {
    // SAFETY: as the caller guarantees.
    unsafe {
        let len = value::array_len(array);
        match usize::try_from(index) {
            Ok(at) if at < len => remove_at(array, at, size as usize),
            _ => raise(out_of_bounds(index, len), Some(loc)),
        }
    }
}

/// Removes element `at < len` of `array` and returns its bits. The vacated last slot is
/// cleared, so that the collector, which scans `len` elements, never sees a stale reference
/// when the array grows back over it.
///
/// # Safety
/// `array` must point to a PL array of more than `at` elements of `size` bytes.
unsafe fn remove_at(array: *mut u8, at: usize, size: usize) -> i64 {
    // SAFETY: the elements `at..len` exist.
    unsafe {
        let len = value::array_len(array);
        let data = value::array_data(array);
        let bits = read_element(data, at, size);
        std::ptr::copy(
            data.add((at + 1) * size),
            data.add(at * size),
            (len - at - 1) * size,
        );
        write_element(data, len - 1, 0, size);
        value::set_array_len(array, len - 1);
        bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::{array_bool, array_len, array_slot, struct_field};

    #[test]
    fn arrays_are_filled() {
        // SAFETY: the entry points are called as generated code would.
        let a = unsafe { pcc_array_new(4, -1, 0, 0) };
        // SAFETY: `a` is a fresh array of 4 slots.
        unsafe {
            assert_eq!(array_len(a), 4);
            assert!((0..4).all(|i| array_slot(a, i) == u64::MAX));
        }
        // SAFETY: as above.
        let floats = unsafe { pcc_array_new(2, 1.5f64.to_bits() as i64, 0, 0) };
        // SAFETY: `floats` is a fresh array of 2 slots.
        assert_eq!(f64::from_bits(unsafe { array_slot(floats, 1) }), 1.5);
        // SAFETY: an empty array has its length.
        assert_eq!(unsafe { array_len(pcc_array_new(0, 0, 1, 0)) }, 0);
        // SAFETY: as above.
        let bools = unsafe { pcc_bool_array_new(3, 1, 0) };
        // SAFETY: `bools` is a fresh array of 3 bools.
        assert!((0..3).all(|i| unsafe { array_bool(bools, i) }));
    }

    #[test]
    fn arrays_grow_and_shrink() {
        // SAFETY: the entry points are called as generated code would.
        unsafe {
            let a = pcc_array_new(0, 0, 0, 0).cast_mut();
            for i in 0..100 {
                pcc_array_push(a, i, 8, 0);
            }
            assert_eq!(array_len(a), 100);
            assert!(!value::array_is_inline(a));
            assert!((0..100).all(|i| array_slot(a, i) == i as u64));
            pcc_array_insert(a, 0, -1, 8, 0);
            assert_eq!((array_slot(a, 0), array_slot(a, 1)), (u64::MAX, 0));
            assert_eq!(pcc_array_remove(a, 0, 8, 0), -1);
            assert_eq!(pcc_array_pop(a, 8, 0), 99);
            assert_eq!(array_len(a), 99);
            assert_eq!(array_slot(a, 98), 98);
            let bools = pcc_bool_array_new(1, 0, 0).cast_mut();
            pcc_array_push(bools, 1, 4, 0);
            pcc_array_insert(bools, 0, 1, 4, 0);
            assert_eq!(
                (0..3).map(|i| array_bool(bools, i)).collect::<Vec<_>>(),
                [true, false, true]
            );
            assert_eq!(pcc_array_remove(bools, 1, 4, 0), 0);
            assert_eq!(pcc_array_pop(bools, 4, 0), 1);
            assert!(value::array_is_inline(pcc_array_new(3, 0, 0, 0)));
        }
    }

    #[test]
    fn structs_are_zeroed_and_distinct() {
        // SAFETY: the entry points are called as generated code would.
        unsafe {
            let s = pcc_struct_new(3, 0, 0);
            assert!((0..3).all(|i| struct_field(s, i) == 0));
            assert_ne!(pcc_struct_new(0, 0, 0), pcc_struct_new(0, 0, 0));
            assert!(!pcc_struct_new(0, 1, 0).is_null());
        }
    }
}
