// An expression evaluator: tokenizer, recursive-descent parser building a tree of structs,
// a `match`-dispatched tree walker, and a printer that re-parenthesizes the tree.
// Grammar: expr = term (('+'|'-') term)* ; term = unary (('*'|'/'|'%') unary)* ;
//          unary = '-' unary | atom ; atom = number | name | '(' expr ')'
struct Ast { kind: int, value: int, name: str, left: Ast, right: Ast }
// kind: 0 number, 1 variable, 2 add, 3 sub, 4 mul, 5 div, 6 mod, 7 neg

let SRC: str = "";
let POS: int = 0;
let ERROR: str = "";

fn peek() -> int {
    while POS < len(SRC) && SRC[POS] == 32 {
        POS += 1;
    }
    if POS >= len(SRC) {
        return 0;
    }
    return SRC[POS];
}

fn is_digit(c: int) -> bool { return c >= 48 && c <= 57; }
fn is_alpha(c: int) -> bool { return c >= 97 && c <= 122 || c >= 65 && c <= 90 || c == 95; }

fn node(kind: int, l: Ast, r: Ast) -> Ast {
    return new Ast { kind: kind, value: 0, name: "", left: l, right: r };
}

fn fail(msg: str) -> Ast {
    if ERROR == "" {
        ERROR = msg + " at " + str(POS);
    }
    return new Ast { kind: 0, value: 0, name: "", left: null, right: null };
}

fn parse_expr() -> Ast {
    let l = parse_term();
    while peek() == 43 || peek() == 45 {
        let k = 2;
        if peek() == 45 {
            k = 3;
        }
        POS += 1;
        l = node(k, l, parse_term());
    }
    return l;
}

fn parse_term() -> Ast {
    let l = parse_unary();
    while true {
        let c = peek();
        let k = 0;
        match c {
            42 => { k = 4; }
            47 => { k = 5; }
            37 => { k = 6; }
            _ => { return l; }
        }
        POS += 1;
        l = node(k, l, parse_unary());
    }
    return l;
}

fn parse_unary() -> Ast {
    if peek() == 45 {
        POS += 1;
        return node(7, parse_unary(), null);
    }
    return parse_atom();
}

fn parse_atom() -> Ast {
    let c = peek();
    if is_digit(c) {
        let v = 0;
        while POS < len(SRC) && is_digit(SRC[POS]) {
            v = v * 10 + SRC[POS] - 48;
            POS += 1;
        }
        return new Ast { kind: 0, value: v, name: "", left: null, right: null };
    }
    if is_alpha(c) {
        let start = POS;
        while POS < len(SRC) && (is_alpha(SRC[POS]) || is_digit(SRC[POS])) {
            POS += 1;
        }
        return new Ast { kind: 1, value: 0, name: substr(SRC, start, POS - start), left: null, right: null };
    }
    if c == 40 {
        POS += 1;
        let e = parse_expr();
        if peek() != 41 {
            return fail("expected )");
        }
        POS += 1;
        return e;
    }
    if c == 0 {
        return fail("unexpected end");
    }
    return fail("unexpected " + chr(c));
}

let VAR_NAMES: [str] = ["x", "y", "big"];
let VAR_VALUES: [int] = [6, -4, 9223372036854775807];

fn eval(e: Ast) -> int {
    match e.kind {
        0 => { return e.value; }
        1 => {
            for i in 0..len(VAR_NAMES) {
                if VAR_NAMES[i] == e.name {
                    return VAR_VALUES[i];
                }
            }
            if ERROR == "" {
                ERROR = "unknown variable " + e.name;
            }
            return 0;
        }
        2 => { return eval(e.left) + eval(e.right); }
        3 => { return eval(e.left) - eval(e.right); }
        4 => { return eval(e.left) * eval(e.right); }
        5 | 6 => {
            let a = eval(e.left);
            let b = eval(e.right);
            if b == 0 {
                if ERROR == "" {
                    ERROR = "division by zero";
                }
                return 0;
            }
            if e.kind == 5 {
                return a / b;
            }
            return a % b;
        }
        7 => { return -eval(e.left); }
        _ => { return 0; }
    }
}

fn show(e: Ast) -> str {
    match e.kind {
        0 => { return str(e.value); }
        1 => { return e.name; }
        7 => { return "(-" + show(e.left) + ")"; }
        _ => {
            let ops = "+-*/%";
            return "(" + show(e.left) + " " + substr(ops, e.kind - 2, 1) + " " + show(e.right) + ")";
        }
    }
}

fn count_nodes(e: Ast) -> int {
    if e == null {
        return 0;
    }
    return 1 + count_nodes(e.left) + count_nodes(e.right);
}

fn main() {
    let inputs = [
        "1 + 2 * 3",
        "(1 + 2) * 3",
        "10 - 4 - 3",
        "-7 / 2",
        "-7 % 3",
        "2 * (x + y) - -x",
        "x * x * x * x % 7",
        "big + 1",
        "100 / (y + 4)",
        "1 + ",
        "(1 + 2",
        "3 $ 4",
        "z + 1",
        "  42  ",
        "((((5))))",
        "1-2-3-4-5*6/7%8"
    ];
    for i in 0..len(inputs) {
        SRC = inputs[i];
        POS = 0;
        ERROR = "";
        let tree = parse_expr();
        if ERROR == "" && peek() != 0 {
            ERROR = "trailing input at " + str(POS);
        }
        let v = 0;
        if ERROR == "" {
            v = eval(tree);
        }
        if ERROR == "" {
            println(inputs[i], "=>", show(tree), "=", v, "nodes:", count_nodes(tree));
        } else {
            println(inputs[i], "=> error:", ERROR);
        }
    }
    SRC = "x - 1";
    POS = 0;
    println(parse_expr());
}
