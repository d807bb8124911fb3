// A runtime error inside a function that -O 2 inlines into a global initializer and into a loop:
// the location and the function named are the callee's at every optimization level.
let LIMITS: [int] = [3, 2, 1, 0];
let FIRST: int = share(12, 0);

fn share(total: int, i: int) -> int {
    return total / LIMITS[i];
}

fn main() {
    println(FIRST);
    for i in 0..len(LIMITS) {
        println(share(12, i));
    }
}
