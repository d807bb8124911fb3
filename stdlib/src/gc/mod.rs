//! The garbage collector of PL objects: a non-moving mark-sweep collector with precise roots.
//!
//! - [`heap`]: segregated size classes in blocks, a bump pointer or a free-list pop per allocation.
//! - [`mark`]: marking with an explicit work list.
//! - [`stack`]: the generated code's frames and the references Cranelift's user stack maps place
//!   in them, and the stubs through which generated code enters every allocating runtime function.
//!
//! The roots: the stack (above), the globals that hold references, and the references a runtime
//! function holds while it allocates (its `keep`: the operands of a concatenation, say). Nothing
//! else in the runtime holds a PL object: program arguments are static objects, and the
//! profiling runtime (counter tables, `kbl`/`wpp` streams) holds path ids, not references.
//!
//! A collection can happen at any allocation once the program's entry has registered its roots
//! ([`pcc_gc_start`]), when the heap has grown past its threshold (twice what survived the last
//! collection, at least 8 MiB); `PCC_GC_STRESS=N` collects every N allocations instead, and
//! `PCC_GC_STATS=1` prints what the collector did when the program ends ([`stats`]).

mod header;
mod heap;
mod mark;
pub mod stack;
mod stats;

use std::cell::{RefCell, UnsafeCell};
use std::ptr::NonNull;
use std::time::Instant;

pub use header::{Header, Kind, STATIC, header};
use heap::Heap;
use mark::Marker;
use stack::Frames;

thread_local! {
    /// The heap of the thread that runs the program (every thread has one: the runtime's unit
    /// tests allocate from many).
    static HEAP: UnsafeCell<Heap> = const { UnsafeCell::new(Heap::new()) };
    /// The roots of the program running on this thread; `None` until its entry registers them,
    /// and on threads that run no program: their heaps are never collected.
    static ROOTS: RefCell<Option<Roots>> = const { RefCell::new(None) };
}

struct Roots {
    /// The globals' slots, and which of them hold references.
    globals: *const u64,
    global_refs: Vec<u32>,
    frames: Frames,
    /// Per struct, the fields that hold references.
    structs: Vec<Box<[u32]>>,
    /// `PCC_GC_STRESS`: collect every this many allocations (`u64::MAX`: never for that).
    stress: u64,
}

/// A zeroed object of `size` bytes headed by `header`, or `None` when out of memory. A
/// collection may run first: `keep` are the references the caller holds and still reads.
#[inline(always)]
pub fn alloc(size: usize, header: Header, keep: &[*const u8]) -> Option<NonNull<u8>> {
    HEAP.with(|heap| {
        // SAFETY: the heap is this thread's, and an allocation is never re-entered: a collection
        // allocates no PL object.
        let heap = unsafe { &mut *heap.get() };
        heap.alloc(size, header, |heap| collect(heap, keep))
    })
}

/// Marks from every root and sweeps.
fn collect(heap: &mut Heap, keep: &[*const u8]) {
    ROOTS.with_borrow(|roots| {
        let Some(roots) = roots else {
            return;
        };
        heap.countdown = roots.stress;
        let started = Instant::now();
        let mut marker = Marker::new(&roots.structs);
        for &reference in keep {
            marker.mark(reference);
        }
        for &slot in &roots.global_refs {
            // SAFETY: the globals' data object has a slot per global.
            marker.mark(unsafe { roots.globals.add(slot as usize).read() } as *const u8);
        }
        // SAFETY: allocations that may collect are entered through the stubs (`stack`).
        unsafe { roots.frames.visit_roots(|reference| marker.mark(reference)) };
        marker.finish();
        heap.sweep();
        stats::collected(started.elapsed());
    });
}

/// Whether `size` more bytes may be allocated on a heap holding `in_use`: one object may take at
/// most a quarter of the machine's physical memory, the heap three quarters. Past that the OS
/// would often grant the address space and then kill the program when it touches the pages
/// (overcommit), a signal instead of the `out of memory` error; the reference interpreter applies
/// the first rule to the same sizes.
fn fits(size: usize, in_use: usize) -> bool {
    size <= physical_memory() / 4 && in_use.saturating_add(size) <= physical_memory() / 4 * 3
}

/// Whether one object of `size` bytes may be allocated (see [`fits`]).
pub fn object_fits(size: usize) -> bool {
    size <= physical_memory() / 4
}

