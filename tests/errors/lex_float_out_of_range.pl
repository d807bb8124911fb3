fn main() {
    let big = 1e999;
    println(big);
}
