//! Constant propagation and folding, with PL's exact semantics (wrapping integer arithmetic,
//! shifts modulo 64). Operations that can fail at run time are never folded, so a division by a
//! constant zero still reports its runtime error. A local holds a constant at a block's start
//! when it holds the same one at the end of every predecessor that can run (a forward dataflow
//! analysis, optimistic over back edges until its fixed point; within blocks only in very large
//! functions): a path register set on one edge and incremented in the block it leads to becomes
//! a constant counter index.

use std::collections::HashMap;

use crate::mir::{
    BasicBlock, BinOp, BlockId, Const, ENTRY, Function, IdVec, LocalId, Operand, Rvalue,
    StatementKind, TerminatorKind, UnOp,
};

/// The locals known to hold a constant, and its value.
type Known = HashMap<LocalId, Const>;

/// Past this many blocks times locals, a function's constants are propagated within blocks
/// only: each block's map may hold every local, so the analysis costs up to their product (a
/// function of 5,000 `if`s took 10 s more with it).
const MAX_ACROSS_BLOCKS: usize = 1 << 20;

/// Per block, the locals that hold the same constant at the end of every predecessor that can
/// run (`None`: the block cannot run, or the function is too large to tell).
fn known_at_entry(func: &Function) -> IdVec<BlockId, Option<Known>> {
    if func.blocks.len().saturating_mul(func.locals.len()) > MAX_ACROSS_BLOCKS {
        return IdVec::from_elem(None, func.blocks.len());
    }
    let order = func.reverse_postorder();
    let preds = func.predecessors();
    let mut at_entry: IdVec<BlockId, Option<Known>> = IdVec::from_elem(None, func.blocks.len());
    let mut at_end: IdVec<BlockId, Option<Known>> = IdVec::from_elem(None, func.blocks.len());
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            // Predecessors not reached yet add nothing until they are.
            let mut known: Option<Known> = (b == ENTRY).then(Known::new);
            for &p in &preds[b] {
                let Some(end) = &at_end[p] else { continue };
                known = Some(match known {
                    None => end.clone(),
                    Some(k) => (k.into_iter())
                        .filter(|(l, v)| end.get(l).is_some_and(|w| same(v, w)))
                        .collect(),
                });
            }
            let Some(known) = known else { continue };
            if at_entry[b]
                .as_ref()
                .is_some_and(|old| same_values(old, &known))
            {
                continue;
            }
            at_end[b] = Some(known_at_end(&func.blocks[b], known.clone()));
            at_entry[b] = Some(known);
            changed = true;
        }
    }
    at_entry
}

/// What is known at the end of `block`, given what is known at its start.
fn known_at_end(block: &BasicBlock, mut known: Known) -> Known {
    for stmt in &block.stmts {
        learn(&stmt.kind, &mut known);
    }
    known
}

/// Records what `kind` assigns: the constant it computes from what is `known`, or that its
/// destination holds none.
fn learn(kind: &StatementKind, known: &mut Known) {
    let (dest, value) = match kind {
        StatementKind::Assign(dest, rvalue) => (*dest, evaluate(rvalue, known)),
        StatementKind::Call {
            dest: Some(dest), ..
        } => (*dest, None),
        _ => return,
    };
    match value {
        Some(value) => known.insert(dest, value),
        None => known.remove(&dest),
    };
}

/// Whether two maps know the same locals to hold the same values.
fn same_values(a: &Known, b: &Known) -> bool {
    a.len() == b.len() && a.iter().all(|(l, v)| b.get(l).is_some_and(|w| same(v, w)))
}

