// Are We Fast Yet: Permute (Marr et al., DLS 2016; https://github.com/smarr/are-we-fast-yet,
// benchmarks/*/Permute; from the SOM benchmarks). Ported to PL from the algorithm.
// benchmark(): generates all permutations of a 6-element array by recursive swapping, counting the calls
// of permute(). verifyResult: the count must be 8660 (published value).
// The benchmark object's fields (count, v) are a struct passed to the methods.
// Argument: inner iterations (default 1); each runs benchmark() and verifyResult().

struct Permute { count: int, v: [int] }

fn permute(self: Permute, n: int) {
    self.count += 1;
    if n != 0 {
        let n1 = n - 1;
        permute(self, n1);
        let i = n1;
        while i >= 0 {
            swap(self, n1, i);
            permute(self, n1);
            swap(self, n1, i);
            i -= 1;
        }
    }
}

fn swap(self: Permute, i: int, j: int) {
    let tmp = self.v[i];
    self.v[i] = self.v[j];
    self.v[j] = tmp;
}

fn benchmark(self: Permute) -> int {
    self.count = 0;
    self.v = [0; 6];
    permute(self, 6);
    return self.count;
}

fn verify_result(result: int) -> bool {
    return result == 8660;
}

fn main() -> int {
    let iterations = 1;
    if argc() > 0 { iterations = parse_int(arg(0)); }
    let bench = new Permute { count: 0, v: [] };
    let result = 0;
    let ok = true;
    let i = 0;
    while i < iterations && ok {
        result = benchmark(bench);
        ok = verify_result(result);
        i += 1;
    }
    println("Permute iterations:", iterations, "result:", result, "expected: 8660 verified:", ok);
    if ok { return 0; }
    return 1;
}
