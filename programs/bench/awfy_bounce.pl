// Are We Fast Yet: Bounce (Marr et al., DLS 2016; https://github.com/smarr/are-we-fast-yet,
// benchmarks/*/Bounce; from the SOM benchmarks). Ported to PL from the algorithm.
// benchmark(): 100 balls with positions and velocities drawn from AWFY's Random (a 16-bit LCG,
// seed 74755) move 50 steps in a 500x500 box; counts the bounces off the walls.
// verifyResult: the count must be 1331 (published value).
// Argument: inner iterations (default 1); each runs benchmark() and verifyResult().

struct Random { seed: int }

fn random_next(self: Random) -> int {
    self.seed = ((self.seed * 1309) + 13849) & 65535;
    return self.seed;
}

struct Ball { x: int, y: int, x_vel: int, y_vel: int }

fn new_ball(random: Random) -> Ball {
    let x = random_next(random) % 500;
    let y = random_next(random) % 500;
    let x_vel = (random_next(random) % 300) - 150;
    let y_vel = (random_next(random) % 300) - 150;
    return new Ball { x: x, y: y, x_vel: x_vel, y_vel: y_vel };
}

fn bounce(self: Ball) -> bool {
    let x_limit = 500;
    let y_limit = 500;
    let bounced = false;
    self.x += self.x_vel;
    self.y += self.y_vel;
    if self.x > x_limit { self.x = x_limit; self.x_vel = 0 - abs(self.x_vel); bounced = true; }
    if self.x < 0 { self.x = 0; self.x_vel = abs(self.x_vel); bounced = true; }
    if self.y > y_limit { self.y = y_limit; self.y_vel = 0 - abs(self.y_vel); bounced = true; }
    if self.y < 0 { self.y = 0; self.y_vel = abs(self.y_vel); bounced = true; }
    return bounced;
}

fn benchmark() -> int {
    let random = new Random { seed: 74755 };
    let ball_count = 100;
    let bounces = 0;
    let balls: [Ball] = [null; ball_count];
    for i in 0..ball_count {
        balls[i] = new_ball(random);
    }
    for i in 1..51 {
        for b in 0..len(balls) {
            if bounce(balls[b]) {
                bounces += 1;
            }
        }
    }
    return bounces;
}

fn verify_result(result: int) -> bool {
    return result == 1331;
}

fn main() -> int {
    let iterations = 1;
    if argc() > 0 { iterations = parse_int(arg(0)); }
    let result = 0;
    let ok = true;
    let i = 0;
    while i < iterations && ok {
        result = benchmark();
        ok = verify_result(result);
        i += 1;
    }
    println("Bounce iterations:", iterations, "result:", result, "expected: 1331 verified:", ok);
    if ok { return 0; }
    return 1;
}
