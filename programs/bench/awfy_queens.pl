// Are We Fast Yet: Queens (Marr et al., DLS 2016; https://github.com/smarr/are-we-fast-yet,
// benchmarks/*/Queens; from the SOM benchmarks). Ported to PL from the algorithm.
// benchmark(): solves the 8-queens problem 10 times by backtracking over bool arrays of free rows and
// diagonals; the result is true when every run found a placement. verifyResult: the result must be true.
// The benchmark object's fields are a struct passed to the methods.
// Argument: inner iterations (default 1); each runs benchmark() and verifyResult().

struct Queens { free_maxs: [bool], free_rows: [bool], free_mins: [bool], queen_rows: [int] }

fn benchmark(self: Queens) -> bool {
    let result = true;
    for i in 0..10 {
        result = result && queens(self);
    }
    return result;
}

fn queens(self: Queens) -> bool {
    self.free_rows = [true; 8];
    self.free_maxs = [true; 16];
    self.free_mins = [true; 16];
    self.queen_rows = [-1; 8];
    return place_queen(self, 0);
}

fn place_queen(self: Queens, c: int) -> bool {
    for r in 0..8 {
        if get_row_column(self, r, c) {
            self.queen_rows[r] = c;
            set_row_column(self, r, c, false);
            if c == 7 {
                return true;
            }
            if place_queen(self, c + 1) {
                return true;
            }
            set_row_column(self, r, c, true);
        }
    }
    return false;
}

fn get_row_column(self: Queens, r: int, c: int) -> bool {
    return self.free_rows[r] && self.free_maxs[c + r] && self.free_mins[c - r + 7];
}

fn set_row_column(self: Queens, r: int, c: int, v: bool) {
    self.free_rows[r] = v;
    self.free_maxs[c + r] = v;
    self.free_mins[c - r + 7] = v;
}

fn verify_result(result: bool) -> bool {
    return result;
}

fn main() -> int {
    let iterations = 1;
    if argc() > 0 { iterations = parse_int(arg(0)); }
    let bench = new Queens { free_maxs: [], free_rows: [], free_mins: [], queen_rows: [] };
    let result = false;
    let ok = true;
    let i = 0;
    while i < iterations && ok {
        result = benchmark(bench);
        ok = verify_result(result);
        i += 1;
    }
    println("Queens iterations:", iterations, "result:", result, "expected: true verified:", ok);
    if ok { return 0; }
    return 1;
}
