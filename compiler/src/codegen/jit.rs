//! Compiling into this process's memory with cranelift-jit, linked against `pcc-stdlib`.

use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_jit::{ArenaMemoryProvider, JITBuilder, JITModule};
use pcc_stdlib::ProgramInfo;

use super::program::{self, Listing};
use super::{CodegenError, Options, Result, host_isas};
use crate::mir::Program;

/// Address space reserved for code and data. One region keeps every function and data object
/// within ±2 GiB of each other, as the PC-relative calls between PL functions need.
const ARENA_SIZE: usize = 256 << 20;

/// A compiled program in memory.
pub struct JitProgram {
    /// Owns the code and data `entry` uses.
    _module: JITModule,
    /// `__pcc_entry`: initializes the globals, runs `main`, returns its `int` result or 0.
    pub entry: extern "C" fn() -> i64,
    /// What the runtime must know about the program (`pcc_stdlib::run_program`).
    pub info: ProgramInfo,
}

impl JitProgram {
    /// Runs the program with `args` through the runtime; returns the exit status (runtime
    /// errors and `exit()` end the process instead).
    pub fn run(self, args: Vec<String>) -> i32 {
        pcc_stdlib::run_program(self.info, args, self.entry)
    }
}

pub fn compile(program: &Program, source: &str, options: &Options) -> Result<JitProgram> {
    let (mut module, large_isa) = new_module(options)?;
    let compiled = program::compile(
        &mut module,
        large_isa.as_deref(),
        program,
        source,
        Listing::None,
        None,
    )?;
    module
        .finalize_definitions()
        .map_err(|e| CodegenError::Cranelift(e.to_string()))?;
    let code = module.get_finalized_function(compiled.entry);
    // SAFETY: `code` is `__pcc_entry`, compiled with the host's default calling convention
    // (that of `extern "C"`), no parameters and an `i64` result; the module owning it lives in
    // the `JitProgram`, and JIT memory is never freed.
    let entry = unsafe { std::mem::transmute::<*const u8, extern "C" fn() -> i64>(code) };
    Ok(JitProgram {
        _module: module,
        entry,
        info: compiled.info,
    })
}

/// Compiles without running, for the listings: (PL function name, text) per function compiled
/// (see [`program::compile`] for which are, `named` included).
pub fn listings(
    program: &Program,
    source: &str,
    options: &Options,
    listing: Listing,
    named: Option<&str>,
) -> Result<Vec<(String, String)>> {
    let (mut module, large_isa) = new_module(options)?;
    let compiled = program::compile(
        &mut module,
        large_isa.as_deref(),
        program,
        source,
        listing,
        named,
    )?;
    Ok(compiled.listings)
}

/// The module, and the instruction set for functions with very many blocks if it differs.
fn new_module(options: &Options) -> Result<(JITModule, Option<OwnedTargetIsa>)> {
    // cranelift-jit requires non-PIC code and libcalls that are not colocated.
    let (isa, large_isa) = host_isas(
        options,
        &[("is_pic", "false"), ("use_colocated_libcalls", "false")],
    )?;
    let memory = ArenaMemoryProvider::new_with_size(ARENA_SIZE)
        .map_err(|e| CodegenError::Cranelift(format!("cannot reserve JIT memory: {e}")))?;
    let mut builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
    builder
        .symbols(pcc_stdlib::symbols())
        .memory_provider(Box::new(memory));
    Ok((JITModule::new(builder), large_isa))
}
