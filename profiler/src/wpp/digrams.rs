//! The digram index of SEQUITUR: from a pair of adjacent symbol values to the node starting the
//! registered occurrence. The linear-time bound of [WPP] §3.1 assumes such a hash table (footnote
//! 1; PPCompress itself used per-symbol search trees to save space).
//!
//! Open addressing with linear probing over 8-byte slots `(tag, node)`: the tag is 32 bits of
//! the key's hash (never 0, which marks an empty slot), and a slot's home position is the tag's
//! top bits. Keys are not stored: a tag match is confirmed by reading the key off the node (the
//! caller's `key_of`), which SEQUITUR reads next anyway. Growing and deleting (backward shift)
//! need only the tags, and removing the entry of a known node compares node ids, not keys. One
//! cache line per lookup in the common case, against two for a control-byte table with 24-byte
//! entries.

/// A digram: the values of two adjacent symbols.
pub(crate) type Key = (u64, u64);

const MIN_BITS: u32 = 6;

#[derive(Clone, Debug)]
pub(crate) struct DigramTable {
    slots: Vec<u64>,
    bits: u32,
    len: usize,
}

impl DigramTable {
    pub(crate) fn new() -> DigramTable {
        DigramTable {
            slots: vec![0; 1 << MIN_BITS],
            bits: MIN_BITS,
            len: 0,
        }
    }

    /// The 32-bit hash tag of `key` (never 0).
    #[inline]
    pub(crate) fn tag(key: Key) -> u32 {
        let h =
            (key.0.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ key.1).wrapping_mul(0xd6e8_feb8_6659_fd93);
        let t = (h >> 32) as u32;
        t | u32::from(t == 0)
    }

    #[inline]
    fn home(&self, tag: u32) -> usize {
        (tag >> (32 - self.bits)) as usize
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The slot holding `key`, or else the empty slot where it would be inserted.
    #[inline]
    pub(crate) fn find(
        &self,
        key: Key,
        tag: u32,
        key_of: impl Fn(u32) -> Key,
    ) -> Result<usize, usize> {
        let mask = self.mask();
        let mut i = self.home(tag);
        loop {
            let s = self.slots[i];
            if s == 0 {
                return Err(i);
            }
            if (s >> 32) as u32 == tag && key_of(s as u32) == key {
                return Ok(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// The node in an occupied slot.
    #[inline]
    pub(crate) fn node(&self, slot: usize) -> u32 {
        self.slots[slot] as u32
    }

    /// Points an occupied slot at another node with the same key.
    #[inline]
    pub(crate) fn set_node(&mut self, slot: usize, node: u32) {
        self.slots[slot] = (self.slots[slot] & !0xffff_ffff) | u64::from(node);
    }

    /// Fills the empty slot `slot` that [`find`](Self::find) returned for a key with `tag`.
    #[inline]
    pub(crate) fn insert_at(&mut self, slot: usize, tag: u32, node: u32) {
        debug_assert_eq!(self.slots[slot], 0);
        self.slots[slot] = (u64::from(tag) << 32) | u64::from(node);
        self.len += 1;
        if self.len * 4 > self.slots.len() * 3 {
            self.grow();
        }
    }

    /// Removes the entry `(tag, node)`; returns whether it was there.
    pub(crate) fn remove(&mut self, tag: u32, node: u32) -> bool {
        let want = (u64::from(tag) << 32) | u64::from(node);
        let mask = self.mask();
        let mut hole = self.home(tag);
        loop {
            let s = self.slots[hole];
            if s == want {
                break;
            }
            if s == 0 {
                return false;
            }
            hole = (hole + 1) & mask;
        }
        // Backward shift: pull later entries of the probe run into the hole when the hole lies
        // between their home and where they are.
        let mut j = (hole + 1) & mask;
        loop {
            let s = self.slots[j];
            if s == 0 {
                break;
            }
            let home = self.home((s >> 32) as u32);
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(hole) & mask) {
                self.slots[hole] = s;
                hole = j;
            }
            j = (j + 1) & mask;
        }
        self.slots[hole] = 0;
        self.len -= 1;
        true
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        self.bits += 1;
        assert!(self.bits <= 32, "digram table exceeds 2^32 slots");
        self.slots = vec![0; 1 << self.bits];
        let mask = self.mask();
        for s in old.into_iter().filter(|&s| s != 0) {
            let mut i = self.home((s >> 32) as u32);
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = s;
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Every entry as `(tag, node)`.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.slots
            .iter()
            .filter(|&&s| s != 0)
            .map(|&s| ((s >> 32) as u32, s as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Against a HashMap, with node n standing for key (n % 97, n / 97).
    #[test]
    fn behaves_like_a_map() {
        let key_of = |n: u32| (u64::from(n % 97), u64::from(n / 97));
        let mut t = DigramTable::new();
        let mut m: HashMap<Key, u32> = HashMap::new();
        let mut x = 12345u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = (x % 5000) as u32;
            let key = key_of(n);
            let tag = DigramTable::tag(key);
            match t.find(key, tag, key_of) {
                Ok(slot) => {
                    assert_eq!(m.get(&key), Some(&t.node(slot)));
                    if x.is_multiple_of(3) {
                        assert!(t.remove(tag, n));
                        m.remove(&key);
                    }
                }
                Err(slot) => {
                    assert_eq!(m.get(&key), None);
                    t.insert_at(slot, tag, n);
                    m.insert(key, n);
                }
            }
            assert_eq!(t.len(), m.len());
        }
        assert_eq!(t.entries().count(), m.len());
        assert!(!t.remove(1, 1));
    }
}
