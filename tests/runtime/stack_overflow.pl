// Unbounded recursion: the stack overflows; the location is the overflowing function's name.
fn depth(n: int) -> int {
    return depth(n + 1) + 1;
}

fn main() {
    println("going deep");
    println(depth(0));
}
