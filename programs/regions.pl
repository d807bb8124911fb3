// Scratch objects that cannot outlive their call (once given back by -O 2's activation regions,
// now reclaimed by the garbage collector). Every result here must be the same at every level and
// in the interpreter.

struct Node { value: int, next: Node }

let KEPT: [int] = [];

// A scratch array per call (AWFY's Sieve): released on every return.
fn primes_below(n: int) -> int {
    let flags = [true; n];
    let count = 0;
    for i in 2..n {
        if flags[i] {
            count += 1;
            let k = i + i;
            while k < n {
                flags[k] = false;
                k += i;
            }
        }
    }
    return count;
}

// The result is read from the scratch objects themselves: a length, a string byte, a float, a bool.
fn length_of_scratch(d: int) -> int {
    return d + len([0.5, 2.0, float(d)]);
}

fn byte_of_scratch(d: int) -> int {
    let parts = ["ab", str(d)];
    let s = parts[0] + parts[1];
    return s[len(s) - 1];
}

fn float_of_scratch(d: int) -> float {
    let a = [1.5; 4];
    a[2] = float(d);
    return a[2] * 2.0;
}

fn bool_of_scratch(d: int) -> bool {
    let a = [false; 3];
    a[d % 3] = true;
    return a[1];
}

// A linked list built and summed inside one call; its nodes link to each other only.
fn list_sum(n: int) -> int {
    let head: Node = null;
    for i in 0..n {
        head = new Node { value: i, next: head };
    }
    let s = 0;
    while head != null {
        s += head.value;
        head = head.next;
    }
    return s;
}

// A list linked by its maker (a field store into a node it allocated itself), measured by a
// caller that returns an int: the caller's region takes the whole list back.
fn make_chain(n: int) -> Node {
    if n == 0 { return null; }
    let node = new Node { value: n, next: null };
    node.next = make_chain(n - 1);
    return node;
}

fn chain_length(n: int) -> int {
    let c = make_chain(n);
    let k = 0;
    while c != null {
        k += 1;
        c = c.next;
    }
    return k;
}

// Recursion: each activation has its own region, nested in its caller's.
fn depth_sum(d: int) -> int {
    let a = [d; 8];
    if d == 0 { return a[7]; }
    return a[0] + depth_sum(d - 1) + len(a);
}

// More than a heap chunk (4 MiB) in one call: the release gives back nothing, safely.
fn big_scratch(rounds: int) -> int {
    let total = 0;
    for r in 0..rounds {
        let a = [r; 8000];
        total += a[7999];
    }
    return total;
}

// Void: the release has no value to pass on.
fn print_scratch(d: int) {
    let a = [d, d + 1, d + 2];
    println(a);
}

// These keep their objects: stored in a global, returned, or linked into an older object.
fn keep_in_global(d: int) -> int {
    KEPT = [d, d];
    return len(KEPT);
}

fn fresh(d: int) -> [int] {
    return [d; 2];
}

fn link(old: Node, d: int) -> int {
    old.next = new Node { value: d, next: null };
    return old.value;
}

fn main() {
    let total = 0;
    for i in 0..200 {
        total += primes_below(1000 + i);
    }
    println("primes:", total);
    let t = 0;
    for i in 0..100 {
        t += length_of_scratch(i) + byte_of_scratch(i) + list_sum(i % 17) + chain_length(i);
        if bool_of_scratch(i) { t += 1; }
    }
    println("scratch:", t, float_of_scratch(3), depth_sum(20));
    println("big:", big_scratch(200));
    print_scratch(4);
    let arrays: [[int]] = [fresh(1), fresh(2)];
    let n = keep_in_global(7);
    let first = new Node { value: 5, next: null };
    let v = link(first, 9);
    for i in 0..100 {
        total += primes_below(50);
    }
    println("kept:", arrays, n, KEPT, v, first.next.value, total);
}
