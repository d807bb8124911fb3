fn add(a: int, b: int) -> int {
    return a + b;
}

fn main() {
    println(add(1, 2);
}
