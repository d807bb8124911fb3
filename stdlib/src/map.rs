//! Maps (`map[K]V`, keys `int` or `str`): a hash table that remembers insertion order.
//!
//! A map is a heap object of kind `Map` with seven slots:
//! `[count][used][flags][keys][values][hashes][table]`.
//! - `count`: live entries (what `len(m)` reads: slot 0, as an array's length);
//! - `used`: entries appended so far, deleted ones included; entry `i` is `keys[i]`, `values[i]`
//!   and `hashes[i]`, and entries are kept in insertion order, which `keys(m)` and printing follow;
//! - `flags`: [`STR_KEYS`], [`REF_VALUES`];
//! - `keys`, `values`: arrays of `capacity` slots (of references when keys are `str` / values are
//!   references, so the collector follows them); `hashes`: each entry's hash, [`DELETED`] once
//!   deleted; `table`: open addressing with linear probing over twice `capacity` slots, each
//!   [`EMPTY`], [`TOMBSTONE`] or an entry's index + 1.
//!
//! The four arrays are ordinary PL arrays, so the collector only has to mark them
//! ([`ARRAYS`]). They are null until the first `set`. When `used` reaches the capacity, the live
//! entries are copied, in order, into new arrays (twice as large unless deletions made room),
//! which also drops the table's tombstones; the table is never more than half full, so a probe
//! always ends at an empty slot and operations take constant time on average.

use crate::errors::{RuntimeError, raise};
use crate::gc::stack::entry_points;
use crate::gc::{self, Header, Kind};
use crate::value::{self, str_bytes};

const COUNT: usize = 0;
const USED: usize = 1;
const FLAGS: usize = 2;
const KEYS: usize = 3;
const VALUES: usize = 4;
const HASHES: usize = 5;
const TABLE: usize = 6;
const SLOTS: usize = 7;
/// The slots holding the map's arrays, which the collector marks.
pub const ARRAYS: [usize; 4] = [KEYS, VALUES, HASHES, TABLE];

/// Flag: the keys are strings (compared by content), not ints.
const STR_KEYS: u64 = 1;
/// Flag: the values are references.
const REF_VALUES: u64 = 2;

const EMPTY: u64 = 0;
const TOMBSTONE: u64 = u64::MAX;
/// The hash of a deleted entry; live hashes have their top bit clear.
const DELETED: u64 = u64::MAX;
/// The capacity of a map's first arrays.
const FIRST_CAPACITY: usize = 8;

entry_points! {
    /// A new empty map; `str_keys` (1) when its keys are strings, `ref_values` (1) when its
    /// values are references.
    fn pcc_map_new(str_keys: i8, ref_values: i8, loc: i64) -> *const u8 => map_new;
    /// `set(m, key, value)`: adds the entry, or replaces the value of the key's entry (which
    /// keeps its place in the order).
    fn pcc_map_set(map: *mut u8, key: u64, value: u64, loc: i64) -> () => map_set;
    /// `keys(m)`: a new array of the keys, in insertion order.
    fn pcc_map_keys(map: *const u8, loc: i64) -> *const u8 => map_keys;
}

/// Slot `i` of the map at `map`.
///
/// # Safety
/// `map` must point to a map.
unsafe fn slot(map: *const u8, i: usize) -> u64 {
    // SAFETY: a map has `SLOTS` slots (caller's contract).
    unsafe { map.cast::<u64>().add(i).read() }
}

/// Sets slot `i` of the map at `map`.
///
/// # Safety
/// `map` must point to a map.
unsafe fn set_slot(map: *mut u8, i: usize, bits: u64) {
    // SAFETY: as for `slot`.
    unsafe { map.cast::<u64>().add(i).write(bits) }
}

/// The address of element `i` of the array held in slot `array` of the map.
///
/// # Safety
/// `map` must point to a map whose array in slot `array` has more than `i` elements.
unsafe fn element(map: *const u8, array: usize, i: usize) -> *mut u64 {
    // SAFETY: the array has element `i` (caller's contract).
    unsafe { value::array_slot_mut(slot(map, array) as *const u8, i) }
}

