//! Delta debugging of a program that shows a mismatch: greedy single edits (remove a statement,
//! inline a compound statement's first body, empty its bodies, replace an expression by one of
//! its operands or by a literal), each kept only if the same check still fails; repeated until
//! no edit helps or the budget of checks runs out.

use crate::program::{Expr, Program, StmtEdit, edit_expr, edit_stmt};

/// Literals an expression may shrink to, whatever its type (a wrong type fails to compile and
/// the edit is rejected).
const LITERALS: [&str; 5] = ["0", "1", "0.5", "true", "\"\""];

/// The smallest program found that `still_fails` accepts, trying at most `budget` candidates.
pub fn shrink(
    program: &Program,
    budget: usize,
    still_fails: &mut dyn FnMut(&Program) -> bool,
) -> Program {
    let mut best = program.clone();
    let mut tries = 0;
    let mut improved = true;
    while improved && tries < budget {
        improved = false;
        let (stmts, exprs) = best.size();
        // Statements first, outermost first (a whole function or loop at once), then
        // expressions, largest first.
        let edits = (0..stmts).flat_map(|n| {
            [StmtEdit::Remove, StmtEdit::Inline, StmtEdit::Empty]
                .into_iter()
                .map(move |e| Candidate::Stmt(n, e))
        });
        let exprs = (0..exprs).flat_map(|n| {
            (0..4)
                .map(move |k| Candidate::Kid(n, k))
                .chain((0..LITERALS.len()).map(move |l| Candidate::Literal(n, l)))
        });
        for candidate in edits.chain(exprs) {
            if tries >= budget {
                break;
            }
            let Some(smaller) = candidate.apply(&best) else {
                continue;
            };
            if smaller.text() == best.text() {
                continue;
            }
            tries += 1;
            if still_fails(&smaller) {
                best = smaller;
                improved = true;
                break;
            }
        }
    }
    best
}

#[derive(Clone, Copy)]
enum Candidate {
    Stmt(usize, StmtEdit),
    /// Replace expression node `n` by its kid `k`.
    Kid(usize, usize),
    /// Replace expression node `n` by literal `l`.
    Literal(usize, usize),
}

impl Candidate {
    fn apply(self, program: &Program) -> Option<Program> {
        match self {
            Candidate::Stmt(n, edit) => edit_stmt(program, n, edit),
            Candidate::Kid(n, k) => edit_expr(program, n, &|e: &Expr| {
                // A statement's own line (ending in `;` or `{`) cannot become an operand.
                let line = e
                    .parts
                    .last()
                    .is_some_and(|p| p.ends_with(';') || p.ends_with('{'));
                if line { None } else { e.kids.get(k).cloned() }
            }),
            Candidate::Literal(n, l) => edit_expr(program, n, &|e: &Expr| {
                let line = e
                    .parts
                    .last()
                    .is_some_and(|p| p.ends_with(';') || p.ends_with('{'));
                (!line && e.text() != LITERALS[l]).then(|| Expr::leaf(LITERALS[l]))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::program;

    #[test]
    fn shrinks_to_what_the_predicate_needs() {
        // "Fails" while the program still prints something containing `FUEL`.
        let original = program(3);
        let small = shrink(&original, 2000, &mut |p| {
            p.text().contains("println(s, FUEL);")
        });
        assert!(small.text().contains("println(s, FUEL);"));
        assert!(small.size().0 < original.size().0);
        assert!(
            small.text().len() < original.text().len() / 2,
            "{}",
            small.text()
        );
    }
}
