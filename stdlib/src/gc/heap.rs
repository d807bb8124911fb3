//! Where PL objects live: cells of segregated size classes in 256 KiB blocks, and large objects on
//! their own. Non-moving, so a reference the runtime or the generated code holds stays valid
//! across a collection.
//!
//! A small allocation pops its class's free list or bumps through a fresh block, and writes the
//! header: no lock (each thread has its heap; a PL program runs on one) and no per-allocation
//! bookkeeping. A collection ([`crate::gc::collect`]) marks what is reachable; [`Heap::sweep`]
//! then threads each block's unmarked cells onto its class's free list, and gives a block with no
//! live cell back to the pool that any class draws from. Large objects come from the system
//! allocator and go back to it when unmarked.
//!
//! Memory handed out is zeroed: fresh blocks come zeroed from the OS, a reused cell is cleared
//! when taken, a reused block when a class takes it.

use std::alloc::{self, Layout};
use std::ptr::{self, NonNull};

use super::header::{HEADER_BYTES, Header, MARK};

/// Size of a block; every cell of a block has its class's size.
pub const BLOCK: usize = 256 << 10;
/// Blocks are carved from chunks of this size (transparent huge pages where granted).
const CHUNK: usize = 4 << 20;
/// Every cell and object is 8-byte aligned: all slots and headers are 8-byte words.
const ALIGN: usize = 8;

/// The cell sizes, header included: steps of at most a quarter, so a cell wastes at most about
/// 20% of itself. Larger objects are large objects. Up to 32 KiB, so that a program making a
/// scratch array of a few thousand elements per iteration (AWFY's Sieve: 20 KB) reuses cells:
/// the system allocator gave such objects back to the OS in every collection and took fresh
/// pages again (a third of Sieve's time went to the kernel).
const CLASS_SIZES: [usize; 43] = [
    16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384, 448, 512, 640, 768,
    896, 1024, 1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096, 5120, 6144, 7168, 8192, 10240,
    12288, 14336, 16384, 20480, 24576, 28672, 32768,
];
/// The largest cell; an object needing more is large.
const MAX_CELL: usize = 32768;

/// The class of a cell of `8 * i` bytes.
const CLASS_OF: [u8; MAX_CELL / 8 + 1] = {
    let mut table = [0u8; MAX_CELL / 8 + 1];
    let (mut words, mut class) = (0, 0);
    while words <= MAX_CELL / 8 {
        while CLASS_SIZES[class] < words * 8 {
            class += 1;
        }
        table[words] = class as u8;
        words += 1;
    }
    table
};

/// Collections start once the heap holds this much.
const MIN_HEAP: usize = 8 << 20;
/// After a collection the heap may grow to this multiple of what survived.
const GROWTH: usize = 2;
/// ... and at least this much past what it holds after the collection, so that a heap whose
/// blocks hold few live cells each does not collect again at once.
const SLACK: usize = 4 << 20;

/// One size class: its free cells (linked through their second word; the first, the header, is 0)
/// and the unused rest of its newest block.
#[derive(Clone, Copy)]
struct Class {
    free: *mut u8,
    bump: *mut u8,
    end: *mut u8,
}

const NO_CELLS: Class = Class {
    free: ptr::null_mut(),
    bump: ptr::null_mut(),
    end: ptr::null_mut(),
};

struct Block {
    base: *mut u8,
    class: u8,
}

/// A large object: its allocation (header first) and size.
struct Large {
    start: *mut u8,
    bytes: usize,
}

pub struct Heap {
    classes: [Class; CLASS_SIZES.len()],
    /// The blocks the classes hold.
    blocks: Vec<Block>,
    /// Blocks no class holds, their contents left from before.
    empty: Vec<*mut u8>,
    /// The part of the newest chunk not yet made a block (zero).
    fresh: *mut u8,
    fresh_end: *mut u8,
    large: Vec<Large>,
    /// Bytes of the blocks the classes hold and of the large objects.
    pub in_use: usize,
    /// A small allocation that needs a new block, or a large one, first collects past this.
    pub threshold: usize,
    /// Allocations left until the next collection of the stress mode (`u64::MAX`: none).
    pub countdown: u64,
}

impl Heap {
    pub const fn new() -> Heap {
        Heap {
            classes: [NO_CELLS; CLASS_SIZES.len()],
            blocks: Vec::new(),
            empty: Vec::new(),
            fresh: ptr::null_mut(),
            fresh_end: ptr::null_mut(),
            large: Vec::new(),
            in_use: 0,
            threshold: MIN_HEAP,
            countdown: u64::MAX,
        }
    }

