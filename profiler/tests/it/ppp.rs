//! Preferential path profiling ([PPP] §3): the paper's Fig. 6, large path counts, and property
//! tests on random CFGs (loops, dead ends, truncation) with random interesting subsets.

use std::collections::HashSet;

use crate::common::{self, Rng, random_execution};
use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::cfg::{Cfg, EdgeId};
use pcc_profiler::dag::{DagEdgeId, EdgeRole};
use pcc_profiler::estimate::static_edge_weights;
use pcc_profiler::examples::{edges_along, ppp_figure_6, stacked_ifs};
use pcc_profiler::instrument::PathOp;
use pcc_profiler::ppp::{EMPTY_SLOT, PathClass, Ppp, PppOp, PppPlan};
use proptest::prelude::*;

/// Up to 10 nodes, fewer than `2n + 2` extra edges.
fn random_cfg() -> impl Strategy<Value = Cfg> {
    common::random_cfg(2..11, 2)
}

/// The Ball-Larus ids kept with probability `density`.
fn random_subset(num_paths: u64, density: f64, rng: &mut Rng) -> Vec<u64> {
    (0..num_paths)
        .filter(|_| ((rng.next() >> 11) as f64) < density * (1u64 << 53) as f64)
        .collect()
}

/// Everything the numbering promises, checked against every Ball-Larus path.
fn check_numbering(bl: &BallLarus, ppp: &Ppp, interesting: &[u64]) {
    let n = bl.num_paths();
    assert_eq!(ppp.num_interesting(), interesting.len());
    let range = ppp.range();
    assert!(range >= interesting.len() as u64);
    assert!(range <= n, "range {range} above NumPaths {n}");
    match ppp.compactness() {
        None => assert!(interesting.is_empty()),
        Some(rho) => {
            assert!(rho >= 1.0);
            assert_eq!(rho, range as f64 / interesting.len() as f64);
        }
    }
    let mut seen = HashSet::new();
    for path in ppp.paths() {
        assert!(path.ppp_id < range);
        assert!(seen.insert(path.ppp_id), "PPP id {} twice", path.ppp_id);
        assert_eq!(ppp.path_id(&path.edges), path.ppp_id);
        assert_eq!(bl.path_id(&path.edges), path.bl_id);
        assert_eq!(ppp.expected_bl_id(path.ppp_id), Some(path.bl_id));
        assert_eq!(ppp.ppp_id_of(path.bl_id), Some(path.ppp_id));
    }
    // The smallest id is 0, so ρ is the paper's (max − min + 1) / |I|.
    if !interesting.is_empty() {
        assert!(seen.contains(&0) && seen.contains(&(range - 1)));
    }
    let table = ppp.slot_table();
    assert_eq!(table.len() as u64, range);
    assert_eq!(
        table.iter().filter(|&&s| s != EMPTY_SLOT).count(),
        interesting.len()
    );
    // The runtime check accepts exactly the interesting paths.
    let wanted: HashSet<u64> = interesting.iter().copied().collect();
    for id in 0..n {
        let edges = bl.regenerate(id).unwrap();
        let class = ppp.classify(ppp.path_id(&edges), id);
        if wanted.contains(&id) {
            assert_eq!(
                class,
                PathClass::Interesting {
                    slot: ppp.ppp_id_of(id).unwrap()
                }
            );
        } else {
            assert_eq!(class, PathClass::Residual { bl_id: id });
        }
    }
}

/// Runs the two-register plan along an execution; returns `(ppp, bl)` at each path end.
fn simulate(cfg: &Cfg, plan: &PppPlan, execution: &[EdgeId]) -> Vec<(u64, u64)> {
    let (mut r_bl, mut r_ppp) = (0i64, 0i64);
    let mut ends = Vec::new();
    let value = |op: PathOp, r: i64| match op {
        PathOp::CountAdd(c) => r.wrapping_add(c) as u64,
        PathOp::CountConst(id) => id,
        other => panic!("{other:?} is not a count"),
    };
    let apply = |op: PathOp, r: &mut i64| match op {
        PathOp::Set(c) => *r = c,
        PathOp::Add(c) => *r = r.wrapping_add(c),
        other => panic!("{other:?} is not register code"),
    };
    let mut run = |ops: &[PppOp], r_bl: &mut i64, r_ppp: &mut i64| {
        for &op in ops {
            match op {
                PppOp::Bl(op) => apply(op, r_bl),
                PppOp::Ppp(op) => apply(op, r_ppp),
                PppOp::End { bl, ppp } => {
                    assert_eq!(
                        matches!(bl, PathOp::CountConst(_)),
                        matches!(ppp, PathOp::CountConst(_))
                    );
                    ends.push((value(ppp, *r_ppp), value(bl, *r_bl)));
                }
            }
        }
    };
    for &e in execution {
        run(plan.edge_ops(e), &mut r_bl, &mut r_ppp);
    }
    if let Some(&last) = execution.last() {
        run(plan.dead_end_ops(cfg.edge(last).to), &mut r_bl, &mut r_ppp);
    }
    ends
}

