//! Interrupted profiled runs: SIGINT, SIGTERM and SIGHUP write the profile, then end the process
//! as the signal would have.
//!
//! Writing a profile allocates, takes locks and does I/O, none of which a signal handler may do.
//! So no handler does it: [`catch`] blocks the three signals in every thread (the mask is
//! inherited by the threads started after it) and a thread of its own waits for them with
//! `sigwait`, an ordinary call, after which it runs ordinary code. That needs nothing beyond
//! `libc` (a crate like `signal-hook` would install handlers and a self-pipe for the same result).
//!
//! The waiting thread first stops the program's thread, so that the counters it reads do not
//! change under it (an edge profile's counters must agree with each other, a `kbl` or `wpp`
//! buffer must not be appended to while it is drained): it sends that thread [`freeze_signal`],
//! whose handler only sets a flag and sleeps in `pause`, both async-signal-safe. A thread
//! stopped while holding a lock the exit hooks need would deadlock them, so the runtime functions
//! that take such locks run as [`section`]s: a freeze that arrives in one is deferred to its end.
//! Memory allocation is one too (the [`Allocator`] of every program): the exit hooks free and
//! grow memory the program's thread allocated (`kbl`'s forests, `wpp`'s grammar), which takes
//! the lock of that thread's malloc arena.
//! Then the waiting thread runs the exit hooks (the profile is written) and raises the signal
//! again, its default disposition restored and unblocked on that thread, so the parent sees the
//! signal (a second signal meanwhile ends the process at once). The program's buffered stdout
//! is not flushed: without profiling it would be lost as well.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// The signals that end a profiled run with its profile written.
const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The program's thread, while it runs generated code (`pthread_t` as an integer).
static PROGRAM_THREAD: Mutex<Option<libc::pthread_t>> = Mutex::new(None);
thread_local! {
    /// Depth of the [`section`]s the thread is in. Constant-initialized, without destructor: a
    /// plain thread-local variable, which the signal handler may read.
    static IN_SECTION: Cell<usize> = const { Cell::new(0) };
    /// A freeze arrived during a section: the end of the outermost one stops the thread.
    static FREEZE_PENDING: Cell<bool> = const { Cell::new(false) };
}
/// The program's thread is stopped for good.
static FROZEN: AtomicBool = AtomicBool::new(false);

/// The signal that stops the program's thread: the first real-time signal free for programs.
fn freeze_signal() -> libc::c_int {
    libc::SIGRTMIN()
}

/// A set of [`SIGNALS`].
fn signal_set() -> libc::sigset_t {
    // SAFETY: `sigemptyset` initializes the set before `sigaddset` uses it.
    unsafe {
        let mut set = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for signal in SIGNALS {
            libc::sigaddset(&mut set, signal);
        }
        set
    }
}

/// Makes SIGINT, SIGTERM and SIGHUP write the profile (the exit hooks) before they end the
/// process. Must be called before the program's thread starts, on the thread that starts it.
pub fn catch() -> std::io::Result<()> {
    let set = signal_set();
    // SAFETY: plain libc calls; the handler only touches thread-local cells and an atomic, and
    // calls `pause`.
    unsafe {
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = freeze_here as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(freeze_signal(), &action, std::ptr::null_mut()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    std::thread::Builder::new()
        .name("pcc-signals".into())
        .spawn(move || {
            let mut signal = 0;
            // SAFETY: `set` is initialized; `signal` receives the signal taken.
            while unsafe { libc::sigwait(&set, &mut signal) } != 0 {}
            end_by(signal)
        })?;
    Ok(())
}

/// Stops the program, writes what the exit hooks write, and ends the process by `signal`.
fn end_by(signal: libc::c_int) -> ! {
    // From here on the three signals have their default action and reach this thread: raising
    // `signal` at the end ends the process by it, and a second Ctrl-C ends it at once, without
    // waiting for the profile.
    let set = signal_set();
    // SAFETY: plain libc calls on this thread's mask and the default dispositions.
    unsafe {
        for signal in SIGNALS {
            libc::signal(signal, libc::SIG_DFL);
        }
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
    }
    freeze_program();
    crate::program::run_exit_hooks();
    // SAFETY: raising a signal whose default action ends the process.
    unsafe { libc::raise(signal) };
    // All three signals end the process: this is not reached.
    std::process::exit(128 + signal)
}

/// Stops the program's thread if it runs generated code, and waits until it has stopped (it
/// never does if it is ending the program itself: that ends the process first).
fn freeze_program() {
    {
        let thread = PROGRAM_THREAD
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let Some(thread) = *thread else { return };
        // SAFETY: the thread is alive while it is registered (it unregisters under this lock).
        unsafe { libc::pthread_kill(thread, freeze_signal()) };
    }
    while !FROZEN.load(Ordering::Acquire) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The handler of [`freeze_signal`]: stops the calling thread (the program's) for good, or at
/// the end of the section it is in.
extern "C" fn freeze_here(_: libc::c_int) {
    if IN_SECTION.get() > 0 {
        FREEZE_PENDING.set(true);
        return;
    }
    stop_forever()
}

fn stop_forever() -> ! {
    FROZEN.store(true, Ordering::Release);
    loop {
        // SAFETY: `pause` is async-signal-safe and only waits.
        unsafe { libc::pause() };
    }
}

/// Registers the calling thread as the program's, for the duration of `run`.
pub fn as_program_thread<R>(run: impl FnOnce() -> R) -> R {
    // SAFETY: `pthread_self` has no preconditions.
    let this = unsafe { libc::pthread_self() };
    *PROGRAM_THREAD
        .lock()
        .unwrap_or_else(PoisonError::into_inner) = Some(this);
    let result = run();
    *PROGRAM_THREAD
        .lock()
        .unwrap_or_else(PoisonError::into_inner) = None;
    result
}

/// Runs `work`, which takes locks the exit hooks need, so that the program's thread is not
/// stopped inside it (a freeze that arrives meanwhile takes effect at its end). Cheap: two
/// thread-local additions and a test.
pub fn section<R>(work: impl FnOnce() -> R) -> R {
    IN_SECTION.set(IN_SECTION.get() + 1);
    let result = work();
    let depth = IN_SECTION.get() - 1;
    IN_SECTION.set(depth);
    if depth == 0 && FREEZE_PENDING.get() {
        stop_forever();
    }
    result
}

/// The system allocator, each call a [`section`]: the program's thread is never stopped while
/// it holds a malloc lock.
pub struct Allocator;

// SAFETY: every call is forwarded to `System` unchanged.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, forwarded.
        section(|| unsafe { System.alloc(layout) })
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, forwarded.
        section(|| unsafe { System.alloc_zeroed(layout) })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, forwarded.
        section(|| unsafe { System.dealloc(ptr, layout) })
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, forwarded.
        section(|| unsafe { System.realloc(ptr, layout, new_size) })
    }
}
