// A scratch array per iteration of main's loop, dropped at once. Argument: how many.
fn main() {
    let n = parse_int(arg(0));
    let total = 0;
    for i in 0..n {
        let a = [0; 100];
        a[i % 100] = i;
        total += a[i % 100] + len(a);
    }
    println(total);
}
