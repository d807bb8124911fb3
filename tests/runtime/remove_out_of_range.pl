// `remove(a, i)` takes `0 <= i < len(a)`: a negative position is an index error.
fn main() {
    let a = [1, 2, 3];
    println(remove(a, 2), a);
    println(remove(a, -1));
}
