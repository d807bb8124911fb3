// Loops whose bounds prove some accesses in bounds (-O 2 drops their checks) next to one that is
// one past the end: the error and the output before it are the same at every level.
fn main() {
    let a = [1, 2, 3];
    let total = 0;
    for i in 0..len(a) {
        total += a[i];
        a[i] = a[i] * 2;
    }
    println(total, a);
    let i = 0;
    while i <= len(a) {
        print(a[i], "");
        i += 1;
    }
    println("not reached");
}
