fn next() -> int {
    return 1;
}

fn main() {
    next() = 3;
    1 = 2;
    let a = 1;
    a + 1 = 2;
}
