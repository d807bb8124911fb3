// An empty input: eof() is true at once, so neither loop runs.
fn main() {
    let lines = 0;
    while !eof() {
        read_line();
        lines += 1;
    }
    let numbers = 0;
    while !eof() {
        read_int();
        numbers += 1;
    }
    println("lines", lines, "numbers", numbers);
}
