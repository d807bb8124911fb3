// IR snapshot: a counted loop, a while loop with a branch, break and continue.
fn sum_even(limit: int) -> int {
    let sum = 0;
    for i in 0..limit {
        if i % 2 == 1 {
            continue;
        }
        sum += i;
    }
    let j = 0;
    while true {
        j += 1;
        if j > 3 {
            break;
        }
    }
    return sum + j;
}

fn main() {
    println(sum_even(10));
}
