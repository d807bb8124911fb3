fn name(digit: int) -> str {
    match digit {
        0 => { return "zero"; }
        1 => { return "one"; }
        _ => { println("unknown digit"); }
    }
}

fn main() {
    println(name(1));
}
