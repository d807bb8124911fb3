// PL has no `++`.
fn main() {
    let x = 1;
    x++;
    println(x);
}
