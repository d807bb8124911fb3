// PL ranges exclude their end; there is no `..=`.
fn main() {
    for i in 0..=3 {
        println(i);
    }
}