    /// A zeroed object of `size` bytes with `header` (whose capacity is filled in) in front of
    /// it, or `None` when out of memory; `collect` is called, with the heap, when the heap should
    /// be collected first.
    #[inline(always)]
    pub fn alloc(
        &mut self,
        size: usize,
        header: Header,
        collect: impl FnOnce(&mut Heap),
    ) -> Option<NonNull<u8>> {
        let cell = size.checked_add(HEADER_BYTES)?;
        self.countdown -= 1;
        if cell <= MAX_CELL && self.countdown != 0 {
            let class = CLASS_OF[cell.div_ceil(8)] as usize;
            if let Some(cell) = self.take(class) {
                return Some(start(cell, header, CLASS_SIZES[class]));
            }
        }
        self.alloc_slow(cell, header, collect)
    }

    /// A zeroed cell of class `class` from its free list or its newest block.
    #[inline(always)]
    fn take(&mut self, class: usize) -> Option<*mut u8> {
        let size = CLASS_SIZES[class];
        let cells = &mut self.classes[class];
        let cell = cells.free;
        if !cell.is_null() {
            // SAFETY: a free cell holds the next free cell in its second word, and is `size`
            // bytes of this heap's.
            unsafe {
                cells.free = cell.add(8).cast::<*mut u8>().read();
                ptr::write_bytes(cell, 0, size);
            }
            return Some(cell);
        }
        if (cells.end as usize) - (cells.bump as usize) >= size {
            // SAFETY: `bump + size` stays inside the class's newest block, which is zero there.
            cells.bump = unsafe { cells.bump.add(size) };
            return Some(cell_before(cells.bump, size));
        }
        None
    }

    #[cold]
    fn alloc_slow(
        &mut self,
        cell: usize,
        header: Header,
        collect: impl FnOnce(&mut Heap),
    ) -> Option<NonNull<u8>> {
        let stressed = self.countdown == 0;
        if cell > MAX_CELL {
            let bytes = cell.checked_next_multiple_of(ALIGN)?;
            if stressed || self.in_use.saturating_add(bytes) > self.threshold {
                collect(self);
            }
            return self.alloc_large(bytes, header);
        }
        let class = CLASS_OF[cell.div_ceil(8)] as usize;
        if stressed || self.in_use + BLOCK > self.threshold {
            collect(self);
        }
        let cell = match self.take(class) {
            Some(cell) => cell,
            None => {
                self.new_block(class)?;
                self.take(class)?
            }
        };
        Some(start(cell, header, CLASS_SIZES[class]))
    }

    fn alloc_large(&mut self, bytes: usize, header: Header) -> Option<NonNull<u8>> {
        if !super::fits(bytes - HEADER_BYTES, self.in_use) {
            return None;
        }
        let layout = Layout::from_size_align(bytes, ALIGN).ok()?;
        // SAFETY: `layout` has a non-zero size (at least a header).
        let start_ptr = NonNull::new(unsafe { alloc::alloc_zeroed(layout) })?.as_ptr();
        self.large.push(Large {
            start: start_ptr,
            bytes,
        });
        self.in_use += bytes;
        super::stats::heap_grew(self.in_use);
        Some(start(start_ptr, header, bytes))
    }

    /// Gives class `class` a zeroed block to bump through; `None` when out of memory.
    fn new_block(&mut self, class: usize) -> Option<()> {
        if !super::fits(BLOCK, self.in_use) {
            return None;
        }
        let base = match self.empty.pop() {
            Some(base) => {
                // SAFETY: an empty block is BLOCK bytes of this heap's that nothing references.
                unsafe { ptr::write_bytes(base, 0, BLOCK) };
                base
            }
            None => {
                if self.fresh == self.fresh_end {
                    let chunk = alloc_chunk(CHUNK)?.as_ptr();
                    self.fresh = chunk;
                    // SAFETY: the chunk has CHUNK bytes.
                    self.fresh_end = unsafe { chunk.add(CHUNK) };
                }
                let base = self.fresh;
                // SAFETY: CHUNK is a multiple of BLOCK, so the block lies in the chunk.
                self.fresh = unsafe { base.add(BLOCK) };
                base
            }
        };
        let size = CLASS_SIZES[class];
        self.blocks.push(Block {
            base,
            class: class as u8,
        });
        // The new block's cells come after the class's free cells, which the collection left.
        self.classes[class].bump = base;
        // SAFETY: the cells fit in the block.
        self.classes[class].end = unsafe { base.add(BLOCK / size * size) };
        self.in_use += BLOCK;
        super::stats::heap_grew(self.in_use);
        Some(())
    }

