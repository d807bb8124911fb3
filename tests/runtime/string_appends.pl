// Strings built by appending (`s = s + t`, `s += t`), which pcc may grow in place
// (compiler/src/mir/appends.rs), under every kind of aliasing: each alias keeps its value.

struct Holder { s: str }

let saved = "";

fn build(n: int) -> str {
    let s = "";
    for i in 0..n {
        s = s + chr(97 + i % 26);
        s += ",";
    }
    return s;
}

// Appends to its parameter: the caller's string must not change.
fn extend(s: str, t: str) -> str {
    s += t;
    s += t;
    return s;
}

// Keeps what it is given in a global.
fn remember(s: str) {
    saved = s;
}

fn checksum(s: str) -> int {
    let h = 0;
    for i in 0..len(s) {
        h = (h * 31 + s[i]) % 1000000007;
    }
    return h;
}

fn main() {
    // A long string built in a loop, and its first copy.
    let long = build(2000);
    println(len(long), checksum(long), substr(long, 0, 12));

    // A copy, then appends to both.
    let s = "ab";
    s += "c";
    let u = s;
    s += "d";
    s = s + "e" + "f";
    u += "X";
    println(s, u);

    // Passed to a function that appends to its parameter.
    let p = build(3);
    let q = extend(p, "+");
    p += "!";
    println(p, q);

    // Stored into an array, a field, a global; put into literals.
    let a = ["", ""];
    let h = new Holder { s: "" };
    let t = "t";
    t += "0";
    a[0] = t;
    t += "1";
    h.s = t;
    t += "2";
    remember(t);
    t += "3";
    let lit = [t];
    t += "4";
    let held = new Holder { s: t };
    t += "5";
    println(a, h.s, saved, lit, held.s, t);

    // `x = "" + s` may be `s` itself.
    let base = "base";
    base += "!";
    let x = "" + base;
    base += "?";
    x += "#";
    println(base, x);

    // Doubling, and appending a string to itself through an alias.
    let d = "ab";
    for i in 0..4 {
        d = d + d;
        d += ".";
    }
    let e = d;
    d += e;
    println(len(d), checksum(d), e == substr(d, 0, len(e)));

    // Appends in both arms, and a copy kept in one branch of a loop.
    let w = "";
    let keep = "";
    for i in 0..10 {
        if i % 3 == 0 {
            w += "a";
        } else {
            w = w + "b";
        }
        if i == 4 {
            keep = w;
        }
        w += str(i);
    }
    w += "end";
    println(w, keep);

    // A substring of the whole string, which is the string itself.
    let whole = "wh";
    whole += "ole";
    let same = substr(whole, 0, len(whole));
    whole += "!";
    same += "?";
    println(whole, same);

    // Reads leave the string alone.
    let r = "1";
    r += "2";
    let n = len(r) + r[0] + parse_int(r);
    if r == "12" {
        r += "3";
    }
    println(r, n);
}
