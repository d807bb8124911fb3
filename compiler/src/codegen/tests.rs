//! Hand-built MIR programs, compiled and run in this process through `pcc_stdlib::run_program`
//! at every optimization level; `main` returns a bit mask of the checks that passed, which
//! becomes the exit status. Runtime errors and `exit()` end the process, so they are tested
//! through the `pcc` binary instead.

use std::collections::HashSet;
use std::sync::Mutex;

use pcc_lang::Span;
use pcc_lang::typed::Field;

use super::{CodegenError, Options, emit_asm, emit_clif, jit, runtime};
use crate::mir::*;

fn int(v: i64) -> Operand {
    Operand::Const(Const::Int(v))
}

fn float(v: f64) -> Operand {
    Operand::Const(Const::Float(v))
}

fn boolean(v: bool) -> Operand {
    Operand::Const(Const::Bool(v))
}

fn string(s: &str) -> Operand {
    Operand::Const(Const::Str(s.as_bytes().to_vec()))
}

fn local(l: usize) -> Operand {
    Operand::Local(LocalId::new(l))
}

fn stmt(kind: StatementKind) -> Statement {
    Statement {
        kind,
        span: Span::default(),
    }
}

fn assign(l: usize, rvalue: Rvalue) -> Statement {
    stmt(StatementKind::Assign(LocalId::new(l), rvalue))
}

fn binary(l: usize, op: BinOp, x: Operand, y: Operand) -> Statement {
    assign(l, Rvalue::Binary(op, x, y))
}

fn builtin(dest: Option<usize>, builtin: Builtin, args: Vec<Operand>) -> Statement {
    stmt(StatementKind::Call {
        dest: dest.map(LocalId::new),
        callee: Callee::Builtin(builtin),
        args,
    })
}

fn block(stmts: Vec<Statement>, term: TerminatorKind) -> BasicBlock {
    BasicBlock::new(
        stmts,
        Terminator {
            kind: term,
            span: Span::default(),
        },
    )
}

fn ret(op: Operand) -> TerminatorKind {
    TerminatorKind::Return(Some(op))
}

fn branch(cond: Operand, then_bb: usize, else_bb: usize) -> TerminatorKind {
    TerminatorKind::Branch {
        cond,
        then_bb: BlockId::new(then_bb),
        else_bb: BlockId::new(else_bb),
    }
}

fn goto(b: usize) -> TerminatorKind {
    TerminatorKind::Goto(BlockId::new(b))
}

/// A function whose parameters have types `params` (locals `0..params.len()`), with further
/// locals of types `locals`.
fn function(name: &str, params: &[Type], locals: &[Type], ret: Type) -> Function {
    Function {
        name: name.to_string(),
        params: (0..params.len()).map(LocalId::new).collect(),
        ret,
        locals: params
            .iter()
            .chain(locals)
            .map(|ty| LocalDecl {
                ty: ty.clone(),
                name: None,
            })
            .collect(),
        blocks: IdVec::new(),
        dead_code: Vec::new(),
        steady_callees: Default::default(),
        span: Span::default(),
        name_span: Span::default(),
    }
}

/// A program whose first function is `main`, with an empty initializer.
fn program(mut functions: Vec<Function>) -> Program {
    let mut init = function("<globals>", &[], &[], Type::Void);
    init.blocks = vec![block(vec![], TerminatorKind::Return(None))].into();
    functions.push(init);
    Program {
        file_name: "test.pl".to_string(),
        structs: IdVec::new(),
        globals: IdVec::new(),
        main: FnId::new(0),
        init: FnId::new(functions.len() - 1),
        counter_tables: Vec::new(),
        merged_counters: Vec::new(),
        stream: PathStream::default(),
        functions: functions.into(),
    }
}

/// Local 0 of [`cases`]: the bit mask of passed checks.
const BITS: usize = 0;
/// Local 1 of [`cases`]: a check's outcome.
const OK: usize = 1;

/// `main() -> int` over locals `int, bool, locals...`: runs `setup`, then each case's statements,
/// and sets bit `i` of the result when case `i`'s `result` local equals `expected` (`==` of
/// that type).
fn cases(
    locals: &[Type],
    setup: Vec<Statement>,
    cases: Vec<(Vec<Statement>, usize, Operand)>,
) -> (Function, i32) {
    let all = [Type::Int, Type::Bool].iter().chain(locals).cloned();
    let mut main = function("main", &[], &all.collect::<Vec<_>>(), Type::Int);
    main.blocks.push(block(setup, goto(1)));
    let count = cases.len();
    for (i, (mut stmts, result, expected)) in cases.into_iter().enumerate() {
        let (pass, next) = (main.blocks.len() + 1, main.blocks.len() + 2);
        stmts.push(binary(OK, BinOp::Eq, local(result), expected));
        main.blocks
            .push(block(stmts, branch(local(OK), pass, next)));
        let set_bit = binary(BITS, BinOp::BitOr, local(BITS), int(1 << i));
        main.blocks.push(block(vec![set_bit], goto(next)));
    }
    main.blocks.push(block(vec![], ret(local(BITS))));
    (main, (1 << count) - 1)
}

/// The runtime's state is per process: one program at a time.
static RUNNING: Mutex<()> = Mutex::new(());

/// Runs `program` at every optimization level; returns the exit status (the same at all).
fn run(program: &Program) -> i32 {
    let results: Vec<i32> = (0..=2)
        .map(|opt_level| {
            let compiled =
                jit(program, "", &Options { opt_level }).unwrap_or_else(|e| panic!("{e}"));
            let _running = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
            compiled.run(Vec::new())
        })
        .collect();
    assert!(results.iter().all(|&r| r == results[0]), "{results:?}");
    results[0]
}

/// Runs a program made by [`cases`] and checks that every case passed.
fn assert_cases((main, all): (Function, i32)) {
    assert_eq!(run(&program(vec![main])), all);
}

