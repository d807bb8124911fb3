//! "Does every path return?": whether execution can fall off the end of a statement list.
//!
//! Conservative in the usual way: a condition is never evaluated, except that `while true`
//! (the literal) only ends through a `break`; a call to the built-in `exit` never returns.

use super::Checker;
use crate::ast::{Else, Expr, ExprKind, Stmt, StmtKind};

impl Checker<'_> {
    /// Whether execution can reach the end of these statements.
    pub(super) fn falls_through(&self, stmts: &[Stmt]) -> bool {
        stmts.iter().all(|stmt| self.stmt_falls_through(stmt))
    }

    fn stmt_falls_through(&self, stmt: &Stmt) -> bool {
        match &stmt.kind {
            StmtKind::Return(_) | StmtKind::Break | StmtKind::Continue => false,
            StmtKind::Expr(expr) => !self.is_exit_call(expr),
            StmtKind::If {
                then_block,
                else_branch,
                ..
            } => {
                self.falls_through(&then_block.stmts)
                    || match else_branch {
                        None => true,
                        Some(Else::Block(block)) => self.falls_through(&block.stmts),
                        Some(Else::If(stmt)) => self.stmt_falls_through(stmt),
                    }
            }
            StmtKind::While { cond, body } => {
                !matches!(cond.unparen().kind, ExprKind::Bool(true)) || contains_break(&body.stmts)
            }
            // A match without a `_` arm is an error of its own; judge it by its arms.
            StmtKind::Match { arms, .. } => {
                arms.is_empty() || arms.iter().any(|arm| self.falls_through(&arm.body.stmts))
            }
            StmtKind::Block(block) => self.falls_through(&block.stmts),
            StmtKind::Let { .. } | StmtKind::Assign { .. } | StmtKind::For { .. } => true,
            // Already reported; do not add a "missing return" on top.
            StmtKind::Error => false,
        }
    }

    /// A call to the built-in `exit` (not shadowed by a function of the program).
    fn is_exit_call(&self, expr: &Expr) -> bool {
        matches!(&expr.unparen().kind, ExprKind::Call { callee, .. }
            if callee.name == "exit" && !self.fn_ids.contains_key("exit"))
    }
}

/// Whether a `break` in these statements leaves the loop they are the body of (breaks in
/// nested loops leave those instead).
fn contains_break(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|stmt| match &stmt.kind {
        StmtKind::Break => true,
        StmtKind::If {
            then_block,
            else_branch,
            ..
        } => {
            contains_break(&then_block.stmts)
                || match else_branch {
                    None => false,
                    Some(Else::Block(block)) => contains_break(&block.stmts),
                    Some(Else::If(stmt)) => contains_break(std::slice::from_ref(stmt)),
                }
        }
        StmtKind::Match { arms, .. } => arms.iter().any(|arm| contains_break(&arm.body.stmts)),
        StmtKind::Block(block) => contains_break(&block.stmts),
        _ => false,
    })
}
