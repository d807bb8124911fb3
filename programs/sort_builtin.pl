// The `sort` built-in: [int], [float] and [str] arrays sorted in place, ascending; floats in
// IEEE 754 totalOrder, strings by their bytes; large sorted, reversed and shuffled arrays.

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

// Sorts `a` and shows it: the array is the caller's, so the caller sees it sorted too.
fn sorted_floats(a: [float]) -> [float] {
    sort(a);
    return a;
}

fn main() {
    let ints = [5, -3, 0, 9223372036854775807, -9223372036854775807 - 1, 5, -3, 42, 0, 1];
    sort(ints);
    println(ints);

    let empty = [0; 0];
    sort(empty);
    let one = [7];
    sort(one);
    println(empty, one);

    let zero = 0.0;
    let nan = zero / zero;
    let inf = 1.0 / zero;
    let floats = [2.5, -0.0, nan, 0.0, -inf, 1e-300, -nan, inf, -2.5, 0.0, -0.0, 1.0];
    let alias = floats;
    println(sorted_floats(floats));
    // The sign of each zero and NaN, by 1/x and by comparison with totalOrder's neighbours.
    for i in 0..len(alias) {
        let x = alias[i];
        print(x, 1.0 / x, "");
    }
    println();

    let words = ["pear", "", "apple", "app", "Apple", "b", "apple", "ba", "", "é", "z"];
    sort(words);
    println(words, len(words));
    let pairs = ["ab", "a", "abc", "ab", "a"];
    sort(pairs);
    println(pairs);

    // 10,000 elements: already sorted, reversed, and a permutation (7919 is prime to 10000).
    let n = 10000;
    let up = [0; n];
    let down = [0; n];
    let shuffled = [0; n];
    for i in 0..n {
        up[i] = i;
        down[i] = n - i;
        shuffled[i] = i * 7919 % n - 5000;
    }
    sort(up);
    sort(down);
    sort(shuffled);
    println(is_sorted(up), up[0], up[n - 1], checksum(up));
    println(is_sorted(down), down[0], down[n - 1], checksum(down));
    println(is_sorted(shuffled), shuffled[0], shuffled[n - 1], checksum(shuffled));

    // Strings that repeat, many times over: sort compares by bytes, so equal strings group.
    let many = [""; n];
    for i in 0..n {
        many[i] = str(i % 100) + "-" + str(i % 7);
    }
    sort(many);
    println(many[0], many[1], many[n / 2], many[n - 1]);
    let reversed = [""; n];
    for i in 0..n {
        reversed[i] = str(n - i);
    }
    sort(reversed);
    println(reversed[0], reversed[1], reversed[n - 1]);

    // Sorting in a loop that reads the array: each read sees the sorted array.
    let a = [9, 1, 8, 2, 7, 3];
    let s = 0;
    for i in 0..len(a) {
        let v = a[i];
        if i == 2 {
            sort(a);
        }
        s = s * 10 + v + a[i];
    }
    println(a, s);
}
