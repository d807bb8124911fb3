//! `sort(a)`: an `[int]`, `[float]` or `[str]` array sorted in place, stable, ascending.

use std::cmp::Ordering;

use crate::value::{self, str_bytes};

/// The element kinds `pcc_sort` takes (the compiler passes one).
pub const SORT_INTS: i64 = 0;
/// Floats, in IEEE 754 totalOrder (`f64::total_cmp`): -NaN < -inf < -0.0 < 0.0 < inf < NaN.
pub const SORT_FLOATS: i64 = 1;
/// Strings, by their bytes.
pub const SORT_STRS: i64 = 2;

/// Sorts the array `a` of element kind `kind` (one of the `SORT_*`). It allocates nothing, so
/// it never collects.
///
/// # Safety
/// `a` must point to a PL array whose elements are of that kind.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_sort(a: *const u8, kind: i64) {
    // SAFETY: `a` is an array of slots (caller's contract), and nothing else reads it meanwhile.
    let slots = unsafe { value::array_slots_mut(a) };
    // `sort_by` is stable, as docs/LANGUAGE.md promises.
    match kind {
        SORT_INTS => slots.sort_by_key(|&bits| bits as i64),
        SORT_FLOATS => slots.sort_by(|&x, &y| f64::from_bits(x).total_cmp(&f64::from_bits(y))),
        // SAFETY: the slots are PL strings, alive while their array is.
        _ => slots.sort_by(|&x, &y| unsafe { compare_strs(x, y) }),
    }
}

/// Two strings by their bytes.
///
/// # Safety
/// `x` and `y` must be (the bits of) pointers to PL strings.
unsafe fn compare_strs(x: u64, y: u64) -> Ordering {
    // SAFETY: as the caller guarantees.
    unsafe { str_bytes(x as *const u8).cmp(str_bytes(y as *const u8)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::testing::{array_value, str_value};
    use crate::value::{array_len, array_slot};

    fn slots(a: *const u8) -> Vec<u64> {
        // SAFETY: `a` is a hand-built array.
        unsafe { (0..array_len(a)).map(|i| array_slot(a, i)).collect() }
    }

    #[test]
    fn sorts_ints_floats_and_strings() {
        let ints = array_value(&[3, (-1i64) as u64, 2, (-1i64) as u64, i64::MIN as u64]);
        // SAFETY: an array of ints.
        unsafe { pcc_sort(ints, SORT_INTS) };
        let ints: Vec<i64> = slots(ints).into_iter().map(|b| b as i64).collect();
        assert_eq!(ints, [i64::MIN, -1, -1, 2, 3]);

        let values = [
            f64::NAN,
            1.0,
            -0.0,
            0.0,
            f64::NEG_INFINITY,
            -f64::NAN,
            f64::INFINITY,
        ];
        let floats = array_value(&values.map(f64::to_bits));
        // SAFETY: an array of floats.
        unsafe { pcc_sort(floats, SORT_FLOATS) };
        let shown: Vec<String> = (slots(floats).into_iter())
            .map(|b| format!("{:?}{}", f64::from_bits(b), b >> 63))
            .collect();
        assert_eq!(
            shown,
            ["NaN1", "-inf1", "-0.01", "0.00", "1.00", "inf0", "NaN0"]
        );

        let words = ["b", "", "ab", "a", "ba"].map(|w| str_value(w) as u64);
        let strs = array_value(&words);
        // SAFETY: an array of strings.
        unsafe { pcc_sort(strs, SORT_STRS) };
        // SAFETY: the slots are the strings above.
        let sorted: Vec<&[u8]> = (slots(strs).into_iter())
            .map(|s| unsafe { str_bytes(s as *const u8) })
            .collect();
        assert_eq!(sorted, [&b""[..], b"a", b"ab", b"b", b"ba"]);
    }
}
