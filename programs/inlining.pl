// Small functions that -O 2 inlines into their callers (compiler/src/opt/inline.rs): the output
// must be the same at every optimization level.
struct Counter { n: int }

let BASE: int = twice(21);

fn twice(x: int) -> int { return x * 2; }

// A parameter is a mutable local of the callee: the caller's variable does not change.
fn bump(x: int) -> int {
    x += 1;
    return x;
}

// Several returns, and a loop inside the callee.
fn first_negative(a: [int]) -> int {
    for i in 0..len(a) {
        if a[i] < 0 { return i; }
    }
    return -1;
}

// A void callee with an early return, writing through references.
fn tick(c: Counter, a: [int], i: int) {
    if c == null { return; }
    c.n += 1;
    a[i] = c.n;
}

// Calls only inlinable functions, so it becomes inlinable itself.
fn quad(x: int) -> int { return twice(twice(x)); }

fn main() {
    let x = 5;
    println(bump(x), x, BASE);
    println(first_negative([3, 1, -4, 1, -5]), first_negative([2, 7]));
    let c = new Counter { n: 0 };
    let a = [0; 4];
    for i in 0..4 {
        tick(c, a, i);
        tick(null, a, i);
    }
    println(a, c.n, quad(3));
    let total = 0;
    for i in 0..1000 {
        total += quad(i) - twice(i);
    }
    println(total);
}
