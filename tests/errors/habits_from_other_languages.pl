// Habits from other languages: methods (`s.len()`, `a.push(3)`), `"n = " + n`, a string's byte
// compared with a string, and `n + " apples"`.
fn main() {
    let s = "hello";
    let a = [1, 2];
    let n = 3;
    println(s.len());
    a.push(3);
    a.frobnicate();
    println("n = " + n);
    println(n + " apples");
    println("x = " + 1.5);
    if s[0] == "h" {
        println("starts with h");
    }
    if "e" != s[1] {
        println("no e");
    }
}
