fn main() {
    let a = missing + 1;
    let b = a * 2;
    let c = b + "text";
    let d: int = a;
    println(a, b, c, d);
}