/// Whether two constants are the same value (floats bit for bit: 0.0 is not -0.0).
fn same(a: &Const, b: &Const) -> bool {
    match (a, b) {
        (Const::Float(x), Const::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// Folds `kind` with the values `known` before it, and records what it assigns.
fn fold_statement(kind: &mut StatementKind, known: &mut Known) {
    substitute_statement(kind, known);
    if let StatementKind::Assign(_, rvalue) = kind
        && let Some(value) = evaluate(rvalue, known)
    {
        *rvalue = Rvalue::Use(Operand::Const(value));
    }
    learn(kind, known);
}

pub fn fold_constants(func: &mut Function) {
    let at_entry = known_at_entry(func);
    for (b, block) in func.blocks.iter_enumerated_mut() {
        let mut known = at_entry[b].clone().unwrap_or_default();
        for stmt in &mut block.stmts {
            fold_statement(&mut stmt.kind, &mut known);
        }
        let term = &mut block.term.kind;
        match term {
            TerminatorKind::Branch {
                cond,
                then_bb,
                else_bb,
            } => {
                substitute(cond, &known);
                if let Operand::Const(Const::Bool(value)) = cond {
                    *term = TerminatorKind::Goto(if *value { *then_bb } else { *else_bb });
                }
            }
            TerminatorKind::Switch {
                value,
                cases,
                default,
            } => {
                substitute(value, &known);
                if let Operand::Const(Const::Int(v)) = value {
                    let target = cases
                        .iter()
                        .find(|(case, _)| case == v)
                        .map_or(*default, |&(_, b)| b);
                    *term = TerminatorKind::Goto(target);
                }
            }
            TerminatorKind::Return(Some(op)) => substitute(op, &known),
            _ => {}
        }
    }
}

fn substitute(op: &mut Operand, known: &Known) {
    if let Operand::Local(l) = op
        && let Some(value) = known.get(l)
    {
        *op = Operand::Const(value.clone());
    }
}

fn substitute_statement(kind: &mut StatementKind, known: &Known) {
    for op in kind.operands_mut() {
        substitute(op, known);
    }
}

/// The constant `op` is, or that the local it reads is `known` to hold.
fn constant<'a>(op: &'a Operand, known: &'a Known) -> Option<&'a Const> {
    match op {
        Operand::Const(c) => Some(c),
        Operand::Local(l) => known.get(l),
    }
}

/// The value of an rvalue whose operands are all constants (or locals `known` to hold one), if
/// it can be computed safely.
fn evaluate(rvalue: &Rvalue, known: &Known) -> Option<Const> {
    match rvalue {
        Rvalue::Use(op) => constant(op, known)
            .filter(|c| !matches!(c, Const::Str(_)))
            .cloned(),
        Rvalue::Unary(op, x) => match (op, constant(x, known)?) {
            (UnOp::Neg, Const::Int(v)) => Some(Const::Int(v.wrapping_neg())),
            (UnOp::Neg, Const::Float(v)) => Some(Const::Float(-v)),
            (UnOp::Not, Const::Bool(v)) => Some(Const::Bool(!v)),
            (UnOp::BitNot, Const::Int(v)) => Some(Const::Int(!v)),
            _ => None,
        },
        Rvalue::Binary(op, a, b) => binary(*op, constant(a, known)?, constant(b, known)?),
        _ => None,
    }
}

fn binary(op: BinOp, a: &Const, b: &Const) -> Option<Const> {
    use BinOp::*;
    match (a, b) {
        (Const::Int(a), Const::Int(b)) => {
            let (a, b) = (*a, *b);
            Some(match op {
                Add => Const::Int(a.wrapping_add(b)),
                Sub => Const::Int(a.wrapping_sub(b)),
                Mul => Const::Int(a.wrapping_mul(b)),
                // Division by zero is left for the runtime error.
                Div if b != 0 => Const::Int(a.wrapping_div(b)),
                Rem if b != 0 => Const::Int(a.wrapping_rem(b)),
                Div | Rem => return None,
                Shl => Const::Int(a.wrapping_shl(b as u32 & 63)),
                Shr => Const::Int(a.wrapping_shr(b as u32 & 63)),
                BitAnd => Const::Int(a & b),
                BitXor => Const::Int(a ^ b),
                BitOr => Const::Int(a | b),
                Eq => Const::Bool(a == b),
                Ne => Const::Bool(a != b),
                Lt => Const::Bool(a < b),
                Le => Const::Bool(a <= b),
                Gt => Const::Bool(a > b),
                Ge => Const::Bool(a >= b),
            })
        }
        (Const::Float(a), Const::Float(b)) => {
            let (a, b) = (*a, *b);
            Some(match op {
                Add => Const::Float(a + b),
                Sub => Const::Float(a - b),
                Mul => Const::Float(a * b),
                Div => Const::Float(a / b),
                Rem => Const::Float(a % b),
                Eq => Const::Bool(a == b),
                Ne => Const::Bool(a != b),
                Lt => Const::Bool(a < b),
                Le => Const::Bool(a <= b),
                Gt => Const::Bool(a > b),
                Ge => Const::Bool(a >= b),
                _ => return None,
            })
        }
        (Const::Bool(a), Const::Bool(b)) => match op {
            Eq => Some(Const::Bool(a == b)),
            Ne => Some(Const::Bool(a != b)),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opt::testing::{lower, text};

    /// Function `f` of `source` after constant folding.
    fn folded(source: &str) -> String {
        let mut program = lower(source);
        let id = program.functions.position(|f| f.name == "f").unwrap();
        fold_constants(&mut program.functions[id]);
        text(&program, source, "f")
    }

    /// A constant assigned before a branch is known after the join; one that differs between
    /// the arms, or that a loop changes, is not; 0.0 and -0.0 are different constants, and a
    /// NaN does not keep the analysis from its fixed point.
    #[test]
    fn constants_flow_into_the_blocks_every_path_brings_them_to() {
        let out = folded(
            "fn f(c: bool, n: int) -> float {
    let x = 5;
    let z = 0.0;
    let nan = 0.0 / 0.0;
    let y = 0;
    if c { y = 1; z = -0.0; } else { y = 2; }
    let s = 0;
    while s < n { s += x; }
    println(y, nan);
    return z + float(x + 1);
}
fn main() { println(f(true, 3)); }
",
        );
        for folded in ["_6 = _6 + 5", "_9 = 6", "println(_5, NaN)"] {
            assert!(out.contains(folded), "{folded}: {out}");
        }
        // The loop's counter and the float that differs in sign between the arms stay.
        for kept in ["_8 = _6 < _1", "_11 = _3 + _10"] {
            assert!(out.contains(kept), "{kept}: {out}");
        }
    }

    #[test]
    fn folds_with_pl_semantics() {
        let int = |v| Const::Int(v);
        assert_eq!(
            binary(BinOp::Div, &int(i64::MIN), &int(-1)),
            Some(int(i64::MIN))
        );
        assert_eq!(binary(BinOp::Rem, &int(i64::MIN), &int(-1)), Some(int(0)));
        assert_eq!(binary(BinOp::Div, &int(-7), &int(2)), Some(int(-3)));
        assert_eq!(binary(BinOp::Rem, &int(-7), &int(2)), Some(int(-1)));
        assert_eq!(binary(BinOp::Div, &int(1), &int(0)), None);
        assert_eq!(binary(BinOp::Shl, &int(1), &int(65)), Some(int(2)));
        assert_eq!(binary(BinOp::Shr, &int(-8), &int(1)), Some(int(-4)));
        assert_eq!(
            binary(BinOp::Add, &int(i64::MAX), &int(1)),
            Some(int(i64::MIN))
        );
    }

    /// The pass on a whole function, as `--emit mir` shows it (`UPDATE_EXPECT=1` rewrites the
    /// snapshot): the branch on a constant condition becomes a jump, its arithmetic a constant.
    #[test]
    fn snapshot() {
        let source = "fn f(n: int) -> int { let k = 2 * 3 + 1; if k > 5 { return n + k; } \
                      return 0; }\nfn main() { println(f(1)); }";
        expect_test::expect![[r#"
            before:
            fn f(_0: int) -> int {
                let _1: int;
                let _2: int;
                let _3: int;
                let _4: bool;
                let _5: int;
              bb0:
                _2 = 2 * 3
                _3 = _2 + 1
                _1 = _3
                _4 = _1 > 5
                branch _4 ? bb1 : bb2
              bb1:
                _5 = _0 + _1
                return _5
              bb2:
                return 0
            }
            after:
            fn f(_0: int) -> int {
                let _1: int;
                let _2: int;
                let _3: int;
                let _4: bool;
                let _5: int;
              bb0:
                _2 = 6
                _3 = 7
                _1 = 7
                _4 = true
                goto bb1
              bb1:
                _5 = _0 + 7
                return _5
              bb2:
                return 0
            }
        "#]]
        .assert_eq(&crate::opt::testing::before_and_after(
            source,
            "f",
            fold_constants,
        ));
    }
}
