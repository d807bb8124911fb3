// Sorting: quicksort (Lomuto partition, recursive) and mergesort (top-down with a scratch array)
// on pseudo-random data from a wrapping LCG, plus an insertion sort of strings.
let SEED: int = 74755;

fn rand(n: int) -> int {
    SEED = SEED * 6364136223846793005 + 1442695040888963407;
    let r = (SEED >> 33) % n;
    if r < 0 {
        r += n;
    }
    return r;
}

fn quicksort(a: [int], lo: int, hi: int) {
    if lo >= hi {
        return;
    }
    let pivot = a[hi];
    let i = lo;
    for j in lo..hi {
        if a[j] < pivot {
            let t = a[i];
            a[i] = a[j];
            a[j] = t;
            i += 1;
        }
    }
    let t = a[i];
    a[i] = a[hi];
    a[hi] = t;
    quicksort(a, lo, i - 1);
    quicksort(a, i + 1, hi);
}

fn merge_sort(a: [int], tmp: [int], lo: int, hi: int) {
    if hi - lo < 2 {
        return;
    }
    let mid = (lo + hi) / 2;
    merge_sort(a, tmp, lo, mid);
    merge_sort(a, tmp, mid, hi);
    let i = lo;
    let j = mid;
    let k = lo;
    while i < mid || j < hi {
        if j >= hi || i < mid && a[i] <= a[j] {
            tmp[k] = a[i];
            i += 1;
        } else {
            tmp[k] = a[j];
            j += 1;
        }
        k += 1;
    }
    for x in lo..hi {
        a[x] = tmp[x];
    }
}

fn insertion_sort(a: [str]) {
    for i in 1..len(a) {
        let v = a[i];
        let j = i - 1;
        while j >= 0 && a[j] > v {
            a[j + 1] = a[j];
            j -= 1;
        }
        a[j + 1] = v;
    }
}

fn is_sorted(a: [int]) -> bool {
    for i in 1..len(a) {
        if a[i - 1] > a[i] {
            return false;
        }
    }
    return true;
}

fn checksum(a: [int]) -> int {
    let h = 0;
    for i in 0..len(a) {
        h = h * 31 + a[i];
    }
    return h;
}

fn copy(a: [int]) -> [int] {
    let b = [0; len(a)];
    for i in 0..len(a) {
        b[i] = a[i];
    }
    return b;
}

fn main() {
    let n = 200;
    let data = [0; n];
    for i in 0..n {
        data[i] = rand(1000) - 500;
    }
    println("first ten:", substr_of(data, 10), "checksum:", checksum(data), "sorted:", is_sorted(data));

    let q = copy(data);
    quicksort(q, 0, len(q) - 1);
    println("quicksort:", substr_of(q, 10), "checksum:", checksum(q), "sorted:", is_sorted(q));

    let m = copy(data);
    merge_sort(m, [0; n], 0, n);
    println("mergesort:", substr_of(m, 10), "checksum:", checksum(m), "sorted:", is_sorted(m));

    let same = true;
    for i in 0..n {
        if q[i] != m[i] {
            same = false;
        }
    }
    println("same result:", same, "min:", q[0], "max:", q[n - 1], "median:", q[n / 2]);

    // edge cases
    let empty: [int] = [];
    quicksort(empty, 0, -1);
    merge_sort(empty, empty, 0, 0);
    let one = [5];
    quicksort(one, 0, 0);
    let dups = [3, 1, 3, 1, 3, 1, 2];
    quicksort(dups, 0, len(dups) - 1);
    let rev = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0];
    merge_sort(rev, [0; 10], 0, 10);
    println(empty, one, dups, rev);

    let words = ["pear", "apple", "fig", "banana", "Cherry", "apple pie", "", "date"];
    insertion_sort(words);
    println(words);
}

fn substr_of(a: [int], n: int) -> [int] {
    let r = [0; n];
    for i in 0..n {
        r[i] = a[i];
    }
    return r;
}
