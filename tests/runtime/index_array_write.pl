// Writing at a negative index.
fn store(a: [int], i: int, v: int) {
    a[i] = v;
}

fn main() {
    let a = [1, 2, 3];
    store(a, 2, 30);
    println(a);
    let k = 0;
    k -= 1;
    store(a, k, 99);
    println("not reached");
}
