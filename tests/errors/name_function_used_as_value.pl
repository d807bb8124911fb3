fn square(x: int) -> int {
    return x * x;
}

fn main() {
    let f = square;
    let n = 4;
    println(n(2));
}
