//! `pcc paths`: static enumeration of a function's acyclic paths with their Ball-Larus ids.

use std::path::Path;

#[derive(Clone, Copy, Debug)]
pub enum Format {
    Text,
    Json,
    Dot,
}

pub fn run(_file: &Path, _function: Option<&str>, _format: Format) -> i32 {
    eprintln!("error: `pcc paths` is not implemented yet");
    1
}
