//! Random valid PL programs, the same for the same seed. Every program terminates: loops have
//! bounded trip counts (`for` over small ranges or an array's indices, `while` with a counter
//! incremented first), recursion is bounded by a depth parameter, and a global fuel counter
//! caps the number of calls. They cover functions with parameters of every type, nested loops,
//! `while` with `break`/`continue`, `if`/`else` chains, `&&`/`||` mixes, `match`, int arithmetic
//! with wrap-around and shifts, floats, strings, arrays (indices in and, now and then, out of
//! bounds), a struct and `null`, globals, named constants (in `match` arms too), maps with
//! `int` and `str` keys, arrays grown and shrunk (`push`, `pop`, `insert`, `remove`, in loops
//! that read them, through aliases and parameters), the string built-ins and `sort`, input,
//! `exit()`, and printing of every type; and
//! they are shaped so that the optimizer's patterns occur: loops over arrays with affine
//! indices, loops that repeat one path for long runs, small leaf functions called from hot
//! loops.

use crate::program::{Body, Expr, Program, Stmt};

/// The input every generated program gets on stdin.
pub const STDIN: &str = "12 -7 3\n40 5\nlast line\n";
/// And its arguments.
pub const ARGS: [&str; 2] = ["17", "word"];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    Int,
    Float,
    Bool,
    Str,
    Ints,
    Floats,
    /// `[bool]`, which compiled code keeps in 4 bytes per element, not a slot.
    Bools,
    /// `struct P { v: int, w: float, s: str, next: P }`.
    P,
}

const ALL: [Ty; 8] = [
    Ty::Int,
    Ty::Float,
    Ty::Bool,
    Ty::Str,
    Ty::Ints,
    Ty::Floats,
    Ty::Bools,
    Ty::P,
];

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Int => "int",
            Ty::Float => "float",
            Ty::Bool => "bool",
            Ty::Str => "str",
            Ty::Ints => "[int]",
            Ty::Floats => "[float]",
            Ty::Bools => "[bool]",
            Ty::P => "P",
        }
    }
}

#[derive(Clone)]
struct Var {
    name: String,
    ty: Ty,
    /// Loop variables and counters cannot be assigned.
    mutable: bool,
}

/// A function that later functions (and `main`) may call.
#[derive(Clone)]
struct Signature {
    name: String,
    params: Vec<Ty>,
    ret: Ty,
}

struct Gen {
    state: u64,
    names: usize,
    functions: Vec<Signature>,
    /// The globals (all mutable).
    globals: Vec<Var>,
    /// The names of the program's `int` constants.
    consts: Vec<String>,
}

/// Where statements are being generated.
#[derive(Clone)]
struct Scope {
    vars: Vec<Var>,
    in_loop: bool,
    /// Loop nesting, which bounds work: calls and inner loops get rarer inside loops.
    loops: u32,
    depth: u32,
    /// The function being generated: its index among `functions` (for bounded self-calls) and
    /// its result type; `None` in `main`.
    function: Option<(usize, Ty)>,
}

