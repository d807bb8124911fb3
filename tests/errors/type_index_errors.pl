fn main() {
    let xs = [1, 2, 3];
    let n = 7;
    let s = "abc";
    println(xs[1.0]);
    println(n[0]);
    s[0] = 65;
    xs["0"] = 1;
}
