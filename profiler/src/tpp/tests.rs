//! TPP on the papers' example graphs ([TPP] Figs. 2, 5, 6, 7), reconstructed from the text.

use super::*;
use crate::examples::{
    add_even_numbers, edges_along, stacked_ifs, tpp_figure_6a, tpp_figure_6b, tpp_figure_6c,
    tpp_figure_7,
};

fn keep_everything() -> TppConfig {
    TppConfig {
        eliminate_obvious: false,
        ..TppConfig::default()
    }
}

fn bl_profile(cfg: &Cfg, bl: &BallLarus, runs: &[(Vec<EdgeId>, u64)]) -> BTreeMap<u64, u64> {
    let mut counts = BTreeMap::new();
    for (run, times) in runs {
        for id in bl.path_ids_of_execution(cfg, run) {
            *counts.entry(id).or_insert(0) += times;
        }
    }
    counts
}

fn edge_profile(cfg: &Cfg, runs: &[(Vec<EdgeId>, u64)]) -> Vec<u64> {
    let mut counts = vec![0; cfg.num_edges()];
    for (run, times) in runs {
        for e in run {
            counts[e.0] += times;
        }
    }
    counts
}

fn run(tpp: &Tpp, runs: &[(Vec<EdgeId>, u64)]) -> TppCounters {
    let mut counters = TppCounters::default();
    for (execution, times) in runs {
        for _ in 0..*times {
            tpp.execute(execution, &mut counters);
        }
    }
    counters
}

/// [TPP] Fig. 5: stacked conditionals; cold branch edges halve the potential paths each.
#[test]
fn figure_5_biased_stacked_conditionals() {
    let k = 6;
    let cfg = stacked_ifs(k);
    // Conditionals 0, 2 and 4 take their else arm 1% of the time, the others are 50/50.
    let mut counts = Vec::new();
    for i in 0..k {
        let (then, other) = if i % 2 == 0 { (99, 1) } else { (50, 50) };
        counts.extend([then, other, then, other]);
    }
    let tpp = Tpp::new(&cfg, &counts, TppConfig::default()).unwrap();
    assert_eq!(BallLarus::new(&cfg).unwrap().num_paths(), 64);
    assert_eq!(tpp.num_paths(), 8);
    for i in (0..k).step_by(2) {
        let (test_else, else_join) = (EdgeId(4 * i + 1), EdgeId(4 * i + 3));
        assert_eq!(tpp.coldness(test_else), Some(Coldness::Local));
        assert_eq!(tpp.coldness(else_join), Some(Coldness::Transitive));
        // A hot block's cold out-edge poisons; the cold block's edge needs nothing.
        assert_eq!(tpp.edge_ops(test_else), &[TppOp::Poison]);
        assert!(tpp.edge_ops(else_join).is_empty());
    }
    assert!(tpp.needs_instrumentation());
    // A run through a cold arm is counted as cold, a hot one by its id.
    let hot = edges_along(&cfg, &[0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18]);
    let cold = edges_along(&cfg, &[0, 2, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18]);
    let runs = [(hot, 3), (cold, 2)];
    let counters = run(&tpp, &runs);
    assert_eq!(counters.cold, 2);
    assert_eq!(counters.paths.values().sum::<u64>(), 3);
    assert!(counters.paths.keys().all(|&id| id < tpp.num_paths()));
    // The 2 cold runs (12 blocks, the exit sink not counted) are not attributed: AoDF =
    // 100% - 2/5.
    let profile = tpp.rebuild(&counters, &counts);
    let bl = BallLarus::new(&cfg).unwrap();
    let aodf = attribution_of_definite_flow(&bl, &bl_profile(&cfg, &bl, &runs), &tpp, &profile);
    assert_eq!((aodf.overcount, aodf.undercount), (0, 2 * 12));
    assert_eq!(aodf.percent(), 60.0);
}