impl Gen {
    fn below(&mut self, n: u64) -> u64 {
        // A 64-bit LCG with the high bits taken: plenty for shapes of programs.
        self.state = self
            .state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.state >> 33) % n.max(1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize].clone()
    }

    fn vars_of(&self, scope: &Scope, ty: Ty, mutable: bool) -> Vec<Var> {
        (scope.vars.iter().chain(&self.globals))
            .filter(|v| v.ty == ty && (v.mutable || !mutable))
            .cloned()
            .collect()
    }

    fn int_literal(&mut self) -> String {
        match self.below(20) {
            0 => "9223372036854775807".into(),
            1 => "(-9223372036854775807 - 1)".into(),
            2 => format!("{}", 1u64 << (40 + self.below(20))),
            3 => "-1".into(),
            _ => format!("{}", self.below(20)),
        }
    }

    fn float_literal(&mut self) -> String {
        self.pick(&[
            "0.5", "1.0", "-2.25", "3.0", "1e10", "0.1", "100.0", "-0.0", "7.75",
        ])
        .into()
    }

    /// An expression of type `ty`, of nesting at most `depth`.
    fn expr(&mut self, scope: &Scope, ty: Ty, depth: u32) -> Expr {
        let vars = self.vars_of(scope, ty, false);
        if depth == 0 || self.chance(25) {
            if !vars.is_empty() && self.chance(75) {
                return Expr::leaf(self.pick(&vars).name);
            }
            return self.literal(scope, ty);
        }
        let d = depth - 1;
        match ty {
            Ty::Int => self.int_expr(scope, d),
            Ty::Float => self.float_expr(scope, d),
            Ty::Bool => self.bool_expr(scope, d),
            Ty::Str => match self.below(13) {
                // Concatenation with a literal, so strings grow linearly, not exponentially.
                0..3 => Expr::node(
                    &["(", " + ", ")"],
                    vec![self.expr(scope, Ty::Str, d), self.literal(scope, Ty::Str)],
                ),
                3 => {
                    let t = self.pick(&[Ty::Int, Ty::Float, Ty::Bool]);
                    Expr::node(&["str(", ")"], vec![self.expr(scope, t, d)])
                }
                4 => Expr::node(
                    &["chr(65 + (", " & 15))"],
                    vec![self.expr(scope, Ty::Int, d)],
                ),
                5 => {
                    let s = self.expr(scope, Ty::Str, d);
                    Expr::node(&["substr(", ", 0, len(", ") / 2)"], vec![s.clone(), s])
                }
                6 => Expr::node(&["", ".s"], vec![self.struct_ref(scope)]),
                7 => {
                    let f = self.pick(&["trim(", "to_upper(", "to_lower("]);
                    Expr::node(&[f, ")"], vec![self.expr(scope, Ty::Str, d)])
                }
                8 => {
                    // Patterns that occur in the literals; rarely the empty one, an error.
                    let old = self.text_pattern();
                    let new = self.pick(&["\"\"", "\"-\"", "\"<>\"", "\"yy\""]);
                    let close = format!(", {old}, {new})");
                    Expr::node(&["replace(", &close], vec![self.expr(scope, Ty::Str, d)])
                }
                9 => {
                    let (sep, glue) = (self.text_pattern(), self.text_pattern());
                    let close = format!(", {sep}), {glue})");
                    Expr::node(&["join(split(", &close], vec![self.expr(scope, Ty::Str, d)])
                }
                10 => {
                    let sep = self.text_pattern();
                    let pieces = Expr::node(
                        &["split(", &format!(", {sep})")],
                        vec![self.expr(scope, Ty::Str, d)],
                    );
                    let i = self.index(scope, &pieces, d);
                    Expr::node(&["", "[", "]"], vec![pieces, i])
                }
                _ => self.call(scope, Ty::Str, d),
            },
            Ty::Ints | Ty::Floats | Ty::Bools => {
                let elem = match ty {
                    Ty::Ints => Ty::Int,
                    Ty::Floats => Ty::Float,
                    _ => Ty::Bool,
                };
                match self.below(3) {
                    0 => {
                        let n = 1 + self.below(4);
                        let elems = (0..n).map(|_| self.expr(scope, elem, d)).collect();
                        let mut parts = vec!["["];
                        parts.extend(std::iter::repeat_n(", ", n as usize - 1));
                        parts.push("]");
                        Expr::node(&parts, elems)
                    }
                    1 => {
                        // `[v; n]`; rarely a negative length.
                        let n = match self.below(40) {
                            0 => "-1".to_string(),
                            1 => "0".to_string(),
                            _ => format!("{}", 1 + self.below(8)),
                        };
                        let close = format!("; {n}]");
                        Expr::node(&["[", &close], vec![self.expr(scope, elem, d)])
                    }
                    _ => self.call(scope, ty, d),
                }
            }
            Ty::P => {
                if self.chance(97) {
                    let next = if self.chance(30) {
                        self.expr(scope, Ty::P, 0)
                    } else {
                        Expr::leaf("null")
                    };
                    Expr::node(
                        &["new P { v: ", ", w: ", ", s: ", ", next: ", " }"],
                        vec![
                            self.expr(scope, Ty::Int, d),
                            self.expr(scope, Ty::Float, d),
                            self.expr(scope, Ty::Str, d),
                            next,
                        ],
                    )
                } else {
                    Expr::node(&["", ".next"], vec![self.struct_ref(scope)])
                }
            }
        }
    }

    fn literal(&mut self, scope: &Scope, ty: Ty) -> Expr {
        Expr::leaf(match ty {
            Ty::Int => self.int_literal(),
            Ty::Float => self.float_literal(),
            Ty::Bool => self.pick(&["true", "false"]).into(),
            Ty::Str => self.pick(&["\"\"", "\"ab\"", "\"x y\"", "\"PL\""]).into(),
            Ty::Ints => format!("[{}, {}, {}]", self.below(9), self.below(9), self.below(99)),
            Ty::Floats => "[0.5, 2.0]".into(),
            Ty::Bools => "[true, false, true]".into(),
            Ty::P => {
                let _ = scope;
                "new P { v: 1, w: 2.0, s: \"p\", next: null }".into()
            }
        })
    }

    /// A struct reference: usually a variable or a fresh object, sometimes `null`.
    fn struct_ref(&mut self, scope: &Scope) -> Expr {
        let vars = self.vars_of(scope, Ty::P, false);
        if !vars.is_empty() && self.chance(80) {
            Expr::leaf(self.pick(&vars).name)
        } else if self.chance(2) {
            // A global that stays null: a field access through it is a runtime error.
            Expr::leaf("NP")
        } else {
            self.literal(scope, Ty::P)
        }
    }

    /// An index into `array` of length `len(array)`: almost always in bounds.
    fn index(&mut self, scope: &Scope, array: &Expr, d: u32) -> Expr {
        let i = self.expr(scope, Ty::Int, d);
        if self.chance(1) {
            return i;
        }
        Expr::node(&["(", " & 1023) % len(", ")"], vec![i, array.clone()])
    }

    fn array_var_or_expr(&mut self, scope: &Scope, ty: Ty, d: u32) -> Expr {
        let vars = self.vars_of(scope, ty, false);
        if !vars.is_empty() && self.chance(80) {
            Expr::leaf(self.pick(&vars).name)
        } else {
            self.expr(scope, ty, d)
        }
    }

    fn int_expr(&mut self, scope: &Scope, d: u32) -> Expr {
        let int = |g: &mut Gen| g.expr(scope, Ty::Int, d);
        match self.below(24) {
            0..8 => {
                let op = self.pick(&[" + ", " - ", " * ", " & ", " | ", " ^ ", " << ", " >> "]);
                let (a, b) = (int(self), int(self));
                Expr::node(&["(", op, ")"], vec![a, b])
            }
            8..10 => {
                let op = self.pick(&[" / ", " % "]);
                let (a, b) = (int(self), int(self));
                if self.chance(10) {
                    Expr::node(&["(", op, ")"], vec![a, b])
                } else {
                    Expr::node(&["(", &format!("{op}("), " | 1))"], vec![a, b])
                }
            }
            10 => Expr::node(&["-(", ")"], vec![int(self)]),
            11 => Expr::node(&["~(", ")"], vec![int(self)]),
            12 => {
                let ty = self.pick(&[Ty::Str, Ty::Ints, Ty::Floats, Ty::Bools]);
                Expr::node(&["len(", ")"], vec![self.array_var_or_expr(scope, ty, d)])
            }
            13..15 => {
                let a = self.array_var_or_expr(scope, Ty::Ints, d);
                let i = self.index(scope, &a, d);
                Expr::node(&["", "[", "]"], vec![a, i])
            }
            15 => {
                // Never empty, so the index is in bounds.
                let s = self.array_var_or_expr(scope, Ty::Str, d);
                let s = Expr::node(&["(", " + \"#\")"], vec![s]);
                let i = self.index(scope, &s, d);
                Expr::node(&["", "[", "]"], vec![s, i])
            }
            16 => Expr::node(&["", ".v"], vec![self.struct_ref(scope)]),
            17 => Expr::node(&["int(", ")"], vec![self.expr(scope, Ty::Float, d)]),
            18 => {
                let f = self.pick(&["abs(", "min(", "max("]);
                if f == "abs(" {
                    Expr::node(&[f, ")"], vec![int(self)])
                } else {
                    let (a, b) = (int(self), int(self));
                    Expr::node(&[f, ", ", ")"], vec![a, b])
                }
            }
            19 => Expr::leaf(self.pick(&["argc()", "parse_int(arg(0))", "len(arg(1))"])),
            20 => Expr::leaf(self.pick(&self.consts.clone())),
            21 => {
                // A start in bounds, or rarely anywhere (an error when out of them).
                let s = self.array_var_or_expr(scope, Ty::Str, d);
                let sub = self.text_pattern();
                let from = self.expr(scope, Ty::Int, d);
                if self.chance(2) {
                    Expr::node(&["find(", &format!(", {sub}, "), ")"], vec![s, from])
                } else {
                    let close = format!(", {sub}, (",);
                    Expr::node(
                        &["find(", &close, " & 1023) % (len(", ") + 1))"],
                        vec![s.clone(), from, s],
                    )
                }
            }
            _ => self.call(scope, Ty::Int, d),
        }
    }

    fn float_expr(&mut self, scope: &Scope, d: u32) -> Expr {
        let float = |g: &mut Gen| g.expr(scope, Ty::Float, d);
        match self.below(12) {
            0..5 => {
                let op = self.pick(&[" + ", " - ", " * ", " / ", " % "]);
                let (a, b) = (float(self), float(self));
                Expr::node(&["(", op, ")"], vec![a, b])
            }
            5 => Expr::node(&["float(", ")"], vec![self.expr(scope, Ty::Int, d)]),
            6 => {
                let f = self.pick(&["sqrt(abs(", "floor(", "sin(", "exp(-abs("]);
                let close = if f.matches('(').count() == 2 {
                    "))"
                } else {
                    ")"
                };
                Expr::node(&[f, close], vec![float(self)])
            }
            7 => Expr::node(&["-(", ")"], vec![float(self)]),
            8 => Expr::node(&["", ".w"], vec![self.struct_ref(scope)]),
            9 => {
                let a = self.array_var_or_expr(scope, Ty::Floats, d);
                let i = self.index(scope, &a, d);
                Expr::node(&["", "[", "]"], vec![a, i])
            }
            _ => self.call(scope, Ty::Float, d),
        }
    }

    fn bool_expr(&mut self, scope: &Scope, d: u32) -> Expr {
        match self.below(13) {
            0..4 => {
                let ty = self.pick(&[Ty::Int, Ty::Int, Ty::Float, Ty::Str]);
                let op = self.pick(&[" == ", " != ", " < ", " <= ", " > ", " >= "]);
                let (a, b) = (self.expr(scope, ty, d), self.expr(scope, ty, d));
                Expr::node(&["(", op, ")"], vec![a, b])
            }
            4..7 => {
                let op = self.pick(&[" && ", " || "]);
                let (a, b) = (self.expr(scope, Ty::Bool, d), self.expr(scope, Ty::Bool, d));
                Expr::node(&["(", op, ")"], vec![a, b])
            }
            7 => Expr::node(&["!(", ")"], vec![self.expr(scope, Ty::Bool, d)]),
            8 => {
                let op = self.pick(&[" == null)", " != null)"]);
                Expr::node(&["(", op], vec![self.struct_ref(scope)])
            }
            9 => {
                let v = self.expr(scope, Ty::Int, d);
                let close = format!(" % {} == {})", 2 + self.below(6), self.below(2));
                Expr::node(&["(", &close], vec![v])
            }
            10 => {
                let a = self.array_var_or_expr(scope, Ty::Bools, d);
                let i = self.index(scope, &a, d);
                Expr::node(&["", "[", "]"], vec![a, i])
            }
            11 => {
                let f = self.pick(&["starts_with(", "ends_with("]);
                let close = format!(", {})", self.text_pattern());
                Expr::node(&[f, &close], vec![self.expr(scope, Ty::Str, d)])
            }
            _ => Expr::leaf("eof()"),
        }
    }

    /// A string to split at, find or replace: pieces of the string literals, and rarely the
    /// empty string (which `split` and `replace` reject).
    fn text_pattern(&mut self) -> &'static str {
        if self.chance(1) {
            return "\"\"";
        }
        self.pick(&["\" \"", "\"a\"", "\"b\"", "\"ab\"", "\"P\"", "\"#\""])
    }

    /// A call to an earlier function returning `ret`, or an expression of that type.
    fn call(&mut self, scope: &Scope, ret: Ty, d: u32) -> Expr {
        let callable: Vec<Signature> = self
            .functions
            .iter()
            .filter(|f| f.ret == ret)
            .cloned()
            .collect();
        if callable.is_empty() || scope.loops > 1 {
            return self.literal(scope, ret);
        }
        let f = self.pick(&callable);
        let depth = self.depth_arg(scope);
        let mut args = vec![depth];
        args.extend(f.params[1..].iter().map(|&t| self.expr(scope, t, d.min(1))));
        call_expr(&f.name, args)
    }

    /// The depth argument of a call: one less than the caller's.
    fn depth_arg(&mut self, scope: &Scope) -> Expr {
        match scope.function {
            Some(_) => Expr::leaf("d - 1"),
            None => Expr::leaf(format!("{}", self.below(4))),
        }
    }

    fn block(&mut self, scope: &mut Scope, len: u64) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        for _ in 0..1 + self.below(len) {
            stmts.extend(self.stmt(scope));
        }
        stmts
    }

    fn body(&mut self, scope: &Scope, close: &str, len: u64) -> Body {
        let mut inner = scope.clone();
        inner.depth += 1;
        Body {
            stmts: self.block(&mut inner, len),
            close: close.into(),
        }
    }

    fn loop_body(&mut self, scope: &Scope, var: Option<Var>, first: Vec<Stmt>) -> Body {
        let mut inner = scope.clone();
        inner.depth += 1;
        inner.loops += 1;
        inner.in_loop = true;
        inner.vars.extend(var);
        let mut stmts = first;
        stmts.extend(self.block(&mut inner, 3));
        Body {
            stmts,
            close: "}".into(),
        }
    }

    /// One statement (sometimes two: a counter and its loop).
    fn stmt(&mut self, scope: &mut Scope) -> Vec<Stmt> {
        let nest = scope.depth < 3;
        let roll = if nest {
            self.below(100)
        } else {
            60 + self.below(40)
        };
        let e = |g: &mut Gen, scope: &Scope, ty: Ty| g.expr(scope, ty, 2);
        match roll {
            0..12 => {
                // `if`, or an `if`/`else if`/`else` chain.
                let c = e(self, scope, Ty::Bool);
                let mut bodies = Vec::new();
                let mut closes = Vec::new();
                for _ in 0..self.below(3) {
                    let c = e(self, scope, Ty::Bool);
                    closes.push(Expr::node(&["} else if ", " {"], vec![c]));
                }
                if self.chance(50) {
                    closes.push(Expr::leaf("} else {"));
                }
                // The closing line of each body is the next branch's head.
                let mut line = Expr::node(&["if ", " {"], vec![c]);
                let mut chain = Vec::new();
                for close in closes {
                    let body = self.body(scope, "}", 2);
                    chain.push((line, body));
                    line = close;
                }
                let body = self.body(scope, "}", 2);
                chain.push((line, body));
                // Nest `else if` as `else { if … }` so each branch stays one statement.
                let (first_line, first_body) = chain.remove(0);
                bodies.push(first_body);
                let mut stmt = Stmt::nested(first_line, bodies);
                if !chain.is_empty() {
                    let rest = chain_to_else(chain);
                    stmt.bodies[0].close = "} else {".into();
                    stmt.bodies.push(Body {
                        stmts: rest,
                        close: "}".into(),
                    });
                }
                vec![stmt]
            }
            12..20 if scope.loops < 2 => {
                // A `for` over a small range.
                let i = self.fresh("i");
                let hi = if scope.loops == 0 && self.chance(20) {
                    "60".to_string()
                } else {
                    format!("{}", self.below(6))
                };
                let line = Expr::leaf(format!("for {i} in 0..{hi} {{"));
                let var = Var {
                    name: i,
                    ty: Ty::Int,
                    mutable: false,
                };
                let body = self.loop_body(scope, Some(var), Vec::new());
                vec![Stmt::nested(line, vec![body])]
            }
            20..26 if scope.loops < 2 => self.array_loop(scope),
            26..32 if scope.loops < 2 => {
                // `while` with a counter incremented first, a condition, and a `break`.
                let c = self.fresh("c");
                let bound = 1 + self.below(5);
                let extra = e(self, scope, Ty::Bool);
                let counter = Stmt::simple(Expr::leaf(format!("let {c} = 0;")));
                let line = Expr::node(&[&format!("while {c} < {bound} && ("), ") {"], vec![extra]);
                let mut bump = Stmt::simple(Expr::leaf(format!("{c} += 1;")));
                bump.keep = true;
                let var = Var {
                    name: c,
                    ty: Ty::Int,
                    mutable: false,
                };
                let body = self.loop_body(scope, Some(var), vec![bump]);
                vec![counter, Stmt::nested(line, vec![body])]
            }
            32..38 => {
                let v = e(self, scope, Ty::Int);
                let line = Expr::node(&["match (", ") % 5 {"], vec![v]);
                // Arms by literal and by constant (`ONE` is 1, `MINUS_FOUR` is -4).
                let arms = [
                    ("0 | 3 => {", 2),
                    ("ONE => {", 1),
                    ("-1 | MINUS_FOUR => {", 1),
                    ("_ => {", 2),
                ];
                let arms = arms
                    .iter()
                    .map(|&(head, len)| {
                        let body = self.body(scope, "}", len);
                        Stmt::nested(Expr::leaf(head), vec![body])
                    })
                    .collect();
                vec![Stmt::nested(
                    line,
                    vec![Body {
                        stmts: arms,
                        close: "}".into(),
                    }],
                )]
            }
            38..44 if scope.in_loop => {
                let c = e(self, scope, Ty::Bool);
                let jump = self.pick(&["break;", "continue;"]);
                vec![Stmt::nested(
                    Expr::node(&["if ", " {"], vec![c]),
                    vec![Body {
                        stmts: vec![Stmt::simple(Expr::leaf(jump))],
                        close: "}".into(),
                    }],
                )]
            }
            44..47 => match scope.function {
                Some((_, ret)) => {
                    let c = e(self, scope, Ty::Bool);
                    let value = e(self, scope, ret);
                    vec![Stmt::nested(
                        Expr::node(&["if ", " {"], vec![c]),
                        vec![Body {
                            stmts: vec![Stmt::simple(Expr::node(&["return ", ";"], vec![value]))],
                            close: "}".into(),
                        }],
                    )]
                }
                None => self.stmt(scope),
            },
            47..50 => {
                // Bounded self-recursion.
                match scope.function {
                    Some((f, _)) => {
                        let sig = self.signature(f);
                        let mut args = vec![Expr::leaf("d - 1")];
                        args.extend(sig.params[1..].iter().map(|&t| e(self, scope, t)));
                        let call = call_expr(&sig.name, args);
                        let line = Expr::node(&["if d > 0 { print(", "); }"], vec![call]);
                        vec![Stmt::simple(line)]
                    }
                    None => self.stmt(scope),
                }
            }
            50 if self.chance(30) => {
                let c = e(self, scope, Ty::Bool);
                let code = self.below(8);
                let exit = Stmt::simple(Expr::leaf(format!("exit({code});")));
                vec![Stmt::nested(
                    Expr::node(&["if ", " {"], vec![c]),
                    vec![Body {
                        stmts: vec![exit],
                        close: "}".into(),
                    }],
                )]
            }
            51..54 => {
                // Input.
                let line = match self.below(3) {
                    0 => "if !eof() { s += read_int(); }".to_string(),
                    1 => {
                        let l = self.fresh("line");
                        scope.vars.push(Var {
                            name: l.clone(),
                            ty: Ty::Str,
                            mutable: true,
                        });
                        format!("let {l} = read_line();")
                    }
                    _ => "println(eof());".to_string(),
                };
                vec![Stmt::simple(Expr::leaf(line))]
            }
            54..64 => {
                // A new local of any type.
                let ty = self.pick(&ALL);
                let name = self.fresh("v");
                let value = e(self, scope, ty);
                scope.vars.push(Var {
                    name: name.clone(),
                    ty,
                    mutable: true,
                });
                let head = format!("let {name}: {} = ", ty.name());
                vec![Stmt::simple(Expr::node(&[&head, ";"], vec![value]))]
            }
            64..80 => {
                // Assignments: compound on ints, element and field stores.
                let target = self.below(4);
                let ints = self.vars_of(scope, Ty::Int, true);
                if ints.is_empty() {
                    return self.stmt(scope);
                }
                let element = match target {
                    0 => Some((Ty::Ints, Ty::Int)),
                    2 if self.chance(50) => Some((Ty::Bools, Ty::Bool)),
                    _ => None,
                };
                if let Some((array, ty)) = element {
                    let a = self.array_var_or_expr(scope, array, 1);
                    let i = self.index(scope, &a, 1);
                    let v = e(self, scope, ty);
                    return vec![Stmt::simple(Expr::node(
                        &["", "[", "] = ", ";"],
                        vec![a, i, v],
                    ))];
                }
                if target == 1 {
                    let p = self.struct_ref(scope);
                    let (field, ty) = self.pick(&[(".v = ", Ty::Int), (".w = ", Ty::Float)]);
                    let v = e(self, scope, ty);
                    return vec![Stmt::simple(Expr::node(&["", field, ";"], vec![p, v]))];
                }
                let strs = self.vars_of(scope, Ty::Str, true);
                if target == 3 && !strs.is_empty() && self.chance(50) {
                    // A string grown where it is (`pcc_str_append` in place) unless another
                    // variable holds it too; by a literal or a number, so it grows linearly.
                    let s = self.pick(&strs).name;
                    let piece = match self.below(2) {
                        0 => self.literal(scope, Ty::Str),
                        _ => Expr::node(&["str(", ")"], vec![e(self, scope, Ty::Int)]),
                    };
                    let head = match self.below(2) {
                        0 => format!("{s} += "),
                        _ => format!("{s} = {s} + "),
                    };
                    return vec![Stmt::simple(Expr::node(&[&head, ";"], vec![piece]))];
                }
                let var = self.pick(&ints);
                let op = self.pick(&[" += ", " -= ", " *= ", " ^= ", " <<= ", " = "]);
                let v = e(self, scope, Ty::Int);
                let head = format!("{}{op}", var.name);
                vec![Stmt::simple(Expr::node(&[&head, ";"], vec![v]))]
            }
            80..84 => self.map_block(scope),
            84..88 => self.grow_block(scope),
            88..90 => self.sort_block(scope),
            _ => {
                // Printing of every type.
                let n = 1 + self.below(3);
                let mut args = Vec::new();
                for _ in 0..n {
                    let ty = self.pick(&ALL);
                    args.push(e(self, scope, ty));
                }
                let f = self.pick(&["println(", "println(", "print("]);
                let mut parts = vec![f];
                parts.extend(std::iter::repeat_n(", ", n as usize - 1));
                parts.push(if f == "print(" { "); println();" } else { ");" });
                vec![Stmt::simple(Expr::node(&parts, args))]
            }
        }
    }

    /// A block that fills a map in a loop (keys that collide, so `set` replaces too), deletes a
    /// key, and prints the map, a lookup, `has`, `len` and `keys`: `int` keys and values, or
    /// `str` keys and values.
    fn map_block(&mut self, scope: &Scope) -> Vec<Stmt> {
        let (m, i) = (self.fresh("m"), self.fresh("i"));
        let n = 1 + self.below(12);
        let key = self.expr(scope, Ty::Int, 1);
        let str_keys = self.chance(40);
        let (ty, set, probe) = if str_keys {
            let value = self.expr(scope, Ty::Str, 1);
            let set = Expr::node(
                &[
                    &format!("set({m}, str(("),
                    &format!(") % 4 + {i} % 3), "),
                    ");",
                ],
                vec![key, value],
            );
            (
                "map[str]str",
                set,
                format!("get({m}, \"1\", \"none\"), has({m}, \"-2\")"),
            )
        } else {
            let set = Expr::node(
                &[&format!("set({m}, ("), &format!(") % 5 + {i} % 2, {i});")],
                vec![key],
            );
            ("map[int]int", set, format!("get({m}, 2, -1), has({m}, 0)"))
        };
        let gone = if str_keys { "\"0\"" } else { "1" };
        let stmts = vec![
            Stmt::simple(Expr::leaf(format!("let {m} = new {ty};"))),
            Stmt::nested(
                Expr::leaf(format!("for {i} in 0..{n} {{")),
                vec![Body {
                    stmts: vec![Stmt::simple(set)],
                    close: "}".into(),
                }],
            ),
            Stmt::simple(Expr::leaf(format!("delete({m}, {gone});"))),
            Stmt::simple(Expr::leaf(format!(
                "println({m}, len({m}), {probe}, keys({m}));"
            ))),
        ];
        vec![Stmt::nested(
            Expr::leaf("{"),
            vec![Body {
                stmts,
                close: "}".into(),
            }],
        )]
    }

    /// A block that grows an array (a variable, often a parameter or a global, so the growth is
    /// seen through its aliases, or a new one) in a loop that reads it, prints what `pop` and
    /// `remove` take, and shrinks it back to its length before: arrays stay small, and never
    /// become empty under the code that indexes them `% len(a)`.
    fn grow_block(&mut self, scope: &Scope) -> Vec<Stmt> {
        let (array, element) = self.pick(&[
            (Ty::Ints, Ty::Int),
            (Ty::Ints, Ty::Int),
            (Ty::Floats, Ty::Float),
            (Ty::Bools, Ty::Bool),
        ]);
        let (g, g0, i) = (self.fresh("g"), self.fresh("g"), self.fresh("i"));
        let n = 2 + self.below(10);
        let source = self.array_var_or_expr(scope, array, 1);
        let pushed = self.expr(scope, element, 1);
        let at = self.expr(scope, Ty::Int, 1);
        let taken = self.expr(scope, Ty::Int, 1);
        let grow = vec![
            Stmt::simple(Expr::node(&[&format!("push({g}, "), ");"], vec![pushed])),
            Stmt::simple(Expr::node(
                &[
                    &format!("if len({g}) > 1 {{ insert({g}, ({i} * 7) % len({g}), {g}[("),
                    &format!(" & 1023) % len({g})]); }}"),
                ],
                vec![at],
            )),
        ];
        let stmts = vec![
            Stmt::simple(Expr::node(&[&format!("let {g} = "), ";"], vec![source])),
            Stmt::simple(Expr::leaf(format!("let {g0} = len({g});"))),
            Stmt::nested(
                Expr::leaf(format!("for {i} in 0..{n} {{")),
                vec![Body {
                    stmts: grow,
                    close: "}".into(),
                }],
            ),
            Stmt::simple(Expr::node(
                &[
                    &format!("println(len({g}), pop({g}), remove({g}, ("),
                    &format!(" & 1023) % len({g})), {g});"),
                ],
                vec![taken],
            )),
            Stmt::simple(Expr::leaf(format!("while len({g}) > {g0} {{ pop({g}); }}"))),
        ];
        vec![Stmt::nested(
            Expr::leaf("{"),
            vec![Body {
                stmts,
                close: "}".into(),
            }],
        )]
    }

    /// A sorted array, printed: of ints or floats (a variable, sorted where it is, or a new
    /// array), or of strings (split from one).
    fn sort_block(&mut self, scope: &Scope) -> Vec<Stmt> {
        let a = self.fresh("sorted");
        let array = match self.below(3) {
            0 => self.array_var_or_expr(scope, Ty::Ints, 1),
            1 => self.array_var_or_expr(scope, Ty::Floats, 1),
            _ => {
                let sep = self.text_pattern();
                let close = format!(" + \"b a\" + \"P ab\", {sep})");
                Expr::node(&["split(", &close], vec![self.expr(scope, Ty::Str, 1)])
            }
        };
        let stmts = vec![
            Stmt::simple(Expr::node(&[&format!("let {a} = "), ";"], vec![array])),
            Stmt::simple(Expr::leaf(format!("sort({a});"))),
            Stmt::simple(Expr::leaf(format!("println({a});"))),
        ];
        vec![Stmt::nested(
            Expr::leaf("{"),
            vec![Body {
                stmts,
                close: "}".into(),
            }],
        )]
    }

    /// A loop over an array's indices with affine indices (what bounds-check elimination and
    /// the unroller's guards reason about), and a rare branch: long runs of one path.
    fn array_loop(&mut self, scope: &mut Scope) -> Vec<Stmt> {
        let a = self.fresh("a");
        // Long enough, sometimes, for the unroller (it leaves loops of few iterations alone).
        let n = if scope.loops == 0 && self.chance(40) {
            64 + self.below(200)
        } else {
            4 + self.below(40)
        };
        let i = self.fresh("i");
        let fill = self.expr(scope, Ty::Int, 1);
        let decl = Stmt::simple(Expr::node(
            &[&format!("let {a} = ["), &format!("; {n}];")],
            vec![fill],
        ));
        let (lo, hi) = self.pick(&[("0", ""), ("1", ""), ("1", " - 1"), ("2", " - 2")]);
        let line = Expr::leaf(format!("for {i} in {lo}..len({a}){hi} {{"));
        let k = 1 + self.below(5);
        let update = match self.below(9) {
            0 => format!("{a}[{i}] = {a}[{i}] * {k} + {i};"),
            1 => format!("{a}[{i}] += {a}[{i} - 1] ^ {k};"),
            2 if lo == "2" || hi == " - 1" => format!("s += {a}[{i} - 1] - {a}[{i} + 1];"),
            // Indices the unroller's guards reason about as polynomials of the loop's locals,
            // in bounds or, now and then, one past the end at the last iteration.
            3 => format!("s += {a}[({i} * {i} + {k}) % len({a})];"),
            4 => format!("{a}[({i} * {k}) % len({a})] -= {i} << {k};"),
            5 if self.chance(20) => format!("s += {a}[{i} + {k}];"),
            6 => format!("s += {a}[len({a}) - 1 - {i}] * {k};"),
            7 => format!("{a}[{i}] = s; s = s * 31 + {a}[{i} / {k}];"),
            _ => format!("{a}[{i}] = {a}[{i} / 2] + {k};"),
        };
        let update = if lo == "0" {
            update.replace(&format!("{i} - 1"), &format!("{i} + 0"))
        } else {
            update
        };
        let rare = format!(
            "if {i} % {} == {} {{ s += {a}[{i}]; }}",
            8 + self.below(20),
            self.below(3)
        );
        let mut body = vec![
            Stmt::simple(Expr::leaf(update)),
            Stmt::simple(Expr::leaf(rare)),
        ];
        // A second array the loop writes while it reads `a`, now and then `a` itself (decided
        // at run time): -O 2's readonly reads need the guard's test that the two differ.
        let mut decls = vec![decl];
        let mut shows = Vec::new();
        if self.chance(30) {
            let b = self.fresh("b");
            decls.push(Stmt::simple(Expr::leaf(format!(
                "let {b} = [0; {n}]; if s % 3 == {} {{ {b} = {a}; }}",
                self.below(3)
            ))));
            body.push(Stmt::simple(Expr::leaf(format!(
                "{b}[{i}] = {a}[{i}] * {k} + 1; {b}[{i}] += {a}[{i} * 1];"
            ))));
            shows.push(Stmt::simple(Expr::leaf(format!(
                "println({b}[len({b}) / 2], {b}[len({b}) - 1]);"
            ))));
        }
        let leaf_calls: Vec<Signature> = self
            .functions
            .iter()
            .filter(|f| f.name.starts_with("leaf"))
            .cloned()
            .collect();
        if !leaf_calls.is_empty() {
            let leaf = self.pick(&leaf_calls);
            body.push(Stmt::simple(Expr::leaf(format!(
                "s += {}({a}[{i}]);",
                leaf.name
            ))));
        }
        if self.chance(10) {
            // A read of `a` whose value is used after a `sort` of `a`: the read must stay
            // before it, readonly or not.
            let v = self.fresh("v");
            body.push(Stmt::simple(Expr::leaf(format!(
                "let {v} = {a}[{i}]; if {i} % {} == 0 {{ sort({a}); }} s += {v} * {k};",
                1 + self.below(8)
            ))));
        }
        if self.chance(30) {
            // An inner loop over the same array: a nest for the unroller's innermost loops.
            let j = self.fresh("j");
            let m = 1 + self.below(4);
            body.push(Stmt::nested(
                Expr::leaf(format!("for {j} in 0..{m} {{")),
                vec![Body {
                    stmts: vec![Stmt::simple(Expr::leaf(format!(
                        "{a}[({i} + {j}) % len({a})] += {j} * {k};"
                    )))],
                    close: "}".into(),
                }],
            ));
        }
        let loop_stmt = Stmt::nested(
            line,
            vec![Body {
                stmts: body,
                close: "}".into(),
            }],
        );
        scope.vars.push(Var {
            name: a.clone(),
            ty: Ty::Ints,
            mutable: true,
        });
        let show = Stmt::simple(Expr::leaf(format!("println({a}[len({a}) / 2], len({a}));")));
        decls.push(loop_stmt);
        decls.push(show);
        decls.extend(shows);
        decls
    }

    fn signature(&self, f: usize) -> Signature {
        self.functions[f].clone()
    }
}

