//! Commands that work on programs' paths and on profiles rather than running programs, and
//! `pgo` and `test`, which chain runs of `pcc run`.

pub mod aodf;
pub mod explain;
pub mod paths;
pub mod pgo;
pub mod profile;
pub mod test;
pub mod wpp;