    /// Frees every unmarked object and unmarks the others; returns the bytes of the live ones.
    /// The caller has marked every reachable object.
    pub fn sweep(&mut self) -> usize {
        self.classes = [NO_CELLS; CLASS_SIZES.len()];
        let mut live = 0;
        let (classes, empty) = (&mut self.classes, &mut self.empty);
        self.blocks.retain(|block| {
            let size = CLASS_SIZES[block.class as usize];
            // SAFETY: the block's cells are `size` bytes each, every one headed by its header
            // (0 when free, and the cells past the newest block's bump pointer are zero).
            let (first, last, cells) = unsafe { sweep_block(block.base, size) };
            if cells == 0 {
                empty.push(block.base);
                return false;
            }
            live += cells * size;
            if !first.is_null() {
                let class = &mut classes[block.class as usize];
                // SAFETY: `last` is a free cell of this block.
                unsafe { last.add(8).cast::<*mut u8>().write(class.free) };
                class.free = first;
            }
            true
        });
        self.large.retain(|object| {
            // SAFETY: a large object's allocation starts with its header.
            let word = unsafe { &mut *object.start.cast::<u64>() };
            if *word & MARK != 0 {
                *word &= !MARK;
                live += object.bytes;
                return true;
            }
            let layout = Layout::from_size_align(object.bytes, ALIGN).expect("allocated so");
            // SAFETY: allocated with this layout, and unreachable.
            unsafe { alloc::dealloc(object.start, layout) };
            false
        });
        let large: usize = self.large.iter().map(|object| object.bytes).sum();
        self.in_use = self.blocks.len() * BLOCK + large;
        self.threshold = (live * GROWTH).max(self.in_use + SLACK).max(MIN_HEAP);
        live
    }
}

/// Unmarks the marked cells of the block at `base` (cells of `size` bytes) and links the others
/// in address order; returns the first and last of them and the number of live cells.
///
/// # Safety
/// As [`Heap::sweep`] says of the block.
unsafe fn sweep_block(base: *mut u8, size: usize) -> (*mut u8, *mut u8, usize) {
    let (mut first, mut last) = (ptr::null_mut::<u8>(), ptr::null_mut::<u8>());
    let mut live = 0;
    for i in (0..BLOCK / size).rev() {
        // SAFETY: cell `i` lies in the block (caller's contract).
        unsafe {
            let cell = base.add(i * size);
            let word = cell.cast::<u64>();
            if word.read() & MARK != 0 {
                word.write(word.read() & !MARK);
                live += 1;
                continue;
            }
            word.write(0);
            cell.add(8).cast::<*mut u8>().write(first);
            if first.is_null() {
                last = cell;
            }
            first = cell;
        }
    }
    (first, last, live)
}

/// The cell of `size` bytes that ends at `end`.
fn cell_before(end: *mut u8, size: usize) -> *mut u8 {
    end.wrapping_sub(size)
}

/// Writes `header`, with the capacity of a cell of `size` bytes, at `cell` and returns the
/// object after it.
#[inline(always)]
fn start(cell: *mut u8, header: Header, size: usize) -> NonNull<u8> {
    // SAFETY: `cell` is a zeroed cell of `size` bytes, at least a header and a word.
    unsafe {
        cell.cast::<u64>()
            .write(header.with_capacity(size - HEADER_BYTES).0);
        NonNull::new_unchecked(cell.add(HEADER_BYTES))
    }
}

fn alloc_chunk(size: usize) -> Option<NonNull<u8>> {
    if let Some(chunk) = huge_page_chunk(size) {
        return Some(chunk);
    }
    let layout = Layout::from_size_align(size, BLOCK).ok()?;
    // SAFETY: `layout` has a non-zero size.
    NonNull::new(unsafe { alloc::alloc_zeroed(layout) })
}

/// Transparent huge pages are 2 MiB on x86-64 and aarch64 Linux.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// A zeroed mapping of `size` bytes on a 2 MiB boundary, backed by transparent huge pages where the
/// kernel grants them: one fault per 2 MiB of fresh blocks instead of one per 4 KiB page.
#[cfg(target_os = "linux")]
fn huge_page_chunk(size: usize) -> Option<NonNull<u8>> {
    let len = size.checked_add(HUGE_PAGE)?;
    // SAFETY: an anonymous private mapping has no preconditions; failure is MAP_FAILED.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base == libc::MAP_FAILED {
        return None;
    }
    let aligned = (base as usize).next_multiple_of(HUGE_PAGE) as *mut u8;
    // SAFETY: `aligned..aligned + size` lies inside the mapping. A refused hint is harmless.
    unsafe { libc::madvise(aligned.cast(), size, libc::MADV_HUGEPAGE) };
    NonNull::new(aligned)
}

#[cfg(not(target_os = "linux"))]
fn huge_page_chunk(_size: usize) -> Option<NonNull<u8>> {
    None
}

