// A loop counting down by three over an array, versioned at -O 2, that steps below index 0:
// the same error as at -O 0, after the same output.
fn total(a: [int], from: int) -> int {
    let s = 0;
    let i = from;
    while i >= -2 {
        s += a[i + 1];
        println(s);
        i -= 3;
    }
    return s;
}

fn main() {
    let a = [5, 4, 3, 2, 1, 0, 9];
    println(total(a, 5));
    println(total(a, 4));
}
