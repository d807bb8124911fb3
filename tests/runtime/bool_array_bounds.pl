// An index out of bounds of a `[bool]` array (4 bytes per element): the bounds are the array's
// length, not its bytes, whether the loop runs checked or versioned at -O 2.
fn mark(flags: [bool], n: int) {
    for i in 0..n {
        flags[i] = i % 2 == 0;
        print("", flags[i]);
    }
    println();
}

fn main() {
    let flags = [false; 9];
    mark(flags, 9);
    mark(flags, 10);
    println("not reached");
}
