// Reading one past the end of an array inside a helper function.
fn fill(a: [int]) -> int {
    let total = 0;
    for i in 0..len(a) + 1 {
        total += a[i];
        println("partial", i, total);
    }
    return total;
}

fn main() {
    let xs = [0; 10];
    for i in 0..10 {
        xs[i] = i * i;
    }
    println("sum:", fill(xs));
}
