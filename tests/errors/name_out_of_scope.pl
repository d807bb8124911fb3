fn main() {
    let i = 0;
    while i < 3 {
        let doubled = i * 2;
        i += 1;
    }
    println(doubled);
    for k in 0..3 {
    }
    println(k);
}
