// Quicksort and heapsort on the same deterministic random array: quicksort with Hoare's partition
// around the middle element (recursing into the smaller part, looping on the larger), heapsort with
// a bottom-up built max-heap and sift-down (Williams/Floyd). Branchy kernels standing in for the
// papers' SPEC programs (data-dependent compares and swaps). Argument: n (default 2000); the values
// are n draws in 0..999999 from a 64-bit LCG (so with duplicates). Prints, for each sort, a
// position-weighted checksum and whether the result is sorted, then whether both results are equal
// and the minimum, median and maximum; the C port prints the same.
fn quicksort(a: [int], lo: int, hi: int) {
    // sorts a[lo..=hi]
    while lo < hi {
        let pivot = a[lo + (hi - lo) / 2];
        let i = lo - 1;
        let j = hi + 1;
        while true {
            i += 1;
            while a[i] < pivot {
                i += 1;
            }
            j -= 1;
            while a[j] > pivot {
                j -= 1;
            }
            if i >= j {
                break;
            }
            let t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        // a[lo..=j] <= pivot <= a[j+1..=hi]
        if j - lo < hi - j {
            quicksort(a, lo, j);
            lo = j + 1;
        } else {
            quicksort(a, j + 1, hi);
            hi = j;
        }
    }
}

fn sift_down(a: [int], start: int, end: int) {
    // a[start..end) is a heap except perhaps at start
    let root = start;
    let v = a[root];
    while true {
        let child = 2 * root + 1;
        if child >= end {
            break;
        }
        if child + 1 < end && a[child + 1] > a[child] {
            child += 1;
        }
        if a[child] <= v {
            break;
        }
        a[root] = a[child];
        root = child;
    }
    a[root] = v;
}

fn heapsort(a: [int]) {
    let n = len(a);
    let start = n / 2 - 1;
    while start >= 0 {
        sift_down(a, start, n);
        start -= 1;
    }
    let end = n - 1;
    while end > 0 {
        let t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(a, 0, end);
        end -= 1;
    }
}

fn checksum(a: [int]) -> int {
    let h = 0;
    for i in 0..len(a) {
        h += a[i] * (i + 1);
    }
    return h;
}

fn is_sorted(a: [int]) -> bool {
    for i in 1..len(a) {
        if a[i - 1] > a[i] {
            return false;
        }
    }
    return true;
}

fn main() {
    let n = 2000;
    if argc() > 0 {
        n = parse_int(arg(0));
    }
    let data = [0; n];
    let x = 31415926535;
    for i in 0..n {
        x = x * 6364136223846793005 + 1442695040888963407;
        data[i] = ((x >> 33) & 0x7FFFFFFF) % 1000000;
    }
    let q = [0; n];
    let h = [0; n];
    for i in 0..n {
        q[i] = data[i];
        h[i] = data[i];
    }
    println("n", n, "unsorted checksum", checksum(data));
    quicksort(q, 0, n - 1);
    println("quicksort checksum", checksum(q), "sorted", is_sorted(q));
    heapsort(h);
    println("heapsort checksum", checksum(h), "sorted", is_sorted(h));
    let same = true;
    for i in 0..n {
        if q[i] != h[i] {
            same = false;
        }
    }
    println("same result", same);
    if n > 0 {
        println("min", q[0], "median", q[n / 2], "max", q[n - 1]);
    }
}