fn path_by_nodes(cfg: &Cfg, bl: &BallLarus, nodes: &[usize]) -> Vec<DagEdgeId> {
    edges_along(cfg, nodes)
        .into_iter()
        .map(|e| match bl.dag().role(e) {
            EdgeRole::Dag(d) => d,
            other => panic!("{other:?}"),
        })
        .collect()
}

/// [PPP] Lemma 3, Fig. 6: the six paths through d cannot be numbered 0..5 (their ids sum to
/// an even number), so ρ > 1. Tracing Fig. 10 by hand (out(d) = d→e, d→f, d→g): d→e 0,
/// d→f 1, d→g 2, a→d −1, b→d 0, c→d 0, s→a 0, s→b 2, s→c 5; ids sadft 0, sadgt 1,
/// sbdet 2, sbdgt 4, scdet 5, scdft 6; range 7 (the smallest possible by the parity
/// argument), ρ = 7/6.
#[test]
fn figure_6_has_no_perfect_numbering() {
    let (s, a, b, c, d, e, f, g, t) = (0, 1, 2, 3, 4, 5, 6, 7, 8);
    let cfg = ppp_figure_6();
    let bl = BallLarus::new(&cfg).unwrap();
    assert_eq!(bl.num_paths(), 9);
    let interesting = [
        [s, a, d, f, t],
        [s, a, d, g, t],
        [s, b, d, e, t],
        [s, b, d, g, t],
        [s, c, d, e, t],
        [s, c, d, f, t],
    ];
    let paths: Vec<Vec<DagEdgeId>> = interesting
        .iter()
        .map(|nodes| path_by_nodes(&cfg, &bl, nodes))
        .collect();
    let ppp = Ppp::from_paths(&bl, &paths).unwrap();
    let ids: Vec<u64> = paths.iter().map(|p| ppp.path_id(p)).collect();
    assert_eq!(ids, vec![0, 1, 2, 4, 5, 6]);
    assert_eq!(ppp.range(), 7);
    assert_eq!(ppp.compactness(), Some(7.0 / 6.0));
    let bl_ids: Vec<u64> = paths.iter().map(|p| bl.path_id(p)).collect();
    check_numbering(&bl, &ppp, &{
        let mut sorted = bl_ids.clone();
        sorted.sort();
        sorted
    });
    // Same set by Ball-Larus ids, same numbering.
    let again = Ppp::from_bl_ids(&bl, bl_ids).unwrap();
    assert_eq!(again.paths(), ppp.paths());
    // Slot 3 is the hole.
    assert_eq!(ppp.slot_table()[3], EMPTY_SLOT);
}

