fn main() {
    let x = * 2;
}
