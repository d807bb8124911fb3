// Recursion and mutual recursion: fib, Ackermann, gcd, Hanoi, permutations, mutual even/odd,
// a recursive-descent style mutual recursion, and a moderately deep recursion.
fn fib(n: int) -> int {
    if n < 2 {
        return n;
    }
    return fib(n - 1) + fib(n - 2);
}

fn ack(m: int, n: int) -> int {
    if m == 0 {
        return n + 1;
    }
    if n == 0 {
        return ack(m - 1, 1);
    }
    return ack(m - 1, ack(m, n - 1));
}

fn gcd(a: int, b: int) -> int {
    if b == 0 {
        return a;
    }
    return gcd(b, a % b);
}

fn is_even(n: int) -> bool {
    if n == 0 {
        return true;
    }
    return is_odd(n - 1);
}

fn is_odd(n: int) -> bool {
    if n == 0 {
        return false;
    }
    return is_even(n - 1);
}

let MOVES: int = 0;

fn hanoi(n: int, from: str, to: str, via: str) {
    if n == 0 {
        return;
    }
    hanoi(n - 1, from, via, to);
    MOVES += 1;
    if n >= 3 {
        println("move disk", n, "from", from, "to", to);
    }
    hanoi(n - 1, via, to, from);
}

fn permute(a: [int], k: int) {
    if k == len(a) {
        println(a);
        return;
    }
    for i in k..len(a) {
        let t = a[k];
        a[k] = a[i];
        a[i] = t;
        permute(a, k + 1);
        t = a[k];
        a[k] = a[i];
        a[i] = t;
    }
}

// Hofstadter's female and male sequences: mutual recursion with two calls
fn hf(n: int) -> int {
    if n == 0 {
        return 1;
    }
    return n - hm(hf(n - 1));
}

fn hm(n: int) -> int {
    if n == 0 {
        return 0;
    }
    return n - hf(hm(n - 1));
}

fn depth_sum(n: int) -> int {
    if n == 0 {
        return 0;
    }
    return n + depth_sum(n - 1);
}

fn binom(n: int, k: int) -> int {
    if k == 0 || k == n {
        return 1;
    }
    return binom(n - 1, k - 1) + binom(n - 1, k);
}

fn power(b: int, e: int) -> int {
    if e == 0 {
        return 1;
    }
    let h = power(b, e / 2);
    if e % 2 == 0 {
        return h * h;
    }
    return h * h * b;
}

fn main() {
    for i in 0..21 {
        print(fib(i), "");
    }
    println();
    println("ack(2, 3) =", ack(2, 3), "ack(3, 3) =", ack(3, 3));
    println("gcd:", gcd(1071, 462), gcd(17, 5), gcd(0, 9), gcd(-48, 18));
    println("even/odd:", is_even(10), is_odd(10), is_even(7), is_odd(7), is_even(0));
    hanoi(4, "A", "C", "B");
    println("hanoi moves:", MOVES);
    permute([1, 2, 3], 0);
    for i in 0..15 {
        print(hf(i), "");
    }
    println();
    for i in 0..15 {
        print(hm(i), "");
    }
    println();
    println("depth_sum(10000) =", depth_sum(10000));
    println("binom(20, 10) =", binom(20, 10));
    println("3^40 wraps:", power(3, 40), "2^62:", power(2, 62), "2^64:", power(2, 64));
}
