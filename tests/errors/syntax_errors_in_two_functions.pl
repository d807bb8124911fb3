fn area(w: int, h: int) -> int {
    return w * h
}

fn perimeter(w: int, h: int) -> int {
    return 2 * (w + h;
}

fn main() {
    println(area(2, 3), perimeter(2, 3));
}
