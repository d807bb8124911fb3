// `find` from a start past the end of the string is a runtime error, like `substr`'s; the end
// itself is a valid start (nothing is found there but the empty string).
fn main() {
    let s = "abc";
    println(find(s, "", 3), find(s, "c", 3));
    let from = len(s) + 1;
    println(find(s, "c", from));
}
