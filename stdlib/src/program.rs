//! What the runtime knows about the running program, and its life cycle: start ([`run_program`]), the stack
//! limit, program arguments, exit hooks and every way of ending ([`terminate`]).
//!
//! The state is process-wide (statics) rather than owned by the JIT driver, so that a native executable sets
//! it the same way from its `main` (`pcc_aot_main` deserializes the [`ProgramInfo`] and calls
//! [`run_program`]).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock, PoisonError, RwLock};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::errors::{RuntimeError, raise};
use crate::{output, value};

/// Static description of the compiled program, made by the compiler: what the runtime needs to print values
/// and to name source locations in runtime errors.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ProgramInfo {
    /// Source file name as it appears in messages (`prog.pl`).
    pub file: String,
    /// Struct declarations; `TypeInfo::Struct(i)` and `pcc_err_null`'s `struct_id` index this.
    pub structs: Vec<StructInfo>,
    /// Types of printed values; `pcc_print`'s value kinds index this.
    pub types: Vec<TypeInfo>,
    /// Source locations; the `L` argument of runtime functions indexes this.
    pub locations: Vec<Location>,
    /// For an instrumented program: what it needs to write its profile when it ends.
    #[serde(default)]
    pub profile: Option<pcc_profiler::spec::ProfileSpec>,
    /// What the garbage collector must know of the compiled code.
    #[serde(default)]
    pub gc: GcInfo,
}

/// The roots the compiled code keeps for the collector (`crate::gc`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GcInfo {
    /// The globals (by slot) that hold references.
    pub globals: Vec<u32>,
    /// Every compiled function, in the order of the code table the entry passes to
    /// `pcc_gc_start`.
    pub functions: Vec<FrameMaps>,
}

/// A compiled function's safepoints, from Cranelift's user stack maps.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FrameMaps {
    /// Bytes of code.
    pub len: u32,
    /// Per call across which references are live: the offset of its return address from the
    /// function's start, and the offsets from the stack pointer at the call of the stack slots
    /// holding those references.
    pub safepoints: Vec<(u32, Vec<u32>)>,
}

/// A struct declaration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StructInfo {
    pub name: String,
    /// Fields in slot order.
    pub fields: Vec<FieldInfo>,
}

/// A struct field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldInfo {
    pub name: String,
    pub ty: TypeInfo,
}

/// A PL type, as far as printing needs it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TypeInfo {
    Int,
    Float,
    Bool,
    Str,
    Array(Box<TypeInfo>),
    /// A map's key and value types.
    Map(Box<TypeInfo>, Box<TypeInfo>),
    /// Index into `ProgramInfo::structs`.
    Struct(usize),
    /// The type of the `null` literal.
    Null,
}

impl TypeInfo {
    /// Whether a value of this type is a reference the collector follows.
    pub fn is_reference(&self) -> bool {
        matches!(
            self,
            TypeInfo::Str
                | TypeInfo::Array(_)
                | TypeInfo::Map(..)
                | TypeInfo::Struct(_)
                | TypeInfo::Null
        )
    }
}

/// A source location: 1-based line and column, and the function containing it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Location {
    pub line: u32,
    pub col: u32,
    pub function: String,
}

impl ProgramInfo {
    /// The location with id `id` (the `L` argument), if there is one.
    pub fn location(&self, id: i64) -> Option<&Location> {
        self.locations.get(usize::try_from(id).ok()?)
    }
}

/// Stack of the thread that runs the program. PL programs recurse deeply (recursive tree walks, naive
/// recursive algorithms over big inputs) and the main thread's stack is usually 8 MiB. 256 MiB costs only
/// address space: pages are committed when touched. A thread we create also has known bounds, which the
/// stack check needs.
pub const STACK_SIZE: usize = 256 << 20;

/// Stack kept free below `pcc_stack_limit`: room for the error path (formatting the message, running the exit
/// hooks that write profiles), and slack for what sits at the top of the thread's stack mapping besides the
/// stack proper (thread-local storage, guard page), which the limit computation cannot see.
pub const STACK_SAFETY_MARGIN: usize = 1 << 20;

