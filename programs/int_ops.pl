// Integer arithmetic: literals, wrapping + - *, truncating / and %, MIN / -1, MIN % -1,
// shifts (amount modulo 64, arithmetic >>), bitwise operators, compound assignments.
let MAXI: int = 0x7FFF_FFFF_FFFF_FFFF;
let MINI: int = -9223372036854775808;

fn show(label: str, v: int) {
    println(label, v);
}

fn fnv1a(s: str) -> int {
    let h = -3750763034362895579; // 0xcbf29ce484222325 as a signed 64-bit value
    for i in 0..len(s) {
        h ^= s[i];
        h *= 0x100_0000_01b3;
    }
    return h;
}

fn main() {
    // literals
    show("dec", 123);
    show("underscore", 1_000_000);
    show("hex", 0xFF);
    show("hex lower", 0xff);
    show("hex mixed", 0xDead_Beef);
    show("max", MAXI);
    show("min", MINI);
    show("min literal", -9223372036854775808);
    show("max literal", 9223372036854775807);
    show("max hex", 0x7fffffffffffffff);
    show("zero", 0);
    show("neg", -42);
    show("neg hex", -0x10);

    // wrapping + - *
    let big_max = MAXI;
    let big_min = MINI;
    show("max+1", big_max + 1);
    show("min-1", big_min - 1);
    show("max*2", big_max * 2);
    show("min*-1", big_min * -1);
    show("-min", -big_min);
    show("max+max", big_max + big_max);
    show("min+min", big_min + big_min);
    let big = 0x1234_5678_9ABC_DEF0;
    show("big*big", big * big);
    show("mul wrap", 3_000_000_000 * 4_000_000_000);
    show("sub wrap", big_min - big_max);

    // division and remainder truncate toward zero
    show("7/2", 7 / 2);
    show("-7/2", -7 / 2);
    show("7/-2", 7 / -2);
    show("-7/-2", -7 / -2);
    show("7%3", 7 % 3);
    show("-7%3", -7 % 3);
    show("7%-3", 7 % -3);
    show("-7%-3", -7 % -3);
    show("-1/2", -1 / 2);
    show("-1%2", -1 % 2);
    let m1 = -1;
    show("MIN/-1", big_min / m1);
    show("MIN%-1", big_min % m1);
    show("MIN/-1 lit", -9223372036854775808 / -1);
    show("MIN%-1 lit", -9223372036854775808 % -1);
    show("MIN/1", big_min / 1);
    show("MIN/2", big_min / 2);
    show("MIN%7", big_min % 7);
    show("MAX%-7", big_max % -7);
    show("MAX/MIN", big_max / big_min);
    show("MIN/MAX", big_min / big_max);

    // shifts: amount modulo 64, >> is arithmetic
    show("1<<3", 1 << 3);
    show("1<<62", 1 << 62);
    show("1<<63", 1 << 63);
    show("1<<64", 1 << 64);
    show("1<<65", 1 << 65);
    show("3<<62", 3 << 62);
    let sh = 70;
    show("5<<70", 5 << sh);
    show("-16>>2", -16 >> 2);
    show("-1>>63", -1 >> 63);
    show("min>>63", big_min >> 63);
    show("min>>1", big_min >> 1);
    show("max>>62", big_max >> 62);
    show("256>>64", 256 >> 64);
    show("256>>66", 256 >> 66);
    show("-7>>1", -7 >> 1);
    show("-256>>68", -256 >> 68);
    show("1<<128", 1 << 128);
    show("1 << -1", 1 << -1);
    show("min >> -63", big_min >> -63);

    // bitwise
    show("and", 0xF0F0 & 0xFF00);
    show("or", 0xF0F0 | 0x0F0F);
    show("xor", 0xFFFF ^ 0x0F0F);
    show("not 0", ~0);
    show("not 5", ~5);
    show("not -1", ~-1);
    show("neg not 5", -~5);
    show("not min", ~big_min);
    show("neg and", -1 & 0xFF);
    show("xor self", 12345 ^ 12345);
    show("neg neg", -(-5));
    show("neg min var", -(big_min));

    // comparisons
    println(1 < 2, 2 < 1, 2 <= 2, 3 >= 4, 5 > 4, 5 == 5, 5 != 5, big_min < big_max, -1 < 0, big_max > big_min);

    // compound assignments
    let x = 10;
    x += 5; show("+=", x);
    x -= 20; show("-=", x);
    x *= -3; show("*=", x);
    x /= 4; show("/=", x);
    x %= 3; show("%=", x);
    x = 0xFF;
    x &= 0x3C; show("&=", x);
    x |= 0x101; show("|=", x);
    x ^= 0xFFF; show("^=", x);
    x <<= 4; show("<<=", x);
    x >>= 2; show(">>=", x);
    x = -100;
    x >>= 3; show(">>= neg", x);
    x = -7;
    x /= 2; show("/= neg", x);
    x = -7;
    x %= 2; show("%= neg", x);
    x = big_max;
    x += 1; show("+= wrap", x);
    x <<= 65; show("<<= 65", x);
    x = 1;
    x <<= 64; show("<<= 64", x);
    x = big_min;
    x /= -1; show("/= -1", x);
    x = big_min;
    x %= -1; show("%= -1", x);

    // hashing with wrapping multiplication
    show("fnv1a(\"\")", fnv1a(""));
    show("fnv1a(\"a\")", fnv1a("a"));
    show("fnv1a(\"hello\")", fnv1a("hello"));
    show("fnv1a(\"The quick brown fox\")", fnv1a("The quick brown fox"));

    // a linear congruential generator (Knuth MMIX constants) wraps constantly
    let seed = 42;
    let acc = 0;
    for i in 0..10 {
        seed = seed * 6364136223846793005 + 1442695040888963407;
        acc ^= seed >> 33;
        print(seed >> 60, "");
    }
    println();
    show("lcg", seed);
    show("acc", acc);
}
