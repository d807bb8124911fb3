// `for` runs over ranges of integers only.
fn main() {
    let s = "abc";
    for c in s {
        println(c);
    }
}
