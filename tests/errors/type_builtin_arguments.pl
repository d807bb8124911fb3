fn main() {
    let r = sqrt(2);
    let n = len(42);
    let m = min(1, 2.0);
    let a = abs("x");
    let s = substr("hello", 1);
    let t = str("already");
    assert(1, "message");
    println(r, n, m, a, s, t, max(1.5));
}
