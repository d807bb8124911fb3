// Are We Fast Yet: List (Marr et al., DLS 2016; https://github.com/smarr/are-we-fast-yet,
// benchmarks/*/List; from the SOM benchmarks, after Gabriel's TAK-like "tail" list benchmark).
// Ported to PL from the algorithm.
// benchmark(): builds linked lists of 15, 10 and 6 elements and runs the recursive tail(x, y, z) on them,
// which compares list lengths with isShorterThan; returns the length of the resulting list.
// verifyResult: the length must be 10 (published value). Element.val (an Object in the original) is an int.
// Argument: inner iterations (default 1); each runs benchmark() and verifyResult().

struct Element { val: int, next: Element }

fn length(self: Element) -> int {
    if self.next == null {
        return 1;
    } else {
        return 1 + length(self.next);
    }
}

fn make_list(length: int) -> Element {
    if length == 0 {
        return null;
    } else {
        let e = new Element { val: length, next: null };
        e.next = make_list(length - 1);
        return e;
    }
}

fn is_shorter_than(x: Element, y: Element) -> bool {
    let x_tail = x;
    let y_tail = y;
    while y_tail != null {
        if x_tail == null {
            return true;
        }
        x_tail = x_tail.next;
        y_tail = y_tail.next;
    }
    return false;
}

fn tail(x: Element, y: Element, z: Element) -> Element {
    if is_shorter_than(y, x) {
        return tail(tail(x.next, y, z), tail(y.next, z, x), tail(z.next, x, y));
    } else {
        return z;
    }
}

fn benchmark() -> int {
    let result = tail(make_list(15), make_list(10), make_list(6));
    return length(result);
}

fn verify_result(result: int) -> bool {
    return result == 10;
}

fn main() -> int {
    let iterations = 1;
    if argc() > 0 { iterations = parse_int(arg(0)); }
    let result = 0;
    let ok = true;
    let i = 0;
    while i < iterations && ok {
        result = benchmark();
        ok = verify_result(result);
        i += 1;
    }
    println("List iterations:", iterations, "result:", result, "expected: 10 verified:", ok);
    if ok { return 0; }
    return 1;
}
