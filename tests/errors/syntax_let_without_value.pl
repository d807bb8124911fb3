// PL has no declaration without a value.
fn main() {
    let x: int;
    println(x);
}
