// Strings: every escape, concatenation, comparison, byte indexing, len, substr, chr, str().
fn bytes(s: str) {
    print("[");
    for i in 0..len(s) {
        if i > 0 {
            print(",");
        }
        print(s[i]);
    }
    println("]", len(s));
}

fn reverse(s: str) -> str {
    let r = "";
    let i = len(s) - 1;
    while i >= 0 {
        r = r + chr(s[i]);
        i -= 1;
    }
    return r;
}

fn upper(s: str) -> str {
    let r = "";
    for i in 0..len(s) {
        let c = s[i];
        if c >= 97 && c <= 122 {
            c -= 32;
        }
        r += chr(c);
    }
    return r;
}

fn repeat(s: str, n: int) -> str {
    let r = "";
    for i in 0..n {
        r = r + s;
    }
    return r;
}

// escape control and non-ASCII bytes as \xHH so the output stays printable
fn esc(s: str) -> str {
    let digits = "0123456789abcdef";
    let r = "";
    for i in 0..len(s) {
        let c = s[i];
        if c < 32 || c >= 127 {
            r = r + "\\x" + substr(digits, c >> 4, 1) + substr(digits, c & 15, 1);
        } else {
            r = r + chr(c);
        }
    }
    return r;
}

fn cmp(a: str, b: str) {
    println("\"" + esc(a) + "\" vs \"" + esc(b) + "\":", a == b, a != b, a < b, a <= b, a > b, a >= b);
}

fn main() {
    // escapes
    println("tab:\tend");
    println("newline:\nsecond line");
    println("quote:\" backslash:\\ done");
    println("cr:a\rb");
    println("nul:\0:");
    println("hex:\x41\x42\x43 \x7a\x7A \x30\x39");
    bytes("\n\t\r\\\"\0");
    bytes("\x00\x01\x7f\x80\xff\xFE\xaB");
    bytes("a\x41\\x41");
    bytes("");
    println(len("\0\0\0"), "\0" == chr(0), "\x41" == "A", "\xff" == chr(255));
    println(esc("\x00\x1f \x7e\x7f\x80\xff\t\r\n"), esc("plain"));

    // concatenation
    let s = "Hello";
    let t = s + ", " + "world" + "!";
    println(t, len(t));
    let u = "";
    u += "ab";
    u += "";
    u += "cd";
    println(u, len(u), u == "abcd");
    println(repeat("xy", 4), len(repeat("-", 0)));
    println("" + "" == "", "a" + "" == "a");

    // comparisons are bytewise lexicographic on contents
    cmp("abc", "abc");
    cmp("abc", "abd");
    cmp("ab", "abc");
    cmp("", "a");
    cmp("Z", "a");
    cmp("a", "\xff");
    cmp("a\0", "a");
    cmp("10", "9");
    let built = "ab" + "c";
    println("built == literal:", built == "abc", "identity is not compared:", built + "" == built);

    // indexing yields bytes
    println(s[0], s[4], "A"[0], "\n"[0], "\xff"[0]);
    let sum = 0;
    for i in 0..len(t) {
        sum += t[i];
    }
    println("byte sum:", sum);

    // UTF-8 source text is bytes
    let e = "héllo wörld";
    println(e, len(e));
    bytes("é");

    // substr(s, start, n)
    println(substr("hello", 1, 3), substr("hello", 0, 5), substr("hello", 4, 1));
    println("[" + substr("hello", 0, 0) + "]", "[" + substr("hello", 5, 0) + "]", len(substr("", 0, 0)));

    // chr
    println(chr(72) + chr(105) + chr(33), len(chr(0)), chr(48 + 7));
    let alphabet = "";
    for c in 97..123 {
        alphabet += chr(c);
    }
    println(alphabet, len(alphabet));
    println(upper("Hello, World! 123 xyz"), reverse("stressed"), reverse(""), reverse("a"));

    // str() of ints and bools
    println(str(42) + str(-7) + str(true) + str(false), len(str(-9223372036854775808)));
    println(str(0) == "0", str(1_000) == "1000", str(0xFF));

    // strings are references to immutable bytes: sharing is safe
    let a = "shared";
    let b = a;
    b = b + "!";
    println(a, b);
}
