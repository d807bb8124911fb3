fn main() {
    let ok = true;
    let a = ok + 1;
    let b = !5;
    let c = -"text";
    let d = 1.5 << 2;
    let e = "a" * 3;
    println(a, b, c, d, e);
}
