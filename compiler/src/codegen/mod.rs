//! MIR → Cranelift IR → machine code, run in memory (JIT), written to an object file for a native
//! executable (AOT), or listed (`--emit clif|asm`).
//!
//! The generator is written against the `cranelift_module::Module` trait, so the same code
//! serves both: only `jit.rs` knows about cranelift-jit, only `object.rs` about
//! cranelift-object.
//! - `program.rs`: the whole program: each function compiled and defined, the entry;
//!   `context.rs`: what the functions share: symbols and data objects (strings, globals);
//! - `function.rs`: one MIR function, with `checks.rs` (runtime checks), `builtins.rs` and
//!   `profiling.rs` (counters, stream buffers: the profiling statements);
//! - `layout.rs`: value representation and alias regions; `runtime.rs`: the runtime ABI;
//!   `info.rs`: the `ProgramInfo` (source locations, printed types) the runtime receives.
//!
//! Runtime errors are explicit branches to cold blocks calling the runtime, never traps.

mod builtins;
mod checks;
mod context;
mod function;
mod info;
mod jit;
mod layout;
mod loop_alignment;
mod object;
mod profiling;
mod program;
mod roots;
mod runtime;
#[cfg(test)]
mod tests;

use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};

use crate::mir::Program;
pub use jit::JitProgram;
use program::Listing;

/// Code generation options.
#[derive(Clone, Debug)]
pub struct Options {
    /// `-O`: 0 compiles fastest, 1 and 2 let Cranelift optimize.
    pub opt_level: u8,
}

impl Default for Options {
    fn default() -> Options {
        Options { opt_level: 1 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodegenError {
    /// The host or an option is not supported.
    #[error("not supported: {0}")]
    Unsupported(String),
    /// Cranelift rejected the generated code, or could not place it in memory.
    #[error("Cranelift: {0}")]
    Cranelift(String),
    /// The MIR breaks one of its invariants: a bug in the compiler.
    #[error("internal compiler error: {0}")]
    Internal(String),
    /// `--emit` asked for a function the program does not have.
    #[error("no function named `{0}`")]
    NoSuchFunction(String),
}

impl CodegenError {
    fn internal(message: impl Into<String>) -> CodegenError {
        CodegenError::Internal(message.into())
    }
}

type Result<T, E = CodegenError> = std::result::Result<T, E>;

/// Compiles `program` (whose source text is `source`) into memory, ready to run.
pub fn jit(program: &Program, source: &str, options: &Options) -> Result<JitProgram> {
    jit::compile(program, source, options)
}

/// The object file of `program`, with a `main` that runs it through the runtime
/// (`pcc_aot_main`), carrying `profile`, the spec of an instrumented program.
pub fn object(
    program: &Program,
    source: &str,
    options: &Options,
    profile: Option<pcc_profiler::spec::ProfileSpec>,
) -> Result<Vec<u8>> {
    object::compile(program, source, options, profile)
}

/// The Cranelift IR of every function (or of the function named `only`, and the part `-O 2`
/// split off it), after Cranelift's optimizations.
pub fn emit_clif(
    program: &Program,
    source: &str,
    options: &Options,
    only: Option<&str>,
) -> Result<String> {
    emit(program, source, options, only, Listing::Clif)
}

/// The machine code of every function (or of the function named `only`, and its part), as
/// Cranelift prints it after register allocation.
pub fn emit_asm(
    program: &Program,
    source: &str,
    options: &Options,
    only: Option<&str>,
) -> Result<String> {
    emit(program, source, options, only, Listing::Asm)
}

fn emit(
    program: &Program,
    source: &str,
    options: &Options,
    only: Option<&str>,
    listing: Listing,
) -> Result<String> {
    let texts: Vec<String> = jit::listings(program, source, options, listing, only)?
        .into_iter()
        .filter(|(name, _)| only.is_none_or(|only| crate::mir::is_part_of(name, only)))
        .map(|(_, text)| text)
        .collect();
    match only {
        Some(name) if texts.is_empty() => Err(CodegenError::NoSuchFunction(name.to_string())),
        _ => Ok(texts.join("\n")),
    }
}

/// The host's instruction sets for a module: with the settings `options` ask for plus `flags`,
/// and, above -O0, the -O0 one (no mid-end optimizer, the single-pass register allocator) for
/// functions with very many blocks ([`program::compile`]). Both of Cranelift's passes skipped
/// there take time quadratic in such a function: the optimizer's global value numbering finds
/// the scope of every value available in the entry block (each constant) by a linear search of
/// the dominator-tree path, as long as the function when each `if` dominates the next; and the
/// backtracking allocator's move insertion rescans the block-parameter list per value.
fn host_isas(
    options: &Options,
    flags: &[(&str, &str)],
) -> Result<(OwnedTargetIsa, Option<OwnedTargetIsa>)> {
    let isa = host_isa(options, flags)?;
    let large = match options.opt_level {
        0 => None,
        _ => Some(host_isa(&Options { opt_level: 0 }, flags)?),
    };
    Ok((isa, large))
}

/// The host's instruction set with the settings `options` ask for, plus `flags` (which win).
fn host_isa(options: &Options, flags: &[(&str, &str)]) -> Result<OwnedTargetIsa> {
    let opt_level = match options.opt_level {
        0 => "none",
        1 | 2 => "speed",
        n => {
            return Err(CodegenError::Unsupported(format!(
                "optimization level {n} (use 0, 1 or 2)"
            )));
        }
    };
    let verify = if cfg!(debug_assertions) {
        "true"
    } else {
        "false"
    };
    // -O0 allocates registers in one pass, in time linear in the function's size: the default
    // allocator's is quadratic in a function with many blocks (see `program.rs`).
    let regalloc = if options.opt_level == 0 {
        "single_pass"
    } else {
        "backtracking"
    };
    let mut builder = settings::builder();
    // The collector walks the generated code's frames by their frame pointers (`gc::stack`).
    let all = [
        ("opt_level", opt_level),
        ("enable_verifier", verify),
        ("regalloc_algorithm", regalloc),
        ("preserve_frame_pointers", "true"),
    ];
    for (name, value) in all.iter().chain(flags) {
        builder
            .set(name, value)
            .map_err(|e| CodegenError::Cranelift(format!("setting `{name}`: {e}")))?;
    }
    let isa = cranelift_native::builder()
        .map_err(|e| CodegenError::Unsupported(format!("this host: {e}")))?;
    isa.finish(settings::Flags::new(builder))
        .map_err(|e| CodegenError::Cranelift(e.to_string()))
}
