//! Removes assignments to locals that are never read, when computing the value has no effect
//! (no runtime check that could fail, no call).

use crate::mir::{BinOp, Function, IdVec, LocalId, Operand, Rvalue, StatementKind};

pub fn remove_dead_assignments(func: &mut Function) {
    loop {
        let used = used_locals(func);
        let mut changed = false;
        for block in &mut func.blocks {
            let before = block.stmts.len();
            block.stmts.retain(|stmt| match &stmt.kind {
                StatementKind::Assign(dest, rvalue) => used[*dest] || !is_pure(rvalue),
                _ => true,
            });
            changed |= block.stmts.len() != before;
        }
        if !changed {
            break;
        }
    }
}

/// Whether evaluating the rvalue can neither fail nor be observed except through its result.
/// Integer division is conservatively impure (it checks for zero) whatever its operand types.
fn is_pure(rvalue: &Rvalue) -> bool {
    match rvalue {
        Rvalue::Binary(BinOp::Div | BinOp::Rem, ..) => false,
        Rvalue::Index { .. } | Rvalue::Field { .. } | Rvalue::ArrayRepeat { .. } => false,
        Rvalue::Use(_)
        | Rvalue::Unary(..)
        | Rvalue::Binary(..)
        | Rvalue::Global(_)
        | Rvalue::Window { .. }
        | Rvalue::ArrayLit(_)
        | Rvalue::New { .. } => true,
    }
}

fn used_locals(func: &Function) -> IdVec<LocalId, bool> {
    let mut used = IdVec::from_elem(false, func.locals.len());
    for block in &func.blocks {
        for op in block.reads().flatten() {
            if let Operand::Local(l) = op {
                used[*l] = true;
            }
        }
    }
    used
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pass on a whole function, as `--emit mir` shows it (`UPDATE_EXPECT=1` rewrites the
    /// snapshot): the unread `dead` and its operands go, the call stays.
    #[test]
    fn snapshot() {
        let source = "fn g() -> int { println(1); return 1; }\nfn f(n: int) -> int \
                      { let dead = n * 2 + 1; let kept = g(); return n; }\nfn main() { println(f(1)); }";
        expect_test::expect![[r#"
            before:
            fn f(_0: int) -> int {
                let _1: int;
                let _2: int;
                let _3: int;
                let _4: int;
                let _5: int;
              bb0:
                _3 = _0 * 2
                _4 = _3 + 1
                _1 = _4
                _5 = g()
                _2 = _5
                return _0
            }
            after:
            fn f(_0: int) -> int {
                let _1: int;
                let _2: int;
                let _3: int;
                let _4: int;
                let _5: int;
              bb0:
                _5 = g()
                return _0
            }
        "#]]
        .assert_eq(&crate::opt::testing::before_and_after(
            source,
            "f",
            remove_dead_assignments,
        ));
    }
}
