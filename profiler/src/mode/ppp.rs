//! `ppp`: preferential path profiling ([PPP]). The interesting paths get compact ids of their
//! own ([`Ppp`], [PPP] §3–4) counted in an array; every other path is counted by its
//! Ball-Larus id in a second, hashed table (its residual paths, [PPP] §5).
//!
//! A function whose Ball-Larus paths all fit the array needs no compact numbering: there every
//! path is counted by its Ball-Larus id, as `bl` counts it (one register, a plain increment, no
//! range or slot check), and decoding sorts the counts into interesting and residual paths. PPP
//! then costs exactly what Ball-Larus does, never more, as [PPP] §5 intends for functions whose
//! paths fit an array; the two registers and the check serve the functions with too many paths.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{FunctionCounters, Layout};
use crate::ball_larus::BallLarus;
use crate::cfg::Cfg;
use crate::collect::{executed_paths, function_profile};
use crate::estimate::static_edge_weights;
use crate::instrument::PathPlan;
use crate::ppp::{EMPTY_SLOT, Ppp, PppError, PppPlan};
use crate::profile::{FunctionProfile, ModeRecord, PppRecord, Storage};
use crate::spec::FunctionSpec;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// The numbering of the interesting paths, over the Ball-Larus numbering.
    pub ppp: Ppp,
    /// The register code on each edge.
    pub code: Code,
    /// [`Code::Ppp`]: the interesting paths' counters, by PPP id, at most `array_limit` of
    /// them; [`Code::BallLarus`]: one counter per Ball-Larus path.
    pub layout: Layout,
    /// [`Code::Ppp`]: the Ball-Larus id each counter's path must have (a read-only array next
    /// to the counters; [`EMPTY_SLOT`] in a hole); empty for [`Code::BallLarus`].
    pub slots: Vec<u64>,
    /// Whether the PPP ids fit the array (else the storage is reported as hashed).
    pub storage: Storage,
}

/// How the paths of a function are counted.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Code {
    /// Every Ball-Larus path fits the array: `bl`'s code, each path counted by its Ball-Larus id.
    BallLarus(PathPlan),
    /// The two registers, and the check where a path ends ([PPP] §5).
    Ppp(PppPlan),
}

/// Numbers the `interesting` paths (Ball-Larus ids of `numbering`) and places the code, never
/// ending a path before a node the program may stop in (`may_stop`, by node).
pub fn plan(
    numbering: &BallLarus,
    cfg: &Cfg,
    interesting: impl IntoIterator<Item = u64>,
    may_stop: &[bool],
    array_limit: u64,
) -> Result<Plan, PppError> {
    let ppp = Ppp::from_bl_ids(numbering, interesting)?;
    let weights = static_edge_weights(cfg, numbering.dag());
    let storage = Storage::choose(ppp.range(), array_limit);
    if numbering.num_paths() <= array_limit {
        return Ok(Plan {
            code: Code::BallLarus(PathPlan::with_stops(numbering, &weights, may_stop)),
            layout: Layout {
                len: numbering.num_paths(),
                hashed: false,
            },
            slots: Vec::new(),
            storage,
            ppp,
        });
    }
    let code = Code::Ppp(ppp.plan_with_stops(&weights, may_stop));
    // [PPP] §5 "Hash table usage policy": past the array limit, interesting paths count as
    // residual and decoding moves them back.
    let len = ppp.range().min(array_limit);
    let mut slots = vec![EMPTY_SLOT; len as usize];
    for p in ppp.paths().iter().filter(|p| p.ppp_id < len) {
        slots[p.ppp_id as usize] = p.bl_id;
    }
    Ok(Plan {
        storage,
        ppp,
        code,
        layout: Layout::array(len),
        slots,
    })
}

/// Interesting paths from the dense counters by PPP id, plus any interesting path counted as
/// residual (its PPP id was past the array); the other residual paths by Ball-Larus id. Under
/// [`Code::BallLarus`], every path is in the counters by Ball-Larus id.
pub fn decode(
    plan: &Plan,
    function: &FunctionSpec,
    counters: FunctionCounters,
) -> Result<FunctionProfile, String> {
    let cfg = function.cfg().map_err(|e| e.to_string())?;
    let ppp = &plan.ppp;
    let numbering = ppp.ball_larus();
    let (by_ppp_id, by_bl_id): (&[_], [&[_]; 2]) = match plan.code {
        Code::BallLarus(_) => (&[], [counters.counts, counters.residual]),
        Code::Ppp(_) => (counters.counts, [&[], counters.residual]),
    };
    let mut interesting: BTreeMap<u64, u64> = BTreeMap::new();
    for &(slot, count) in by_ppp_id {
        let bl = ppp
            .expected_bl_id(slot)
            .ok_or_else(|| format!("PPP counter {slot} is not an interesting path"))?;
        *interesting.entry(bl).or_default() += count;
    }
    let mut others: BTreeMap<u64, u64> = BTreeMap::new();
    for &(bl, count) in by_bl_id.into_iter().flatten() {
        let into = if ppp.ppp_id_of(bl).is_some() {
            &mut interesting
        } else {
            &mut others
        };
        *into.entry(bl).or_default() += count;
    }
    let lines = |v| function.statement_lines(v);
    let paths = |counts| executed_paths(numbering, &cfg, counts, lines).map_err(|e| e.to_string());
    let record = ModeRecord::Ppp(PppRecord {
        interesting: ppp.paths().iter().map(|p| p.bl_id).collect(),
        range: ppp.range(),
        rho: ppp.compactness(),
        residual: paths(others)?,
    });
    let mut profile = function_profile(
        &function.name,
        &function.cfg_hash,
        numbering,
        plan.storage,
        record,
    );
    profile.paths = paths(interesting)?;
    Ok(profile)
}
