//! The papers' worked-example graphs, for tests and documentation.
//!
//! Each function builds one control-flow graph from a paper (cited by number, as elsewhere in
//! the crate), with the node numbering and the edge order that the tests' expected ids rely on:
//! Ball-Larus numbering gives a node's out-edges increasing increments in insertion order, so
//! the order below is part of each example. Edge `i` of the list is `EdgeId(i)`.
//!
//! The papers name paths by their nodes (e.g. `sacdt`); [`edges_along`] turns such a name into
//! the CFG edges it takes.

use crate::cfg::{Cfg, EdgeId, NodeId};

fn graph(num_nodes: usize, entry: usize, exit: usize, edges: &[(usize, usize)]) -> Cfg {
    Cfg::from_edges(num_nodes, entry, exit, edges).expect("the example graphs are valid CFGs")
}

/// [PPP] Fig. 2, a node with two successors: node a = 0 branches to b = 1 and c = 2 (a→b listed
/// first); b reaches the exit 4 directly and through node 3, c goes straight to the exit. So
/// a→b gets increment 0, a→c gets N(b) = 2, and there are 3 paths.
pub fn ppp_figure_2() -> Cfg {
    graph(5, 0, 4, &[(0, 1), (0, 2), (1, 3), (1, 4), (2, 4), (3, 4)])
}

/// [PPP] Fig. 3(a) (= Fig. 13): nodes s a b c d t = 0..6; out(a) lists a→c before a→b, which
/// gives the Ball-Larus ids the paper states: sacdt 0, sact 1, sbcdt 4, sbct 5.
pub fn ppp_figure_3() -> Cfg {
    graph(
        6,
        0,
        5,
        &[
            (0, 1), // s→a
            (0, 2), // s→b
            (1, 3), // a→c
            (1, 2), // a→b
            (2, 3), // b→c
            (3, 4), // c→d
            (3, 5), // c→t
            (4, 5), // d→t
        ],
    )
}

/// [PPP] Fig. 6 (Lemma 3): nodes s a b c d e f g t = 0..9; s branches to a, b, c, which join at
/// d, which branches to e, f, g, which join at the exit t. Nine paths, three through each of
/// a, b, c.
pub fn ppp_figure_6() -> Cfg {
    let (s, a, b, c, d, e, f, g, t) = (0, 1, 2, 3, 4, 5, 6, 7, 8);
    graph(
        9,
        s,
        t,
        &[
            (s, a),
            (s, b),
            (s, c),
            (a, d),
            (b, d),
            (c, d),
            (d, e),
            (d, f),
            (d, g),
            (e, t),
            (f, t),
            (g, t),
        ],
    )
}

/// [PFP] Fig. 8, the year-2000 example: `if (age < 15) B else C; if (college) D else E;
/// if (items > 3) F else G`. Nodes: 0 test age, 1 B, 2 C, 3 test college, 4 D, 5 E, 6 test
/// items, 7 F, 8 G, 9 exit.
pub fn year_2000() -> Cfg {
    graph(
        10,
        0,
        9,
        &[
            (0, 1),
            (0, 2),
            (1, 3),
            (2, 3),
            (3, 4),
            (3, 5),
            (4, 6),
            (5, 6),
            (6, 7),
            (6, 8),
            (7, 9),
            (8, 9),
        ],
    )
}

/// [PFP] Fig. 10: AddEvenNumbers; node k is block k+1, node 7 is the exit added by the caller.
/// Edge 7 (block 6 → block 3) is the loop's back edge. It has the 6 potential paths of
/// Fig. 11.
pub fn add_even_numbers() -> Cfg {
    graph(
        8,
        0,
        7,
        &[
            (0, 1),
            (1, 2),
            (2, 3),
            (2, 6),
            (3, 4),
            (3, 5),
            (4, 5),
            (5, 2),
            (6, 7),
        ],
    )
}

/// [PFP] §6.1: `if ((A||B) && (C||D)) X else Y` with short-circuit edges; nodes A B C D X Y = 0..6
/// and the exit 6. It has 7 paths.
pub fn short_circuit_condition() -> Cfg {
    let (a, b, c, d, x, y, exit) = (0, 1, 2, 3, 4, 5, 6);
    graph(
        7,
        a,
        exit,
        &[
            (a, c),
            (a, b),
            (b, c),
            (b, y),
            (c, x),
            (c, d),
            (d, x),
            (d, y),
            (x, exit),
            (y, exit),
        ],
    )
}

/// [TPP] §4.1: `k` stacked `if`s, 2^k paths. Nodes 3i (test), 3i+1 / 3i+2 (arms), 3k the exit;
/// per `if`, the edges test→then, test→else, then→join, else→join.
pub fn stacked_ifs(k: usize) -> Cfg {
    let mut edges = Vec::new();
    for i in 0..k {
        let (test, then, other, join) = (3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3);
        edges.extend([(test, then), (test, other), (then, join), (other, join)]);
    }
    graph(3 * k + 1, 0, 3 * k, &edges)
}

/// The CFG edges of the walk through `nodes` (plain indices), the papers' way of naming a path:
/// between two consecutive nodes, the first out-edge that joins them.
///
/// # Panics
/// If two consecutive nodes are not joined by an edge.
pub fn edges_along(cfg: &Cfg, nodes: &[usize]) -> Vec<EdgeId> {
    nodes
        .windows(2)
        .map(|w| {
            *cfg.succs(NodeId(w[0]))
                .iter()
                .find(|&&e| cfg.edge(e).to == NodeId(w[1]))
                .unwrap_or_else(|| panic!("no edge {} → {}", w[0], w[1]))
        })
        .collect()
}

/// [TPP] Fig. 7a: a loop of one block B with a high iteration count between blocks A and C. Nodes
/// A B C = 0..3 and the exit 3; edges A→B, B→B (the back edge), B→C, C→exit.
pub fn tpp_figure_7() -> Cfg {
    graph(4, 0, 3, &[(0, 1), (1, 1), (1, 2), (2, 3)])
}

/// A loop for the cold-back-edge cases of [TPP] Fig. 6a: entry 0, header 1, body 2, exit 3;
/// edges 0→1, 1→2, 1→3, 2→1 (the back edge), 2→3.
pub fn tpp_figure_6a() -> Cfg {
    graph(4, 0, 3, &[(0, 1), (1, 2), (1, 3), (2, 1), (2, 3)])
}

/// [TPP] Fig. 6b: a header 1 with two back edges, from 2 (edge 2) and from 3 (edge 4); entry 0,
/// exit 4; edges 0→1, 1→2, 2→1, 2→3, 3→1, 3→4.
pub fn tpp_figure_6b() -> Cfg {
    graph(5, 0, 4, &[(0, 1), (1, 2), (2, 1), (2, 3), (3, 1), (3, 4)])
}

/// [TPP] Fig. 6c: a loop (header 1, back edge 1→1) entered only through a cold edge; entry 0,
/// exit 2; edges 0→1, 0→2, 1→1, 1→2.
pub fn tpp_figure_6c() -> Cfg {
    graph(3, 0, 2, &[(0, 1), (0, 2), (1, 1), (1, 2)])
}
