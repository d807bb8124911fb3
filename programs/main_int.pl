// `fn main() -> int`: the returned value is the process exit status.
fn collatz_steps(n: int) -> int {
    let steps = 0;
    while n != 1 {
        if n % 2 == 0 {
            n /= 2;
        } else {
            n = 3 * n + 1;
        }
        steps += 1;
    }
    return steps;
}

fn main() -> int {
    let best = 0;
    let arg_of_best = 0;
    for n in 1..30 {
        let s = collatz_steps(n);
        if s > best {
            best = s;
            arg_of_best = n;
        }
    }
    println("longest Collatz chain below 30 starts at", arg_of_best, "with", best, "steps");
    if best == 0 {
        return 1;
    }
    return best;
}
