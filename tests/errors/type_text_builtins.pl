// The string built-ins and `sort`: arguments of the wrong types and counts, results used as
// another type, arrays `sort` cannot order, and method calls of other languages.
struct P { x: int }

fn main() {
    let flags = [true, false];
    sort(flags);
    sort(3);
    sort([[1], [2]]);
    sort([new P { x: 1 }]);
    let parts = split(42, ",");
    let text = join([1, 2], ",");
    let at = find("abc", "b");
    let n: int = replace("a", "b", "c");
    let t = trim("a", "b");
    if to_upper("a") {
        println(starts_with("ab", 1));
    }
    let sorted = sort([3, 1, 2]);
    let s = "a,b";
    println(s.split(","));
    s.to_upper();
    println(s.strip(), s.startsWith("a"), s.indexOf(","), ",".join(split(s, ",")));
}
