struct Point { x: int, y: int, x: int }
struct Point { a: int }

let LIMIT = 10;
let LIMIT = 20;

fn area(w: int, w: int) -> int {
    return w * w;
}

fn area() -> int {
    return 0;
}

fn main() {
    let total = 1;
    let total = 2;
    println(total, LIMIT, area(1, 2));
}
