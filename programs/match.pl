// match: single and multiple patterns, negative patterns, hex patterns, `_`, no fallthrough,
// match on computed expressions, match inside loops with break/continue, nested match.
fn day_name(d: int) -> str {
    let name = "";
    match d {
        0 => { name = "Sunday"; }
        1 => { name = "Monday"; }
        2 => { name = "Tuesday"; }
        3 => { name = "Wednesday"; }
        4 => { name = "Thursday"; }
        5 => { name = "Friday"; }
        6 => { name = "Saturday"; }
        _ => { name = "?"; }
    }
    return name;
}

fn kind(n: int) -> str {
    match n {
        -1 | -2 | -3 => { return "small negative"; }
        0 => { return "zero"; }
        1 | 3 | 5 | 7 | 9 => { return "odd digit"; }
        2 | 4 | 6 | 8 => { return "even digit"; }
        -9223372036854775808 => { return "min"; }
        9223372036854775807 => { return "max"; }
        0x10 | 0xFF | 1_000 => { return "special"; }
        _ => { return "other"; }
    }
}

fn sign(n: int) -> int {
    let s = 0;
    match n {
        0 => { }
        _ => {
            if n > 0 {
                s = 1;
            } else {
                s = -1;
            }
        }
    }
    return s;
}

fn main() {
    for d in -1..8 {
        print(day_name(d), "");
    }
    println();
    let probes = [-4, -3, -2, -1, 0, 1, 2, 3, 8, 9, 10, 16, 255, 1000, 1001,
                  -9223372036854775808, 9223372036854775807];
    for i in 0..len(probes) {
        println(probes[i], kind(probes[i]));
    }
    println(sign(-20), sign(0), sign(20));

    // match on a computed expression, inside a loop with break and continue
    let fizz = "";
    let i = 0;
    while true {
        i += 1;
        match i % 15 {
            0 => { fizz = fizz + "FizzBuzz "; }
            3 | 6 | 9 | 12 => { fizz = fizz + "Fizz "; }
            5 | 10 => { fizz = fizz + "Buzz "; }
            7 => { continue; }
            _ => {
                if i > 20 {
                    break;
                }
                fizz = fizz + str(i) + " ";
            }
        }
    }
    println(fizz);

    // only `_` and nested matches
    for a in 0..3 {
        match a {
            _ => {
                match a * 2 - 2 {
                    -2 => { println(a, "-> inner -2"); }
                    0 => { println(a, "-> inner 0"); }
                    _ => { println(a, "-> inner default"); }
                }
            }
        }
    }

    // counting with a match table
    let text = "the quick brown fox jumps over the lazy dog";
    let vowels = 0;
    let spaces = 0;
    let others = 0;
    for k in 0..len(text) {
        match text[k] {
            97 | 101 | 105 | 111 | 117 => { vowels += 1; }
            32 => { spaces += 1; }
            _ => { others += 1; }
        }
    }
    println("vowels", vowels, "spaces", spaces, "others", others);
}
