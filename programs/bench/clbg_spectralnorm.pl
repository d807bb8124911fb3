// spectral-norm: the spectral norm of the infinite matrix A(i,j) = 1/((i+j)(i+j+1)/2 + i + 1),
// approximated by 10 rounds of the power method on A^T A (u = AtA v, v = AtA u), then sqrt(vBv / vv).
// Port of the Computer Language Benchmarks Game "spectral-norm" benchmark
// (https://benchmarksgame-team.pages.debian.net/benchmarksgame/description/spectralnorm.html), with
// the plain C program's functions eval_A, eval_A_times_u, eval_At_times_u and eval_AtA_times_u.
// Argument: N (default 100). Prints the norm as "%.9f".
// Verification: the suite's published output for N = 100 is 1.274219991.
fn eval_a(i: int, j: int) -> float {
    return 1.0 / float((i + j) * (i + j + 1) / 2 + i + 1);
}

fn eval_a_times_u(u: [float], au: [float]) {
    let n = len(u);
    for i in 0..n {
        let s = 0.0;
        for j in 0..n {
            s += eval_a(i, j) * u[j];
        }
        au[i] = s;
    }
}

fn eval_at_times_u(u: [float], au: [float]) {
    let n = len(u);
    for i in 0..n {
        let s = 0.0;
        for j in 0..n {
            s += eval_a(j, i) * u[j];
        }
        au[i] = s;
    }
}

fn eval_ata_times_u(u: [float], atau: [float], tmp: [float]) {
    eval_a_times_u(u, tmp);
    eval_at_times_u(tmp, atau);
}

fn main() {
    let n = 100;
    if argc() > 0 {
        n = parse_int(arg(0));
    }
    let u = [1.0; n];
    let v = [0.0; n];
    let tmp = [0.0; n];
    for i in 0..10 {
        eval_ata_times_u(u, v, tmp);
        eval_ata_times_u(v, u, tmp);
    }
    let vbv = 0.0;
    let vv = 0.0;
    for i in 0..n {
        vbv += u[i] * v[i];
        vv += v[i] * v[i];
    }
    println(fixed(sqrt(vbv / vv), 9));
}
