// chr of a value outside 0..=255.
fn main() {
    let s = "";
    let c = 65;
    while true {
        s = s + chr(c);
        println(len(s), s[len(s) - 1]);
        c += 100;
    }
}