#[test]
fn loop_sums_ints() {
    // sum = 0; i = 0; while i < 100 { sum += i; i += 1 } return sum
    let mut main = function("main", &[], &[Type::Int, Type::Int, Type::Bool], Type::Int);
    main.blocks = vec![
        block(
            vec![
                assign(0, Rvalue::Use(int(0))),
                assign(1, Rvalue::Use(int(0))),
            ],
            goto(1),
        ),
        block(
            vec![binary(2, BinOp::Lt, local(1), int(100))],
            branch(local(2), 2, 3),
        ),
        block(
            vec![
                binary(0, BinOp::Add, local(0), local(1)),
                binary(1, BinOp::Add, local(1), int(1)),
            ],
            goto(1),
        ),
        block(vec![], ret(local(0))),
    ]
    .into();
    assert_eq!(run(&program(vec![main])), 4950);
}

/// One case per `(op, x, y, expected)`: `local 2 = x op y`.
fn int_cases(ops: Vec<(BinOp, Operand, Operand, i64)>, setup: Vec<Statement>) -> (Function, i32) {
    let cases_ = ops
        .into_iter()
        .map(|(op, x, y, expected)| (vec![binary(2, op, x, y)], 2, int(expected)))
        .collect();
    cases(&[Type::Int, Type::Int, Type::Int], setup, cases_)
}

#[test]
fn integer_division_never_traps() {
    let min = i64::MIN;
    // Constant divisors, then divisors in locals 3 (= -1) and 4 (= 3), which take the checks.
    let setup = vec![
        assign(3, Rvalue::Use(int(-1))),
        assign(4, Rvalue::Use(int(3))),
    ];
    assert_cases(int_cases(
        vec![
            (BinOp::Div, int(min), int(-1), min),
            (BinOp::Rem, int(min), int(-1), 0),
            (BinOp::Div, int(7), int(-2), -3),
            (BinOp::Rem, int(-7), int(2), -1),
            (BinOp::Div, int(min), local(3), min),
            (BinOp::Rem, int(min), local(3), 0),
            (BinOp::Div, int(-9), local(4), -3),
            (BinOp::Rem, int(10), local(4), 1),
        ],
        setup,
    ));
}

#[test]
fn int_arithmetic_wraps_and_shifts_modulo_64() {
    assert_cases(int_cases(
        vec![
            (BinOp::Add, int(i64::MAX), int(1), i64::MIN),
            (BinOp::Mul, int(i64::MAX), int(2), -2),
            (BinOp::Sub, int(i64::MIN), int(1), i64::MAX),
            (BinOp::Shl, int(1), int(65), 2),
            (BinOp::Shl, int(1), int(-1), i64::MIN),
            (BinOp::Shr, int(-16), int(2), -4),
            (BinOp::BitXor, int(0b1100), int(0b1010), 0b0110),
            (BinOp::BitAnd, int(0b1100), int(0b1010), 0b1000),
            (BinOp::BitOr, int(0b1100), int(0b1010), 0b1110),
        ],
        Vec::new(),
    ));
}

#[test]
fn unary_operators() {
    assert_cases(cases(
        &[Type::Int, Type::Float, Type::Bool],
        Vec::new(),
        vec![
            (
                vec![assign(2, Rvalue::Unary(UnOp::Neg, int(i64::MIN)))],
                2,
                int(i64::MIN),
            ),
            (
                vec![assign(2, Rvalue::Unary(UnOp::BitNot, int(0)))],
                2,
                int(-1),
            ),
            (
                vec![assign(3, Rvalue::Unary(UnOp::Neg, float(1.5)))],
                3,
                float(-1.5),
            ),
            (
                vec![assign(4, Rvalue::Unary(UnOp::Not, boolean(false)))],
                4,
                boolean(true),
            ),
        ],
    ));
}

#[test]
fn comparisons_of_every_type() {
    let compare = |op, x, y, expected| (vec![binary(2, op, x, y)], 2, boolean(expected));
    assert_cases(cases(
        &[Type::Bool],
        Vec::new(),
        vec![
            compare(BinOp::Lt, int(-5), int(3), true),
            compare(BinOp::Ge, int(-5), int(3), false),
            compare(BinOp::Le, float(2.5), float(2.5), true),
            compare(BinOp::Ne, float(f64::NAN), float(f64::NAN), true),
            compare(BinOp::Eq, float(f64::NAN), float(f64::NAN), false),
            compare(BinOp::Lt, float(f64::NAN), float(1.0), false),
            compare(BinOp::Lt, string("abc"), string("abd"), true),
            compare(BinOp::Ge, string("abc"), string("ab"), true),
            compare(BinOp::Eq, string("abc"), string("abc"), true),
            compare(BinOp::Ne, string("abc"), string("ab"), true),
            compare(BinOp::Gt, boolean(true), boolean(false), true),
            compare(BinOp::Eq, boolean(true), boolean(false), false),
            compare(
                BinOp::Eq,
                Operand::Const(Const::Null),
                Operand::Const(Const::Null),
                true,
            ),
        ],
    ));
}

#[test]
fn float_arithmetic_and_builtins() {
    let op = |op, x, y, expected| (vec![binary(2, op, x, y)], 2, float(expected));
    let call = |b, args, expected| (vec![builtin(Some(2), b, args)], 2, float(expected));
    assert_cases(cases(
        &[Type::Float],
        Vec::new(),
        vec![
            op(BinOp::Add, float(0.1), float(0.2), 0.1 + 0.2),
            op(BinOp::Div, float(1.0), float(4.0), 0.25),
            op(BinOp::Rem, float(7.5), float(2.0), 1.5),
            op(BinOp::Rem, float(-7.5), float(2.0), -1.5),
            call(Builtin::Sqrt, vec![float(2.25)], 1.5),
            call(Builtin::Floor, vec![float(-1.5)], -2.0),
            call(Builtin::Ceil, vec![float(-1.5)], -1.0),
            call(Builtin::Abs, vec![float(-3.0)], 3.0),
            call(Builtin::Min, vec![float(f64::NAN), float(1.0)], 1.0),
            call(Builtin::Max, vec![float(-1.0), float(2.0)], 2.0),
            call(Builtin::Pow, vec![float(2.0), float(10.0)], 1024.0),
            call(Builtin::ToFloat, vec![int(-3)], -3.0),
            call(Builtin::ParseFloat, vec![string("2.5")], 2.5),
        ],
    ));
}

