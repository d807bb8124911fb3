// A string built one character at a time, as a student writes it. Argument: its length.
fn main() {
    let n = parse_int(arg(0));
    let s = "";
    let i = 0;
    while i < n {
        s = s + chr(97 + i % 26);
        i = i + 1;
    }
    println(len(s), s[n / 2]);
}
