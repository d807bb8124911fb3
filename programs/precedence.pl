// Operator precedence and associativity at every level:
// postfix > unary > * / % > + - > << >> > & > ^ > | > comparisons > && > ||
struct P { x: int, y: int, next: P }

fn f(n: int) -> int { return n * 10; }
fn t() -> bool { return true; }

fn main() {
    let a = [5, 6, 7];
    let m = [[1, 2], [3, 4]];
    let p = new P { x: 3, y: 4, next: new P { x: 30, y: 40, next: null } };
    let s = "AB";

    // multiplicative vs additive, left associativity
    println("1 + 2 * 3 =", 1 + 2 * 3);
    println("(1 + 2) * 3 =", (1 + 2) * 3);
    println("10 - 4 - 3 =", 10 - 4 - 3);
    println("10 - (4 - 3) =", 10 - (4 - 3));
    println("100 / 10 / 5 =", 100 / 10 / 5);
    println("2 * 3 % 4 =", 2 * 3 % 4);
    println("7 % 4 * 3 =", 7 % 4 * 3);
    println("1 + 7 / 2 - 9 % 4 =", 1 + 7 / 2 - 9 % 4);

    // additive vs shift
    println("1 << 2 + 3 =", 1 << 2 + 3);
    println("1 + 2 << 3 =", 1 + 2 << 3);
    println("64 >> 2 >> 1 =", 64 >> 2 >> 1);
    println("1 << 2 << 3 =", 1 << 2 << 3);
    println("-64 >> 1 + 1 =", -64 >> 1 + 1);

    // shift vs & vs ^ vs |
    println("6 & 3 << 1 =", 6 & 3 << 1);
    println("1 << 4 & 0xF0 =", 1 << 4 & 0xF0);
    println("5 ^ 3 & 1 =", 5 ^ 3 & 1);
    println("5 & 3 ^ 1 =", 5 & 3 ^ 1);
    println("1 | 6 ^ 3 =", 1 | 6 ^ 3);
    println("1 ^ 6 | 3 =", 1 ^ 6 | 3);
    println("12 | 3 & 5 =", 12 | 3 & 5);
    println("(12 | 3) & 5 =", (12 | 3) & 5);
    println("all levels =", 1 + 2 * 3 << 1 & 0xFF ^ 3 | 64);

    // bitwise binds tighter than comparison (unlike C)
    let x = 4;
    println("x & 1 == 0:", x & 1 == 0);
    println("1 | 2 == 3:", 1 | 2 == 3);
    println("x ^ 4 != 0:", x ^ 4 != 0);
    println("1 << 3 < 9:", 1 << 3 < 9);
    println("1 + 2 < 2 * 2:", 1 + 2 < 2 * 2);
    println("all levels == 77:", 1 + 2 * 3 << 1 & 0xFF ^ 3 | 64 == 77);
    println("\"a\" + \"b\" == \"ab\":", "a" + "b" == "ab");

    // comparison vs && vs ||
    println("2 + 3 == 5 && 1 < 2:", 2 + 3 == 5 && 1 < 2);
    println("true || false && false:", true || false && false);
    println("(true || false) && false:", (true || false) && false);
    println("false && true || true:", false && true || true);
    println("false && (true || true):", false && (true || true));
    println("1 > 2 || 3 > 2 && 4 > 3:", 1 > 2 || 3 > 2 && 4 > 3);
    println("true == false || true:", true == false || true);
    println("false == (false || true):", false == (false || true));

    // unary vs binary and postfix
    println("!true || true:", !true || true);
    println("!(true || true):", !(true || true));
    println("!t() && t():", !t() && t());
    println("-2 * 3 =", -2 * 3);
    println("2 * -3 =", 2 * -3);
    println("-5 % 3 =", -5 % 3);
    println("-(5 % 3) =", -(5 % 3));
    println("~1 + 1 =", ~1 + 1);
    println("~(1 + 1) =", ~(1 + 1));
    println("-a[1] =", -a[1]);
    println("-f(3) =", -f(3));
    println("~a[0] * 2 =", ~a[0] * 2);
    println("-x * -x =", -x * -x);
    println("-1.5 * 2.0 =", -1.5 * 2.0);
    println("!(x > 3) =", !(x > 3));

    // postfix chains
    println("a[1 + 1] * 2 =", a[1 + 1] * 2);
    println("m[1][0] + m[0][1] =", m[1][0] + m[0][1]);
    println("p.x * p.y + p.x =", p.x * p.y + p.x);
    println("p.next.y - p.next.x =", p.next.y - p.next.x);
    println("s[0] + 1 =", s[0] + 1);
    println("f(a[0]) + f(m[1][1]) =", f(a[0]) + f(m[1][1]));
    println("a[a[0] - 4] =", a[a[0] - 4]);
    println("len(s) * 2 + len(a) =", len(s) * 2 + len(a));

    // float operators at each level
    println("1.0 + 2.0 * 3.0 =", 1.0 + 2.0 * 3.0);
    println("10.0 - 4.0 - 3.0 =", 10.0 - 4.0 - 3.0);
    println("1.0 / 4.0 / 2.0 =", 1.0 / 4.0 / 2.0);
    println("7.5 % 2.0 * 2.0 =", 7.5 % 2.0 * 2.0);
    println("0.5 < 1.0 && 2.0 >= 2.0:", 0.5 < 1.0 && 2.0 >= 2.0);
}
