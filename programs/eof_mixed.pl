// Mixed read_int and read_line: a header line with a count, then that many names, then numbers
// to the end of the input.
fn main() {
    let n = read_int();
    let rest = read_line();
    println("header:", n, "rest [" + rest + "]");
    for i in 0..n {
        println("name", i, read_line());
    }
    let total = 0;
    while !eof() {
        total += read_int();
    }
    println("total", total);
}