#[test]
fn int_builtins() {
    let call = |b, args, expected| (vec![builtin(Some(2), b, args)], 2, int(expected));
    assert_cases(cases(
        &[Type::Int],
        Vec::new(),
        vec![
            call(Builtin::ToInt, vec![float(f64::NAN)], 0),
            call(Builtin::ToInt, vec![float(1e30)], i64::MAX),
            call(Builtin::ToInt, vec![float(-1e30)], i64::MIN),
            call(Builtin::ToInt, vec![float(-2.9)], -2),
            call(Builtin::Abs, vec![int(-5)], 5),
            call(Builtin::Abs, vec![int(i64::MIN)], i64::MIN),
            call(Builtin::Min, vec![int(3), int(-4)], -4),
            call(Builtin::Max, vec![int(3), int(-4)], 3),
            call(Builtin::Len, vec![string("hello")], 5),
            call(Builtin::ParseInt, vec![string("-123")], -123),
            call(Builtin::Argc, vec![], 0),
        ],
    ));
}

#[test]
fn strings() {
    // Locals 2..: str, int, str.
    let (s, n, t) = (2, 3, 4);
    assert_cases(cases(
        &[Type::Str, Type::Int, Type::Str],
        vec![binary(s, BinOp::Add, string("ab"), string("cd"))],
        vec![
            (vec![], s, string("abcd")),
            (
                vec![builtin(Some(n), Builtin::Len, vec![local(s)])],
                n,
                int(4),
            ),
            (
                vec![assign(
                    n,
                    Rvalue::Index {
                        base: local(s),
                        index: int(2),
                        checked: true,
                        readonly: false,
                    },
                )],
                n,
                int(i64::from(b'c')),
            ),
            (
                vec![builtin(Some(t), Builtin::ToStr, vec![int(-42)])],
                t,
                string("-42"),
            ),
            (
                vec![builtin(Some(t), Builtin::ToStr, vec![float(0.1)])],
                t,
                string("0.1"),
            ),
            (
                vec![builtin(Some(t), Builtin::ToStr, vec![boolean(true)])],
                t,
                string("true"),
            ),
            (
                vec![builtin(Some(t), Builtin::Chr, vec![int(65)])],
                t,
                string("A"),
            ),
            (
                vec![builtin(
                    Some(t),
                    Builtin::Substr,
                    vec![local(s), int(1), int(2)],
                )],
                t,
                string("bc"),
            ),
            (
                vec![builtin(
                    Some(t),
                    Builtin::Fixed,
                    vec![float(1.23456), int(2)],
                )],
                t,
                string("1.23"),
            ),
        ],
    ));
}

#[test]
fn arrays() {
    // Locals 2..: [int], int, [float], [bool], bool, [[int]], [int], float.
    let (a, n, f, b, x, aa, e, y) = (2, 3, 4, 5, 6, 7, 8, 9);
    let int_array = Type::Array(Box::new(Type::Int));
    let setup = vec![
        assign(a, Rvalue::ArrayLit(vec![int(10), int(20), int(30)])),
        assign(
            f,
            Rvalue::ArrayRepeat {
                value: float(0.5),
                count: int(4),
            },
        ),
        assign(
            b,
            Rvalue::ArrayRepeat {
                value: boolean(true),
                count: int(2),
            },
        ),
        assign(aa, Rvalue::ArrayLit(vec![local(a), local(a)])),
        stmt(StatementKind::SetIndex {
            array: local(a),
            index: int(1),
            value: int(-7),
            checked: true,
        }),
        stmt(StatementKind::SetIndex {
            array: local(f),
            index: int(3),
            value: float(2.5),
            checked: true,
        }),
        stmt(StatementKind::SetIndex {
            array: local(b),
            index: int(0),
            value: boolean(false),
            checked: true,
        }),
    ];
    let index = |dest, base, i| {
        assign(
            dest,
            Rvalue::Index {
                base: local(base),
                index: int(i),
                checked: true,
                readonly: false,
            },
        )
    };
    assert_cases(cases(
        &[
            int_array.clone(),
            Type::Int,
            Type::Array(Box::new(Type::Float)),
            Type::Array(Box::new(Type::Bool)),
            Type::Bool,
            Type::Array(Box::new(int_array.clone())),
            int_array,
            Type::Float,
        ],
        setup,
        vec![
            (vec![index(n, a, 0)], n, int(10)),
            (vec![index(n, a, 1)], n, int(-7)),
            (
                vec![builtin(Some(n), Builtin::Len, vec![local(f)])],
                n,
                int(4),
            ),
            (vec![index(y, f, 3)], y, float(2.5)),
            (vec![index(y, f, 2)], y, float(0.5)),
            (vec![index(x, b, 0)], x, boolean(false)),
            (vec![index(x, b, 1)], x, boolean(true)),
            (vec![index(n, aa, 1)], n, local(a)),
            (
                vec![binary(x, BinOp::Eq, local(a), local(f))],
                x,
                boolean(false),
            ),
            (
                vec![
                    assign(e, Rvalue::ArrayLit(vec![])),
                    builtin(Some(n), Builtin::Len, vec![local(e)]),
                ],
                n,
                int(0),
            ),
        ],
    ));
}

#[test]
fn structs_and_null() {
    // struct Node { key: int, next: Node, ok: bool }; locals 2..: Node, int, Node, bool.
    let (p, k, q, o) = (2, 3, 4, 5);
    let node = Type::Struct(StructId::new(0));
    let setup = vec![
        assign(
            p,
            Rvalue::New {
                strukt: StructId::new(0),
                fields: vec![int(5), Operand::Const(Const::Null), boolean(true)],
            },
        ),
        assign(
            q,
            Rvalue::New {
                strukt: StructId::new(0),
                fields: vec![int(6), local(p), boolean(false)],
            },
        ),
        stmt(StatementKind::SetField {
            object: local(p),
            strukt: StructId::new(0),
            field: 0,
            value: int(7),
        }),
    ];
    let field = |dest, object, field| {
        assign(
            dest,
            Rvalue::Field {
                object: local(object),
                strukt: StructId::new(0),
                field,
            },
        )
    };
    let (main, all) = cases(
        &[node.clone(), Type::Int, node.clone(), Type::Bool],
        setup,
        vec![
            (vec![field(k, p, 0)], k, int(7)),
            (vec![field(k, q, 0)], k, int(6)),
            (vec![field(o, p, 2)], o, boolean(true)),
            (vec![field(o, q, 2)], o, boolean(false)),
            (vec![field(q, q, 1)], q, local(p)),
            (vec![field(q, q, 1)], q, Operand::Const(Const::Null)),
        ],
    );
    let mut program = program(vec![main]);
    let field_def = |name: &str, ty| Field {
        name: name.into(),
        ty,
    };
    program.structs.push(StructDef {
        name: "Node".into(),
        fields: vec![
            field_def("key", Type::Int),
            field_def("next", node),
            field_def("ok", Type::Bool),
        ],
        span: Span::default(),
    });
    assert_eq!(run(&program), all);
}

