// Arrays of 1,000 ints made in main's loop, each kept until the next. Argument: how many.
fn main() {
    let n = parse_int(arg(0));
    let total = 0;
    let previous = [0; 1000];
    for i in 0..n {
        let a = [i; 1000];
        total += a[999] - previous[0];
        previous = a;
    }
    println(total);
}
