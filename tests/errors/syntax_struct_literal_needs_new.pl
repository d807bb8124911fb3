struct Point { x: int, y: int }

fn main() {
    let p = Point { x: 1, y: 2 };
    println(p);
}
