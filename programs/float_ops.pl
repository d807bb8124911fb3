// Floats: arithmetic, C-fmod `%`, IEEE specials, printing like Rust's {:?}, int()/float() conversions.
fn main() {
    // printing: shortest round-trip text, always with a '.' or an exponent
    println(1.0, 0.1, 1e20, 1e-7, 2.5e-3, 1e9, 1.5, 100.0);
    println(0.1 + 0.2, 1.0 / 3.0, 2.0 / 3.0, 1e15, 1e16, 1e17, 123456789.0);
    println(0.0001, 0.00001, 0.000123, 1.0e-4, 9999999999999998.0, 12345678901234567890.0);
    println(1e100, 1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, 1.5e300, -2.5e-10);
    println(-1.0, -0.5, 0.0, -0.0, 3.14159, 2.718281828459045, 6.02214076e23);

    // specials
    let zero = 0.0;
    let inf = 1.0 / zero;
    let ninf = -1.0 / zero;
    let nan = zero / zero;
    println("inf:", inf, "-inf:", ninf, "nan:", nan);
    println("inf + 1.0 =", inf + 1.0, "inf - inf =", inf - inf, "inf * 0.0 =", inf * 0.0);
    println("nan == nan:", nan == nan, "nan != nan:", nan != nan, "nan < 1.0:", nan < 1.0, "nan >= 1.0:", nan >= 1.0);
    println("inf > 1e308:", inf > 1e308, "ninf < -1e308:", ninf < -1e308);
    println("-0.0 == 0.0:", -0.0 == 0.0, "1.0 / -0.0 =", 1.0 / -0.0);
    println("neg zero product:", -1.0 * 0.0, "neg zero sum:", -0.0 + -0.0, "zero sum:", -0.0 + 0.0);
    println("overflow:", 1e308 * 10.0, "underflow:", 1e-308 / 1e300);

    // arithmetic
    let a = 7.5;
    let b = 2.0;
    println(a + b, a - b, a * b, a / b, a % b);
    println(-a % b, a % -b, -a % -b, 5.0 % 0.3, 1e20 % 3.0);
    println("fmod by zero:", a % zero, "fmod of inf:", inf % 2.0, "fmod by inf:", a % inf);
    println(-a, -(-a), 0.1 * 3.0, 1.0 - 0.9, 100.0 * 1.1);
    let acc = 0.0;
    for i in 0..10 {
        acc += 0.1;
    }
    println("ten 0.1s:", acc, acc == 1.0);
    let c = 1.0;
    c *= 3.0; c -= 0.5; c /= 2.0; c %= 0.75;
    println("compound:", c);

    // comparisons
    println(1.5 < 2.5, 2.5 <= 2.5, 3.5 > 4.5, -1.0 >= -1.0, 0.1 + 0.2 == 0.3, 0.5 + 0.25 == 0.75);

    // conversions
    println(float(3), float(-7), float(0), float(9007199254740993), float(-9223372036854775808));
    println(int(2.7), int(-2.7), int(0.5), int(-0.5), int(1e10), int(-1e10));
    println("saturating:", int(1e30), int(-1e30), int(inf), int(ninf), int(nan));
    println("edge:", int(9223372036854775807.0), int(-9223372036854775808.0), int(4611686018427387904.0));
    println("round trip:", int(float(123456789)), float(int(123.999)));

    // str() of floats gives the printed text
    let s = str(0.1) + "|" + str(1e20) + "|" + str(-0.0) + "|" + str(nan) + "|" + str(ninf) + "|" + str(1e-7);
    println(s, len(s));
    println(str(1.0) == "1.0", str(2.5e-3) == "0.0025");

    // a small series: pi by Leibniz (deterministic IEEE arithmetic)
    let pi = 0.0;
    let sign = 1.0;
    for k in 0..1000 {
        pi += sign * 4.0 / float(2 * k + 1);
        sign = -sign;
    }
    println("leibniz:", pi);
    // Newton's square root of 2
    let r = 1.0;
    for k in 0..6 {
        r = (r + 2.0 / r) / 2.0;
        println("newton", k, r);
    }
}
