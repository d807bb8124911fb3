//! pcc: the PL compiler. Typed AST → MIR → (instrumentation, optimizations) → Cranelift → JIT,
//! or an object file linked with the runtime into a native executable.

pub mod codegen;
pub mod commands;
pub mod driver;
pub mod interp;
pub mod link;
pub mod lower;
pub mod lsp;
pub mod mir;
pub mod notes;
pub mod opt;
pub mod pgo;
pub mod profile_view;
pub mod profiling;
pub mod terminal;