/// The capacity of the map's entry arrays (0 before the first `set`).
///
/// # Safety
/// `map` must point to a map.
unsafe fn capacity(map: *const u8) -> usize {
    // SAFETY: the keys array is null or an array (caller's contract).
    unsafe {
        match slot(map, KEYS) {
            0 => 0,
            keys => value::array_len(keys as *const u8),
        }
    }
}

/// The hash of a key, its top bit clear (so it is never [`DELETED`]). Deterministic: iteration
/// follows insertion order anyway, but runs must not differ in speed from run to run either.
///
/// # Safety
/// When `str_keys`, `key` must be a PL string.
unsafe fn hash(key: u64, str_keys: bool) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = if str_keys {
        // SAFETY: the key is a string (caller's contract).
        let bytes = unsafe { str_bytes(key as *const u8) };
        let mut h = bytes.len() as u64;
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            h = (h.rotate_left(23) ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
        h
    } else {
        key
    };
    // The finalizer of MurmurHash3: every bit of the input reaches the low bits the table uses.
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h = h.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    h ^= h >> 33;
    h >> 1
}

/// Whether two keys are the same: by content for strings.
///
/// # Safety
/// When `str_keys`, both must be PL strings.
unsafe fn same_key(a: u64, b: u64, str_keys: bool) -> bool {
    // SAFETY: both are strings when `str_keys` (caller's contract).
    a == b || (str_keys && unsafe { str_bytes(a as *const u8) == str_bytes(b as *const u8) })
}

/// Where `key` is: its table slot and entry, or `None`.
///
/// # Safety
/// `map` must point to a map and `key` be a key of its type.
unsafe fn find(map: *const u8, key: u64, h: u64) -> Option<(usize, usize)> {
    // SAFETY: the map's arrays are as the module describes (caller's contract).
    unsafe {
        let table = slot(map, TABLE);
        if table == 0 {
            return None;
        }
        let str_keys = slot(map, FLAGS) & STR_KEYS != 0;
        let mask = value::array_len(table as *const u8) - 1;
        let mut at = h as usize & mask;
        loop {
            match *element(map, TABLE, at) {
                EMPTY => return None,
                TOMBSTONE => {}
                index => {
                    let entry = index as usize - 1;
                    if *element(map, HASHES, entry) == h
                        && same_key(*element(map, KEYS, entry), key, str_keys)
                    {
                        return Some((at, entry));
                    }
                }
            }
            at = (at + 1) & mask;
        }
    }
}

/// Records entry `entry`, of hash `h`, in the table at its first free slot.
///
/// # Safety
/// `map` must point to a map whose table has an empty slot.
unsafe fn insert_in_table(map: *const u8, entry: usize, h: u64) {
    // SAFETY: the table is an array of a power-of-two length (caller's contract).
    unsafe {
        let mask = value::array_len(slot(map, TABLE) as *const u8) - 1;
        let mut at = h as usize & mask;
        while *element(map, TABLE, at) != EMPTY {
            at = (at + 1) & mask;
        }
        *element(map, TABLE, at) = entry as u64 + 1;
    }
}

extern "C" fn map_new(str_keys: i8, ref_values: i8, loc: i64) -> *const u8 {
    let flag = |on: i8, flag: u64| if value::bool_arg(on) { flag } else { 0 };
    let flags = flag(str_keys, STR_KEYS) | flag(ref_values, REF_VALUES);
    let Some(map) = gc::alloc(SLOTS * 8, Header::new(Kind::Map), &[]) else {
        raise(RuntimeError::OutOfMemory, Some(loc))
    };
    let map = map.as_ptr();
    // SAFETY: a new, zeroed map.
    unsafe { set_slot(map, FLAGS, flags) };
    map
}

/// `get(m, key, default)`: the key's value, or `default`.
///
/// # Safety
/// `map` must point to a map, `key` be a key of its type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_map_get(map: *const u8, key: u64, default: u64) -> u64 {
    // SAFETY: as the caller guarantees.
    unsafe {
        let h = hash(key, slot(map, FLAGS) & STR_KEYS != 0);
        match find(map, key, h) {
            Some((_, entry)) => *element(map, VALUES, entry),
            None => default,
        }
    }
}

