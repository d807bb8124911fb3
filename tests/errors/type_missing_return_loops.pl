fn first_even(xs: [int]) -> int {
    for i in 0..len(xs) {
        if xs[i] % 2 == 0 {
            return xs[i];
        }
    }
}

fn until_found(x: int) -> int {
    while true {
        if x > 100 {
            break;
        }
        x *= 2;
    }
}

fn forever() -> int {
    while true {
    }
}

fn main() {
    println(first_even([1, 2]), until_found(3), forever());
}
