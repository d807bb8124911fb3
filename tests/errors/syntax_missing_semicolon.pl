fn main() {
    let x = 5
    println(x);
}
