// Constants: cycles, overflow and division by zero when folding, types a constant cannot
// have, globals and calls in a constant, assigning to one, and constants as match patterns.
const A: int = B + 1;
const B: int = A;
const C = 1 / 0;
const D = 9223372036854775807 + 1;
const E: [int] = [1];
let G = 3;
const F = G;
const H = len("x");
const K = 2;
const S = "s";
const K = 3;

fn main() {
    K = 3;
    let x = 1;
    match x {
        K => {}
        2 => {}
        S => {}
        x => {}
        _ => {}
    }
}
