// Short-circuit && and ||: the right operand runs only when needed (side effects show it),
// in conditions, in values, nested, and guarding errors that would otherwise happen.
let TRACE: str = "";

fn t(name: str) -> bool {
    TRACE = TRACE + name;
    return true;
}

fn f(name: str) -> bool {
    TRACE = TRACE + name;
    return false;
}

fn show(label: str, v: bool) {
    println(label, v, TRACE);
    TRACE = "";
}

struct Node { key: int, next: Node }

fn main() {
    show("t&&t", t("a") && t("b"));
    show("t&&f", t("a") && f("b"));
    show("f&&t", f("a") && t("b"));
    show("f&&f", f("a") && f("b"));
    show("t||t", t("a") || t("b"));
    show("t||f", t("a") || f("b"));
    show("f||t", f("a") || t("b"));
    show("f||f", f("a") || f("b"));
    show("f&&t||t", f("a") && t("b") || t("c"));
    show("t||f&&f", t("a") || f("b") && f("c"));
    show("f||t&&f", f("a") || t("b") && f("c"));
    show("(f||t)&&(f||f)", (f("a") || t("b")) && (f("c") || f("d")));
    show("(t||f)&&(t||f)", (t("a") || f("b")) && (t("c") || f("d")));
    show("!(f&&t)", !(f("a") && t("b")));
    show("t&&t&&t&&f&&t", t("a") && t("b") && t("c") && f("d") && t("e"));
    show("f||f||f||t||f", f("a") || f("b") || f("c") || t("d") || f("e"));

    // in if and while conditions
    if f("x") && t("never") {
        println("never");
    } else {
        println("else taken", TRACE);
    }
    TRACE = "";
    let n = 0;
    while n < 3 && t("w") {
        n += 1;
    }
    println("while trace", TRACE);
    TRACE = "";

    // guards that prevent runtime errors
    let a = [1, 2, 3];
    let i = 5;
    if i < len(a) && a[i] > 0 {
        println("never");
    } else {
        println("index guarded");
    }
    let d = 0;
    if d != 0 && 10 / d > 1 {
        println("never");
    } else {
        println("division guarded");
    }
    let p: Node = null;
    if p == null || p.key == 0 {
        println("null guarded");
    }
    let list = new Node { key: 1, next: new Node { key: 2, next: null } };
    let count = 0;
    let q = list;
    while q != null && q.key > 0 {
        count += 1;
        q = q.next;
    }
    println("walked", count);

    // bool values stored and combined
    let b1 = t("1") || f("2");
    let b2 = f("3") && t("4");
    let b3 = b1 && !b2;
    println(b1, b2, b3, TRACE);
}
