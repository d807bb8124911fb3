struct int { value: float }

fn str(x: int) -> int {
    return x;
}

fn main() {
    println(str(1));
}
