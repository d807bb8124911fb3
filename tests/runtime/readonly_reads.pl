// Reads that -O 2 marks readonly in the unchecked copy of a versioned loop (nothing in the loop
// writes their array), and loops that must keep them in place: the array read is the array
// written (the guard tests that they differ), a value read in the loop is used after it, after
// a store; and a blur whose last pass steps past the end of its input.
fn blur(src: [int], dst: [int], n: int) {
    for i in 1..n - 1 {
        dst[i] = src[i - 1] + src[i + 1];
    }
}

fn running(src: [int], dst: [int], n: int) {
    for i in 1..n {
        dst[i] = src[i - 1] + 1;
    }
}

// Reads `src[i]` before and after the store to `dst[i]`: the same element when the arrays are,
// which Cranelift would take for one read without the guard's test that they differ.
fn bump(src: [int], dst: [int], out: [int], n: int) {
    for i in 0..n {
        let x = src[i];
        dst[i] = x + 1;
        out[i] = src[i * 1];
    }
}

fn last_then_overwrite(a: [int], n: int) -> int {
    let last = 0;
    for i in 0..n {
        last = a[i] * 10;
    }
    a[n - 1] = -1;
    return last + a[n - 1];
}

fn show(label: str, a: [int]) {
    print(label);
    for i in 0..len(a) {
        print("", a[i]);
    }
    println();
}

fn main() {
    let a = [0; 8];
    for i in 0..8 { a[i] = i * i; }
    let b = [0; 8];
    blur(a, b, 8);
    show("blur:", b);
    // Source and destination the same array, known only at run time: each element sees the
    // one just written.
    let dst = b;
    if a[0] == 0 { dst = a; }
    blur(a, dst, 8);
    show("in place:", a);
    let c = [0; 8];
    running(c, c, 8);
    show("running:", c);
    let d = [0; 8];
    running([5; 8], d, 8);
    show("copied:", d);
    let e = [1, 2, 3, 4];
    let f = [0; 4];
    if e[0] == 1 { f = e; }
    let out = [0; 4];
    bump(e, f, out, 4);
    show("bumped:", e);
    show("read after:", out);
    println("last:", last_then_overwrite([1, 2, 3, 4], 4));
    // The next blur reads src[8]: the bounds error of the unoptimized program.
    blur([1; 8], b, 10);
}
