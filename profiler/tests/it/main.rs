//! The integration tests of `pcc-profiler`, in one executable: property tests of each scheme on
//! random CFGs and the papers' examples (each file says what it checks).

mod common;

mod count_placement;
mod kbl;
mod ppp;
mod properties;
mod tpp;
mod wpp_properties;
