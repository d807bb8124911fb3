// IR snapshot: a match in a loop over an array, short-circuit conditions.
fn run(code: [int]) -> int {
    let acc = 0;
    let pc = 0;
    while pc < len(code) {
        match code[pc] {
            0 => { acc += 1; }
            1 | 2 => { acc *= 2; }
            3 => { if acc > 10 && acc % 2 == 0 { acc = acc / 2; } }
            _ => { acc -= 1; }
        }
        pc += 1;
    }
    return acc;
}

fn main() {
    println(run([0, 0, 1, 3, 2, 7, 3, 0]));
}
