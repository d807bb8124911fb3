//! Commands that work on programs' paths and on profiles rather than running programs, and
//! `pgo` and `test`, which chain runs of `pcc run`.

pub mod annotate;
pub mod aodf;
pub mod explain;
pub mod export;
pub mod paths;
pub mod pgo;
pub mod profile;
pub mod profile_view;
pub mod report;
pub mod test;
pub mod wpp;
