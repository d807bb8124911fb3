// Arrays of bools, which pcc keeps in 4 bytes per element (every other array in 8): literals,
// `[v; n]`, reads and writes through parameters, struct fields, globals and nested arrays,
// printing, and loops whose checks -O2 removes (a sieve over unchecked, versioned loops).

struct Board { flags: [bool], size: int }

let SEEN: [bool] = [true, false, true];

fn flip(a: [bool], i: int) {
    a[i] = !a[i];
}

fn count(a: [bool]) -> int {
    let n = 0;
    for i in 0..len(a) {
        if a[i] { n += 1; }
    }
    return n;
}

fn sieve(size: int) -> int {
    let flags = [true; size];
    let primes = 0;
    for i in 2..size {
        if flags[i] {
            primes += 1;
            let k = i + i;
            while k < size {
                flags[k] = false;
                k += i;
            }
        }
    }
    return primes;
}

fn main() {
    let a = [false; 5];
    a[2] = true;
    flip(a, 0);
    flip(a, 2);
    println(a, count(a));
    let b = [true, false, false, true];
    println(b, len(b), b[3], b[1]);
    let board = new Board { flags: [true; 3], size: 3 };
    board.flags[1] = false;
    println(board.flags, board.size);
    SEEN[1] = true;
    println(SEEN, count(SEEN));
    let nested = [[true, false], [false; 3]];
    nested[1][2] = true;
    println(nested);
    let empty: [bool] = [];
    println(empty, len(empty));
    // Neighbouring elements share a word: each keeps its own value.
    let bits = [false; 17];
    for i in 0..17 {
        bits[i] = i % 3 == 1;
    }
    println(bits);
    println(sieve(10000), sieve(2), sieve(100));
}
