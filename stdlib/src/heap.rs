//! Memory for PL objects: a bump allocator, with activation regions.
//!
//! PL never frees memory (docs/LANGUAGE.md), so objects are carved out of large zeroed chunks: an allocation is a
//! pointer bump, and zeroing is free because fresh chunks come from the OS already zeroed. Each thread has its
//! own chunk (a PL program runs on one thread), so the fast path takes no lock. Allocation is fallible: callers
//! turn `None` into the `out of memory` runtime error instead of aborting.
//!
//! The one exception: `-O 2` brackets a function whose objects cannot outlive its activation with
//! [`pcc_heap_mark`] and [`pcc_heap_release`] (`compiler/src/opt/region.rs`), and the release gives
//! the bytes allocated since the mark back to the bump pointer. Everything past the bump pointer of the
//! current chunk stays zero, so a release zeroes what it takes back.

use std::alloc::{self, Layout};
use std::cell::{Cell, RefCell};
use std::ptr::NonNull;

/// Size of the chunks small objects are carved from.
const CHUNK: usize = 4 << 20;
/// Objects larger than this get their own allocation, so that a chunk never wastes more than this at its end.
const LARGE: usize = 64 << 10;
/// Every object is 8-byte aligned: all slots and headers are 8-byte words.
const ALIGN: usize = 8;

thread_local! {
    /// The current chunk: next free byte and bytes left.
    static CURRENT: Cell<(*mut u8, usize)> = const { Cell::new((std::ptr::null_mut(), 0)) };
    /// The marks of the activation regions that have started and not ended, innermost last. Kept
    /// here rather than in the generated code so that a region costs its function no register.
    static MARKS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// Allocates `size` zeroed bytes, 8-byte aligned, never freed. Every call returns a distinct non-null
/// pointer, also for `size == 0` (struct identity is pointer identity, even for structs without fields).
pub fn alloc_zeroed(requested: usize) -> Option<NonNull<u8>> {
    let size = requested.max(ALIGN).checked_next_multiple_of(ALIGN)?;
    // Only large objects can exceed the limit (on the size asked for, as the interpreter checks
    // it): the bump path of small ones stays free of it.
    if size > LARGE {
        return object_fits(requested).then(|| alloc_chunk(size)).flatten();
    }
    CURRENT.with(|current| {
        let (next, left) = current.get();
        if left >= size {
            // SAFETY: `next + size` stays inside the current chunk.
            current.set((unsafe { next.add(size) }, left - size));
            return NonNull::new(next);
        }
        let chunk = alloc_chunk(CHUNK)?;
        // SAFETY: `size <= LARGE < CHUNK`.
        current.set((unsafe { chunk.as_ptr().add(size) }, CHUNK - size));
        Some(chunk)
    })
}

/// Whether one object of `size` bytes may be allocated: at most a quarter of the machine's
/// physical memory. Past that the OS would often grant the address space and then kill the
/// program when it touches the pages (overcommit), a signal instead of the `out of memory`
/// error; the reference interpreter applies the same rule to the same sizes, so both report it.
pub fn object_fits(size: usize) -> bool {
    static LIMIT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    size <= *LIMIT.get_or_init(|| {
        // SAFETY: sysconf only reads configuration values.
        let (pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        match (usize::try_from(pages), usize::try_from(page)) {
            (Ok(pages), Ok(page)) if pages > 0 && page > 0 => pages.saturating_mul(page) / 4,
            _ => usize::MAX,
        }
    })
}

/// Pushes the bump pointer on the stack of marks (0 before the first chunk): an activation
/// region starts.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_heap_mark() {
    let next = CURRENT.with(|current| current.get().0 as usize);
    MARKS.with(|marks| marks.borrow_mut().push(next));
}

/// Ends the innermost activation region: pops its mark and takes back, zeroed, every small object
/// allocated since, when the current chunk is still the mark's (otherwise the newer objects are
/// simply never reused: a chunk change in between is rare, and large objects have their own
/// allocations). The caller guarantees that none of those objects is reachable any more. Returns
/// `value`: the function's result passes through, so that generated code computes it before the
/// release.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_heap_release(value: i64) -> i64 {
    if let Some(mark) = MARKS.with(|marks| marks.borrow_mut().pop()) {
        release(mark);
    }
    value
}

