// wpp benchmark: a loop of 10^8 iterations (argument) with two branches of periods 3 and 7, so
// that its trace of acyclic paths repeats with period 21; used by bench/wpp_ab.sh.
fn main() -> int {
    let n = parse_int(arg(0));
    let s = 0;
    let i = 0;
    while i < n {
        if i % 3 == 0 { s += i; } else { s -= 1; }
        if i % 7 == 2 { s ^= 5; }
        i += 1;
    }
    println(s);
    return 0;
}
