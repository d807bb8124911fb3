//! Checker tests: valid programs of every feature (and the shape of what they produce), and
//! the messages of errors.

use crate::typed::{
    Builtin, ExprKind, FnId, GlobalId, LocalId, Place, Program, StmtKind, StructId, Type,
};

fn ok(source: &str) -> Program {
    match crate::check("test.pl", source) {
        Ok(program) => program,
        Err(diagnostics) => panic!("{}", diagnostics.render("test.pl", source)),
    }
}

/// The messages of every error in a program.
fn errors(source: &str) -> Vec<String> {
    match crate::check("test.pl", source) {
        Ok(_) => panic!("expected errors in:\n{source}"),
        Err(diagnostics) => diagnostics.iter().map(|d| d.message.clone()).collect(),
    }
}

/// The messages of the errors of a `main` body.
fn body_errors(body: &str) -> Vec<String> {
    errors(&format!(
        "struct Node {{ key: int, next: Node }}\nfn main() {{\n{body}\n}}"
    ))
}

fn main_stmts(program: &Program) -> &[crate::typed::Stmt] {
    &program.functions[program.main].body.stmts
}

#[test]
fn every_feature_checks() {
    ok(r#"
        struct Node { key: int, left: Node, right: Node }
        struct Pair { a: [int], name: str, f: float, ok: bool, }
        let SEED: int = 74755;
        let COUNT = 10;
        let NAMES: [str] = [];
        let ROOT: Node = null;
        let LATER: int = early();
        fn early() -> int { return COUNT + USED_BEFORE_INIT; }
        let USED_BEFORE_INIT: int = 1;
        fn insert(t: Node, k: int) -> Node {
            if t == null { return new Node { key: k, left: null, right: null }; }
            if k < t.key { t.left = insert(t.left, k); }
            else if k > t.key { t.right = insert(t.right, k); }
            else { }
            return t;
        }
        fn classify(x: int) -> str {
            match x {
                0 => { return "zero"; }
                1 | 2 | -3 => { return "small"; }
                -9223372036854775808 => { return "min"; }
                _ => { return "other"; }
            }
        }
        fn spin() -> int { while true { } }
        fn count_up() -> int {
            let i = 0;
            while (true) { i += 1; if i > 10 { return i; } }
        }
        fn bye() -> int { exit(3); }
        fn nested_return(c: bool) -> int { { if c { return 1; } else { return 2; } } }
        fn main() -> int {
            let x = 0x_FF + 1_000;
            let f = 2.5e-3 * 1e9 + 1.5;
            let s = "a\tb\n\x41\0" + str(x) + str(f) + str(true);
            let arr = [1, 2, 3];
            let grid = [[0; 3]; 4];
            let nodes: [Node] = [null, null];
            let empty: [float] = [];
            grid[1][2] = arr[0] << 2 >> 1;
            x += 1; x -= 1; x *= 2; x /= 2; x %= 7; x &= 3; x |= 8; x ^= 1; x <<= 2; x >>= 1;
            s += "!";
            f = -f % 2.0;
            let b = !(x < 3) && x != 4 || x >= 5 && ~x == -1;
            let cmp = "abc" < "abd" && 1.0 <= 2.0 && false < true && arr == arr;
            for i in 0..len(arr) { if i == 1 { continue; } print(i, " "); }
            {
                let x = "shadowed";
                println(x);
            }
            let root: Node = null;
            root = insert(root, 5);
            root.left = null;
            if null != root.left { }
            println(root, root.left.key, nodes, grid, empty, b, cmp, classify(-3));
            println(abs(-4), abs(-4.5), min(1, 2), max(1.0, 2.0), len("abc"), "abc"[1]);
            println(float(3), int(3.9), fixed(3.14159, 2), chr(65), substr("hello", 1, 3));
            println(parse_int("42"), parse_float("1.5"), sqrt(2.0), sin(1.0), cos(1.0));
            println(tan(1.0), atan(1.0), exp(1.0), log(1.0), floor(1.5), ceil(1.5));
            println(pow(2.0, 10.0), atan2(1.0, 1.0));
            if argc() > 0 { println(arg(0)); }
            while !eof() { let line = read_line(); if line == "" { break; } }
            assert(x >= 0); assert(true, "message");
            let t0 = clock_ns();
            print();
            let n = 9223372036854775807;
            if n == -9223372036854775808 { exit(1); }
            NAMES = ["a", "b"];
            ROOT = root;
            return gcd(12, 18) + SEED * 0 + LATER * 0 + read_int() * 0 + t0 * 0;
        }
        fn gcd(a: int, b: int) -> int { while b != 0 { let t = a % b; a = b; b = t; } return a; }
    "#);
}

#[test]
fn main_may_return_int() {
    let program = ok("fn main() -> int { return 3; }");
    assert_eq!(program.functions[program.main].ret, Type::Int);
    let program = ok("fn helper() {} fn main() { helper(); }");
    assert_eq!(program.main, FnId::new(1));
    assert_eq!(program.functions[program.main].ret, Type::Void);
}

#[test]
fn typed_tree_shapes() {
    let program = ok("struct S { v: int }
         let G = 1;
         fn main() {
             let s: S = null;
             let n = -5;
             let m = -(5);
             if n < 0 { n += 1; } else if n > 0 { G = 2; } else { s.v = 1; }
             for i in 0..3 { }
             println(n, 1.5, \"x\", s == null);
         }");
    let main = &program.functions[program.main];
    assert_eq!(main.locals.len(), 4);
    assert_eq!(main.locals[LocalId::new(3)].name, "i");
    let stmts = &main.body.stmts;
    // `null` takes the struct type it meets.
    let StmtKind::Let { init, .. } = &stmts[0].kind else {
        panic!()
    };
    assert!(matches!(init.kind, ExprKind::Null) && init.ty == Type::Struct(StructId::new(0)));
    // `-5` is a literal; `-(5)` a negation.
    let StmtKind::Let { init, .. } = &stmts[1].kind else {
        panic!()
    };
    assert!(matches!(init.kind, ExprKind::Int(-5)));
    let StmtKind::Let { init, .. } = &stmts[2].kind else {
        panic!()
    };
    assert!(matches!(init.kind, ExprKind::Unary { .. }));
    // `else if` is an `If` alone in the else block; `+=` a compound assignment.
    let StmtKind::If {
        then_block,
        else_block: Some(else_block),
        ..
    } = &stmts[3].kind
    else {
        panic!()
    };
    assert!(matches!(
        then_block.stmts[0].kind,
        StmtKind::CompoundAssign {
            target: Place::Local(l),
            op: crate::typed::BinOp::Add,
            ..
        } if l == LocalId::new(1)
    ));
    assert_eq!(else_block.stmts.len(), 1);
    let StmtKind::If {
        then_block,
        else_block: Some(last),
        ..
    } = &else_block.stmts[0].kind
    else {
        panic!()
    };
    assert!(matches!(
        then_block.stmts[0].kind,
        StmtKind::Assign {
            target: Place::Global(g),
            ..
        } if g == GlobalId::new(0)
    ));
    assert!(matches!(
        last.stmts[0].kind,
        StmtKind::Assign {
            target: Place::Field { field: 0, .. },
            ..
        }
    ));
    let StmtKind::Expr(call) = &stmts[5].kind else {
        panic!()
    };
    let ExprKind::Builtin {
        builtin: Builtin::Println,
        args,
    } = &call.kind
    else {
        panic!()
    };
    assert_eq!(call.ty, Type::Void);
    let types: Vec<&Type> = args.iter().map(|a| &a.ty).collect();
    assert_eq!(types, [&Type::Int, &Type::Float, &Type::Str, &Type::Bool]);
    // The comparison's `null` operand has the struct's type too.
    let ExprKind::Binary { rhs, .. } = &args[3].kind else {
        panic!()
    };
    assert_eq!(rhs.ty, Type::Struct(StructId::new(0)));
}

#[test]
fn match_arms_and_default() {
    let program = ok("fn main() { match 3 { 1 | -2 => { } 3 => { } _ => { println(0); } } }");
    let StmtKind::Match { arms, default, .. } = &main_stmts(&program)[0].kind else {
        panic!()
    };
    assert_eq!(arms.len(), 2);
    let values: Vec<i64> = arms[0].patterns.iter().map(|&(v, _)| v).collect();
    assert_eq!(values, [1, -2]);
    assert_eq!(default.stmts.len(), 1);
}

#[test]
fn functions_and_structs_in_any_order() {
    let program = ok("fn main() { let t = make(); println(t.next.key); }
         fn make() -> T { return new T { key: 1, next: null }; }
         struct T { key: int, next: T }");
    assert_eq!(
        program.structs[StructId::new(0)].fields[1].ty,
        Type::Struct(StructId::new(0))
    );
}

#[test]
fn user_functions_shadow_builtins() {
    let program = ok(
        "fn max(a: int, b: int, c: int) -> int { return a; } fn main() { println(max(1, 2, 3)); }",
    );
    let StmtKind::Expr(call) = &main_stmts(&program)[0].kind else {
        panic!()
    };
    let ExprKind::Builtin { args, .. } = &call.kind else {
        panic!()
    };
    assert!(matches!(args[0].kind, ExprKind::Call { func, .. } if func == FnId::new(0)));
}

#[test]
fn names_in_separate_namespaces() {
    // Variables, functions and types do not clash, and type names are fine as variables.
    ok(
        "struct len { x: int } fn main() { let len = len(\"ab\"); let str = 1; println(len, str); }",
    );
}

#[test]
fn shadowing() {
    ok(
        "fn main() { let x = 1; { let x = \"s\"; { let x = 2.0; println(x); } } for x in 0..2 { let x = true; } }",
    );
    assert_eq!(
        errors("fn main() { let x = 1; let x = 2; }"),
        ["`x` is already defined in this scope"]
    );
    assert_eq!(
        errors("fn f(a: int) { let a = 2; } fn main() { }"),
        ["`a` is already defined in this scope"]
    );
}

#[test]
fn all_paths_return() {
    ok("fn a(c: bool) -> int { if c { return 1; } else { return 2; } } fn main() { }");
    ok("fn a(x: int) -> int { match x { 0 => { return 0; } _ => { return 1; } } } fn main() { }");
    ok("fn a() -> int { while true { } } fn main() { }");
    ok("fn a() -> int { while true { for i in 0..3 { break; } } } fn main() { }");
    ok("fn a() -> int { exit(1); } fn main() { }");
    ok("fn a() -> int { { return 1; } } fn main() { }");
    let missing = |body: &str| {
        errors(&format!(
            "fn a(c: bool) -> int {{ {body} }} fn main() {{ }}"
        ))
    };
    let message = "missing `return`: function `a` must return a value of type `int` on every path";
    assert_eq!(missing("if c { return 1; }"), [message]);
    assert_eq!(
        missing("if c { return 1; } else if c { return 2; }"),
        [message]
    );
    assert_eq!(missing("while true { if c { break; } }"), [message]);
    assert_eq!(missing("while c { return 1; }"), [message]);
    assert_eq!(missing("for i in 0..1 { return 1; }"), [message]);
    assert_eq!(
        missing("match 1 { 0 => { return 1; } _ => { } }"),
        [message]
    );
    assert_eq!(missing(""), [message]);
    // A function of the program named `exit` is not the built-in.
    assert_eq!(
        errors("fn exit(c: int) { } fn a() -> int { exit(1); } fn main() { }"),
        ["missing `return`: function `a` must return a value of type `int` on every path"]
    );
}

#[test]
fn name_errors() {
    assert_eq!(
        body_errors("let count = 1; println(cont);"),
        ["cannot find variable `cont` — did you mean `count`?"]
    );
    assert_eq!(
        body_errors("prnt(1);"),
        ["cannot find function `prnt` — did you mean `print`?"]
    );
    assert_eq!(
        body_errors("let n: Nod = null;"),
        ["cannot find type `Nod` — did you mean `Node`?"]
    );
    assert_eq!(
        body_errors("let n = new Nod { key: 1, next: null };"),
        ["cannot find struct `Nod` — did you mean `Node`?"]
    );
    assert_eq!(
        body_errors("let n: Node = null; println(n.kye);"),
        ["struct `Node` has no field `kye` — did you mean `key`?"]
    );
    assert_eq!(
        body_errors("let f = main;"),
        ["`main` is a function, not a variable"]
    );
    assert_eq!(
        errors("struct S { a: int } struct S { b: int } fn main() { }"),
        ["struct `S` is defined more than once"]
    );
    assert_eq!(
        errors("fn f() { } fn f() { } fn main() { }"),
        ["function `f` is defined more than once"]
    );
    assert_eq!(
        errors("let g = 1; let g = 2; fn main() { }"),
        ["global `g` is defined more than once"]
    );
    assert_eq!(
        errors("fn f(a: int, a: int) { } fn main() { }"),
        ["duplicate parameter `a`"]
    );
    assert_eq!(
        errors("struct S { a: int, a: int } fn main() { }"),
        ["field `a` is declared more than once in struct `S`"]
    );
    for ty in ["int", "float", "bool", "str"] {
        assert_eq!(
            errors(&format!("struct {ty} {{ }} fn main() {{ }}")),
            [format!("cannot redefine the built-in type `{ty}`")]
        );
    }
    assert_eq!(
        errors("let A = B; let B = 1; fn main() { }"),
        ["the type of global `B` is not known yet here"]
    );
    ok("let A: int = B; let B: int = 1; fn main() { }");
}

#[test]
fn type_errors() {
    let mismatch = "mismatched types: expected `int`, found `float`";
    assert_eq!(body_errors("let x: int = 1.5;"), [mismatch]);
    assert_eq!(body_errors("let x = 1 + 2.5;"), [mismatch]);
    assert_eq!(body_errors("let x = 1 < 2.5;"), [mismatch]);
    assert_eq!(body_errors("let a = [1, 2.5];"), [mismatch]);
    assert_eq!(
        body_errors("if 1 { }"),
        ["mismatched types: expected `bool`, found `int`"]
    );
    assert_eq!(
        body_errors("while \"s\" { }"),
        ["mismatched types: expected `bool`, found `str`"]
    );
    assert_eq!(
        body_errors("let b = 1 && true;"),
        ["mismatched types: expected `bool`, found `int`"]
    );
    assert_eq!(
        body_errors("let b = true + true;"),
        ["operator `+` cannot be applied to type `bool`"]
    );
    assert_eq!(
        body_errors("let b = 1.5 & 1.5;"),
        ["operator `&` cannot be applied to type `float`"]
    );
    assert_eq!(
        body_errors("let b = ~1.5;"),
        ["operator `~` cannot be applied to type `float`"]
    );
    assert_eq!(
        body_errors("let b = [1] < [2];"),
        ["operator `<` cannot be applied to type `[int]`"]
    );
    assert_eq!(
        body_errors("let x = 1 < 2 < 3;"),
        ["comparison operators cannot be chained"]
    );
    ok("fn main() { let x = (1 < 2) == true; }");
    assert_eq!(
        body_errors("let x: int = null;"),
        ["mismatched types: expected `int`, found `null`"]
    );
    assert_eq!(
        body_errors("let x: str = null;"),
        ["mismatched types: expected `str`, found `null`"]
    );
    assert_eq!(
        body_errors("let x = null == null;"),
        ["cannot infer the type of `null` here"]
    );
    ok("fn main() { println(null); }");
    assert_eq!(
        body_errors("let x = null;"),
        ["cannot infer the type of `null`: `let x` needs a type annotation"]
    );
    assert_eq!(
        body_errors("let x = [];"),
        ["cannot infer the element type of `[]`: `let x` needs a type annotation"]
    );
    assert_eq!(
        body_errors("let x = [null];"),
        ["cannot infer the type of `null` here"]
    );
    ok(
        "fn main() { let a: [[int]] = [[], [1]]; let b: [Node] = [null; 3]; } struct Node { k: int }",
    );
    assert_eq!(
        body_errors("let x = 9223372036854775808;"),
        ["integer literal is out of range for `int`"]
    );
    assert_eq!(
        body_errors("let x = \"abc\"[\"a\"];"),
        ["mismatched types: expected `int`, found `str`"]
    );
    assert_eq!(
        body_errors("let x = 5; x[0] = 1;"),
        ["cannot index into a value of type `int`"]
    );
    assert_eq!(
        body_errors("let s = \"ab\"; s[0] = 1;"),
        ["cannot assign to a byte of a `str`"]
    );
    assert_eq!(
        body_errors("for i in 0..3 { i += 1; }"),
        ["cannot assign to `i`, the variable of a `for` loop"]
    );
    assert_eq!(body_errors("for i in 0.0..3 { }"), [mismatch]);
    assert_eq!(
        body_errors("1 + 2;"),
        ["only function calls can be used as statements"]
    );
    assert_eq!(
        body_errors("main() = 1;"),
        ["invalid left-hand side of assignment"]
    );
    assert_eq!(
        body_errors("let x = main();"),
        ["`main` does not return a value"]
    );
    assert_eq!(
        body_errors("let x = print(1);"),
        ["`print` does not return a value"]
    );
    assert_eq!(body_errors("break;"), ["`break` outside of a loop"]);
    assert_eq!(
        body_errors("while true { } continue;"),
        ["`continue` outside of a loop"]
    );
    assert_eq!(
        body_errors("return 1;"),
        ["function `main` has no return type, but this `return` has a value"]
    );
    assert_eq!(
        errors("fn f() -> int { return; } fn main() { }"),
        ["`return` without a value in function `f`, which returns `int`"]
    );
}

#[test]
fn struct_literal_errors() {
    assert_eq!(
        body_errors("let n = new Node { key: 1 };"),
        ["missing field `next` in `new Node`"]
    );
    assert_eq!(
        body_errors("let n = new Node { key: 1, next: null, key: 2 };"),
        ["field `key` is given more than once"]
    );
    assert_eq!(
        body_errors("let n = new Node { key: 1, next: null, prev: null };"),
        ["struct `Node` has no field `prev`"]
    );
    assert_eq!(
        body_errors("let n = new Node { key: true, next: null };"),
        ["mismatched types: expected `int`, found `bool`"]
    );
}

#[test]
fn call_errors() {
    let program = "fn f(a: int, b: str) -> int { return a; } fn main() { BODY }";
    let call = |body: &str| errors(&program.replace("BODY", body));
    assert_eq!(
        call("f(1);"),
        ["function `f` takes 2 arguments but 1 was supplied"]
    );
    assert_eq!(
        call("f(1, \"a\", 3);"),
        ["function `f` takes 2 arguments but 3 were supplied"]
    );
    assert_eq!(
        call("f(\"a\", 1);"),
        [
            "mismatched types: expected `int`, found `str`",
            "mismatched types: expected `str`, found `int`"
        ]
    );
    assert_eq!(
        body_errors("sqrt(2);"),
        ["mismatched types: expected `float`, found `int`"]
    );
    assert_eq!(
        body_errors("argc(1);"),
        ["function `argc` takes 0 arguments but 1 was supplied"]
    );
    assert_eq!(
        body_errors("len(1);"),
        ["mismatched types: expected an array, a map or `str`, found `int`"]
    );
    assert_eq!(
        body_errors("abs(true);"),
        ["mismatched types: expected `int` or `float`, found `bool`"]
    );
    assert_eq!(
        body_errors("min(1, 2.0);"),
        ["mismatched types: expected `int`, found `float`"]
    );
    assert_eq!(
        body_errors("max(\"a\", \"b\");"),
        ["mismatched types: expected `int` or `float`, found `str`"]
    );
    assert_eq!(
        body_errors("str([1]);"),
        ["mismatched types: expected `int`, `float` or `bool`, found `[int]`"]
    );
    assert_eq!(
        body_errors("assert(true, 1);"),
        ["mismatched types: expected `str`, found `int`"]
    );
    assert_eq!(
        body_errors("assert();"),
        ["function `assert` takes 1 or 2 arguments but 0 were supplied"]
    );
    assert_eq!(
        body_errors("let x = 1; x(2);"),
        ["`x` is a variable, not a function"]
    );
}

#[test]
fn match_errors() {
    assert_eq!(
        body_errors("match 1 { 0 => { } }"),
        ["`match` must end with a `_` arm"]
    );
    assert_eq!(
        body_errors("match 1 { _ => { } 0 => { } }"),
        ["`_` must be the last arm of a `match`"]
    );
    assert_eq!(
        body_errors("match 1 { 0 | _ => { } }"),
        ["`_` cannot be combined with other patterns"]
    );
    assert_eq!(
        body_errors("match 1 { 1 => { } -1 | 1 => { } _ => { } }"),
        ["duplicate pattern `1` in `match`"]
    );
    assert_eq!(
        body_errors("match 1.5 { _ => { } }"),
        ["mismatched types: expected `int`, found `float`"]
    );
}

#[test]
fn main_errors() {
    assert_eq!(errors(""), ["no `main` function"]);
    assert_eq!(
        errors("fn main(a: int) { }"),
        ["`main` must not take parameters"]
    );
    assert_eq!(
        errors("fn main() -> str { return \"\"; }"),
        ["`main` must return `int` or nothing"]
    );
}

#[test]
fn errors_do_not_cascade() {
    assert_eq!(
        body_errors("let a = nope; let b = a + 1.5; let c: str = b; c = a[0]; if a { }"),
        ["cannot find variable `nope`"]
    );
    assert_eq!(
        body_errors("let n: Nod = null; n.key = null; if n == null { }"),
        ["cannot find type `Nod` — did you mean `Node`?"]
    );
    // Every function is checked, whatever errors came before.
    assert_eq!(
        errors("fn a() { x = 1; } fn b() { y = 2; } fn main() { z = 3; }").len(),
        3
    );
}

#[test]
fn errors_are_sorted_by_position() {
    let diagnostics = crate::check("t.pl", "fn main() { a(); } fn f() -> int { }").unwrap_err();
    let starts: Vec<u32> = diagnostics.iter().map(|d| d.span.lo).collect();
    assert!(starts.is_sorted());
    assert_eq!(diagnostics.len(), 2);
}