/// [TPP] §4.1 / issue 4: stacked biased conditionals have too many paths for an array of
/// counters under Ball-Larus, and few under TPP.
#[test]
fn biased_stack_fits_an_array_under_tpp() {
    let k = 40;
    let cfg = stacked_ifs(k);
    let mut counts = Vec::new();
    for i in 0..k {
        let (then, other) = if i < 37 { (999, 1) } else { (500, 500) };
        counts.extend([then, other, then, other]);
    }
    assert_eq!(BallLarus::new(&cfg).unwrap().num_paths(), 1 << 40);
    let tpp = Tpp::new(&cfg, &counts, TppConfig::default()).unwrap();
    assert_eq!(tpp.num_paths(), 8);
    assert_eq!(tpp.cold_edges().len(), 2 * 37);
}

/// [TPP] Fig. 7: a one-block loop iterating 1000 times per call is disconnected; all the paths
/// left are obvious, so nothing is instrumented, and the rebuilt profile matches Ball-Larus.
#[test]
fn figure_7_loop_disconnection_makes_all_paths_obvious() {
    let cfg = tpp_figure_7();
    let mut execution = vec![EdgeId(0)];
    execution.extend(std::iter::repeat_n(EdgeId(1), 1000));
    execution.extend([EdgeId(2), EdgeId(3)]);
    let runs = vec![(execution, 100)];
    let counts = edge_profile(&cfg, &runs);
    assert_eq!(counts, vec![100, 100_000, 100, 100]);

    let tpp = Tpp::new(&cfg, &counts, TppConfig::default()).unwrap();
    assert_eq!(tpp.disconnected_headers(), &[NodeId(1)]);
    assert_eq!(tpp.disconnected_edges(), &[EdgeId(0), EdgeId(2)]);
    assert!(tpp.cold_edges().is_empty());
    assert_eq!(tpp.num_paths(), 4);
    assert!((0..4).all(|id| tpp.is_obvious(id)));
    assert!(!tpp.needs_instrumentation());
    assert!(tpp.entry_ops().is_empty());
    assert!((0..4).all(|e| tpp.edge_ops(EdgeId(e)).is_empty()));

    let counters = run(&tpp, &runs);
    assert_eq!(counters, TppCounters::default());
    let profile = tpp.rebuild(&counters, &counts);
    let mut rebuilt: Vec<u64> = profile.paths.values().copied().collect();
    rebuilt.sort();
    assert_eq!(rebuilt, vec![100, 100, 100, 100_000]);

    let bl = BallLarus::new(&cfg).unwrap();
    let aodf = attribution_of_definite_flow(&bl, &bl_profile(&cfg, &bl, &runs), &tpp, &profile);
    assert_eq!(aodf.percent(), 100.0);

    // Without disconnection (Fig. 7b) the four BL paths are not obvious. (With the 5% branch
    // bias criterion alone, the loop exit would be cold: 100 of 100,100.)
    let config = TppConfig {
        cold_threshold: 0,
        loop_threshold: 0,
        ..TppConfig::default()
    };
    let kept = Tpp::new(&cfg, &counts, config).unwrap();
    assert!(kept.disconnected_headers().is_empty());
    assert_eq!(kept.num_paths(), 4);
    assert!(kept.needs_instrumentation());
}

/// [TPP] Fig. 6a: the only back edge is cold, no path starts at the header: poison.
#[test]
fn figure_6a_cold_back_edge_poisons() {
    let cfg = tpp_figure_6a();
    let counts = [100, 100, 2, 2, 98];
    let tpp = Tpp::new(&cfg, &counts, keep_everything()).unwrap();
    assert_eq!(tpp.cold_edges(), vec![EdgeId(2), EdgeId(3)]);
    assert_eq!(tpp.cold_back_edge(EdgeId(3)), Some(ColdBackEdge::Poison));
    assert_eq!(tpp.edge_ops(EdgeId(3)), &[TppOp::CountCold, TppOp::Poison]);
    // 0 1 2 1 3: a cold path ends at the back edge, the next one (1→3) is poisoned.
    let counters = run(&tpp, &[(edges_along(&cfg, &[0, 1, 2, 1, 3]), 1)]);
    assert_eq!(counters.cold, 2);
    assert!(counters.paths.is_empty());
    // The one hot path is obvious: with elimination, no code at all.
    let tpp = Tpp::new(&cfg, &counts, TppConfig::default()).unwrap();
    assert_eq!(tpp.num_paths(), 1);
    assert!(!tpp.needs_instrumentation());
}

