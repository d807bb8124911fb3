// binary-trees: allocate and walk many perfect binary trees (an allocation benchmark): a stretch tree of
// depth max+1, a long-lived tree of depth max kept until the end, and for each depth d = 4, 6, ..., max,
// 2^(max - d + 4) trees of depth d, each built bottom-up and then checked by counting its nodes.
// Port of the Computer Language Benchmarks Game "binary-trees" benchmark
// (https://benchmarksgame-team.pages.debian.net/benchmarksgame/description/binarytrees.html), with
// the C program's structure: a node record with left/right pointers, recursive bottom_up_tree and
// item_check (the current suite's check = node count).
// Memory: the garbage collector reclaims each dropped tree, as the C port frees it.
// Argument: max depth (default 10). Verification: the suite's published output for 10 is
//   stretch tree of depth 11	 check: 4095
//   1024	 trees of depth 4	 check: 31744
//   ... 16	 trees of depth 10	 check: 32752
//   long lived tree of depth 10	 check: 2047
struct Node { left: Node, right: Node }

fn bottom_up_tree(depth: int) -> Node {
    if depth > 0 {
        let left = bottom_up_tree(depth - 1);
        let right = bottom_up_tree(depth - 1);
        return new Node { left: left, right: right };
    }
    return new Node { left: null, right: null };
}

fn item_check(tree: Node) -> int {
    if tree.left == null {
        return 1;
    }
    return 1 + item_check(tree.left) + item_check(tree.right);
}

fn main() {
    let n = 10;
    if argc() > 0 {
        n = parse_int(arg(0));
    }
    let min_depth = 4;
    let max_depth = max(min_depth + 2, n);
    let stretch_depth = max_depth + 1;
    let stretch = bottom_up_tree(stretch_depth);
    println("stretch tree of depth " + str(stretch_depth) + "\t check: " + str(item_check(stretch)));
    let long_lived = bottom_up_tree(max_depth);
    let depth = min_depth;
    while depth <= max_depth {
        let iterations = 1 << (max_depth - depth + min_depth);
        let check = 0;
        for i in 0..iterations {
            check += item_check(bottom_up_tree(depth));
        }
        println(str(iterations) + "\t trees of depth " + str(depth) + "\t check: " + str(check));
        depth += 2;
    }
    println("long lived tree of depth " + str(max_depth) + "\t check: " + str(item_check(long_lived)));
}