#[test]
fn globals_hold_defaults_until_initialized() {
    let types = [
        Type::Int,
        Type::Float,
        Type::Bool,
        Type::Str,
        Type::Array(Box::new(Type::Int)),
        Type::Struct(StructId::new(0)),
    ];
    // The initializer copies the defaults of globals 0..6 into globals 6..12, then sets G0 = 42.
    let mut init = function("<globals>", &[], &types, Type::Void);
    let mut stmts = Vec::new();
    for (i, _) in types.iter().enumerate() {
        stmts.push(assign(i, Rvalue::Global(GlobalId::new(i))));
        let copy = GlobalId::new(i + types.len());
        stmts.push(stmt(StatementKind::SetGlobal(copy, local(i))));
    }
    stmts.push(stmt(StatementKind::SetGlobal(GlobalId::new(0), int(42))));
    init.blocks = vec![block(stmts, TerminatorKind::Return(None))].into();
    // Locals 2..: int, float, bool, str, [int], S.
    let read = |l, g| assign(l, Rvalue::Global(GlobalId::new(g)));
    let (main, all) = cases(
        &types,
        Vec::new(),
        vec![
            (vec![read(2, 0)], 2, int(42)),
            (vec![read(2, 6)], 2, int(0)),
            (vec![read(3, 7)], 3, float(0.0)),
            (vec![read(4, 8)], 4, boolean(false)),
            (vec![read(5, 9)], 5, string("")),
            (
                vec![read(6, 10), builtin(Some(2), Builtin::Len, vec![local(6)])],
                2,
                int(0),
            ),
            (vec![read(7, 11)], 7, Operand::Const(Const::Null)),
        ],
    );
    let mut program = program(vec![main]);
    let init_id = program.init;
    program.functions[init_id] = init;
    program.structs.push(StructDef {
        name: "S".into(),
        fields: Vec::new(),
        span: Span::default(),
    });
    program.globals = types
        .iter()
        .chain(&types)
        .enumerate()
        .map(|(i, ty)| GlobalDecl {
            name: format!("G{i}"),
            ty: ty.clone(),
        })
        .collect();
    assert_eq!(run(&program), all);
}

#[test]
fn recursive_calls() {
    // fib(n) = if n < 2 { n } else { fib(n - 1) + fib(n - 2) }; main returns fib(20).
    let mut fib = function(
        "fib",
        &[Type::Int],
        &[Type::Bool, Type::Int, Type::Int],
        Type::Int,
    );
    let call = |dest, arg| {
        stmt(StatementKind::Call {
            dest: Some(LocalId::new(dest)),
            callee: Callee::Function(FnId::new(1)),
            args: vec![arg],
        })
    };
    fib.blocks = vec![
        block(
            vec![binary(1, BinOp::Lt, local(0), int(2))],
            branch(local(1), 1, 2),
        ),
        block(vec![], ret(local(0))),
        block(
            vec![
                binary(2, BinOp::Sub, local(0), int(1)),
                call(2, local(2)),
                binary(3, BinOp::Sub, local(0), int(2)),
                call(3, local(3)),
                binary(2, BinOp::Add, local(2), local(3)),
            ],
            ret(local(2)),
        ),
    ]
    .into();
    let mut main = function("main", &[], &[Type::Int], Type::Int);
    main.blocks = vec![block(vec![call(0, int(20))], ret(local(0)))].into();
    assert_eq!(run(&program(vec![main, fib])), 6765);
}

#[test]
fn calls_pass_bools_and_floats() {
    // pick(c, x, y) = if c { x } else { y }; main returns int(pick(false, 1.5, 2.5) * 2.0).
    let mut pick = function(
        "pick",
        &[Type::Bool, Type::Float, Type::Float],
        &[],
        Type::Float,
    );
    pick.blocks = vec![
        block(vec![], branch(local(0), 1, 2)),
        block(vec![], ret(local(1))),
        block(vec![], ret(local(2))),
    ]
    .into();
    let mut main = function("main", &[], &[Type::Float, Type::Int], Type::Int);
    main.blocks = vec![block(
        vec![
            stmt(StatementKind::Call {
                dest: Some(LocalId::new(0)),
                callee: Callee::Function(FnId::new(1)),
                args: vec![boolean(false), float(1.5), float(2.5)],
            }),
            binary(0, BinOp::Mul, local(0), float(2.0)),
            builtin(Some(1), Builtin::ToInt, vec![local(0)]),
        ],
        ret(local(1)),
    )]
    .into();
    assert_eq!(run(&program(vec![main, pick])), 5);
}

#[test]
fn switch_takes_first_matching_case() {
    // match x { -1 => 10, 0 | 5 => 20, 5 => 30 (shadowed), _ => 40 } summed over x in -2..=5.
    let mut main = function("main", &[], &[Type::Int, Type::Int, Type::Bool], Type::Int);
    let (sum, x, more) = (0, 1, 2);
    let add = |v| block(vec![binary(sum, BinOp::Add, local(sum), int(v))], goto(6));
    main.blocks = vec![
        block(vec![assign(x, Rvalue::Use(int(-2)))], goto(1)),
        block(
            vec![],
            TerminatorKind::Switch {
                value: local(x),
                cases: [(-1, 2), (0, 3), (5, 3), (5, 4)]
                    .map(|(value, b)| (value, BlockId::new(b)))
                    .to_vec(),
                default: BlockId::new(5),
            },
        ),
        add(10),
        add(20),
        add(30),
        add(40),
        block(
            vec![
                binary(x, BinOp::Add, local(x), int(1)),
                binary(more, BinOp::Le, local(x), int(5)),
            ],
            branch(local(more), 1, 7),
        ),
        block(vec![], ret(local(sum))),
    ]
    .into();
    // -2 → 40, -1 → 10, 0 → 20, 1..=4 → 4 × 40, 5 → 20.
    assert_eq!(run(&program(vec![main])), 40 + 10 + 20 + 160 + 20);
}

