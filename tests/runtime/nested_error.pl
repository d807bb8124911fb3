// A runtime error three calls deep, after output (including an unfinished line) was written:
// everything printed before the error must stay in stdout.
fn ratio(a: int, b: int) -> int {
    return a * 100 / b;
}

fn report(values: [int], base: int) {
    for i in 0..len(values) {
        print(ratio(values[i], base - i), "");
    }
    println();
}

fn run(rounds: int) {
    for r in 0..rounds {
        println("round", r);
        report([10, 20, 30], 3 - r);
    }
}

fn main() {
    println("start");
    run(3);
    println("not reached");
}
