// parse_int of malformed text.
fn main() {
    let inputs = ["12", "-7", "0", "12x", "99"];
    let total = 0;
    for i in 0..len(inputs) {
        total += parse_int(inputs[i]);
        println("total", total);
    }
}
