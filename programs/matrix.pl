// Float matrices: multiplication, Gaussian elimination with partial pivoting (solve and
// determinant), the ill-conditioned Hilbert matrix, and printing of computed floats.
fn zeros(n: int, m: int) -> [[float]] {
    let a = [[0.0; 0]; n];
    for i in 0..n {
        a[i] = [0.0; m];
    }
    return a;
}

fn mul(a: [[float]], b: [[float]]) -> [[float]] {
    let n = len(a);
    let m = len(b[0]);
    let k = len(b);
    let c = zeros(n, m);
    for i in 0..n {
        for j in 0..m {
            let s = 0.0;
            for t in 0..k {
                s += a[i][t] * b[t][j];
            }
            c[i][j] = s;
        }
    }
    return c;
}

fn copy(a: [[float]]) -> [[float]] {
    let c = zeros(len(a), len(a[0]));
    for i in 0..len(a) {
        for j in 0..len(a[0]) {
            c[i][j] = a[i][j];
        }
    }
    return c;
}

// solves a x = b in place on copies; returns x, and stores the determinant in DET
let DET: float = 0.0;

fn solve(a0: [[float]], b0: [float]) -> [float] {
    let a = copy(a0);
    let n = len(a);
    let b = [0.0; n];
    for i in 0..n {
        b[i] = b0[i];
    }
    let det = 1.0;
    for col in 0..n {
        let p = col;
        for r in col + 1..n {
            if abs(a[r][col]) > abs(a[p][col]) {
                p = r;
            }
        }
        if p != col {
            let t = a[p];
            a[p] = a[col];
            a[col] = t;
            let tb = b[p];
            b[p] = b[col];
            b[col] = tb;
            det = -det;
        }
        det *= a[col][col];
        for r in col + 1..n {
            let f = a[r][col] / a[col][col];
            for c in col..n {
                a[r][c] -= f * a[col][c];
            }
            b[r] -= f * b[col];
        }
    }
    let x = [0.0; n];
    let i = n - 1;
    while i >= 0 {
        let s = b[i];
        for c in i + 1..n {
            s -= a[i][c] * x[c];
        }
        x[i] = s / a[i][i];
        i -= 1;
    }
    DET = det;
    return x;
}

fn main() {
    let a = [[2.0, 1.0, -1.0], [-3.0, -1.0, 2.0], [-2.0, 1.0, 2.0]];
    let b = [8.0, -11.0, -3.0];
    let x = solve(a, b);
    println("x =", x, "det =", DET);
    let id = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    println("a * I =", mul(a, id));
    println("a * a =", mul(a, a));
    let r = [[0.1, 0.2], [0.3, 0.4]];
    println("r * r =", mul(r, r));

    for n in 2..7 {
        let h = zeros(n, n);
        let ones = [1.0; n];
        for i in 0..n {
            for j in 0..n {
                h[i][j] = 1.0 / float(i + j + 1);
            }
        }
        let hx = solve(h, ones);
        let sum = 0.0;
        for i in 0..n {
            sum += hx[i];
        }
        println("hilbert", n, "det", DET, "sum of solution", fixed(sum, 6));
    }
    let h3 = zeros(3, 3);
    for i in 0..3 {
        for j in 0..3 {
            h3[i][j] = 1.0 / float(i + j + 1);
        }
    }
    println(h3);
    println(solve(h3, [1.0, 1.0, 1.0]));
}