/// `match x { 3 => 0, 4 => 1, ..., 8 => 5, _ => 6 }`, six consecutive cases: one range test
/// and a jump table, which values below, above, negative or past 32 bits leave by the default.
#[test]
fn a_dense_switch_is_one_range_test_and_a_jump_table() {
    let mut pick = function("pick", &[Type::Int], &[], Type::Int);
    let mut blocks = vec![block(
        vec![],
        TerminatorKind::Switch {
            value: local(0),
            cases: (3..=8).map(|v| (v, BlockId::new(v as usize - 2))).collect(),
            default: BlockId::new(7),
        },
    )];
    blocks.extend((0..=6).map(|r| block(vec![], ret(int(r)))));
    pick.blocks = blocks.into();
    let call = |x: i64| {
        let call = StatementKind::Call {
            dest: Some(LocalId::new(2)),
            callee: Callee::Function(FnId::new(1)),
            args: vec![int(x)],
        };
        vec![stmt(call)]
    };
    let checks = [
        (-1, 6),
        (2, 6),
        (3, 0),
        (5, 2),
        (8, 5),
        (9, 6),
        ((1 << 32) + 3, 6),
    ]
    .into_iter()
    .chain([(i64::MIN + 3, 6)])
    .map(|(x, expected)| (call(x), 2, int(expected)))
    .collect();
    let (main, all) = cases(&[Type::Int], vec![], checks);
    let program = program(vec![main, pick]);
    assert_eq!(run(&program), all);
    let clif = emit_clif(&program, "", &Options { opt_level: 1 }, Some("pick")).unwrap();
    assert!(
        clif.contains("br_table") && clif.contains("icmp ult"),
        "{clif}"
    );
    assert!(!clif.contains("0xffff_ffff"), "no 32-bit test: {clif}");
}

#[test]
fn void_main_returns_zero_and_prints_every_type() {
    let mut main = function(
        "main",
        &[],
        &[Type::Array(Box::new(Type::Float))],
        Type::Void,
    );
    main.blocks = vec![block(
        vec![
            assign(0, Rvalue::ArrayLit(vec![float(1.0), float(0.1)])),
            builtin(
                None,
                Builtin::Println,
                vec![
                    string("codegen test output:"),
                    int(-3),
                    float(1e20),
                    boolean(true),
                    local(0),
                    Operand::Const(Const::Null),
                ],
            ),
        ],
        TerminatorKind::Return(None),
    )]
    .into();
    assert_eq!(run(&program(vec![main])), 0);
}

#[test]
fn listings_name_every_function() {
    let mut main = function("main", &[], &[], Type::Int);
    main.blocks = vec![block(vec![], ret(int(3)))].into();
    let p = program(vec![main]);
    let options = Options::default();
    let clif = emit_clif(&p, "", &options, None).unwrap();
    assert!(clif.contains("function %__pl_main() -> i64"), "{clif}");
    assert!(clif.contains("function %__pcc_init()"), "{clif}");
    assert!(clif.contains("function %__pcc_entry() -> i64"), "{clif}");
    let only_main = emit_clif(&p, "", &options, Some("main")).unwrap();
    assert!(!only_main.contains("__pcc_entry"), "{only_main}");
    let asm = emit_asm(&p, "", &options, Some("main")).unwrap();
    assert!(asm.contains("__pl_main") && asm.contains("ret"), "{asm}");
    assert_eq!(
        emit_asm(&p, "", &options, Some("nope")).unwrap_err(),
        CodegenError::NoSuchFunction("nope".into())
    );
}

/// A function no call reaches (never called, or inlined at every call site) is not compiled,
/// nor listed unless `--function` names it; the program still runs and builds (an object file
/// must define every function it declares).
#[test]
fn functions_no_call_reaches_are_not_compiled() {
    let source = "\
fn unused(x: int) -> int { return x * 3; }
fn inlined(x: int) -> int { return x + 1; }
fn main() -> int { return inlined(41); }
";
    let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
    let mut program = crate::lower::lower_program(&typed);
    crate::opt::optimize(&mut program);
    let options = Options { opt_level: 2 };
    let asm = emit_asm(&program, source, &options, None).unwrap();
    assert!(asm.contains("%__pl_main:"), "{asm}");
    assert!(
        !asm.contains("%__pl_unused:") && !asm.contains("%__pl_inlined:"),
        "{asm}"
    );
    let named = emit_asm(&program, source, &options, Some("inlined")).unwrap();
    assert!(named.contains("%__pl_inlined:"), "{named}");
    assert_eq!(run(&program), 42);
    assert!(crate::codegen::object(&program, source, &options, None).is_ok());

    // `g` is inlined into `main`'s loop, and so is `h` there; `g`'s own body, compiled when
    // named, still calls `h`, which is compiled with it.
    let source = "\
fn h(x: int) -> int { let s = 0; for i in 0..x { s += i; } return s; }
fn g(x: int) -> int { return h(x) + 1; }
fn main() { for k in 0..3 { println(g(k)); } }
";
    let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
    let mut program = crate::lower::lower_program(&typed);
    crate::opt::optimize(&mut program);
    let asm = emit_asm(&program, source, &options, None).unwrap();
    assert!(
        !asm.contains("%__pl_g:") && !asm.contains("%__pl_h:"),
        "{asm}"
    );
    let named = emit_asm(&program, source, &options, Some("g")).unwrap();
    assert!(
        named.contains("%__pl_g:") && !named.contains("%__pl_h:"),
        "{named}"
    );
}

#[test]
fn bad_options_and_bad_mir_are_errors_not_panics() {
    let internal = |main: Function| match jit(&program(vec![main]), "", &Options::default()) {
        Err(CodegenError::Internal(message)) => message,
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("bad MIR compiled"),
    };
    let mut main = function("main", &[], &[Type::Void], Type::Int);
    main.blocks = vec![block(vec![], ret(local(0)))].into();
    assert!(internal(main.clone()).contains("_0"));
    main.blocks = vec![block(vec![], goto(7))].into();
    assert!(internal(main.clone()).contains("block 7"));
    main.blocks = vec![block(vec![], ret(local(9)))].into();
    assert!(internal(main.clone()).contains("_9"));
    let options = Options { opt_level: 3 };
    assert!(matches!(
        jit(&program(vec![main]), "", &options),
        Err(CodegenError::Unsupported(_))
    ));
}