/// 2^63 potential paths, a few hundred interesting: compact ids, exact in 64-bit registers,
/// also through the placed two-register code.
#[test]
fn huge_path_counts_number_a_few_paths_compactly() {
    let cfg = stacked_ifs(63);
    let bl = BallLarus::new(&cfg).unwrap();
    assert_eq!(bl.num_paths(), 1 << 63);
    let mut rng = Rng(99);
    let ids: Vec<u64> = (0..300).map(|_| rng.next() >> 1).collect();
    let ppp = Ppp::from_bl_ids(&bl, ids.iter().copied()).unwrap();
    assert_eq!(ppp.num_interesting(), 300);
    // Arbitrary paths through 63 two-way branches need not pack perfectly, but the range
    // is nowhere near 2^63.
    assert!(ppp.range() < 1 << 20, "range {}", ppp.range());
    let mut seen = HashSet::new();
    for path in ppp.paths() {
        assert!(path.ppp_id < ppp.range() && seen.insert(path.ppp_id));
        assert_eq!(ppp.path_id(&path.edges), path.ppp_id);
    }
    let plan = ppp.plan(&static_edge_weights(&cfg, bl.dag()));
    for &id in ids.iter().take(20) {
        let execution = bl.path(id).unwrap().edges;
        let ends = simulate(&cfg, &plan, &execution);
        assert_eq!(ends, vec![(ppp.ppp_id_of(id).unwrap(), id)]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn interesting_ids_are_unique_compact_and_checked(
        cfg in random_cfg(),
        seed in 1u64..u64::MAX,
        density in 0.0f64..1.0,
        limit in prop::option::of(2u64..40),
    ) {
        let Ok(bl) = BallLarus::with_limit(&cfg, limit.unwrap_or(u64::MAX)) else {
            return Ok(());
        };
        let n = bl.num_paths();
        prop_assume!(n <= 3000);
        let interesting = random_subset(n, density, &mut Rng(seed));
        let ppp = Ppp::from_bl_ids(&bl, interesting.iter().copied()).unwrap();
        check_numbering(&bl, &ppp, &interesting);
        // The same set given as edge sequences, in another order, numbers the same.
        let mut paths: Vec<Vec<DagEdgeId>> =
            interesting.iter().rev().map(|&id| bl.regenerate(id).unwrap()).collect();
        paths.extend(paths.first().cloned());
        let again = Ppp::from_paths(&bl, &paths).unwrap();
        prop_assert_eq!(again.paths(), ppp.paths());
    }

    #[test]
    fn all_paths_interesting_is_perfect(
        cfg in random_cfg(),
        limit in prop::option::of(2u64..40),
    ) {
        let Ok(bl) = BallLarus::with_limit(&cfg, limit.unwrap_or(u64::MAX)) else {
            return Ok(());
        };
        let n = bl.num_paths();
        prop_assume!(n <= 3000);
        let all: Vec<u64> = (0..n).collect();
        let ppp = Ppp::from_bl_ids(&bl, all.iter().copied()).unwrap();
        prop_assert_eq!(ppp.range(), n);
        prop_assert_eq!(ppp.compactness(), Some(1.0));
        check_numbering(&bl, &ppp, &all);
        // It is the Ball-Larus numbering itself ([PPP] §4.4).
        for (d, _) in bl.dag().edges() {
            prop_assert_eq!(ppp.weight(d), Some(i128::from(bl.increment(d))));
        }
    }

    #[test]
    fn placed_code_computes_both_ids(
        cfg in random_cfg(),
        seed in 1u64..u64::MAX,
        density in 0.0f64..1.0,
        limit in prop::option::of(2u64..40),
        measured in prop::option::of(prop::collection::vec(0u64..100, 40)),
    ) {
        let Ok(bl) = BallLarus::with_limit(&cfg, limit.unwrap_or(u64::MAX)) else {
            return Ok(());
        };
        prop_assume!(bl.num_paths() <= 3000);
        let mut rng = Rng(seed);
        let interesting = random_subset(bl.num_paths(), density, &mut rng);
        let ppp = Ppp::from_bl_ids(&bl, interesting.iter().copied()).unwrap();
        let weights = match measured {
            Some(w) => w[..cfg.num_edges()].to_vec(),
            None => static_edge_weights(&cfg, bl.dag()),
        };
        let plan = ppp.plan(&weights);
        for _ in 0..4 {
            let (execution, finished) = random_execution(&cfg, &bl, &mut rng, 40);
            // A run stops only at EXIT, a dead end or a block the plan was told may stop
            // (`plan_with_stops`); one cut off inside an endless loop may already have
            // counted the path it was about to take (a count pushed up onto its entry edge).
            if !finished {
                continue;
            }
            let bl_ids = bl.path_ids_of_execution(&cfg, &execution);
            let ppp_ids = ppp.path_ids_of_execution(&cfg, &execution);
            prop_assert_eq!(bl_ids.len(), ppp_ids.len());
            for (&bl_id, &ppp_id) in bl_ids.iter().zip(&ppp_ids) {
                prop_assert_eq!(ppp_id, ppp.path_id(&bl.regenerate(bl_id).unwrap()));
            }
            let ends: Vec<(u64, u64)> = ppp_ids.into_iter().zip(bl_ids).collect();
            prop_assert_eq!(simulate(&cfg, &plan, &execution), ends);
        }
    }
}
