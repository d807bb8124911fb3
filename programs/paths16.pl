// `if (a || b) && (c || d)` over all 16 truth assignments: 7 acyclic paths
// (Programs Follow Paths §6.1). Optional argument: how many rounds of 16 (default 1).
let TRACE: str = "";

fn ev(name: str, v: bool) -> bool {
    TRACE = TRACE + name;
    return v;
}

fn main() {
    let rounds = 1;
    if argc() > 0 {
        rounds = parse_int(arg(0));
    }
    let names: [str] = [""; 16];
    let counts = [0; 16];
    let npaths = 0;
    let taken = 0;
    for r in 0..rounds {
        for m in 0..16 {
            let a = m & 8 != 0;
            let b = m & 4 != 0;
            let c = m & 2 != 0;
            let d = m & 1 != 0;
            TRACE = "";
            let outcome = "";
            if (ev("a", a) || ev("b", b)) && (ev("c", c) || ev("d", d)) {
                taken += 1;
                outcome = "then";
            } else {
                outcome = "else";
            }
            let path = TRACE + " " + outcome;
            if r == 0 {
                println(m, a, b, c, d, "->", path);
            }
            // count the path
            let found = -1;
            for k in 0..npaths {
                if names[k] == path {
                    found = k;
                }
            }
            if found < 0 {
                names[npaths] = path;
                found = npaths;
                npaths += 1;
            }
            counts[found] += 1;
        }
    }
    println("distinct paths:", npaths, "then-branch taken:", taken);
    for k in 0..npaths {
        println(names[k], counts[k]);
    }
}