#[test]
fn program_info_lists_locations_and_printed_types_once() {
    let source = "fn main() {\n  print(a / b, c);\n}\n";
    let located = Span::new(20, 25);
    let int_array = Type::Array(Box::new(Type::Int));
    let mut main = function("main", &[], &[Type::Int, int_array.clone()], Type::Int);
    main.name_span = Span::new(3, 7);
    let divide = Statement {
        span: located,
        ..binary(0, BinOp::Div, int(1), local(0))
    };
    let print = builtin(None, Builtin::Print, vec![local(1), local(1), int(0)]);
    let call_g = stmt(StatementKind::Call {
        dest: None,
        callee: Callee::Function(FnId::new(1)),
        args: vec![],
    });
    main.blocks = vec![block(
        vec![divide.clone(), divide, print.clone(), print, call_g],
        ret(int(0)),
    )]
    .into();
    let mut g = function("g", &[], &[], Type::Void);
    g.blocks = vec![block(vec![], TerminatorKind::Return(None))].into();
    let info = jit(&program(vec![main, g]), source, &Options::default())
        .unwrap()
        .info;
    let locations: Vec<_> = info
        .locations
        .iter()
        .map(|l| (l.line, l.col, l.function.as_str()))
        .collect();
    // The division once, the name of `main`, whose stack is checked because it calls, and the
    // two prints (at the default span) once, where a closed stdout is reported.
    assert_eq!(locations, [(1, 4, "main"), (2, 9, "main"), (1, 1, "main")]);
    assert_eq!(
        info.types,
        [pcc_stdlib::TypeInfo::Array(Box::new(
            pcc_stdlib::TypeInfo::Int
        ))]
    );
    assert_eq!(info.file, "test.pl");
}

#[test]
fn runtime_table_matches_the_runtime_symbols() {
    let table: HashSet<&str> = runtime::ALL
        .iter()
        .map(|f| f.name)
        .chain([runtime::STACK_LIMIT, runtime::ERROR_OPERANDS])
        .collect();
    let symbols: HashSet<&str> = pcc_stdlib::symbols()
        .iter()
        .map(|(name, _)| *name)
        .collect();
    assert_eq!(table, symbols);
    assert_eq!(
        table.len(),
        runtime::ALL.len() + 2,
        "duplicate names in the table"
    );
}

#[test]
fn a_struct_is_null_checked_once_where_a_check_dominates() {
    let source = "\
struct P { a: int, b: int }
fn f(p: P, q: P, c: bool) -> int {
    let x = p.a;
    if c { x += p.b; } else { x += q.a; }
    p.b = x;
    return x + p.b + q.b;
}
fn pick(k: int) -> P { if k > 0 { return new P { a: k, b: k }; } return null; }
fn main() { println(f(pick(1), pick(2), true), g(new P { a: 1, b: 2 })); }
fn g(p: P) -> int { return p.a + f(p, p, false); }
";
    let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
    let program = crate::lower::lower_program(&typed);
    let options = Options { opt_level: 0 };
    let clif = emit_clif(&program, source, &options, Some("f")).unwrap();
    // `p` at its first access; `q` on each branch, since neither dominates `q.b`.
    assert_eq!(clif.matches("call fn0(").count(), 3, "{clif}");
    assert!(clif.contains("fn0 = u0:5") && clif.contains("u0:5 = pcc_err_null"));
    // Every call of `g` passes a new struct: its parameter is not checked at all.
    let clif = emit_clif(&program, source, &options, Some("g")).unwrap();
    assert!(!clif.contains("pcc_err_null"), "{clif}");
}

#[test]
fn an_object_tested_against_null_on_every_way_in_is_not_checked_again() {
    let source = "\
struct E { next: E }
fn shorter(x: E, y: E) -> bool {
    while y != null {
        if x == null { return true; }
        x = x.next;
        y = y.next;
    }
    return false;
}
fn reassigned(x: E) -> bool {
    if x != null { x = x.next; }
    return x.next == null;
}
fn main() { println(shorter(null, null), reassigned(new E { next: null })); }
";
    let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
    let program = crate::lower::lower_program(&typed);
    let options = Options { opt_level: 0 };
    // `y` is tested at the loop's entry and at its bottom, both edges into the body; `x` on
    // the branch of `x == null` that goes on.
    let clif = emit_clif(&program, source, &options, Some("shorter")).unwrap();
    assert!(!clif.contains("pcc_err_null"), "{clif}");
    // The test proved the `x` before the assignment, not the one read after.
    let clif = emit_clif(&program, source, &options, Some("reassigned")).unwrap();
    assert_eq!(clif.matches("call fn0(").count(), 1, "{clif}");
}

/// A checked `a[x - y + 7]` is addressed by `x - y` (the check recomputes `x - y + 7`), so
/// that only `x - y` need be kept where the index is used again; `a[2 * x + 1]` is not: one
/// `lea` computes its index for both the check and the address.
#[test]
fn a_checked_index_a_constant_from_a_difference_is_in_the_displacement() {
    let source = "\
fn f(a: [int], x: int, y: int) -> int { return a[x - y + 7] + a[2 * x + 1]; }
fn main() { println(f([1, 2, 3, 4, 5, 6, 7, 8], 3, 4)); }
";
    let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
    let program = crate::lower::lower_program(&typed);
    let clif = emit_clif(&program, source, &Options { opt_level: 0 }, Some("f")).unwrap();
    // Element loads (region0, the int elements), from the array's data pointer.
    let loads = |suffix: &str| {
        clif.lines()
            .filter(|l| l.contains("load.i64") && l.contains("region0") && l.ends_with(suffix))
            .count()
    };
    assert_eq!(loads("+56"), 1, "{clif}");
    assert_eq!(loads("+8"), 0, "{clif}");
    assert_eq!(run(&program), 0);
}

