// PL has no `--`.
fn main() {
    let count = 1;
    count--;
    println(count);
}
