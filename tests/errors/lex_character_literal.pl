// PL has no character type: strings use double quotes.
fn main() {
    let c = 'a';
    println(c);
}
