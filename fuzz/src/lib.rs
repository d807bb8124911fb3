//! `pcc-fuzz`: random valid PL programs ([`generate`]), the differential checks that run each one
//! through pcc's reference interpreter and every compiled configuration ([`check`]), and the
//! shrinking of a program that shows a difference ([`shrink`]); what the programs exercise
//! ([`coverage`]).

pub mod check;
pub mod coverage;
pub mod generate;
pub mod program;
pub mod shrink;
