// Program arguments: argc() and arg(i) (arg(0) is the first argument after `--`),
// parsed with parse_int / parse_float.
fn main() {
    let n = argc();
    println("argc =", n);
    for i in 0..n {
        println("arg(" + str(i) + ") = [" + arg(i) + "]", len(arg(i)));
    }
    let total = parse_int(arg(1)) + parse_int(arg(2));
    println("sum of arg(1) and arg(2):", total);
    let f = parse_float(arg(3));
    println("arg(3) as float doubled:", f * 2.0);
    let words = 1;
    let s = arg(0);
    for i in 0..len(s) {
        if s[i] == 32 {
            words += 1;
        }
    }
    println("words in arg(0):", words);
    println("last argument:", arg(argc() - 1));
}
