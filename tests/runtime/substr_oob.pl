// substr past the end of the string.
fn window(s: str, start: int) -> str {
    return substr(s, start, 3);
}

fn main() {
    let s = "hello";
    for i in 0..len(s) {
        println(window(s, i));
    }
}