/// `if`/`else if` pieces after the first as statements of an `else` body.
fn chain_to_else(mut chain: Vec<(Expr, Body)>) -> Vec<Stmt> {
    let (line, body) = chain.remove(0);
    if line.text() == "} else {" {
        return body.stmts;
    }
    // `} else if c {` becomes `if c {` inside the `else`.
    let cond = line.kids[0].clone();
    let mut stmt = Stmt::nested(Expr::node(&["if ", " {"], vec![cond]), vec![body]);
    if !chain.is_empty() {
        stmt.bodies[0].close = "} else {".into();
        stmt.bodies.push(Body {
            stmts: chain_to_else(chain),
            close: "}".into(),
        });
    }
    vec![stmt]
}

fn call_expr(name: &str, args: Vec<Expr>) -> Expr {
    let open = format!("{name}(");
    let mut parts = vec![open.as_str()];
    parts.extend(std::iter::repeat_n(", ", args.len().saturating_sub(1)));
    parts.push(")");
    Expr::node(&parts, args)
}

/// The calls a program may make in all: each function starts by spending one unit of fuel and
/// returns at once when there is none left, so no program runs long.
const FUEL: u64 = 400;

/// The program for `seed`.
pub fn program(seed: u64) -> Program {
    let mut g = Gen {
        state: seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5851_f42d,
        names: 0,
        functions: Vec::new(),
        globals: Vec::new(),
        consts: vec!["ONE".into(), "MINUS_FOUR".into()],
    };
    let mut items = vec![Stmt::simple(Expr::leaf(
        "struct P { v: int, w: float, s: str, next: P }",
    ))];
    // The constants the `match` arms name, and some folded from literals.
    for line in ["const ONE: int = 1;", "const MINUS_FOUR = -ONE - 3;"] {
        let mut constant = Stmt::simple(Expr::leaf(line));
        constant.keep = true;
        items.push(constant);
    }
    for _ in 0..g.below(3) {
        let name = g.fresh("K");
        let value = match g.below(3) {
            0 => g.int_literal(),
            1 => format!("{} << {}", g.below(100), g.below(64)),
            _ => format!("ONE + {}", g.below(1000)),
        };
        items.push(Stmt::simple(Expr::leaf(format!("const {name} = {value};"))));
        g.consts.push(name);
    }
    let mut fuel = Stmt::simple(Expr::leaf(format!("let FUEL: int = {FUEL};")));
    fuel.keep = true;
    items.push(fuel);
    items.push(Stmt::simple(Expr::leaf("let NP: P = null;")));
    let top = Scope {
        vars: Vec::new(),
        in_loop: false,
        loops: 0,
        depth: 0,
        function: None,
    };
    for _ in 0..1 + g.below(3) {
        let ty = g.pick(&[Ty::Int, Ty::Int, Ty::Float, Ty::Str, Ty::Ints]);
        let name = g.fresh("G");
        let init = g.expr(&top, ty, 1);
        let head = format!("let {name}: {} = ", ty.name());
        items.push(Stmt::simple(Expr::node(&[&head, ";"], vec![init])));
        g.globals.push(Var {
            name,
            ty,
            mutable: true,
        });
    }
    // Small leaf functions, which `-O 2` inlines.
    for _ in 0..g.below(3) {
        let name = g.fresh("leaf");
        let (k, m) = (1 + g.below(7), g.below(100));
        let op = g.pick(&["+", "^", "-"]);
        items.push(Stmt::simple(Expr::leaf(format!(
            "fn {name}(x: int) -> int {{ return x * {k} {op} {m}; }}"
        ))));
        g.functions.push(Signature {
            name,
            params: vec![Ty::Int],
            ret: Ty::Int,
        });
    }
    let kernel = g.chance(50).then(|| {
        items.push(kernel(&mut g));
        g.functions.last().expect("the kernel").name.clone()
    });
    for _ in 0..1 + g.below(4) {
        items.push(function(&mut g));
    }
    // `main`: calls each function a few times, in a loop, then some statements of its own.
    let mut scope = top.clone();
    let mut stmts = vec![Stmt::simple(Expr::leaf("let s = 0;"))];
    scope.vars.push(Var {
        name: "s".into(),
        ty: Ty::Int,
        mutable: true,
    });
    let rounds = 2 + g.below(4);
    let mut calls = Vec::new();
    let loop_scope = Scope {
        vars: [
            scope.vars.clone(),
            vec![Var {
                name: "k".into(),
                ty: Ty::Int,
                mutable: false,
            }],
        ]
        .concat(),
        in_loop: true,
        loops: 1,
        depth: 1,
        function: None,
    };
    for f in g.functions.clone() {
        if f.name.starts_with("leaf") {
            continue;
        }
        let mut args = vec![Expr::leaf(format!("{}", 1 + g.below(3)))];
        args.extend(f.params[1..].iter().map(|&t| g.expr(&loop_scope, t, 1)));
        calls.push(Stmt::simple(Expr::node(
            &["println(", ");"],
            vec![call_expr(&f.name, args)],
        )));
    }
    if let Some(kernel) = kernel {
        stmts.push(Stmt::simple(Expr::leaf(format!(
            "for k in 0..8 {{ s += {kernel}(k); }}"
        ))));
    }
    stmts.push(Stmt::nested(
        Expr::leaf(format!("for k in 0..{rounds} {{")),
        vec![Body {
            stmts: calls,
            close: "}".into(),
        }],
    ));
    stmts.extend(g.block(&mut scope, 5));
    stmts.push(Stmt::simple(Expr::leaf("println(s, FUEL);")));
    items.push(Stmt::nested(
        Expr::leaf("fn main() {"),
        vec![Body {
            stmts,
            close: "}".into(),
        }],
    ));
    Program {
        header: format!("// Generated program, seed {seed} (pcc-fuzz).\n"),
        items,
    }
}

