// `replace` of the empty string is a runtime error: it occurs everywhere.
fn main() {
    println(replace("abc", "b", ""));
    let old = trim("   ");
    println(replace("abc", old, "x"));
}
