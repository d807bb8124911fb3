//! Commands that work on programs' paths and on profiles rather than running programs.

pub mod aodf;
pub mod paths;
pub mod profile;
pub mod wpp;
