// N-queens: backtracking with boolean arrays (and the first board drawn), cross-checked by a
// bitmask solver (x & -x, ~, shifts). Argument: the largest N (default 8).
let FIRST: [int] = [];
let FOUND: bool = false;

fn solve(row: int, n: int, pos: [int], cols: [bool], d1: [bool], d2: [bool]) -> int {
    if row == n {
        if !FOUND {
            FOUND = true;
            FIRST = [0; n];
            for i in 0..n {
                FIRST[i] = pos[i];
            }
        }
        return 1;
    }
    let count = 0;
    for c in 0..n {
        if !cols[c] && !d1[row + c] && !d2[row - c + n - 1] {
            cols[c] = true;
            d1[row + c] = true;
            d2[row - c + n - 1] = true;
            pos[row] = c;
            count += solve(row + 1, n, pos, cols, d1, d2);
            cols[c] = false;
            d1[row + c] = false;
            d2[row - c + n - 1] = false;
        }
    }
    return count;
}

fn bits(n: int, cols: int, left: int, right: int) -> int {
    let all = (1 << n) - 1;
    if cols == all {
        return 1;
    }
    let count = 0;
    let avail = ~(cols | left | right) & all;
    while avail != 0 {
        let bit = avail & -avail;
        avail ^= bit;
        count += bits(n, cols | bit, (left | bit) << 1 & all, (right | bit) >> 1);
    }
    return count;
}

fn draw(p: [int]) {
    for r in 0..len(p) {
        let line = "";
        for c in 0..len(p) {
            if p[r] == c {
                line += "Q";
            } else {
                line += ".";
            }
        }
        println(line);
    }
}

fn main() {
    let maxn = 8;
    if argc() > 0 {
        maxn = parse_int(arg(0));
    }
    for n in 1..maxn + 1 {
        FOUND = false;
        let a = solve(0, n, [0; n], [false; n], [false; 2 * n], [false; 2 * n]);
        let b = bits(n, 0, 0, 0);
        println(n, "queens:", a, "solutions; bitmask agrees:", a == b);
        if n == 6 {
            draw(FIRST);
        }
    }
    println("first solution for", maxn, ":", FIRST);
}