#[cfg(test)]
mod tests {
    use super::super::header::{Kind, header, header_word};
    use super::*;

    fn no_collection(_: &mut Heap) {
        panic!("no collection expected");
    }

    #[test]
    fn every_size_has_a_class_that_holds_it() {
        for words in 2..=MAX_CELL / 8 {
            let size = CLASS_SIZES[CLASS_OF[words] as usize];
            assert!(size >= words * 8);
            assert!(
                size - words * 8 <= size / 4,
                "{words} words in {size} bytes"
            );
        }
    }

    #[test]
    fn allocations_are_zeroed_aligned_distinct_and_headed() {
        let mut heap = Heap::new();
        let mut seen = Vec::new();
        for size in [0, 1, 7, 8, 9, 100, MAX_CELL - 8, MAX_CELL, 100_000] {
            let object = heap
                .alloc(size, Header::new(Kind::Scalars), no_collection)
                .unwrap()
                .as_ptr();
            assert_eq!(object as usize % ALIGN, 0);
            // SAFETY: the object has at least `size` bytes and a header.
            unsafe {
                let bytes = std::slice::from_raw_parts(object, size);
                assert!(bytes.iter().all(|&b| b == 0));
                assert_eq!(header(object).kind(), Kind::Scalars);
                assert!(header(object).capacity() >= size);
            }
            seen.push(object);
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 9);
    }

    /// What is not marked is freed and reused, zeroed; what is marked survives, unmarked.
    #[test]
    fn a_sweep_frees_the_unmarked_and_keeps_the_marked() {
        let mut heap = Heap::new();
        let objects: Vec<*mut u8> = (0..10_000)
            .map(|_| {
                let object = heap.alloc(16, Header::new(Kind::Str), no_collection);
                let object = object.unwrap().as_ptr();
                // SAFETY: the object has 16 bytes.
                unsafe { object.write_bytes(0xab, 16) };
                object
            })
            .collect();
        let big = heap.alloc(1 << 20, Header::new(Kind::Str), no_collection);
        let big = big.unwrap().as_ptr();
        for &object in objects.iter().step_by(2).chain([&big]) {
            // SAFETY: a heap object's header.
            unsafe { *header_word(object) |= MARK };
        }
        let live = heap.sweep();
        assert_eq!(live, 5_000 * 24 + (1 << 20) + 8);
        for &object in objects.iter().step_by(2) {
            // SAFETY: survivors keep their header and contents.
            unsafe {
                assert!(!header(object).is_marked());
                assert_eq!(object.read(), 0xab);
            }
        }
        let mut reused = 0;
        for _ in 0..5_000 {
            let object = heap.alloc(16, Header::new(Kind::Str), no_collection);
            let object = object.unwrap().as_ptr();
            // SAFETY: a fresh object of 16 bytes.
            let bytes = unsafe { std::slice::from_raw_parts(object, 16) };
            assert!(bytes.iter().all(|&b| b == 0));
            reused += usize::from(objects.contains(&object));
        }
        assert_eq!(reused, 5_000);
    }

    #[test]
    fn an_empty_block_goes_to_any_class_zeroed() {
        let mut heap = Heap::new();
        let first = heap.alloc(8, Header::new(Kind::Str), no_collection);
        // SAFETY: 8 bytes.
        unsafe { first.unwrap().as_ptr().write_bytes(0xff, 8) };
        heap.sweep();
        assert_eq!(heap.in_use, 0);
        let other = heap.alloc(1000, Header::new(Kind::Str), no_collection);
        let other = other.unwrap().as_ptr();
        // SAFETY: 1000 bytes.
        let bytes = unsafe { std::slice::from_raw_parts(other, 1000) };
        assert!(bytes.iter().all(|&b| b == 0));
        assert_eq!(heap.in_use, BLOCK);
    }

    #[test]
    fn a_full_heap_collects_before_it_grows() {
        let mut heap = Heap::new();
        let mut collections = 0;
        for _ in 0..2 * MIN_HEAP / 1024 {
            let collect = |heap: &mut Heap| {
                collections += 1;
                heap.sweep();
            };
            heap.alloc(1016, Header::new(Kind::Str), collect).unwrap();
        }
        assert!(collections >= 1);
        assert!(heap.in_use <= MIN_HEAP + BLOCK);
    }

    #[test]
    fn impossible_sizes_fail_instead_of_aborting() {
        let mut heap = Heap::new();
        for size in [usize::MAX, usize::MAX - 7, isize::MAX as usize] {
            let collect = |heap: &mut Heap| {
                heap.sweep();
            };
            assert!(heap.alloc(size, Header::new(Kind::Str), collect).is_none());
        }
    }
}
