//! The integration tests of `pcc-lang`, in one executable: the diagnostics' wording and
//! positions, and the front end's robustness on hostile input.

mod diagnostics;
mod robustness;
