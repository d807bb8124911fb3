// Integer division by zero.
fn average(total: int, count: int) -> int {
    return total / count;
}

fn main() {
    println(average(10, 3), average(-9, 2));
    let n = 0;
    println(average(5, n));
}