/// A hot loop kernel `kernelN(d: int) -> int`: one long loop over an array, one path most of
/// the time, affine indices (some that a guard must check), the work the unroller and
/// superblock former look for; `main` calls it in its loop. Its trip count is bounded whatever
/// `d` is (`d % 64`): a call with `17 << 17` once made one program run a minute in the
/// interpreter, as long as a thousand others.
fn kernel(g: &mut Gen) -> Stmt {
    let name = g.fresh("kernel");
    let n = 300 + g.below(700);
    let (k, m, rare) = (1 + g.below(4), 2 + g.below(5), 10 + g.below(40));
    // In bounds of `2 n + 2` elements, or (the last) one past the end at the last iteration.
    let off = if g.chance(10) {
        "2 * i + 4"
    } else {
        g.pick(&[
            "i",
            "i + 1",
            "i - 1",
            "2 * i + 1",
            "n - i",
            "(i * i) % (n + 2)",
        ])
    };
    let body = format!(
        "fn {name}(d: int) -> int {{\n    FUEL -= 1; if FUEL < 0 {{ return 0; }}\n    \
         let n = {n} + d % 64;\n    let a = [d; 2 * n + 2];\n    let s = 0;\n    \
         for i in 1..n {{\n        a[i] = a[i - 1] * {k} + i;\n        \
         s += a[{off}] >> {m};\n        \
         if i % {rare} == 0 {{ s -= a[i + 1]; }}\n    }}\n    return s;\n}}"
    );
    let signature = Signature {
        name,
        params: vec![Ty::Int],
        ret: Ty::Int,
    };
    g.functions.push(signature);
    Stmt::simple(Expr::leaf(body))
}

