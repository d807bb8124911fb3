// `pop` of an empty array is a runtime error at the call, after the elements pushed were popped.
fn main() {
    let a = [1];
    push(a, 2);
    println(pop(a), pop(a));
    println(pop(a));
}
