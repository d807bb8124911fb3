// read_int when the input has no more integers.
fn main() {
    let sum = 0;
    for i in 0..3 {
        let v = read_int();
        sum += v;
        println("read", v, "sum", sum);
    }
}
