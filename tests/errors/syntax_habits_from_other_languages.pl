// Syntax from other languages: `elif`, `for (...)`, and `int[]` as an array type.
fn first(a: int[]) -> int {
    return a[0];
}

fn sign(n: int) -> int {
    if n < 0 {
        return -1;
    } elif n > 0 {
        return 1;
    }
    return 0;
}

fn main() {
    for (i = 0; i < 3; i += 1) {
        println(i);
    }
}
