// Are We Fast Yet: Storage (Marr et al., DLS 2016; https://github.com/smarr/are-we-fast-yet,
// benchmarks/*/Storage; from the SOM benchmarks). Ported to PL from the algorithm.
// benchmark(): builds a tree of depth 7 of arrays (4 children per inner node; each leaf is an empty array
// of Random.next() % 10 + 1 slots, AWFY's 16-bit LCG), counting the nodes. verifyResult: the count must
// be 5461 (published value).
// Workaround: the original's node is an Object[] that holds Object[]s; PL's array types are not recursive,
// so a node is a struct `Obj` wrapping its `[Obj]` (one extra small allocation per node); leaf slots are null.
// PL never frees memory, so every iteration's tree stays allocated (the original relies on a GC).
// Argument: inner iterations (default 1); each runs benchmark() and verifyResult().

struct Random { seed: int }

fn random_next(self: Random) -> int {
    self.seed = ((self.seed * 1309) + 13849) & 65535;
    return self.seed;
}

struct Obj { arr: [Obj] }
struct Storage { count: int }

fn build_tree_depth(self: Storage, depth: int, random: Random) -> Obj {
    self.count += 1;
    if depth == 1 {
        let leaf: [Obj] = [null; random_next(random) % 10 + 1];
        return new Obj { arr: leaf };
    } else {
        let arr: [Obj] = [null; 4];
        for i in 0..4 {
            arr[i] = build_tree_depth(self, depth - 1, random);
        }
        return new Obj { arr: arr };
    }
}

fn benchmark(self: Storage) -> int {
    let random = new Random { seed: 74755 };
    self.count = 0;
    build_tree_depth(self, 7, random);
    return self.count;
}

fn verify_result(result: int) -> bool {
    return result == 5461;
}

fn main() -> int {
    let iterations = 1;
    if argc() > 0 { iterations = parse_int(arg(0)); }
    let bench = new Storage { count: 0 };
    let result = 0;
    let ok = true;
    let i = 0;
    while i < iterations && ok {
        result = benchmark(bench);
        ok = verify_result(result);
        i += 1;
    }
    println("Storage iterations:", iterations, "result:", result, "expected: 5461 verified:", ok);
    if ok { return 0; }
    return 1;
}
