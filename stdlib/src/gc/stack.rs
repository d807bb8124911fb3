//! The roots on the machine stack: the frames of the generated code, walked by their frame
//! pointers, and the references Cranelift's user stack maps say each frame holds at the call it is
//! in (`compiler/src/codegen/program.rs` records them in [`GcInfo`](crate::program::GcInfo)).
//!
//! A collection starts inside a runtime function that generated code called to allocate. Each
//! such function is entered through a stub (see [`entry_points`]) that saves the stack and frame
//! pointers at its entry, so the collector knows the innermost PL frame and its call site; from
//! there each PL frame's frame record gives its caller's frame pointer and return address. The
//! walk stops at the first return address outside the generated code (the runtime that started
//! the program).

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::program::FrameMaps;

/// The stack pointer at the entry of the allocating runtime function the generated code called
/// last (x86-64: it points at the return address).
pub static ENTRY_SP: AtomicUsize = AtomicUsize::new(0);
/// The frame pointer there: the calling PL function's.
pub static ENTRY_FP: AtomicUsize = AtomicUsize::new(0);
/// aarch64: the link register there, the return address.
#[cfg(target_arch = "aarch64")]
pub static ENTRY_LR: AtomicUsize = AtomicUsize::new(0);

/// Defines each `extern "C"` runtime function that may collect, `fn name(args) -> R => imp;`, as
/// a stub that records where the generated code's stack is ([`ENTRY_SP`], [`ENTRY_FP`]) and jumps
/// to `imp`, an `extern "C"` function of the same signature. Every runtime function that
/// allocates PL objects must be defined so: a collection from anywhere else would walk a stale
/// stack.
macro_rules! entry_points {
    ($($(#[$attr:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty => $imp:path;)*) => {$(
        $(#[$attr])*
        #[unsafe(naked)]
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
            $crate::gc::stack::record_and_jump!($imp)
        }
    )*};
}
pub(crate) use entry_points;

#[cfg(target_arch = "x86_64")]
macro_rules! record_and_jump {
    ($imp:path) => {
        core::arch::naked_asm!(
            "mov qword ptr [rip + {sp}], rsp",
            "mov qword ptr [rip + {fp}], rbp",
            "jmp {imp}",
            sp = sym $crate::gc::stack::ENTRY_SP,
            fp = sym $crate::gc::stack::ENTRY_FP,
            imp = sym $imp,
        )
    };
}

#[cfg(target_arch = "aarch64")]
macro_rules! record_and_jump {
    ($imp:path) => {
        core::arch::naked_asm!(
            "adrp x16, {sp}",
            "mov x17, sp",
            "str x17, [x16, :lo12:{sp}]",
            "adrp x16, {fp}",
            "str x29, [x16, :lo12:{fp}]",
            "adrp x16, {lr}",
            "str x30, [x16, :lo12:{lr}]",
            "b {imp}",
            sp = sym $crate::gc::stack::ENTRY_SP,
            fp = sym $crate::gc::stack::ENTRY_FP,
            lr = sym $crate::gc::stack::ENTRY_LR,
            imp = sym $imp,
        )
    };
}
pub(crate) use record_and_jump;

/// The innermost PL frame at the last entry into the runtime: the stack pointer at its call, its
/// frame pointer, and the call's return address.
#[cfg(target_arch = "x86_64")]
fn innermost() -> (usize, usize, usize) {
    let sp = ENTRY_SP.load(Ordering::Relaxed);
    // SAFETY: at a stub's entry the stack pointer pointed at the return address, still there
    // while the runtime function runs.
    let ret = unsafe { (sp as *const usize).read() };
    (sp + 8, ENTRY_FP.load(Ordering::Relaxed), ret)
}

#[cfg(target_arch = "aarch64")]
fn innermost() -> (usize, usize, usize) {
    (
        ENTRY_SP.load(Ordering::Relaxed),
        ENTRY_FP.load(Ordering::Relaxed),
        ENTRY_LR.load(Ordering::Relaxed),
    )
}

/// A function's safepoints: per call, the return address's offset and the stack slots holding
/// references (`FrameMaps::safepoints`), sorted by offset.
type Safepoints = Vec<(u32, Vec<u32>)>;

/// The generated code's functions, by address, with their safepoints.
pub struct Frames {
    /// (start, end, safepoints), sorted by start.
    functions: Vec<(usize, usize, Safepoints)>,
}

impl Frames {
    /// `code[i]` is the address of the function `maps[i]` describes.
    pub fn new(code: &[usize], maps: &[FrameMaps]) -> Frames {
        let mut functions: Vec<_> = (code.iter().zip(maps))
            .map(|(&start, maps)| {
                let mut safepoints = maps.safepoints.clone();
                safepoints.sort_unstable_by_key(|&(offset, _)| offset);
                (start, start + maps.len as usize, safepoints)
            })
            .collect();
        functions.sort_unstable_by_key(|&(start, ..)| start);
        Frames { functions }
    }

    /// The stack-pointer offsets of the references live across the call returning to `ret`, or
    /// `None` when `ret` is not in the generated code.
    fn safepoint(&self, ret: usize) -> Option<&[u32]> {
        // A call can be a function's last instruction: its return address is the function's end.
        let pc = ret.checked_sub(1)?;
        let i = self.functions.partition_point(|&(start, ..)| start <= pc);
        let (start, end, safepoints) = self.functions.get(i.checked_sub(1)?)?;
        if pc >= *end {
            return None;
        }
        let offset = u32::try_from(ret - start).ok()?;
        Some(
            match safepoints.binary_search_by_key(&offset, |&(o, _)| o) {
                Ok(i) => &safepoints[i].1,
                // A call across which no reference is live has no stack map.
                Err(_) => &[],
            },
        )
    }

    /// Calls `visit` with every reference the generated code's frames hold.
    ///
    /// # Safety
    /// Must be called inside a runtime function entered through an [`entry_points`] stub from
    /// the generated code these frames describe, which keeps frame pointers.
    pub unsafe fn visit_roots(&self, mut visit: impl FnMut(*const u8)) {
        let (mut sp, mut fp, mut ret) = innermost();
        while let Some(slots) = self.safepoint(ret) {
            for &offset in slots {
                // SAFETY: the stack map says this stack slot of the frame holds a reference.
                visit(unsafe { ((sp + offset as usize) as *const *const u8).read() });
            }
            if fp == 0 || fp % 8 != 0 {
                break;
            }
            // SAFETY: a PL frame's frame record holds its caller's frame pointer and the return
            // address into it; the caller's stack pointer at the call was just above the record.
            unsafe {
                sp = fp + 16;
                ret = ((fp + 8) as *const usize).read();
                fp = (fp as *const usize).read();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn return_addresses_find_their_function_and_safepoint() {
        let maps = [
            FrameMaps {
                len: 100,
                safepoints: vec![(40, vec![0, 8]), (20, vec![16])],
            },
            FrameMaps {
                len: 50,
                safepoints: vec![],
            },
        ];
        let frames = Frames::new(&[0x2000, 0x1000], &maps);
        assert_eq!(frames.safepoint(0x2000 + 40), Some(&[0, 8][..]));
        assert_eq!(frames.safepoint(0x2000 + 20), Some(&[16][..]));
        assert_eq!(frames.safepoint(0x2000 + 30), Some(&[][..]));
        assert_eq!(frames.safepoint(0x2000 + 100), Some(&[][..]));
        assert_eq!(frames.safepoint(0x2000 + 101), None);
        assert_eq!(frames.safepoint(0x1000 + 10), Some(&[][..]));
        assert_eq!(frames.safepoint(0x1000 + 60), None);
        assert_eq!(frames.safepoint(0x10), None);
        assert_eq!(frames.safepoint(0), None);
    }
}