/// `has(m, key)`.
///
/// # Safety
/// As [`pcc_map_get`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_map_has(map: *const u8, key: u64) -> i8 {
    // SAFETY: as the caller guarantees.
    unsafe {
        let h = hash(key, slot(map, FLAGS) & STR_KEYS != 0);
        find(map, key, h).is_some() as i8
    }
}

/// `delete(m, key)`: removes the key's entry, if any.
///
/// # Safety
/// As [`pcc_map_get`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_map_delete(map: *mut u8, key: u64) {
    // SAFETY: as the caller guarantees.
    unsafe {
        let h = hash(key, slot(map, FLAGS) & STR_KEYS != 0);
        if let Some((at, entry)) = find(map, key, h) {
            *element(map, TABLE, at) = TOMBSTONE;
            *element(map, HASHES, entry) = DELETED;
            // Nothing keeps the deleted key and value alive.
            *element(map, KEYS, entry) = 0;
            *element(map, VALUES, entry) = 0;
            set_slot(map, COUNT, slot(map, COUNT) - 1);
        }
    }
}

extern "C" fn map_set(map: *mut u8, key: u64, value: u64, loc: i64) {
    // SAFETY: generated code passes a map and a key and value of its types.
    unsafe {
        let flags = slot(map, FLAGS);
        let h = hash(key, flags & STR_KEYS != 0);
        if let Some((_, entry)) = find(map, key, h) {
            *element(map, VALUES, entry) = value;
            return;
        }
        let used = slot(map, USED) as usize;
        if used == capacity(map) {
            // The key and value are references only when the flags say so.
            let key_ref = if flags & STR_KEYS != 0 { key } else { 0 };
            let value_ref = if flags & REF_VALUES != 0 { value } else { 0 };
            if grow(map, [key_ref as *const u8, value_ref as *const u8]).is_none() {
                raise(RuntimeError::OutOfMemory, Some(loc))
            }
        }
        let entry = slot(map, USED) as usize;
        *element(map, KEYS, entry) = key;
        *element(map, VALUES, entry) = value;
        *element(map, HASHES, entry) = h;
        insert_in_table(map, entry, h);
        set_slot(map, USED, entry as u64 + 1);
        set_slot(map, COUNT, slot(map, COUNT) + 1);
    }
}

/// Moves the live entries, in order, into new arrays with room for more; `None` when out of
/// memory. `keep`: the references the caller still needs (the entry being added).
///
/// # Safety
/// `map` must point to a map.
unsafe fn grow(map: *mut u8, keep: [*const u8; 2]) -> Option<()> {
    // SAFETY: the map's arrays are as the module describes (caller's contract).
    unsafe {
        let count = slot(map, COUNT) as usize;
        let old = capacity(map);
        let capacity = if old == 0 {
            FIRST_CAPACITY
        } else if count * 2 >= old {
            old.checked_mul(2)?
        } else {
            old
        };
        let flags = slot(map, FLAGS);
        let kind = |refs: bool| if refs { Kind::Refs } else { Kind::Scalars };
        let sizes = [
            (capacity, kind(flags & STR_KEYS != 0)),
            (capacity, kind(flags & REF_VALUES != 0)),
            (capacity, Kind::Scalars),
            (capacity.checked_mul(2)?, Kind::Scalars),
        ];
        // Each new array is kept alive while the next ones are allocated, and the map keeps
        // the old ones.
        let mut arrays = [std::ptr::null::<u8>(); 4];
        for (i, &(len, kind)) in sizes.iter().enumerate() {
            let mut roots = vec![map.cast_const(), keep[0], keep[1]];
            roots.extend_from_slice(&arrays[..i]);
            arrays[i] = value::new_zeroed_array(len, 8, Header::new(kind), &roots)?;
        }
        let [keys, values, hashes, table] = arrays;
        let mut live = 0;
        for entry in 0..slot(map, USED) as usize {
            let h = *element(map, HASHES, entry);
            if h == DELETED {
                continue;
            }
            let at = |array: *const u8| value::array_slot_mut(array, live);
            *at(keys) = *element(map, KEYS, entry);
            *at(values) = *element(map, VALUES, entry);
            *at(hashes) = h;
            live += 1;
        }
        set_slot(map, KEYS, keys as u64);
        set_slot(map, VALUES, values as u64);
        set_slot(map, HASHES, hashes as u64);
        set_slot(map, TABLE, table as u64);
        set_slot(map, USED, live as u64);
        for entry in 0..live {
            insert_in_table(map, entry, *element(map, HASHES, entry));
        }
    }
    Some(())
}

