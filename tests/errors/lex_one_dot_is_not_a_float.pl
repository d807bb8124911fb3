fn main() {
    let half = 1. / 2.0;
    println(half);
}
