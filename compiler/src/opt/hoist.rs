//! Loop-invariant arithmetic out of loop headers: a `while` whose test computes its bound
//! (`while i < w * h - 2 * w - 2`) recomputes it in the header at every iteration. Cranelift
//! would hoist the arithmetic itself, but on MIR the header's statements make it too large to be
//! copied into the loop's latches (`simplify_cfg.rs`), so the loop is not rotated, its back
//! edges are not tests of the induction variable, and versioning (`version.rs`) cannot guard
//! it: every access keeps its bounds check. Moving the arithmetic to the block that enters the
//! loop leaves the header its test alone.
//!
//! What moves: an assignment in the header of a pure arithmetic, bitwise or comparison operator
//! on numbers and bools, which cannot fail (no division unless by a non-zero constant), whose
//! operands the loop does not assign and whose destination nothing else in the function
//! assigns. The header runs first whenever the loop is entered, so the block that enters it
//! computes the same value at the same point of the first iteration, and the later iterations
//! would compute it again from the same operands.

use crate::mir::{
    BinOp, BlockId, Const, Function, IdVec, LocalId, Operand, Rvalue, StatementKind,
    TerminatorKind, Type,
};

pub fn hoist_header_arithmetic(func: &mut Function) {
    let assignments = assignments(func);
    let preds = func.predecessors();
    for l in func.natural_loops() {
        let header = l.header();
        let outside: Vec<BlockId> = (preds[header].iter().copied())
            .filter(|p| !l.body.contains(p))
            .collect();
        // One block enters the loop, and only by jumping to the header.
        let [entry] = outside[..] else {
            continue;
        };
        if !matches!(func.blocks[entry].term.kind, TerminatorKind::Goto(h) if h == header) {
            continue;
        }
        let mut assigned_in_loop = IdVec::from_elem(false, func.locals.len());
        for &b in &l.body {
            for stmt in &func.blocks[b].stmts {
                if let Some(dest) = stmt.kind.dest() {
                    assigned_in_loop[dest] = true;
                }
            }
        }
        // In order, so that what a moved statement computes is invariant for those after it.
        let mut read = IdVec::from_elem(false, func.locals.len());
        let mut moved = Vec::new();
        for stmt in std::mem::take(&mut func.blocks[header].stmts) {
            let movable = match &stmt.kind {
                StatementKind::Assign(dest, rvalue) => {
                    assignments[*dest] == 1
                        && !read[*dest]
                        && is_scalar(&func.locals[*dest].ty)
                        && cannot_fail(rvalue)
                        && rvalue.operands().iter().all(|op| match op {
                            Operand::Local(local) => !assigned_in_loop[*local],
                            _ => true,
                        })
                }
                _ => false,
            };
            if movable {
                if let Some(dest) = stmt.kind.dest() {
                    assigned_in_loop[dest] = false;
                }
                moved.push(stmt);
            } else {
                for op in stmt.kind.operands() {
                    if let Operand::Local(local) = op {
                        read[*local] = true;
                    }
                }
                func.blocks[header].stmts.push(stmt);
            }
        }
        func.blocks[entry].stmts.extend(moved);
    }
}

/// How many statements assign each local.
fn assignments(func: &Function) -> IdVec<LocalId, usize> {
    let mut count = IdVec::from_elem(0, func.locals.len());
    for block in &func.blocks {
        for stmt in &block.stmts {
            if let Some(dest) = stmt.kind.dest() {
                count[dest] += 1;
            }
        }
    }
    count
}

fn is_scalar(ty: &Type) -> bool {
    matches!(ty, Type::Int | Type::Float | Type::Bool)
}

/// A pure operator on numbers and bools that never raises a runtime error.
fn cannot_fail(rvalue: &Rvalue) -> bool {
    match rvalue {
        Rvalue::Unary(..) => true,
        Rvalue::Binary(BinOp::Div | BinOp::Rem, _, divisor) => {
            matches!(divisor, Operand::Const(Const::Int(d)) if *d != 0)
                || matches!(divisor, Operand::Const(Const::Float(_)))
        }
        Rvalue::Binary(..) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opt::testing::{before_and_after, lower, text};

    /// The bound `w * h - 2` moves to the block before the loop; the test stays, as does what
    /// the loop assigns (`i`) and a division by a variable, which may fail.
    #[test]
    fn snapshot() {
        let source = "\
fn f(w: int, h: int, d: int) -> int {
    let i = 0;
    let s = 0;
    while i < w * h - 2 && s < 100 / d { s += i; i += 1; }
    return s;
}
fn main() { println(f(3, 4, 1)); }
";
        expect_test::expect![[r#"
            before:
            fn f(_0: int, _1: int, _2: int) -> int {
                let _3: int;
                let _4: int;
                let _5: int;
                let _6: int;
                let _7: bool;
                let _8: int;
                let _9: bool;
              bb0:
                _3 = 0
                _4 = 0
                goto bb1
              bb1:
                _5 = _0 * _1
                _6 = _5 - 2
                _7 = _3 < _6
                branch _7 ? bb4 : bb3
              bb2:
                _4 = _4 + _3
                _3 = _3 + 1
                goto bb1
              bb3:
                return _4
              bb4:
                _8 = 100 / _2
                _9 = _4 < _8
                branch _9 ? bb2 : bb3
            }
            after:
            fn f(_0: int, _1: int, _2: int) -> int {
                let _3: int;
                let _4: int;
                let _5: int;
                let _6: int;
                let _7: bool;
                let _8: int;
                let _9: bool;
              bb0:
                _3 = 0
                _4 = 0
                _5 = _0 * _1
                _6 = _5 - 2
                goto bb1
              bb1:
                _7 = _3 < _6
                branch _7 ? bb4 : bb3
              bb2:
                _4 = _4 + _3
                _3 = _3 + 1
                goto bb1
              bb3:
                return _4
              bb4:
                _8 = 100 / _2
                _9 = _4 < _8
                branch _9 ? bb2 : bb3
            }
        "#]]
        .assert_eq(&before_and_after(source, "f", hoist_header_arithmetic));
    }

    /// The 5×5 blur of issue 55 written as a `while` over a bound that is a product: with the
    /// bound hoisted, the CFG simplification rotates the loop and versioning removes every
    /// check of the image's 25 reads.
    #[test]
    fn a_while_over_a_product_is_versioned() {
        let source = "\
fn f(img: [int], out: [int], w: int, h: int) {
    let i = 2 * w + 2;
    while i < w * h - 2 * w - 2 {
        out[i] = img[i - 2 * w - 2] + img[i - w] + img[i] + img[i + w + 1] + img[i + 2 * w + 2];
        i += 1;
    }
}
fn main() { let a = [1; 100]; let b = [0; 100]; f(a, b, 10, 10); println(b[55]); }
";
        let mut program = lower(source);
        crate::opt::optimize(&mut program);
        let text = text(&program, source, "f");
        assert_eq!(text.matches("unchecked readonly _0[").count(), 5, "{text}");
    }
}
