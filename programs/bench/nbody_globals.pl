// The Benchmarks Game's n-body with each coordinate in a global array (`X[i] - X[j]`), as a
// student writes it without structs: the pairwise loop reads and stores seven global arrays.
// Argument: steps.
let N: int = 5;
let X: [float] = [0.0; 5];
let Y: [float] = [0.0; 5];
let Z: [float] = [0.0; 5];
let VX: [float] = [0.0; 5];
let VY: [float] = [0.0; 5];
let VZ: [float] = [0.0; 5];
let M: [float] = [0.0; 5];

fn init() {
    let pi = 3.141592653589793;
    let sm = 4.0 * pi * pi;
    let dp = 365.24;
    X[1] = 4.84143144246472090e+00; Y[1] = -1.16032004402742839e+00; Z[1] = -1.03622044471123109e-01;
    VX[1] = 1.66007664274403694e-03 * dp; VY[1] = 7.69901118419740425e-03 * dp; VZ[1] = -6.90460016972063023e-05 * dp;
    M[1] = 9.54791938424326609e-04 * sm;
    X[2] = 8.34336671824457987e+00; Y[2] = 4.12479856412430479e+00; Z[2] = -4.03523417114321381e-01;
    VX[2] = -2.76742510726862411e-03 * dp; VY[2] = 4.99852801234917238e-03 * dp; VZ[2] = 2.30417297573763929e-05 * dp;
    M[2] = 2.85885980666130812e-04 * sm;
    X[3] = 1.28943695621391310e+01; Y[3] = -1.51111514016986312e+01; Z[3] = -2.23307578892655734e-01;
    VX[3] = 2.96460137564761618e-03 * dp; VY[3] = 2.37847173959480950e-03 * dp; VZ[3] = -2.96589568540237556e-05 * dp;
    M[3] = 4.36624404335156298e-05 * sm;
    X[4] = 1.53796971148509165e+01; Y[4] = -2.59193146099879641e+01; Z[4] = 1.79258772950371181e-01;
    VX[4] = 2.68067772490389322e-03 * dp; VY[4] = 1.62824170038242295e-03 * dp; VZ[4] = -9.51592254519715870e-05 * dp;
    M[4] = 5.15138902046611451e-05 * sm;
    M[0] = sm;
    let px = 0.0; let py = 0.0; let pz = 0.0;
    for i in 0..N { px += VX[i] * M[i]; py += VY[i] * M[i]; pz += VZ[i] * M[i]; }
    VX[0] = -px / sm; VY[0] = -py / sm; VZ[0] = -pz / sm;
}

fn energy() -> float {
    let e = 0.0;
    for i in 0..N {
        e += 0.5 * M[i] * (VX[i] * VX[i] + VY[i] * VY[i] + VZ[i] * VZ[i]);
        for j in i + 1..N {
            let dx = X[i] - X[j]; let dy = Y[i] - Y[j]; let dz = Z[i] - Z[j];
            e -= M[i] * M[j] / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}

fn advance(dt: float) {
    for i in 0..N {
        for j in i + 1..N {
            let dx = X[i] - X[j]; let dy = Y[i] - Y[j]; let dz = Z[i] - Z[j];
            let d2 = dx * dx + dy * dy + dz * dz;
            let mag = dt / (d2 * sqrt(d2));
            VX[i] -= dx * M[j] * mag; VY[i] -= dy * M[j] * mag; VZ[i] -= dz * M[j] * mag;
            VX[j] += dx * M[i] * mag; VY[j] += dy * M[i] * mag; VZ[j] += dz * M[i] * mag;
        }
    }
    for i in 0..N { X[i] += dt * VX[i]; Y[i] += dt * VY[i]; Z[i] += dt * VZ[i]; }
}

fn main() {
    let n = 1000;
    if argc() > 0 { n = parse_int(arg(0)); }
    init();
    println(fixed(energy(), 9));
    for k in 0..n { advance(0.01); }
    println(fixed(energy(), 9));
}
