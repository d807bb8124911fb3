fn sign(x: int) -> int {
    if x < 0 {
        return -1;
    } else if x > 0 {
        return 1;
    }
}

fn main() {
    println(sign(5));
}
