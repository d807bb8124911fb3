// The string built-ins: split, join, find, replace, trim, starts_with, ends_with, to_upper,
// to_lower (and sort of the words), on a small word-processing job and on their edge cases.

// The words of `text`: split at spaces, tabs and newlines, empty pieces dropped.
fn words(text: str) -> [str] {
    let spaced = replace(replace(text, "\t", " "), "\n", " ");
    let pieces = split(spaced, " ");
    let count = 0;
    for i in 0..len(pieces) {
        if pieces[i] != "" {
            count += 1;
        }
    }
    let out = [""; count];
    let k = 0;
    for i in 0..len(pieces) {
        if pieces[i] != "" {
            out[k] = to_lower(trim(pieces[i]));
            k += 1;
        }
    }
    return out;
}

// The non-overlapping occurrences of the non-empty `sub` in `s`, by repeated `find`.
fn occurrences(s: str, sub: str) -> int {
    let n = 0;
    let at = find(s, sub, 0);
    while at >= 0 {
        n += 1;
        at = find(s, sub, at + len(sub));
    }
    return n;
}

// A tiny tokenizer: `key = value` lines, `#` comments, blank lines.
fn parse_config(text: str) {
    let lines = split(text, "\n");
    for i in 0..len(lines) {
        let line = trim(lines[i]);
        if line == "" || starts_with(line, "#") {
            continue;
        }
        let eq = find(line, "=", 0);
        if eq < 0 {
            println("line", i + 1, "has no `=`:", "[" + line + "]");
            continue;
        }
        let key = to_upper(trim(substr(line, 0, eq)));
        let value = trim(substr(line, eq + 1, len(line) - eq - 1));
        let quoted = starts_with(value, "\"") && ends_with(value, "\"") && len(value) >= 2;
        if quoted {
            value = substr(value, 1, len(value) - 2);
        }
        println(key, "->", "[" + value + "]", quoted);
    }
}

fn show(parts: [str]) {
    println(len(parts), "[" + join(parts, "|") + "]");
}

fn main() {
    let text = "  The quick brown fox\tjumps over\nthe lazy dog;  the DOG sleeps.  ";
    let w = words(text);
    println(len(w), join(w, ","));
    sort(w);
    println(join(w, " "));
    println(occurrences(to_lower(text), "the"), occurrences(text, "o"), occurrences("aaaa", "aa"));

    // split: empty pieces, separators at the ends, longer separators, no separator.
    show(split("a,,b", ","));
    show(split("", ","));
    show(split(",", ","));
    show(split(",a,", ","));
    show(split("abc", ","));
    show(split("a--b---c----", "--"));
    show(split("abc", "abc"));
    show(split("ab", "abc"));

    // join: none, one, empty parts, an empty separator.
    let none = [""; 0];
    println("[" + join(none, ",") + "]", "[" + join(["x"], ",") + "]", "[" + join(["", ""], ",") + "]");
    println(join(["a", "b", "c"], ""), join(split("1 2 3", " "), " + "));

    // find: present, absent, from, the empty string, at the end.
    let s = "banana";
    println(find(s, "an", 0), find(s, "an", 2), find(s, "an", 4), find(s, "x", 0));
    println(find(s, "", 0), find(s, "", 3), find(s, "", 6), find(s, "a", 6), find(s, "banana!", 0));
    println(find("", "", 0), find("", "a", 0), find(s, "nana", 1), find(s, "b", 1));

    // replace: growing, shrinking, to nothing, absent, overlapping candidates.
    println(replace("a.b.c", ".", "::"), replace("aaaa", "aa", "b"), replace("aaa", "aa", "b"));
    println("[" + replace("xxx", "x", "") + "]", replace("hello", "z", "y"), replace("abab", "ab", "ba"));
    println(replace("one two  three", " ", "_"), len(replace("ab", "ab", "abab")));

    // trim: both ends, inner space kept, all whitespace, nothing to trim.
    println("[" + trim("  hi there \t\n") + "]", "[" + trim(" \t\r\n ") + "]", "[" + trim("") + "]");
    println("[" + trim("x") + "]", "[" + trim("\tx y\t") + "]");

    // starts_with, ends_with: the empty affix, the whole string, longer than the string.
    println(starts_with("hello", "he"), starts_with("hello", "lo"), starts_with("hello", ""));
    println(ends_with("hello", "lo"), ends_with("hello", "hello"), ends_with("lo", "hello"));
    println(starts_with("", ""), ends_with("", "x"));

    // to_upper, to_lower: ASCII letters only; other bytes, UTF-8 included, unchanged.
    println(to_upper("Hello, World! 123 é"), to_lower("Hello, World! ÀB"), to_upper(""));
    println(to_lower(to_upper("MiXeD")) == "mixed");

    parse_config("# settings\nname = \"pcc\"\n\n  level=2  \nbroken line\n path = /usr/lib \n");
}
