// Reads integers to the end of the input: eof() is true once only whitespace is left, so the
// trailing spaces and newline of the last line end the loop instead of failing `read_int()`.
fn main() {
    let count = 0;
    let sum = 0;
    while !eof() {
        sum += read_int();
        count += 1;
    }
    println(count, sum);
}
