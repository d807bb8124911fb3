//! Path profiling on abstract control-flow graphs, and the `pcc` profile data model.
//!
//! Nothing here knows about PL or Cranelift. Per function, the compiler:
//! 1. builds a [`cfg::Cfg`], with an exit node that every return has an edge to;
//! 2. numbers its paths with [`ball_larus::BallLarus`] (Ball-Larus DAG in [`dag`]; truncation
//!    beyond 2^64 paths or a chosen limit);
//! 3. places the path-register code with [`instrument::PathPlan`], weighting edges by
//!    [`estimate::static_edge_weights`] or an edge profile; for edge profiling it places counters
//!    with [`edge_profile::EdgeProfilePlan`] instead;
//! 4. keeps what it decided in one [`mode::Plan`] per function, one module per profiling mode,
//!    which the program carries ([`spec`]); after the run, the plan decodes the counters into
//!    records ([`collect`]; path ids are decoded by [`regenerate`]);
//! 5. writes the [`profile::Profile`] atomically ([`output_file`]); `pcc profile show/merge/diff` work on profiles.
//!
//! [`examples`] builds the papers' worked-example graphs, for tests and documentation.

pub mod ball_larus;
pub mod cfg;
pub mod collect;
pub mod dag;
pub mod edge_profile;
pub mod english;
pub mod estimate;
pub mod examples;
pub mod instrument;
pub mod kbl;
pub mod mode;
pub mod output_file;
pub mod ppp;
pub mod profile;
pub mod regenerate;
pub mod spanning_tree;
pub mod spec;
pub mod tpp;
pub mod wpp;
