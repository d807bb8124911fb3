// Are We Fast Yet: NBody (Marr et al., DLS 2016; https://github.com/smarr/are-we-fast-yet,
// benchmarks/*/NBody; after the Computer Language Benchmarks Game n-body program). Ported to PL from the
// algorithm: a system of 5 Body objects (Sun, Jupiter, Saturn, Uranus, Neptune) advanced with dt = 0.01.
// As in AWFY, the argument is the inner-iteration count = the number of advance() steps, and verifyResult
// compares the final energy with the published values: 1 step -> -0.16907495402506745,
// 250000 steps -> -0.1690859889909308 (exact float equality). Other counts print the energy unverified.
// Argument: steps (default 1).

struct Body { x: float, y: float, z: float, vx: float, vy: float, vz: float, mass: float }

let PI: float = 3.141592653589793;
let SOLAR_MASS: float = 4.0 * PI * PI;
let DAYS_PER_YEAR: float = 365.24;

fn offset_momentum(self: Body, px: float, py: float, pz: float) {
    self.vx = 0.0 - (px / SOLAR_MASS);
    self.vy = 0.0 - (py / SOLAR_MASS);
    self.vz = 0.0 - (pz / SOLAR_MASS);
}

fn planet(x: float, y: float, z: float, vx: float, vy: float, vz: float, mass: float) -> Body {
    return new Body { x: x, y: y, z: z, vx: vx * DAYS_PER_YEAR, vy: vy * DAYS_PER_YEAR, vz: vz * DAYS_PER_YEAR,
                      mass: mass * SOLAR_MASS };
}

fn jupiter() -> Body {
    return planet(4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
                  1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05,
                  9.54791938424326609e-04);
}

fn saturn() -> Body {
    return planet(8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
                  -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05,
                  2.85885980666130812e-04);
}

fn uranus() -> Body {
    return planet(1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
                  2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05,
                  4.36624404335156298e-05);
}

fn neptune() -> Body {
    return planet(1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
                  2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05,
                  5.15138902046611451e-05);
}

fn sun() -> Body {
    return new Body { x: 0.0, y: 0.0, z: 0.0, vx: 0.0, vy: 0.0, vz: 0.0, mass: SOLAR_MASS };
}

fn create_bodies() -> [Body] {
    let bodies = [sun(), jupiter(), saturn(), uranus(), neptune()];
    let px = 0.0;
    let py = 0.0;
    let pz = 0.0;
    for i in 0..len(bodies) {
        let b = bodies[i];
        px += b.vx * b.mass;
        py += b.vy * b.mass;
        pz += b.vz * b.mass;
    }
    offset_momentum(bodies[0], px, py, pz);
    return bodies;
}

fn advance(bodies: [Body], dt: float) {
    for i in 0..len(bodies) {
        let i_body = bodies[i];
        for j in i + 1..len(bodies) {
            let j_body = bodies[j];
            let dx = i_body.x - j_body.x;
            let dy = i_body.y - j_body.y;
            let dz = i_body.z - j_body.z;
            let d_squared = dx * dx + dy * dy + dz * dz;
            let distance = sqrt(d_squared);
            let mag = dt / (d_squared * distance);
            i_body.vx = i_body.vx - (dx * j_body.mass * mag);
            i_body.vy = i_body.vy - (dy * j_body.mass * mag);
            i_body.vz = i_body.vz - (dz * j_body.mass * mag);
            j_body.vx = j_body.vx + (dx * i_body.mass * mag);
            j_body.vy = j_body.vy + (dy * i_body.mass * mag);
            j_body.vz = j_body.vz + (dz * i_body.mass * mag);
        }
    }
    for i in 0..len(bodies) {
        let body = bodies[i];
        body.x = body.x + dt * body.vx;
        body.y = body.y + dt * body.vy;
        body.z = body.z + dt * body.vz;
    }
}

fn energy(bodies: [Body]) -> float {
    let e = 0.0;
    for i in 0..len(bodies) {
        let i_body = bodies[i];
        e += 0.5 * i_body.mass * (i_body.vx * i_body.vx + i_body.vy * i_body.vy + i_body.vz * i_body.vz);
        for j in i + 1..len(bodies) {
            let j_body = bodies[j];
            let dx = i_body.x - j_body.x;
            let dy = i_body.y - j_body.y;
            let dz = i_body.z - j_body.z;
            let distance = sqrt(dx * dx + dy * dy + dz * dz);
            e -= (i_body.mass * j_body.mass) / distance;
        }
    }
    return e;
}

fn main() -> int {
    let steps = 1;
    if argc() > 0 { steps = parse_int(arg(0)); }
    let bodies = create_bodies();
    for i in 0..steps {
        advance(bodies, 0.01);
    }
    let result = energy(bodies);
    if steps == 1 || steps == 250000 {
        let expected = -0.16907495402506745;
        if steps == 250000 { expected = -0.1690859889909308; }
        println("NBody steps:", steps, "energy:", result, "expected:", expected, "verified:", result == expected);
        if result == expected { return 0; }
        return 1;
    }
    println("NBody steps:", steps, "energy:", result, "(no published value for this step count)");
    return 0;
}