#[test]
fn a_constant_added_to_an_unchecked_index_is_in_the_displacement() {
    let source = "\
fn f(a: [int]) -> int {
    let s = 0;
    for i in 1..len(a) - 1 { s += a[i - 1] + a[i + 1] + a[i]; }
    return s;
}
fn main() { println(f([1, 2, 3, 4])); }
";
    let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
    let mut program = crate::lower::lower_program(&typed);
    crate::opt::optimize(&mut program);
    let options = Options { opt_level: 2 };
    let clif = emit_clif(&program, source, &options, Some("f")).unwrap();
    // The loop without checks (versioned) loads `data + 8i` at displacements -8, 8 and 0; the
    // one with checks computes `i - 1` and `i + 1` for its bounds checks and addresses by them.
    let element = |l: &&str| l.contains("load.i64") && l.contains("region0");
    for displacement in ["-8", "+8"] {
        assert!(
            clif.lines()
                .filter(element)
                .any(|l| l.ends_with(displacement)),
            "no load at {displacement}:\n{clif}"
        );
    }
    assert!(
        clif.lines()
            .filter(element)
            .any(|l| !l.contains('+') && !l.contains('-')),
        "no load at displacement 0:\n{clif}"
    );
    assert_eq!(run(&program), 0);
}

#[test]
fn lengths_stay_in_place_in_a_function_that_dispatches_with_match() {
    let source = "\
fn dispatch(code: [int], regs: [int]) -> int {
    let pc = 0;
    while pc < len(code) {
        match code[pc] { 1 => { regs[0] += 1; } 2 => { regs[1] += 1; } _ => {} }
        pc += 1;
    }
    return regs[0];
}
fn sum(a: [int]) -> int {
    let s = 0;
    let i = 0;
    while i < len(a) { s += a[i]; i += 1; }
    return s;
}
fn main() { println(dispatch([1, 2, 1], [0, 0]), sum([1, 2])); }
";
    let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
    let program = crate::lower::lower_program(&typed);
    let options = Options { opt_level: 0 };
    let clif = |f| emit_clif(&program, source, &options, Some(f)).unwrap();
    // A length is the word before the data pointer; the data pointers may move everywhere.
    let movable = |clif: &str, length: bool| {
        (clif.lines()).any(|l| l.contains("readonly can_move") && l.ends_with("-8") == length)
    };
    assert!(!movable(&clif("dispatch"), true), "{}", clif("dispatch"));
    assert!(movable(&clif("dispatch"), false), "{}", clif("dispatch"));
    assert!(movable(&clif("sum"), true), "{}", clif("sum"));
}

/// The blocks of a CLIF listing that lie on a cycle of its jumps and branches.
fn blocks_in_loops(clif: &str) -> HashSet<String> {
    let mut succs: Vec<(String, Vec<String>)> = Vec::new();
    for line in clif.lines() {
        if line.starts_with("block") {
            let name = line.split(['(', ':', ' ']).next().unwrap_or_default();
            succs.push((name.to_string(), Vec::new()));
        } else if let Some((_, targets)) = succs.last_mut() {
            let code = line.split(';').next().unwrap_or_default();
            if code.contains("jump") || code.contains("brif") {
                let words = code.split(|c: char| !c.is_alphanumeric());
                targets.extend(words.filter(|w| w.starts_with("block")).map(String::from));
            }
        }
    }
    let reaches = |from: &str, to: &str| {
        let mut seen = HashSet::new();
        let mut work = vec![from.to_string()];
        while let Some(b) = work.pop() {
            for (_, targets) in succs.iter().filter(|(name, _)| *name == b) {
                for t in targets {
                    if t == to {
                        return true;
                    }
                    if seen.insert(t.clone()) {
                        work.push(t.clone());
                    }
                }
            }
        }
        false
    };
    (succs.iter())
        .filter(|(name, _)| reaches(name, name))
        .map(|(name, _)| name.clone())
        .collect()
}

/// Under `bl` the loop's header only steps and tests its counter (the path count is derived at
/// the loop's exits), and the body is the arm of that test that stays in the loop: what the
/// body computes from values set before the loop (a division) is still computed once, before
/// it.
#[test]
fn an_invariant_of_a_loop_whose_body_is_a_branch_arm_is_hoisted() {
    let source = "\
fn f(x: int, w: int) -> float {
    let cr = 2.0 * float(x) / float(w);
    let i = 0;
    let z = 0.0;
    while i < 50 && z <= 4.0 {
        z = z * z + cr;
        i += 1;
    }
    return z;
}
fn main() { println(f(3, 10)); }
";
    let mut program = crate::opt::testing::instrumented(source, pcc_profiler::profile::Mode::Bl);
    crate::opt::optimize(&mut program);
    let options = Options { opt_level: 2 };
    let clif = emit_clif(&program, source, &options, Some("f")).unwrap();
    let in_loops = blocks_in_loops(&clif);
    assert!(!in_loops.is_empty(), "no loop found:\n{clif}");
    let mut block = "";
    for line in clif.lines() {
        if line.starts_with("block") {
            block = line.split(['(', ':']).next().unwrap_or_default();
        }
        assert!(
            !(line.contains("fdiv") && in_loops.contains(block)),
            "a division in {block}, in the loop:\n{clif}"
        );
    }
}

/// A `print` or `println` is one runtime call, its values laid out in one stack area per
/// function, as large as the largest `print` needs; `print()` prints nothing and calls nothing.
#[test]
fn a_print_is_one_call_of_the_runtime() {
    let source = "\
fn main() {
    print();
    println(1, 2.5, true, \"s\");
    print(7);
    println();
}
";
    let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
    let program = crate::lower::lower_program(&typed);
    let clif = emit_clif(&program, source, &Options { opt_level: 0 }, None).unwrap();
    let main = &clif[..clif.find("function %__pcc_init").unwrap_or(clif.len())];
    assert_eq!(main.matches("call fn0(").count(), 3, "{clif}");
    assert!(
        main.contains("u0:2 = pcc_print") && !main.contains("call fn1"),
        "{clif}"
    );
    assert_eq!(clif.matches("explicit_slot").count(), 1, "{clif}");
    assert!(clif.contains("explicit_slot 64"), "{clif}");
}