fn release(mark: usize) {
    CURRENT.with(|current| {
        let (next, left) = current.get();
        if next.is_null() {
            return;
        }
        // Every current chunk is CHUNK bytes and ends where the free bytes end.
        let start = (next as usize + left).wrapping_sub(CHUNK);
        if mark < start || mark > next as usize {
            return;
        }
        let used = next as usize - mark;
        let mark = next.wrapping_sub(used);
        // SAFETY: `mark..next` lies in the current chunk, and its objects are unreachable.
        unsafe { std::ptr::write_bytes(mark, 0, used) };
        current.set((mark, left + used));
    });
}

fn alloc_chunk(size: usize) -> Option<NonNull<u8>> {
    if size >= HUGE_PAGE
        && let Some(chunk) = huge_page_chunk(size)
    {
        return Some(chunk);
    }
    let layout = Layout::from_size_align(size, ALIGN).ok()?;
    // SAFETY: `layout` has a non-zero size.
    NonNull::new(unsafe { alloc::alloc_zeroed(layout) })
}

/// Transparent huge pages are 2 MiB on x86-64 and aarch64 Linux.
const HUGE_PAGE: usize = 2 << 20;

/// A zeroed mapping of `size` bytes on a 2 MiB boundary, backed by transparent huge pages where the
/// kernel grants them: allocation-heavy programs touch fresh memory all the time (nothing is freed),
/// and one fault per 2 MiB instead of one per 4 KiB page makes that several times cheaper.
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
    use super::*;

    #[test]
    fn allocations_are_zeroed_aligned_and_distinct() {
        let mut seen = Vec::new();
        for size in [0, 1, 7, 8, 9, 100, LARGE, LARGE + 1, CHUNK] {
            let ptr = alloc_zeroed(size).unwrap();
            assert_eq!(ptr.as_ptr() as usize % ALIGN, 0);
            // SAFETY: the allocation has at least `size` bytes.
            let bytes = unsafe { std::slice::from_raw_parts(ptr.as_ptr(), size) };
            assert!(bytes.iter().all(|&b| b == 0));
            seen.push(ptr);
        }
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 9);
    }

    #[test]
    fn many_small_allocations_span_chunks() {
        let first = alloc_zeroed(LARGE).unwrap();
        for _ in 0..2 * CHUNK / LARGE {
            alloc_zeroed(LARGE).unwrap();
        }
        assert_ne!(first, alloc_zeroed(LARGE).unwrap());
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn chunks_start_on_huge_page_boundaries() {
        for _ in 0..3 {
            let chunk = alloc_chunk(CHUNK).unwrap();
            assert_eq!(chunk.as_ptr() as usize % HUGE_PAGE, 0);
            // SAFETY: the chunk has CHUNK bytes.
            let bytes = unsafe { std::slice::from_raw_parts(chunk.as_ptr(), CHUNK) };
            assert!(bytes.iter().all(|&b| b == 0));
        }
    }

    #[test]
    fn a_release_takes_back_zeroed_what_was_allocated_since_its_mark() {
        let before = alloc_zeroed(8).unwrap();
        pcc_heap_mark();
        let first = alloc_zeroed(100).unwrap();
        // SAFETY: the allocation has 100 bytes.
        unsafe { std::ptr::write_bytes(first.as_ptr(), 0xff, 100) };
        pcc_heap_mark();
        let inner = alloc_zeroed(40).unwrap();
        assert_eq!(pcc_heap_release(7), 7);
        assert_eq!(alloc_zeroed(40).unwrap(), inner);
        pcc_heap_release(0);
        let again = alloc_zeroed(100).unwrap();
        assert_eq!(again, first);
        assert_ne!(again, before);
        // SAFETY: as above.
        let bytes = unsafe { std::slice::from_raw_parts(again.as_ptr(), 100) };
        assert!(bytes.iter().all(|&b| b == 0));
        // A mark from an older chunk releases nothing.
        pcc_heap_mark();
        for _ in 0..2 * CHUNK / LARGE {
            alloc_zeroed(LARGE).unwrap();
        }
        let next = alloc_zeroed(8).unwrap();
        pcc_heap_release(0);
        assert_ne!(alloc_zeroed(8).unwrap(), next);
        // Neither does a mark taken before the first chunk, nor a release without a mark.
        release(0);
        pcc_heap_release(0);
    }

    #[test]
    fn impossible_sizes_fail_instead_of_aborting() {
        assert!(alloc_zeroed(usize::MAX).is_none());
        assert!(alloc_zeroed(usize::MAX - 7).is_none());
        assert!(alloc_zeroed(isize::MAX as usize).is_none());
    }
}
