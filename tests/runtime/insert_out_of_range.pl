// `insert(a, i, v)` takes `0 <= i <= len(a)`: one past the end is an index error.
fn main() {
    let a = [1, 2, 3];
    insert(a, 3, 4);
    println(a);
    insert(a, 5, 6);
}
