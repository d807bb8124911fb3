// read_int when the next whitespace-separated word is not an integer.
fn main() {
    while true {
        let v = read_int();
        println("got", v);
    }
}
