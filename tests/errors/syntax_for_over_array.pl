// `for` runs over ranges of integers only.
fn main() {
    let a = [1, 2, 3];
    for x in a {
        println(x);
    }
}
