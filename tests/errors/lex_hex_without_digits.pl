fn main() {
    let mask = 0x;
    println(mask);
}
