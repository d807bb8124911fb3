//! The runtime of native executables: `pcc-stdlib` as a static library (`libpcc_runtime.a`).
//! A static library holds the object code of every crate it depends on, so its `#[no_mangle]`
//! functions (the runtime ABI of docs/CONVENTIONS.md and `pcc_aot_main`) are all in the archive.
//! `compiler/build.rs` builds it and `pcc build` links it into every executable.

pub use pcc_stdlib;
