let FIRST = SECOND + 1;
let SECOND = 41;

fn main() {
    println(FIRST, SECOND);
}