/// Each live entry's key and value bits, in insertion order.
///
/// # Safety
/// `map` must point to a map, which the caller keeps alive while it reads the entries.
pub unsafe fn entries(map: *const u8) -> impl Iterator<Item = (u64, u64)> {
    // SAFETY: as the caller guarantees.
    let used = unsafe { slot(map, USED) } as usize;
    (0..used).filter_map(move |entry| {
        // SAFETY: entries below `used` exist.
        unsafe {
            (*element(map, HASHES, entry) != DELETED)
                .then(|| (*element(map, KEYS, entry), *element(map, VALUES, entry)))
        }
    })
}

extern "C" fn map_keys(map: *const u8, loc: i64) -> *const u8 {
    // SAFETY: generated code passes a map.
    unsafe {
        let count = slot(map, COUNT) as usize;
        let kind = match slot(map, FLAGS) & STR_KEYS {
            0 => Kind::Scalars,
            _ => Kind::Refs,
        };
        let Some(keys) = value::new_zeroed_array(count, 8, Header::new(kind), &[map]) else {
            raise(RuntimeError::OutOfMemory, Some(loc))
        };
        for (i, (key, _)) in entries(map).enumerate() {
            value::array_slot_mut(keys, i).write(key);
        }
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::testing::str_value;

    #[test]
    fn int_keys_keep_their_order_through_growth_and_deletion() {
        // SAFETY: the entry points are called as generated code would.
        unsafe {
            let m = pcc_map_new(0, 0, 0).cast_mut();
            for k in 0..1000u64 {
                pcc_map_set(m, k * 7, k, 0);
            }
            assert_eq!(slot(m, COUNT), 1000);
            for k in (0..1000u64).step_by(2) {
                pcc_map_delete(m, k * 7);
            }
            pcc_map_set(m, 7, 42, 0);
            pcc_map_set(m, 0, 1, 0);
            assert_eq!(slot(m, COUNT), 501);
            assert_eq!(pcc_map_get(m, 7, 99), 42);
            assert_eq!(pcc_map_get(m, 14, 99), 99);
            assert_eq!(pcc_map_has(m, 0), 1);
            let keys: Vec<u64> = entries(m).map(|(k, _)| k).collect();
            assert_eq!(keys[..2], [7, 21]);
            assert_eq!(keys[keys.len() - 1], 0);
            // Many deletions and insertions of other keys: the arrays stop growing.
            for k in 0..100_000u64 {
                pcc_map_set(m, 1 << 40 | k, k, 0);
                pcc_map_delete(m, 1 << 40 | k);
            }
            assert_eq!(slot(m, COUNT), 501);
            assert!(capacity(m) <= 2048);
        }
    }

    #[test]
    fn str_keys_compare_by_content() {
        // SAFETY: as above; the keys are strings.
        unsafe {
            let m = pcc_map_new(1, 0, 0).cast_mut();
            pcc_map_set(m, str_value("apple") as u64, 1, 0);
            pcc_map_set(m, str_value("pear") as u64, 2, 0);
            pcc_map_set(m, str_value("apple") as u64, 3, 0);
            assert_eq!(slot(m, COUNT), 2);
            assert_eq!(pcc_map_get(m, str_value("apple") as u64, 0), 3);
            assert_eq!(pcc_map_has(m, str_value("plum") as u64), 0);
            let keys = pcc_map_keys(m, 0);
            assert_eq!(value::array_len(keys), 2);
            assert_eq!(str_bytes(value::array_slot(keys, 1) as *const u8), b"pear");
        }
    }
}
