//! The mark phase: every object reachable from the roots gets the mark bit of its header. The
//! objects still to scan wait on an explicit work list, so a list of millions of nodes takes
//! memory for its length in the list at most, never stack.

use super::header::{Header, Kind, MARK, header_word};
use crate::value::{array_buffer, array_is_inline, array_len, array_slot, struct_field};

pub struct Marker<'a> {
    work: Vec<*const u8>,
    /// The fields holding references, per struct of the program.
    structs: &'a [Box<[u32]>],
}

impl<'a> Marker<'a> {
    pub fn new(structs: &'a [Box<[u32]>]) -> Marker<'a> {
        Marker {
            work: Vec::new(),
            structs,
        }
    }

    /// Marks the object `reference` points to (if any, and if not static), and queues it to be
    /// scanned when it holds references.
    #[inline]
    pub fn mark(&mut self, reference: *const u8) {
        if reference.is_null() {
            return;
        }
        // SAFETY: every non-null reference points to a PL object, which has a header.
        let word = unsafe { &mut *header_word(reference) };
        let header = Header(*word);
        if header.is_marked() {
            return;
        }
        if header.kind() != Kind::Static {
            *word |= MARK;
        }
        match header.kind() {
            // A buffer is reached through its array only, which scans its elements.
            Kind::Static | Kind::Str | Kind::Buffer => {}
            // SAFETY: `reference` is an array.
            Kind::Scalars => unsafe { self.mark_buffer(reference) },
            Kind::Refs | Kind::Struct | Kind::Map => self.work.push(reference),
            Kind::Free => panic!("gc: a live reference to a freed object at {reference:p}"),
        }
    }

    /// Marks the buffer of the array at `array`, if its elements are not inline.
    ///
    /// # Safety
    /// `array` must point to a heap array.
    #[inline]
    unsafe fn mark_buffer(&mut self, array: *const u8) {
        // SAFETY: as the caller guarantees; a buffer is a heap object with a header.
        unsafe {
            if !array_is_inline(array) {
                *header_word(array_buffer(array)) |= MARK;
            }
        }
    }

    /// Marks everything reachable from what is marked so far.
    pub fn finish(&mut self) {
        while let Some(object) = self.work.pop() {
            // SAFETY: only marked heap objects are queued; their header says what they hold.
            unsafe {
                let header = Header(*header_word(object));
                if header.kind() == Kind::Refs {
                    self.mark_buffer(object);
                    for i in 0..array_len(object) {
                        self.mark(array_slot(object, i) as *const u8);
                    }
                } else if header.kind() == Kind::Map {
                    for slot in crate::map::ARRAYS {
                        self.mark(struct_field(object, slot) as *const u8);
                    }
                } else {
                    for &field in self.structs[header.struct_id()].iter() {
                        self.mark(struct_field(object, field as usize) as *const u8);
                    }
                }
            }
        }
    }
}
