// read_int(): whitespace-separated integers from stdin (spread over lines, extra blanks, negatives).
// The first number says how many follow; then a small matrix.
fn main() {
    let n = read_int();
    let xs = [0; n];
    let sum = 0;
    for i in 0..n {
        xs[i] = read_int();
        sum += xs[i];
    }
    let lo = xs[0];
    let hi = xs[0];
    for i in 1..n {
        lo = min(lo, xs[i]);
        hi = max(hi, xs[i]);
    }
    println("n =", n, "sum =", sum, "min =", lo, "max =", hi);
    println(xs);
    let rows = read_int();
    let cols = read_int();
    let m = [[0; 0]; rows];
    for r in 0..rows {
        m[r] = [0; cols];
        for c in 0..cols {
            m[r][c] = read_int();
        }
    }
    // transpose and print
    for c in 0..cols {
        let line = "";
        for r in 0..rows {
            if r > 0 {
                line += " ";
            }
            line += str(m[r][c]);
        }
        println(line);
    }
    let trailer = read_int();
    println("trailer:", trailer);
}
