// A loop-heavy integer kernel for timing: nested loops with multiply/xor/shift mixing, a
// data-dependent branch and an array update. Argument: N (default 200; the work is N*N).
// Natively, N = 15000 (2.25e8 inner iterations) takes on the order of a second.
fn kernel(n: int, table: [int]) -> int {
    let acc = 0;
    for i in 0..n {
        let x = i * 2654435761 + 1;
        for j in 0..n {
            x = (x ^ (x >> 13)) * 0x5bd1e995 + j;
            if x & 4 == 0 {
                acc += x & 0xFFFF;
            } else {
                acc -= x >> 48;
            }
            table[j & 255] += acc & 7;
        }
    }
    return acc;
}

fn main() {
    let n = 200;
    if argc() > 0 {
        n = parse_int(arg(0));
    }
    let table = [0; 256];
    let acc = kernel(n, table);
    let h = 0;
    for k in 0..256 {
        h = h * 1000003 ^ table[k];
    }
    println("n =", n, "acc =", acc, "table hash =", h);
}
