//! Allocation of arrays (`[e1, e2]`, `[v; n]`, the empty default; `[bool]` arrays hold
//! `value::BOOL_SIZE` bytes per element, the others a slot) and structs (`new S {...}`), in the
//! collected heap; allocation failure is the `out of memory` runtime error, never an abort.

use crate::errors::{RuntimeError, raise};
use crate::gc::stack::entry_points;
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