/// Lowest stack address the generated code may use: every function's prologue compares the stack pointer with
/// this and calls `pcc_err_stack_overflow` when below. 0 (no limit) outside [`run_program`]. Same layout as a
/// `usize`, so generated code reads it with a plain 8-byte load.
#[allow(non_upper_case_globals)] // the symbol name is part of the ABI
#[unsafe(no_mangle)]
pub static pcc_stack_limit: AtomicUsize = AtomicUsize::new(0);

static PROGRAM: LazyLock<RwLock<Arc<ProgramInfo>>> = LazyLock::new(Default::default);

/// Program arguments as PL strings (addresses of static objects, built once at start).
static ARGS: RwLock<Vec<usize>> = RwLock::new(Vec::new());

/// A hook run when the program ends; it returns whether it did its job (a failure is explained on stderr,
/// and makes the exit status non-zero, see [`exit_status`]).
type ExitHook = Box<dyn FnOnce() -> bool + Send>;
static EXIT_HOOKS: Mutex<Vec<ExitHook>> = Mutex::new(Vec::new());
/// Held while the exit hooks run, so that a signal arriving meanwhile waits for them to finish.
static EXITING: Mutex<()> = Mutex::new(());

/// Exit status when the program ended with 0 but an exit hook failed (the profile could not be written).
pub const HOOK_FAILED_EXIT_CODE: i32 = 1;

/// Time origin of `clock_ns()`.
static EPOCH: OnceLock<Instant> = OnceLock::new();

/// The description of the running program (empty before [`run_program`]).
pub fn info() -> Arc<ProgramInfo> {
    PROGRAM
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// Registers `hook` to run once when the program ends: at the normal end of `main`, at `exit()`, and after a
/// runtime error (stdout is flushed before). Hooks run in registration order.
pub fn register_exit_hook(hook: ExitHook) {
    EXIT_HOOKS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(hook);
}

/// Runs the exit hooks not run yet; returns whether all of them did their job.
pub(crate) fn run_exit_hooks() -> bool {
    let _exiting = EXITING.lock().unwrap_or_else(PoisonError::into_inner);
    // Taken out of the lock first, so each hook runs once even if a hook itself ends the program.
    let hooks = std::mem::take(&mut *EXIT_HOOKS.lock().unwrap_or_else(PoisonError::into_inner));
    // Every hook runs, whatever the others did.
    let failed = hooks
        .into_iter()
        .map(|hook| hook())
        .filter(|ok| !ok)
        .count();
    failed == 0
}

/// The process's exit status for the program's `code`: a failed exit hook turns 0 into
/// [`HOOK_FAILED_EXIT_CODE`]; any other code is the program's and is kept.
fn exit_status(code: i32, hooks_ok: bool) -> i32 {
    if code == 0 && !hooks_ok {
        HOOK_FAILED_EXIT_CODE
    } else {
        code
    }
}

/// Runs a compiled program: stores `info` and `args` for the runtime, calls `entry` (globals' initializers
/// then `main`, returning `main`'s result or 0) on a thread with a [`STACK_SIZE`] stack, then flushes stdout and
/// runs the exit hooks. Returns the exit status: `entry`'s result truncated to `i32`.
///
/// `exit()` and runtime errors do not return here: they end the process themselves (after flushing stdout and
/// running the exit hooks), with the program's code or 101. A profile that cannot be written is found out
/// before the program runs, which then does not (status 1); one whose writing fails at the end turns a status of
/// 0 into 1 ([`exit_status`]).
pub fn run_program(info: ProgramInfo, args: Vec<String>, entry: extern "C" fn() -> i64) -> i32 {
    EPOCH.get_or_init(Instant::now);
    if let Some(spec) = &info.profile
        && let Err(error) = crate::profile::install(spec.clone(), args.clone())
    {
        eprintln!("pcc: error: {error}; the program was not run");
        return HOOK_FAILED_EXIT_CODE;
    }
    *PROGRAM.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(info);
    let args = args
        .iter()
        .map(|arg| value::static_str(arg.as_bytes()) as usize)
        .collect();
    *ARGS.write().unwrap_or_else(PoisonError::into_inner) = args;

    let program = std::thread::Builder::new()
        .name("pcc-main".into())
        .stack_size(STACK_SIZE)
        .spawn(move || {
            pcc_stack_limit.store(stack_limit_here(), Ordering::Relaxed);
            let result = crate::interrupt::as_program_thread(|| entry());
            pcc_stack_limit.store(0, Ordering::Relaxed);
            result
        });
    let code = match program.map(|thread| thread.join()) {
        Ok(Ok(result)) => result as i32,
        Ok(Err(_)) => 101, // a panic in the runtime; the panic message is already on stderr
        Err(error) => {
            eprintln!("error: cannot start the program's thread: {error}");
            101
        }
    };
    output::flush();
    exit_status(code, run_exit_hooks())
}

/// The stack limit for the calling thread, which must be a fresh thread with a [`STACK_SIZE`] stack: the
/// stack grows down from just above the caller's frame, so its lowest address is about `STACK_SIZE` below.
/// The estimate is low by what sits above the first frame (thread-local storage, thread descriptor) and by a
/// guard page; [`STACK_SAFETY_MARGIN`] absorbs both, so the result is portable and needs no OS query.
#[inline(never)]
fn stack_limit_here() -> usize {
    let marker = 0u8;
    let here = std::hint::black_box(&marker) as *const u8 as usize;
    here.saturating_sub(STACK_SIZE) + STACK_SAFETY_MARGIN
}

/// Ends the process with `code` after flushing stdout and running the exit hooks (a failed hook turns 0 into
/// [`HOOK_FAILED_EXIT_CODE`]). A signal arriving meanwhile does not stop it (`crate::interrupt`).
pub fn terminate(code: i32) -> ! {
    crate::interrupt::section(|| {
        output::flush();
        std::process::exit(exit_status(code, run_exit_hooks()))
    })
}

/// `exit(code)`.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_exit(code: i64) -> ! {
    terminate(code as i32)
}

