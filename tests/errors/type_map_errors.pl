// Maps: key types other than `int` and `str`, indexing a map (maps are read with `get` and
// written with `set`), keys and values of the wrong type, a map where another value is needed,
// and ordering comparisons.
struct P { x: int }

fn main() {
    let bad = new map[float]int;
    let m = new map[str]int;
    println(m["a"]);
    m["a"] = 1;
    set(m, 1, 2);
    set(m, "a", "b");
    println(get(m, "a"));
    println(has([1], 1));
    let n: map[int]int = m;
    println(m < m);
    let q = new map[P]int;
}
