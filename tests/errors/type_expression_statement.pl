fn main() {
    let x = 1;
    x == 2;
    x + 1;
    "hello";
}