/// `argc()`: number of program arguments.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_argc() -> i64 {
    ARGS.read().unwrap_or_else(PoisonError::into_inner).len() as i64
}

/// `arg(i)`: program argument `i`, from 0.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_arg(index: i64, loc: i64) -> *const u8 {
    let args = ARGS.read().unwrap_or_else(PoisonError::into_inner);
    match usize::try_from(index).ok().and_then(|i| args.get(i)) {
        Some(&arg) => arg as *const u8,
        None => {
            let count = args.len();
            drop(args);
            raise(RuntimeError::ArgOutOfRange { index, count }, Some(loc))
        }
    }
}

/// `clock_ns()`: monotonic nanoseconds since the program started.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_clock_ns() -> i64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_info_round_trips_through_json() {
        let info = ProgramInfo {
            file: "prog.pl".into(),
            structs: vec![StructInfo {
                name: "Node".into(),
                fields: vec![
                    FieldInfo {
                        name: "key".into(),
                        ty: TypeInfo::Int,
                    },
                    FieldInfo {
                        name: "next".into(),
                        ty: TypeInfo::Struct(0),
                    },
                    FieldInfo {
                        name: "names".into(),
                        ty: TypeInfo::Array(Box::new(TypeInfo::Str)),
                    },
                ],
            }],
            types: vec![TypeInfo::Null, TypeInfo::Array(Box::new(TypeInfo::Float))],
            locations: vec![Location {
                line: 3,
                col: 9,
                function: "main".into(),
            }],
            profile: None,
            gc: GcInfo {
                globals: vec![1],
                functions: vec![FrameMaps {
                    len: 64,
                    safepoints: vec![(12, vec![0, 16])],
                }],
            },
        };
        let json = serde_json::to_string(&info).unwrap();
        let back = serde_json::from_str::<ProgramInfo>(&json).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        assert_eq!(info.location(0).map(|l| l.line), Some(3));
        assert_eq!(info.location(1), None);
        assert_eq!(info.location(-1), None);
    }

    #[test]
    fn a_failed_hook_makes_only_a_zero_status_non_zero() {
        assert_eq!(exit_status(0, true), 0);
        assert_eq!(exit_status(0, false), HOOK_FAILED_EXIT_CODE);
        assert_eq!(exit_status(101, false), 101);
        assert_eq!(exit_status(3, true), 3);
    }

    #[test]
    fn clock_is_monotonic() {
        let a = pcc_clock_ns();
        let b = pcc_clock_ns();
        assert!(0 <= a && a <= b);
    }
}
