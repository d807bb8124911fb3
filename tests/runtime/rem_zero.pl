// Integer remainder by zero, even for MIN % 0.
fn main() {
    let m = -9223372036854775808;
    let d = 6;
    while d >= 0 {
        print(m % d, "");
        d -= 3;
    }
    println();
}
