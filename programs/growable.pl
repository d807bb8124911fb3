// Growable arrays: `push` and `pop` (a stack), `remove(a, 0)` (a queue), `insert`, an array of
// 10,000 built by `push` and popped until empty, aliases that see the growth, arrays of strings
// and of structs pushed while the collector runs, `[[int]]` rows pushed into, `[bool]` and
// `[float]` arrays, an array global pushed into, and a loop that pushes while it reads.
struct Point { x: int, y: int }

let LOG: [str] = [];

fn note(message: str) {
    push(LOG, message);
}

fn sum(a: [int]) -> int {
    let s = 0;
    for i in 0..len(a) {
        s += a[i];
    }
    return s;
}

// Reads `a` while it grows: the bound is read again at every test.
fn doubled(a: [int]) -> int {
    let i = 0;
    let n = len(a);
    while i < len(a) && len(a) < 2 * n {
        push(a, a[i] * 2);
        i += 1;
    }
    return len(a);
}

fn grow_in_callee(a: [int]) {
    push(a, len(a));
}

// A loop over `a` that calls a function pushing into it: the calls change its length.
fn calls_that_grow(a: [int]) -> int {
    let total = 0;
    let i = 0;
    while i < len(a) && i < 20 {
        total += a[i];
        grow_in_callee(a);
        i += 1;
    }
    return total * 1000 + len(a);
}

fn main() {
    // A stack.
    let stack: [int] = [];
    for i in 0..5 {
        push(stack, i * i);
    }
    println(stack, len(stack));
    println(pop(stack), pop(stack), stack);

    // A queue.
    let queue = [1, 2];
    push(queue, 3);
    push(queue, 4);
    let order = "";
    while len(queue) > 0 {
        let first = remove(queue, 0);
        order += str(first) + " ";
        if first == 2 {
            push(queue, 10);
        }
    }
    println(order, queue);

    // insert and remove in the middle and at the ends.
    let a = [10, 20, 30];
    insert(a, 0, 5);
    insert(a, 2, 15);
    insert(a, len(a), 40);
    println(a);
    println(remove(a, 3), remove(a, len(a) - 1), a);

    // 10,000 by push, then pop until empty.
    let big: [int] = [];
    for i in 0..10000 {
        push(big, i);
    }
    println(len(big), big[0], big[9999], sum(big));
    let popped = 0;
    while len(big) > 0 {
        popped += pop(big);
    }
    println(popped, len(big), big);

    // Aliases see the growth: arrays are references.
    let b = big;
    push(big, 7);
    push(b, 8);
    println(len(b), len(big), b, big == b);
    let rows: [[int]] = [b, [1], []];
    push(rows[0], 9);
    println(big, rows);

    // Strings pushed; the collector runs while they are only in the array.
    let words: [str] = [];
    for i in 0..200 {
        push(words, "w" + str(i));
    }
    let joined = "";
    for i in 0..len(words) {
        if i % 50 == 0 {
            joined += words[i] + ",";
        }
    }
    println(len(words), joined, pop(words), remove(words, 0), words[0]);

    // Structs pushed, and null.
    let points: [Point] = [];
    for i in 0..300 {
        push(points, new Point { x: i, y: i * 2 });
        let garbage = [i; 10];
        garbage[0] = 1;
    }
    push(points, null);
    println(len(points), pop(points) == null, points[299].y, remove(points, 5).x, points[5].x);

    // Nested arrays: push into rows.
    let grid: [[int]] = [];
    for r in 0..4 {
        push(grid, []);
        for c in 0..r + 1 {
            push(grid[r], r * 10 + c);
        }
    }
    insert(grid, 1, [99]);
    println(grid, len(grid[4]));

    // Bools and floats keep their own element sizes.
    let flags: [bool] = [true];
    for i in 0..9 {
        push(flags, i % 3 == 0);
    }
    insert(flags, 0, false);
    println(flags, pop(flags), remove(flags, 1), len(flags));
    let xs = [0.5];
    push(xs, 1.25);
    insert(xs, 0, -2.0);
    println(xs, pop(xs) + remove(xs, 0));

    // A global pushed into from a function.
    note("start");
    note("end");
    println(LOG, len(LOG));

    // Loops that read while they grow.
    println(doubled([1, 2, 3]), calls_that_grow([1, 2]));
}
