// An array too large to allocate (2^60 slots of 8 bytes).
fn main() {
    let n = 1 << 60;
    println("allocating", n);
    let a = [0; n];
    println(len(a));
}
