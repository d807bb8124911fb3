// Indexing a string at its length.
fn checksum(s: str) -> int {
    let h = 0;
    let i = 0;
    while i <= len(s) {
        h = h * 31 + s[i];
        i += 1;
    }
    return h;
}

fn main() {
    println("checking", "abc");
    println(checksum("abc"));
}
