// Creating an array with a negative length.
fn make(n: int) -> [int] {
    return [n; n - 5];
}

fn main() {
    println(make(7), make(5));
    println(make(2));
}