/// A failed check passes its error's operands (here the index, the length and the location) to
/// the runtime through `pcc_error_operands`, not in argument registers, so the loop counter of a
/// checked loop is tied to no register by the cold call (the golden tests of programs/errors
/// check the messages it still gives).
#[test]
fn an_error_passes_its_operands_in_memory() {
    let source = "\
fn main() {
    let a = [1, 2, 3];
    let s = 0;
    for i in 0..5 { s += a[i]; }
    println(s);
}
";
    let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
    let program = crate::lower::lower_program(&typed);
    let clif = emit_clif(&program, source, &Options { opt_level: 0 }, None).unwrap();
    assert!(clif.contains("= pcc_error_operands"), "{clif}");
    // `; userextnameN = u0:M = pcc_err_index`, then `fnK = u0:M sigJ`, then `call fnK(...)`.
    let name = (clif.lines())
        .find(|l| l.ends_with("= pcc_err_index"))
        .and_then(|l| l.split(" = ").nth(1))
        .expect("pcc_err_index is declared");
    let callee = (clif.lines())
        .filter_map(|l| l.trim().split_once(" = "))
        .find(|(_, rest)| rest.starts_with(&format!("{name} sig")))
        .map(|(f, _)| f)
        .expect("a function reference to pcc_err_index");
    let call = (clif.lines())
        .find_map(|l| l.split_once(&format!("call {callee}(")))
        .and_then(|(_, args)| args.split_once(')'))
        .map(|(args, _)| args)
        .expect("the error call");
    assert_eq!(call, "", "{clif}");
}

/// A count in a function whose loop calls the function itself reads its counter array's
/// address from the stack slot the prologue stored it in, so that the address is not held
/// across the call; in a function whose loops call nothing, the address is formed directly.
#[test]
fn counters_of_a_recursive_loop_are_addressed_through_the_frame() {
    let source = "\
fn f(n: int) -> int {
    let s = 1;
    for i in 0..n { s += f(n - 1 - i); }
    return s;
}
fn g(n: int) -> int {
    let s = 0;
    for i in 0..n { if i % 3 == 0 { s += i; } }
    return s;
}
fn main() { println(f(4), g(10)); }
";
    let program = crate::opt::testing::instrumented(source, pcc_profiler::profile::Mode::Edge);
    let options = Options { opt_level: 0 };
    let clif = emit_clif(&program, source, &options, Some("f")).unwrap();
    assert!(clif.contains("\"address of profile array"), "{clif}");
    assert!(clif.contains("stack_addr"), "{clif}");
    let clif = emit_clif(&program, source, &options, Some("g")).unwrap();
    assert!(clif.contains("\"profile counters\""), "{clif}");
    assert!(!clif.contains("address of profile array"), "{clif}");
}

/// A cold MIR block is cold to Cranelift all through, the blocks its checks go on in too, and
/// a branch names its hot arm second, the one Cranelift lays out next.
#[test]
fn a_cold_block_is_laid_out_after_the_hot_code() {
    let source = "\
fn f(a: [int], i: int) -> int {
    if i <= 100 { return i; }
    return a[i] + a[i + 7];
}
fn main() { println(f([1, 2], 0)); }
";
    let options = Options { opt_level: 0 };
    let plain = crate::opt::testing::lower(source);
    let mut marked = plain.clone();
    let f = marked.functions.position(|f| f.name == "f").unwrap();
    let func = &mut marked.functions[f];
    // The block of `a[i] + a[i + 7]`.
    let accessing = crate::opt::testing::accessing_block(func);
    func.blocks[accessing].cold = true;
    let cold_blocks = |program: &Program| {
        let clif = emit_clif(program, source, &options, Some("f")).unwrap();
        let cold = clif.lines().filter(|l| l.ends_with(" cold:")).count();
        let branch = clif
            .lines()
            .find(|l| l.contains("brif"))
            .unwrap()
            .to_string();
        (cold, branch, clif)
    };
    let (before, first_branch, _) = cold_blocks(&plain);
    let (after, branch, clif) = cold_blocks(&marked);
    // The block itself and the two blocks after its checks.
    assert_eq!(after, before + 3, "{clif}");
    let targets: Vec<&str> = branch.split(", ").skip(1).collect();
    let cold_label = |target: &str| {
        let name = target.split('(').next().unwrap().trim();
        clif.contains(&format!("{name} cold:"))
    };
    assert!(
        cold_label(targets[0]) && !cold_label(targets[1]),
        "{branch}\n{clif}"
    );
    // The cold arm was the second: the branch tests the opposite condition.
    assert_ne!(branch, first_branch);
}

/// A reference a loop reads every iteration stays in a register: only its copy held across the
/// statement that may collect goes to the stack, stored before it and loaded once after it
/// (`roots.rs`), where Cranelift's own spiller would load it at every read.
#[test]
fn references_go_to_the_stack_only_across_a_collection() {
    // Locals: [int], str, int, bool, int.
    let (a, s, i, c, x) = (0, 1, 2, 3, 4);
    let mut f = function(
        "main",
        &[],
        &[
            Type::Array(Box::new(Type::Int)),
            Type::Str,
            Type::Int,
            Type::Bool,
            Type::Int,
        ],
        Type::Int,
    );
    let read = || {
        assign(
            x,
            Rvalue::Index {
                base: local(a),
                index: local(i),
                checked: true,
                readonly: false,
            },
        )
    };
    f.blocks = vec![
        block(
            vec![
                assign(
                    a,
                    Rvalue::ArrayRepeat {
                        value: int(3),
                        count: int(10),
                    },
                ),
                assign(s, Rvalue::Use(string(""))),
                assign(i, Rvalue::Use(int(0))),
            ],
            goto(1),
        ),
        block(
            vec![binary(c, BinOp::Lt, local(i), int(10))],
            branch(local(c), 2, 3),
        ),
        block(
            vec![
                read(),
                binary(s, BinOp::Add, local(s), string("x")),
                read(),
                binary(i, BinOp::Add, local(i), local(x)),
            ],
            goto(1),
        ),
        block(
            vec![builtin(Some(x), Builtin::Len, vec![local(s)])],
            ret(local(x)),
        ),
    ]
    .into();
    let program = program(vec![f]);
    assert_eq!(run(&program), 4);
    let clif = emit_clif(&program, "", &Options { opt_level: 0 }, Some("main")).unwrap();
    assert_eq!(clif.matches("stack_addr").count(), 2, "{clif}");
}
