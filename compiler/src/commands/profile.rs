//! `pcc profile show|merge|diff`.

use std::path::{Path, PathBuf};

pub fn show(_profile: &Path, _top: Option<usize>, _json: bool) -> i32 {
    eprintln!("error: `pcc profile show` is not implemented yet");
    1
}

pub fn merge(_profiles: &[PathBuf], _output: &Path) -> i32 {
    eprintln!("error: `pcc profile merge` is not implemented yet");
    1
}

pub fn diff(_a: &Path, _b: &Path, _json: bool) -> i32 {
    eprintln!("error: `pcc profile diff` is not implemented yet");
    1
}
