// n-body: double-precision simulation of the Jovian planets (symplectic integrator, dt = 0.01).
// Port of the Computer Language Benchmarks Game "n-body" benchmark
// (https://benchmarksgame-team.pages.debian.net/benchmarksgame/description/nbody.html), following
// the structure of the plain C program: an array of body records, offset_momentum, energy, and
// advance() with the pairwise loop over (i, j > i) using mag = dt / (d2 * sqrt(d2)).
// Argument: the number of steps N (default 1000). Prints the energy before and after, "%.9f".
// Verification: the suite's published output for N = 1000 is -0.169075164 / -0.169087605.
struct Body { x: float, y: float, z: float, vx: float, vy: float, vz: float, mass: float }

let PI: float = 3.141592653589793;
let SOLAR_MASS: float = 4.0 * PI * PI;
let DAYS_PER_YEAR: float = 365.24;

fn body(x: float, y: float, z: float, vx: float, vy: float, vz: float, mass: float) -> Body {
    return new Body { x: x, y: y, z: z, vx: vx * DAYS_PER_YEAR, vy: vy * DAYS_PER_YEAR,
                      vz: vz * DAYS_PER_YEAR, mass: mass * SOLAR_MASS };
}

fn offset_momentum(bodies: [Body]) {
    let px = 0.0;
    let py = 0.0;
    let pz = 0.0;
    for i in 0..len(bodies) {
        let b = bodies[i];
        px += b.vx * b.mass;
        py += b.vy * b.mass;
        pz += b.vz * b.mass;
    }
    bodies[0].vx = -px / SOLAR_MASS;
    bodies[0].vy = -py / SOLAR_MASS;
    bodies[0].vz = -pz / SOLAR_MASS;
}

fn energy(bodies: [Body]) -> float {
    let e = 0.0;
    let n = len(bodies);
    for i in 0..n {
        let b = bodies[i];
        e += 0.5 * b.mass * (b.vx * b.vx + b.vy * b.vy + b.vz * b.vz);
        for j in i + 1..n {
            let b2 = bodies[j];
            let dx = b.x - b2.x;
            let dy = b.y - b2.y;
            let dz = b.z - b2.z;
            e -= (b.mass * b2.mass) / sqrt(dx * dx + dy * dy + dz * dz);
        }
    }
    return e;
}

fn advance(bodies: [Body], dt: float) {
    let n = len(bodies);
    for i in 0..n {
        let b = bodies[i];
        for j in i + 1..n {
            let b2 = bodies[j];
            let dx = b.x - b2.x;
            let dy = b.y - b2.y;
            let dz = b.z - b2.z;
            let d2 = dx * dx + dy * dy + dz * dz;
            let mag = dt / (d2 * sqrt(d2));
            b.vx -= dx * b2.mass * mag;
            b.vy -= dy * b2.mass * mag;
            b.vz -= dz * b2.mass * mag;
            b2.vx += dx * b.mass * mag;
            b2.vy += dy * b.mass * mag;
            b2.vz += dz * b.mass * mag;
        }
    }
    for i in 0..n {
        let b = bodies[i];
        b.x += dt * b.vx;
        b.y += dt * b.vy;
        b.z += dt * b.vz;
    }
}

fn main() {
    let n = 1000;
    if argc() > 0 {
        n = parse_int(arg(0));
    }
    let bodies = [
        body(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0),
        // Jupiter
        body(4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
             1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05,
             9.54791938424326609e-04),
        // Saturn
        body(8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
             -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05,
             2.85885980666130812e-04),
        // Uranus
        body(1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
             2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05,
             4.36624404335156298e-05),
        // Neptune
        body(1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
             2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05,
             5.15138902046611451e-05),
    ];
    offset_momentum(bodies);
    println(fixed(energy(bodies), 9));
    for i in 0..n {
        advance(bodies, 0.01);
    }
    println(fixed(energy(bodies), 9));
}
