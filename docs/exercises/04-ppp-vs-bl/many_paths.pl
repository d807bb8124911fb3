// 20 bit tests in a row: `mix` has 2^20 = 1048576 potential paths, but the inputs vary only
// the low 6 bits, so at most 64 of them run. Argument: how many calls (default 100000).
fn mix(x: int) -> int {
    let h = 0;
    if x & 1 != 0 {
        h = h * 31 + 1;
    }
    if x & 2 != 0 {
        h = h * 31 + 2;
    }
    if x & 4 != 0 {
        h = h * 31 + 3;
    }
    if x & 8 != 0 {
        h = h * 31 + 4;
    }
    if x & 16 != 0 {
        h = h * 31 + 5;
    }
    if x & 32 != 0 {
        h = h * 31 + 6;
    }
    if x & 64 != 0 {
        h = h * 31 + 7;
    }
    if x & 128 != 0 {
        h = h * 31 + 8;
    }
    if x & 256 != 0 {
        h = h * 31 + 9;
    }
    if x & 512 != 0 {
        h = h * 31 + 10;
    }
    if x & 1024 != 0 {
        h = h * 31 + 11;
    }
    if x & 2048 != 0 {
        h = h * 31 + 12;
    }
    if x & 4096 != 0 {
        h = h * 31 + 13;
    }
    if x & 8192 != 0 {
        h = h * 31 + 14;
    }
    if x & 16384 != 0 {
        h = h * 31 + 15;
    }
    if x & 32768 != 0 {
        h = h * 31 + 16;
    }
    if x & 65536 != 0 {
        h = h * 31 + 17;
    }
    if x & 131072 != 0 {
        h = h * 31 + 18;
    }
    if x & 262144 != 0 {
        h = h * 31 + 19;
    }
    if x & 524288 != 0 {
        h = h * 31 + 20;
    }
    return h;
}

fn main() {
    let n = 100000;
    if argc() > 0 {
        n = parse_int(arg(0));
    }
    let sum = 0;
    for i in 0..n {
        sum = (sum + mix(i * 7 % 64)) % 1000000007;
    }
    println(sum);
}
