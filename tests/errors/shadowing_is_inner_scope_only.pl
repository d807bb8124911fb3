fn main() {
    let x = 1;
    {
        let x = "inner shadow is fine";
        println(x);
    }
    let x = 2;
    println(x);
}
