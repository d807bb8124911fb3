// Statements: if / else if / else, while, for (bounds evaluated once), break, continue,
// return (with and without a value, from inside loops), blocks with shadowing, expression statements.
let CALLS: int = 0;

fn bound(v: int) -> int {
    CALLS += 1;
    println("bound evaluated:", v);
    return v;
}

fn classify(n: int) -> str {
    if n < 0 {
        return "negative";
    } else if n == 0 {
        return "zero";
    } else if n < 10 {
        return "small";
    } else if n < 100 {
        return "medium";
    } else {
        return "large";
    }
}

fn first_multiple(xs: [int], k: int) -> int {
    for i in 0..len(xs) {
        if xs[i] % k == 0 {
            return i;
        }
    }
    return -1;
}

fn find_pair(target: int) -> str {
    let i = 1;
    while true {
        let j = i;
        while j < 20 {
            if i * j == target {
                return str(i) + "*" + str(j);
            }
            j += 1;
        }
        i += 1;
        if i > 20 {
            return "none";
        }
    }
    return "unreachable";
}

fn early(n: int) {
    if n > 2 {
        println("early return for", n);
        return;
    }
    println("no early return for", n);
}

fn side_effect() -> int {
    CALLS += 100;
    return CALLS;
}

fn main() {
    // if chains
    let samples = [-5, 0, 7, 42, 1000];
    for i in 0..len(samples) {
        println(samples[i], classify(samples[i]));
    }
    if true {
        println("if without else");
    }
    if false {
        println("never");
    }
    if 1 > 2 {
        println("never");
    } else {
        println("plain else");
    }

    // for: bounds evaluated once, runs while i < hi, step +1
    let n = 3;
    for i in bound(0)..bound(n) {
        n += 10;
        print(i, "");
    }
    println("| n =", n, "CALLS =", CALLS);
    for i in 5..5 {
        println("never: empty range");
    }
    for i in 5..2 {
        println("never: reversed range");
    }
    for i in -3..0 {
        print(i, "");
    }
    println();
    let total = 0;
    for i in 0..10 {
        if i % 2 == 0 {
            continue;
        }
        if i > 7 {
            break;
        }
        total += i;
    }
    println("odd sum below 8:", total);

    // while with break and continue
    let k = 0;
    let evens = 0;
    while k < 100 {
        k += 1;
        if k % 2 == 1 {
            continue;
        }
        evens += 1;
        if k >= 20 {
            break;
        }
    }
    println("k =", k, "evens =", evens);

    // nested loops: break and continue apply to the innermost loop
    for i in 0..4 {
        for j in 0..4 {
            if j > i {
                break;
            }
            if j == 1 {
                continue;
            }
            print(str(i) + str(j), "");
        }
    }
    println();
    let outer = 0;
    while outer < 3 {
        let inner = 0;
        while true {
            inner += 1;
            if inner == 2 {
                break;
            }
        }
        outer += inner;
    }
    println("outer =", outer);

    // return from inside loops
    println(first_multiple([3, 5, 7, 14, 21], 7), first_multiple([1, 2], 5), find_pair(91), find_pair(401));
    early(1);
    early(5);

    // blocks and shadowing
    let x = 1;
    println("x =", x);
    {
        let x = "inner string";
        println("x =", x);
        {
            let x = 3.5;
            println("x =", x);
        }
        println("x =", x);
        let y = 5;
        println("y =", y);
    }
    {
        let y = true;
        println("y =", y);
    }
    println("x =", x);
    let v = 10;
    if v > 5 {
        let v = v * 2;
        println("shadowed in if:", v);
    }
    while v < 12 {
        let v2 = v;
        v += 1;
        let v = v2 * 100;
        println("shadowed in while:", v);
    }
    println("v =", v);
    for i in 0..2 {
        let i2 = i;
        {
            let i = i2 + 50;
            println("shadowed for variable:", i);
        }
        println("for variable:", i);
    }

    // expression statements: calls, result discarded
    side_effect();
    bound(-1);
    println("CALLS =", CALLS);

    // a loop that counts down with a while and a compound condition
    let countdown = 10;
    let steps = 0;
    while countdown > 0 && steps < 100 {
        countdown -= 3;
        steps += 1;
    }
    println("countdown =", countdown, "steps =", steps);
}
