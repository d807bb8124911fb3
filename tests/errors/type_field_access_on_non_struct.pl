fn main() {
    let xs = [1, 2, 3];
    println(xs.len);
    let n = 5;
    println(n.value);
}