pub(crate) fn physical_memory() -> usize {
    static BYTES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BYTES.get_or_init(|| {
        // SAFETY: sysconf only reads configuration values.
        let (pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        match (usize::try_from(pages), usize::try_from(page)) {
            (Ok(pages), Ok(page)) if pages > 0 && page > 0 => pages.saturating_mul(page),
            _ => usize::MAX,
        }
    })
}

/// Registers the program's roots, called by its entry (`__pcc_entry`) on the program's thread
/// before any PL code runs: `globals` is the globals' data object, `code` the address of each
/// function [`GcInfo::functions`](crate::program::GcInfo) describes. Reads `PCC_GC_STRESS` and
/// `PCC_GC_STATS`.
///
/// # Safety
/// `globals` must hold a slot per global and `code` an address per function of the program's
/// [`ProgramInfo`](crate::ProgramInfo), which must be the running program's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pcc_gc_start(globals: *const u64, code: *const usize) {
    let info = crate::program::info();
    let functions = &info.gc.functions;
    let code = if functions.is_empty() {
        &[][..]
    } else {
        // SAFETY: the entry passes one address per function (caller's contract).
        unsafe { std::slice::from_raw_parts(code, functions.len()) }
    };
    let structs = (info.structs.iter())
        .map(|s| {
            (s.fields.iter().enumerate())
                .filter(|(_, field)| field.ty.is_reference())
                .map(|(i, _)| i as u32)
                .collect()
        })
        .collect();
    let stress = stats::stress_from_env();
    ROOTS.set(Some(Roots {
        globals,
        global_refs: info.gc.globals.clone(),
        frames: Frames::new(code, functions),
        structs,
        stress: stress.unwrap_or(u64::MAX),
    }));
    HEAP.with(|heap| {
        // SAFETY: no allocation is running on this thread.
        unsafe { (*heap.get()).countdown = stress.unwrap_or(u64::MAX) };
    });
    stats::install();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::FrameMaps;

    /// Registers roots for a test: `globals` and no generated code; a collection every `stress`
    /// allocations.
    fn start_with_globals(globals: &[u64], refs: Vec<u32>, structs: Vec<Box<[u32]>>, stress: u64) {
        ROOTS.set(Some(Roots {
            globals: globals.as_ptr(),
            global_refs: refs,
            frames: Frames::new(&[], &[] as &[FrameMaps]),
            structs,
            stress,
        }));
        // SAFETY: no allocation is running on this thread.
        HEAP.with(|heap| unsafe { (*heap.get()).countdown = stress });
    }

    /// Under `PCC_GC_STRESS=1` semantics (a collection at every allocation), what the globals
    /// and `keep` reach survives, the rest is reused: a list through struct fields and an array of
    /// references.
    #[test]
    fn what_the_roots_reach_survives_every_collection() {
        let mut globals = vec![0u64; 2];
        start_with_globals(&globals, vec![1], vec![vec![1].into_boxed_slice()], 1);
        // A list of 1000 nodes `{ value, next }` in global 1, built node by node.
        for i in 0..1000u64 {
            let node = alloc(16, Header::of_struct(0), &[]).unwrap().as_ptr();
            // SAFETY: a struct of two slots.
            unsafe {
                node.cast::<u64>().write(i);
                node.cast::<u64>().add(1).write(globals[1]);
            }
            globals[1] = node as u64;
            // Garbage in between.
            alloc(100, Header::new(Kind::Str), &[]).unwrap();
        }
        let kept = crate::value::new_zeroed_array(3, 8, Header::new(Kind::Refs), &[]).unwrap();
        let element = alloc(8, Header::new(Kind::Str), &[kept.cast_const()])
            .unwrap()
            .as_ptr();
        // SAFETY: as above.
        unsafe { crate::value::array_slot_mut(kept, 1).write(element as u64) };
        for _ in 0..100 {
            alloc(8, Header::new(Kind::Str), &[kept.cast_const()]).unwrap();
        }
        // SAFETY: the survivors are intact.
        unsafe {
            let mut node = globals[1] as *const u64;
            for i in (0..1000).rev() {
                assert_eq!(node.read(), i);
                assert_eq!(header(node.cast()).kind(), Kind::Struct);
                node = node.add(1).read() as *const u64;
            }
            assert!(node.is_null());
            assert_eq!(header(element).kind(), Kind::Str);
        }
        ROOTS.set(None);
    }

    /// An array of references that grew into a buffer keeps the strings pushed into it, each
    /// kept alive while its push allocates, through collections at every allocation; `pop`
    /// clears the slot it vacates.
    #[test]
    fn a_grown_array_keeps_what_was_pushed() {
        let mut globals = vec![0u64; 1];
        start_with_globals(&globals, vec![0], Vec::new(), 1);
        let array = crate::value::new_zeroed_array(0, 8, Header::new(Kind::Refs), &[]).unwrap();
        globals[0] = array as u64;
        for i in 0..200 {
            let s = crate::value::new_str(format!("s{i}").as_bytes()).unwrap();
            // SAFETY: as generated code calls it, on an array of references.
            unsafe { crate::arrays::pcc_array_push(array, s as i64, 8, 0) };
        }
        for _ in 0..100 {
            alloc(64, Header::new(Kind::Str), &[]).unwrap();
        }
        // SAFETY: the array and its strings survived.
        unsafe {
            assert!(!crate::value::array_is_inline(array));
            assert_eq!(
                header(crate::value::array_buffer(array)).kind(),
                Kind::Buffer
            );
            for i in 0..200 {
                let s = crate::value::array_slot(array, i) as *const u8;
                assert_eq!(crate::value::str_bytes(s), format!("s{i}").as_bytes());
            }
            crate::arrays::pcc_array_pop(array, 8, 0);
            assert_eq!(crate::value::array_slot(array, 199), 0);
        }
        ROOTS.set(None);
    }

    /// A list of a million nodes is marked without deep recursion (a test thread's stack holds
    /// far fewer frames).
    #[test]
    fn a_long_list_is_marked_with_a_work_list() {
        let globals = vec![0u64; 1];
        start_with_globals(
            &globals,
            vec![0],
            vec![vec![0].into_boxed_slice()],
            u64::MAX,
        );
        let mut head = std::ptr::null_mut::<u8>();
        for _ in 0..1_000_000 {
            let node = alloc(8, Header::of_struct(0), &[head]).unwrap().as_ptr();
            // SAFETY: a struct of one slot.
            unsafe { node.cast::<u64>().write(head as u64) };
            head = node;
        }
        HEAP.with(|heap| {
            // SAFETY: no allocation is running on this thread.
            let heap = unsafe { &mut *heap.get() };
            collect(heap, &[head]);
            assert!(heap.in_use >= 1_000_000 * 16);
        });
        ROOTS.set(None);
    }
}
