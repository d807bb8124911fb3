fn main() {
    let x = 1;
    if x = 1 {
        println(x);
    }
}