/// [TPP] Fig. 6b: one hot and one cold back edge into the header: both reset the register.
#[test]
fn figure_6b_cold_back_edge_resets() {
    let cfg = tpp_figure_6b();
    let counts = [100, 151, 50, 101, 1, 100];
    let tpp = Tpp::new(&cfg, &counts, keep_everything()).unwrap();
    assert_eq!(tpp.cold_edges(), vec![EdgeId(4)]);
    assert_eq!(tpp.cold_back_edge(EdgeId(4)), Some(ColdBackEdge::Reset));
    let dummy = tpp.dag().entry_dummy(NodeId(1)).unwrap();
    assert_eq!(
        tpp.edge_ops(EdgeId(4)),
        &[TppOp::CountCold, TppOp::Set(tpp.increment(dummy))]
    );
    assert!(tpp.disconnected_headers().is_empty());
    // 0 1 2 3 1 2 3 4: cold path to the cold back edge, then a hot path from the header.
    let counters = run(&tpp, &[(edges_along(&cfg, &[0, 1, 2, 3, 1, 2, 3, 4]), 1)]);
    assert_eq!(counters.cold, 1);
    let (&id, &count) = counters.paths.iter().next().unwrap();
    assert_eq!(count, 1);
    assert_eq!(
        tpp.cfg_path(id).unwrap(),
        (NodeId(1), edges_along(&cfg, &[1, 2, 3, 4]))
    );
}

/// [TPP] Fig. 6c: the whole loop is cold; its back edge records a cold path and leaves the
/// (already poisoned) register alone.
#[test]
fn figure_6c_cold_loop_body() {
    let cfg = tpp_figure_6c();
    let counts = [1, 99, 5, 1];
    let tpp = Tpp::new(&cfg, &counts, keep_everything()).unwrap();
    assert_eq!(tpp.coldness(EdgeId(0)), Some(Coldness::Local));
    assert_eq!(tpp.coldness(EdgeId(2)), Some(Coldness::Transitive));
    assert_eq!(tpp.coldness(EdgeId(3)), Some(Coldness::Transitive));
    assert_eq!(tpp.cold_back_edge(EdgeId(2)), Some(ColdBackEdge::Unchanged));
    assert_eq!(tpp.edge_ops(EdgeId(0)), &[TppOp::Poison]);
    assert_eq!(tpp.edge_ops(EdgeId(2)), &[TppOp::CountCold]);
    assert_eq!(tpp.edge_ops(EdgeId(3)), &[TppOp::CountCold]);
    let counters = run(&tpp, &[(edges_along(&cfg, &[0, 1, 1, 1, 2]), 1)]);
    assert_eq!(counters.cold, 3);
    assert!(counters.paths.is_empty());
}

/// [TPP] Fig. 2: every path has a defining edge, so the routine is not instrumented, and the
/// path profile follows from the edge profile.
#[test]
fn figure_2_all_obvious_routine() {
    // A three-way switch whose arms return, and an if without else after arm 2.
    let cfg = Cfg::from_edges(
        7,
        0,
        6,
        &[
            (0, 1),
            (0, 2),
            (0, 3),
            (1, 6),
            (2, 4),
            (2, 5),
            (4, 6),
            (5, 6),
            (3, 6),
        ],
    )
    .unwrap();
    let runs: Vec<(Vec<EdgeId>, u64)> = vec![
        (edges_along(&cfg, &[0, 1, 6]), 10),
        (edges_along(&cfg, &[0, 2, 4, 6]), 20),
        (edges_along(&cfg, &[0, 2, 5, 6]), 30),
        (edges_along(&cfg, &[0, 3, 6]), 40),
    ];
    let counts = edge_profile(&cfg, &runs);
    let tpp = Tpp::new(&cfg, &counts, TppConfig::default()).unwrap();
    assert!(tpp.cold_edges().is_empty());
    assert_eq!(tpp.num_paths(), 4);
    assert!(!tpp.needs_instrumentation());
    assert_eq!(tpp.obvious_recording_points().len(), 4);
    let profile = tpp.rebuild(&run(&tpp, &runs), &counts);
    let bl = BallLarus::new(&cfg).unwrap();
    let bl_counts = bl_profile(&cfg, &bl, &runs);
    assert_eq!(profile.paths, bl_counts);
    let aodf = attribution_of_definite_flow(&bl, &bl_counts, &tpp, &profile);
    assert_eq!(aodf.percent(), 100.0);
}

