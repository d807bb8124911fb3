//! pcc: the PL compiler. Typed AST → MIR → (instrumentation, optimizations) → Cranelift.

pub mod codegen;
pub mod commands;
pub mod driver;
pub mod lower;
pub mod mir;
pub mod opt;
pub mod profiling;
