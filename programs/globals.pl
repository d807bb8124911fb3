// Globals: initializers run before main, in source order; a global read before its initializer
// ran holds the default value (0, 0.0, false, "", null, empty array). Globals are mutable.
let A: int = B + 1;
let B: int = 41;
let C = B + 1;
let EARLY_F: float = F + 0.5;
let F: float = 2.0;
let EARLY_BOOL: bool = !FLAG;
let FLAG: bool = true;
let EARLY_S: str = S + "?";
let S: str = "hello";
let EARLY_LEN: int = len(ARR);
let EARLY_ARR: [int] = ARR;
let ARR: [int] = [1, 2, 3];
let EARLY_NULL: bool = HEAD == null;
let HEAD: Node = new Node { v: 1, next: null };
let LOG: str = "";
let T1: int = trace("T1", 10);
let VIA_FN: int = read_later();
let LATER: int = 99;
let T2: int = trace("T2", LATER);
let BUMPED: int = bump_count();
let COUNT = 5;
let T3 = trace("T3", COUNT + BUMPED);
let ROW: [int] = [0; 2];
let GRID: [[int]] = [ROW, ROW]; // one row, twice

struct Node { v: int, next: Node }

fn trace(name: str, v: int) -> int {
    LOG = LOG + name + ";";
    println("init", name, v);
    return v;
}

fn read_later() -> int {
    println("read_later sees LATER =", LATER);
    return LATER + 1;
}

fn bump_count() -> int {
    COUNT += 1;
    return COUNT;
}

fn incr() {
    COUNT += 1;
}

fn push(v: int) {
    HEAD = new Node { v: v, next: HEAD };
}

fn main() {
    println("main starts");
    println("A =", A, "B =", B, "C =", C);
    println("EARLY_F =", EARLY_F, "F =", F);
    println("EARLY_BOOL =", EARLY_BOOL, "FLAG =", FLAG);
    println("EARLY_S =", EARLY_S, "S =", S);
    println("EARLY_LEN =", EARLY_LEN, "EARLY_ARR =", EARLY_ARR, "ARR =", ARR);
    println("EARLY_NULL =", EARLY_NULL, "HEAD =", HEAD);
    println("T1 =", T1, "VIA_FN =", VIA_FN, "LATER =", LATER, "T2 =", T2);
    println("BUMPED =", BUMPED, "COUNT =", COUNT, "T3 =", T3);
    println("LOG =", LOG);

    // globals are mutable from any function
    for i in 0..3 {
        incr();
    }
    println("COUNT after 3 incr:", COUNT);
    push(2);
    push(3);
    println("HEAD =", HEAD, "HEAD.next.next.v =", HEAD.next.next.v);
    ARR[0] = 100;
    ARR = [ARR[0], ARR[1] * 10];
    println("ARR =", ARR);
    GRID[0][1] = 5;
    println("GRID =", GRID);
    S += ", world";
    F *= F;
    FLAG = !FLAG;
    println(S, F, FLAG);

    // a local in an inner scope may shadow a global
    {
        let B = "shadowing B";
        println(B);
        B = "still the local";
        println(B);
    }
    println("global B =", B);
}
