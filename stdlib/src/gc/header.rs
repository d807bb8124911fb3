//! The header word in front of every PL object (at `object - 8`), which the collector reads to
//! know what an object holds and whether it is marked. The generated code never reads it: a
//! reference still points at the length or the first field, as docs/CONVENTIONS.md lays out.
//!
//! Bits 0–2: the kind; bit 3: the mark; bit 4: appendable (a string made by an append, with room
//! after its bytes); bits 8–31: the struct's number (`ProgramInfo::structs`); bits 32–63: the
//! object's capacity, the bytes after the header (saturated at `u32::MAX`).

/// Bytes of the header.
pub const HEADER_BYTES: usize = 8;

/// What an object holds, which decides how the collector scans it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// A free cell of the heap (its header is 0).
    Free = 0,
    /// Not in the heap: string literals, the empty string and array, `chr`'s strings, program
    /// arguments. Never marked, never freed.
    Static = 1,
    Str = 2,
    /// An array whose elements are not references (ints, floats, bools).
    Scalars = 3,
    /// An array of references.
    Refs = 4,
    Struct = 5,
    /// A map (`crate::map`): its slots `map::ARRAYS` are the arrays that hold its entries.
    Map = 6,
    /// The length and elements of an array that grew (`push`, `insert`) past the room it was
    /// made with: the array's data pointer points after the length, and the collector scans
    /// the elements through the array.
    Buffer = 7,
}

const KIND_MASK: u64 = 0b111;
pub const MARK: u64 = 1 << 3;
const APPENDABLE: u64 = 1 << 4;
const STRUCT_SHIFT: u32 = 8;
const STRUCT_MASK: u64 = (1 << 24) - 1;
const CAPACITY_SHIFT: u32 = 32;

/// The header of every static object.
pub const STATIC: u64 = Kind::Static as u64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header(pub u64);

impl Header {
    pub const fn new(kind: Kind) -> Header {
        Header(kind as u64)
    }

    /// A struct's header: its number in the program's struct table (truncated to 24 bits; the
    /// compiler numbers far fewer).
    pub const fn of_struct(id: usize) -> Header {
        Header(Kind::Struct as u64 | (id as u64 & STRUCT_MASK) << STRUCT_SHIFT)
    }

    pub fn appendable(self) -> Header {
        Header(self.0 | APPENDABLE)
    }

    pub fn with_capacity(self, bytes: usize) -> Header {
        let capacity = u64::try_from(bytes)
            .unwrap_or(u64::MAX)
            .min(u64::from(u32::MAX));
        Header(self.0 & !(u64::MAX << CAPACITY_SHIFT) | capacity << CAPACITY_SHIFT)
    }

    pub fn kind(self) -> Kind {
        match self.0 & KIND_MASK {
            0 => Kind::Free,
            1 => Kind::Static,
            2 => Kind::Str,
            3 => Kind::Scalars,
            4 => Kind::Refs,
            5 => Kind::Struct,
            6 => Kind::Map,
            _ => Kind::Buffer,
        }
    }

    pub fn is_marked(self) -> bool {
        self.0 & MARK != 0
    }

    pub fn is_appendable(self) -> bool {
        self.0 & APPENDABLE != 0
    }

    pub fn struct_id(self) -> usize {
        (self.0 >> STRUCT_SHIFT & STRUCT_MASK) as usize
    }

    pub fn capacity(self) -> usize {
        (self.0 >> CAPACITY_SHIFT) as usize
    }
}

/// The header word of the object at `object`.
///
/// # Safety
/// `object` must point to a PL object (heap or static), which always has a header before it.
pub unsafe fn header_word(object: *const u8) -> *mut u64 {
    // SAFETY: every PL object is preceded by its header (caller's contract).
    unsafe { object.sub(HEADER_BYTES).cast::<u64>().cast_mut() }
}

/// The header of the object at `object`.
///
/// # Safety
/// As [`header_word`].
pub unsafe fn header(object: *const u8) -> Header {
    // SAFETY: as the caller guarantees.
    Header(unsafe { header_word(object).read() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let h = Header::of_struct(77).with_capacity(40);
        assert_eq!(
            (h.kind(), h.struct_id(), h.capacity()),
            (Kind::Struct, 77, 40)
        );
        assert!(!h.is_marked() && !h.is_appendable());
        let s = Header::new(Kind::Str)
            .appendable()
            .with_capacity(usize::MAX);
        assert_eq!((s.kind(), s.capacity()), (Kind::Str, u32::MAX as usize));
        assert!(s.is_appendable());
        assert!(Header(s.0 | MARK).is_marked());
        assert_eq!(Header(STATIC).kind(), Kind::Static);
        assert_eq!(Header(0).kind(), Kind::Free);
    }
}
