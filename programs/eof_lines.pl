// A read_line loop sees every line with text, blank lines between them, and trailing spaces;
// only the blank lines at the very end of the file are past eof().
fn main() {
    let n = 0;
    while !eof() {
        let line = read_line();
        n += 1;
        println(str(n) + ": [" + line + "] " + str(len(line)));
    }
    println("lines read:", n);
}