/// A function `fN(d: int, …) -> T`: fuel check, a local `s`, a random body, a result.
fn function(g: &mut Gen) -> Stmt {
    let name = g.fresh("f");
    let mut params = vec![Ty::Int];
    for _ in 0..g.below(3) {
        params.push(g.pick(&ALL));
    }
    let ret = g.pick(&[
        Ty::Int,
        Ty::Int,
        Ty::Int,
        Ty::Float,
        Ty::Str,
        Ty::Ints,
        Ty::P,
    ]);
    let index = g.functions.len();
    g.functions.push(Signature {
        name: name.clone(),
        params: params.clone(),
        ret,
    });
    let mut scope = Scope {
        vars: vec![Var {
            name: "d".into(),
            ty: Ty::Int,
            mutable: true,
        }],
        in_loop: false,
        loops: 0,
        depth: 0,
        function: Some((index, ret)),
    };
    let mut header = format!("fn {name}(d: int");
    for (i, ty) in params[1..].iter().enumerate() {
        let p = format!("p{i}");
        header += &format!(", {p}: {}", ty.name());
        scope.vars.push(Var {
            name: p,
            ty: *ty,
            mutable: true,
        });
    }
    header += &format!(") -> {} {{", ret.name());
    let fallback = g.literal(&scope, ret);
    let mut fuel = Stmt::simple(Expr::node(
        &["FUEL -= 1; if FUEL < 0 { return ", "; }"],
        vec![fallback],
    ));
    fuel.keep = true;
    let mut stmts = vec![fuel, Stmt::simple(Expr::leaf("let s = d;"))];
    scope.vars.push(Var {
        name: "s".into(),
        ty: Ty::Int,
        mutable: true,
    });
    stmts.extend(g.block(&mut scope, 6));
    let result = match ret {
        Ty::Int => Expr::node(&["return s + ", ";"], vec![g.expr(&scope, Ty::Int, 1)]),
        other => Expr::node(&["return ", ";"], vec![g.expr(&scope, other, 2)]),
    };
    stmts.push(Stmt::simple(result));
    Stmt::nested(
        Expr::leaf(header),
        vec![Body {
            stmts,
            close: "}".into(),
        }],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_program() {
        assert_eq!(program(7).text(), program(7).text());
        assert_ne!(program(7).text(), program(8).text());
    }

    #[test]
    fn programs_have_the_shapes_asked_for() {
        // Over a few seeds, every construct the generator promises appears.
        let text: String = (0..40).map(|s| program(s).text()).collect();
        for construct in [
            "while ",
            "for ",
            "match ",
            "break;",
            "continue;",
            "} else {",
            " && ",
            " || ",
            " << ",
            " >> ",
            "new P {",
            "null",
            "exit(",
            "read_int()",
            "read_line()",
            "eof()",
            "fn leaf",
            "if d > 0",
            "len(",
            ": float = ",
            ": str = ",
            "[int] = ",
            "println(",
        ] {
            assert!(text.contains(construct), "no `{construct}` in 40 programs");
        }
    }
}
