// The largest of the integers of a file whose last line has no newline.
fn main() {
    let count = 0;
    let largest = 0;
    while !eof() {
        let v = read_int();
        if count == 0 || v > largest {
            largest = v;
        }
        count += 1;
    }
    println("count", count, "max", largest);
}