/// TPP(0, 0) without obvious-path elimination is Ball-Larus: same paths, same ids.
#[test]
fn zero_thresholds_are_ball_larus() {
    let cfg = add_even_numbers();
    let config = TppConfig {
        cold_threshold: 0,
        loop_threshold: 0,
        eliminate_obvious: false,
    };
    let tpp = Tpp::new(&cfg, &[1; 9], config).unwrap();
    let bl = BallLarus::new(&cfg).unwrap();
    assert_eq!(tpp.num_paths(), bl.num_paths());
    let blocks = [1, 2, 3, 4, 6, 3, 4, 5, 6, 3, 7];
    let nodes: Vec<usize> = blocks.iter().map(|b| b - 1).chain([7]).collect();
    let execution = edges_along(&cfg, &nodes);
    let counters = run(&tpp, &[(execution.clone(), 1)]);
    let expected: BTreeMap<u64, u64> = bl
        .path_ids_of_execution(&cfg, &execution)
        .into_iter()
        .map(|id| (id, 1))
        .collect();
    assert_eq!(counters.paths, expected);
}

#[test]
fn mismatched_profile_is_an_error() {
    assert_eq!(
        Tpp::new(&tpp_figure_7(), &[1, 2], TppConfig::default()).unwrap_err(),
        TppError::EdgeCountLength {
            expected: 4,
            got: 2
        }
    );
}

/// A `break` out of a disconnected loop through a cold block: the exit edge is cut (§4.2.1) and
/// cold transitively; like a cold back edge (Fig. 6b) it ends the cold path and starts the hot
/// one after the loop, which is then counted by its id, not as cold.
#[test]
fn cold_exit_of_a_disconnected_loop_resets_the_register() {
    // 0 entry, 1 header, 2 body, 3 rare block in the loop, 4 after the loop, 5 exit.
    let cfg = Cfg::from_edges(
        6,
        0,
        5,
        &[
            (0, 1),
            (1, 2),
            (1, 4),
            (2, 1),
            (2, 3),
            (3, 1),
            (3, 4),
            (4, 5),
        ],
    )
    .unwrap();
    let counts = [100, 10_000, 99, 9_999, 1, 0, 1, 100];
    let tpp = Tpp::new(&cfg, &counts, keep_everything()).unwrap();
    assert_eq!(tpp.disconnected_headers(), &[NodeId(1)]);
    assert_eq!(tpp.coldness(EdgeId(4)), Some(Coldness::Local));
    assert_eq!(tpp.coldness(EdgeId(6)), Some(Coldness::Transitive));
    assert_eq!(tpp.cold_back_edge(EdgeId(6)), Some(ColdBackEdge::Reset));
    let after = tpp.dag().entry_dummy(NodeId(4)).unwrap();
    assert_eq!(
        tpp.edge_ops(EdgeId(6)),
        &[TppOp::CountCold, TppOp::Set(tpp.increment(after))]
    );
    let counters = run(&tpp, &[(edges_along(&cfg, &[0, 1, 2, 3, 4, 5]), 1)]);
    assert_eq!(counters.cold, 1);
    let mut paths: Vec<(NodeId, Vec<EdgeId>)> = counters
        .paths
        .keys()
        .map(|&id| tpp.cfg_path(id).unwrap())
        .collect();
    paths.sort();
    assert_eq!(
        paths,
        vec![(NodeId(0), vec![EdgeId(0)]), (NodeId(4), vec![EdgeId(7)])]
    );
}

/// App. A: a poisoned register is `POISON`, and the clamped count puts it on the cold counter
/// `count[num_paths]`; a table index past that is refused.
#[test]
fn poisoned_paths_count_in_the_last_counter() {
    let mut counters = TppCounters::default();
    counters.record(8, POISON.saturating_add(5).min(8));
    counters.record(8, 3);
    assert_eq!((counters.cold, counters.paths.get(&3)), (1, Some(&1)));
    assert!(counters.add(8, 9, 1).is_err());
}
