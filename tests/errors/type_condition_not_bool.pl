fn main() {
    let n = 3;
    if n {
        println("nonzero");
    }
    while n - 1 {
        n -= 1;
    }
}
