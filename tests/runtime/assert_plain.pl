// A failed assert without a message.
fn is_sorted(a: [int]) -> bool {
    for i in 1..len(a) {
        if a[i - 1] > a[i] {
            return false;
        }
    }
    return true;
}

fn main() {
    let a = [1, 2, 3];
    assert(is_sorted(a));
    println("first array sorted");
    a[0] = 5;
    assert(is_sorted(a));
    println("not reached");
}
