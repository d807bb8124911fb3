fn scale(value: float, factor: int) -> float {
    return value * float(factor);
}

fn main() {
    println(scale(1.5));
    println(scale(1.5, 2, 3));
    println(scale(2, 1.5));
}
