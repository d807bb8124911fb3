//! Maximum-weight spanning trees, the basis of both counter placements (Ball-Larus event
//! counting, [PPP] §5 "Counter optimizations"; [TPP] §2.1): the edges of the tree get no code, so the
//! heaviest (most frequently executed) edges should be in it.

/// Kruskal's algorithm on the undirected view of `edges` (pairs of node indices below
/// `num_nodes`). The edges listed in `first` are taken before all others (a caller forces the
/// virtual EXIT→ENTRY edge this way); the rest go by decreasing weight, ties by index. Returns,
/// per edge, whether it is in the tree (a spanning forest if the graph is disconnected).
pub fn maximum_spanning_tree(
    num_nodes: usize,
    edges: &[(usize, usize)],
    weights: &[u64],
    first: &[usize],
) -> Vec<bool> {
    let mut order: Vec<usize> = (0..edges.len()).filter(|i| !first.contains(i)).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weights[i]));
    let mut components = UnionFind::new(num_nodes);
    let mut in_tree = vec![false; edges.len()];
    for i in first.iter().copied().chain(order) {
        let (u, v) = edges[i];
        in_tree[i] = components.union(u, v);
    }
    in_tree
}

struct UnionFind {
    parent: Vec<usize>,
}

impl UnionFind {
    fn new(n: usize) -> Self {
        UnionFind {
            parent: (0..n).collect(),
        }
    }

    fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Joins the components of `a` and `b`; false if they were already one.
    fn union(&mut self, a: usize, b: usize) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        self.parent[ra] = rb;
        ra != rb
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_heavy_edges_and_forced_edge() {
        // Triangle 0-1-2 plus a parallel 0-1 edge.
        let edges = [(0, 1), (1, 2), (2, 0), (0, 1)];
        let tree = maximum_spanning_tree(3, &edges, &[5, 1, 7, 9], &[]);
        assert_eq!(tree, vec![false, false, true, true]);
        let tree = maximum_spanning_tree(3, &edges, &[5, 1, 7, 9], &[1]);
        assert_eq!(tree, vec![false, true, false, true]);
    }

    #[test]
    fn self_loops_are_never_in_the_tree() {
        assert_eq!(
            maximum_spanning_tree(2, &[(0, 0), (0, 1)], &[9, 1], &[]),
            vec![false, true]
        );
    }
}
