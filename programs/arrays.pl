// Arrays: literals, [v; n] (v evaluated once; one shared reference for reference types),
// identity ==, nested arrays, empty arrays, printing, passing by reference.
let COUNTER: int = 0;

fn next_index() -> int {
    COUNTER += 1;
    println("next_index called, returns", COUNTER - 1);
    return COUNTER - 1;
}

fn make_row(n: int) -> [int] {
    println("make_row called");
    return [7; n];
}

fn fill(a: [int], v: int) {
    for i in 0..len(a) {
        a[i] = v + i;
    }
}

fn sum(a: [int]) -> int {
    let s = 0;
    for i in 0..len(a) {
        s += a[i];
    }
    return s;
}

fn matrix(rows: int, cols: int) -> [[int]] {
    let m = [[0; 0]; rows];
    for r in 0..rows {
        m[r] = [0; cols];
        for c in 0..cols {
            m[r][c] = r * cols + c;
        }
    }
    return m;
}

fn main() {
    let a = [1, 2, 3];
    println(a, len(a));
    let e: [int] = [];
    println(e, len(e), [0; 0], len([5; 0]));
    println([1.5, -0.0, 1e20], [true, false], ["x", "y z", ""], [[1], [0; 0], [2, 3]]);
    println([[[1, 2], [3]], [[4]]]);

    // element assignment and compound assignment
    a[0] = 10;
    a[1] += 5;
    a[2] *= a[2];
    println(a);
    let z = [0, 0, 0];
    z[next_index()] += 100;
    z[next_index()] -= 1;
    println(z, COUNTER);

    // [v; n]: v is evaluated once
    let rows = [make_row(2); 3];
    println(rows);
    rows[0][1] = 99;
    println("shared row:", rows, rows[0] == rows[1], rows[1] == rows[2]);
    let grid = matrix(3, 4);
    println("separate rows:", grid, grid[0] == grid[1]);
    grid[2][3] = -1;
    println(grid[2]);

    // identity, not contents
    let b = [1, 2, 3];
    let c = [1, 2, 3];
    let d = b;
    println("b == c:", b == c, "b == d:", b == d, "b != c:", b != c);
    d[0] = 42;
    println("after d[0] = 42:", b, c);

    // arrays are passed by reference
    let f = [0; 5];
    fill(f, 10);
    println(f, sum(f));

    // repeated values of each type
    println([2.5; 3], [false; 2], ["ab"; 2], [-1; 4]);
    let strs = ["a"; 3];
    strs[1] = "b";
    println(strs);

    // arrays of arrays of different lengths
    let tri: [[int]] = [];
    tri = [[1], [1, 1], [1, 2, 1], [0; 4], [0; 5]];
    for i in 3..5 {
        tri[i][0] = 1;
        tri[i][i] = 1;
        for j in 1..i {
            tri[i][j] = tri[i - 1][j - 1] + tri[i - 1][j];
        }
    }
    println(tri);
    let total = 0;
    for i in 0..len(tri) {
        total += sum(tri[i]);
    }
    println("row sums total:", total);

    // bool flags and a histogram
    let data = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9];
    let seen = [false; 10];
    let hist = [0; 10];
    for i in 0..len(data) {
        seen[data[i]] = true;
        hist[data[i]] += 1;
    }
    println(seen);
    println(hist);

    // swap through a temporary and reverse in place
    let r = [1, 2, 3, 4, 5, 6];
    let i = 0;
    let j = len(r) - 1;
    while i < j {
        let tmp = r[i];
        r[i] = r[j];
        r[j] = tmp;
        i += 1;
        j -= 1;
    }
    println(r);

    // an array literal holds its elements' values; element arrays are shared by reference
    let inner = [1, 2];
    let outer = [inner, inner, [1, 2]];
    inner[0] = 100;
    println(outer, outer[0] == outer[1], outer[0] == outer[2]);
}
