//! Statements, blocks and scopes.

use std::collections::HashMap;

use super::{Checker, LocalInfo};
use crate::ast::{self, Else, Pattern, StmtKind};
use crate::diagnostics::Diagnostic;
use crate::span::Span;
use crate::typed::{self, BinOp, GlobalId, LocalId, Place, Stmt, Type};

/// A variable a name resolves to.
pub(super) enum Var {
    Local(LocalId),
    Global(GlobalId),
    /// A named constant, with its value (its uses become that literal).
    Const(super::constant::Value),
}

impl Checker<'_> {
    /// Checks statements in the current scope. `None` if any of them had an error.
    pub(super) fn check_stmts(&mut self, stmts: &[ast::Stmt]) -> Option<Vec<Stmt>> {
        let checked: Vec<_> = stmts.iter().map(|s| self.check_stmt(s)).collect();
        checked.into_iter().collect()
    }

    /// Checks a block in a new scope.
    fn check_block(&mut self, block: &ast::Block) -> Option<typed::Block> {
        self.body.scopes.push(HashMap::new());
        let stmts = self.check_stmts(&block.stmts);
        self.close_scope(block.span.hi);
        Some(typed::Block {
            stmts: stmts?,
            span: block.span,
        })
    }

    /// Declares a local in the innermost scope. Returns its id, and the local of the same name
    /// declared earlier in that same scope, if any (callers report it in their own words).
    pub(super) fn declare_local(
        &mut self,
        name: &ast::Ident,
        ty: Option<Type>,
        is_for_var: bool,
    ) -> (LocalId, Option<LocalId>) {
        let symbol = self.record_local(name, ty.as_ref());
        let id = self.body.locals.push(LocalInfo {
            name: name.name.clone(),
            ty,
            span: name.span,
            is_for_var,
            symbol,
        });
        let previous = self
            .body
            .scopes
            .last_mut()
            .and_then(|scope| scope.insert(name.name.clone(), id));
        if let Some(previous) = previous {
            // Redeclared in the same scope (an error): the first one ends here.
            let symbol = self.body.locals[previous].symbol;
            self.record.index.symbols[symbol].scope.hi = name.span.lo;
        }
        (id, previous)
    }

    fn check_stmt(&mut self, stmt: &ast::Stmt) -> Option<Stmt> {
        let kind = match &stmt.kind {
            StmtKind::Let { name, ty, init } => {
                let annotation = ty.as_ref().map(|ty| self.resolve_type(ty));
                let declared = annotation.clone().flatten();
                let annotated = annotation.is_some();
                let init = self.initializer(name, annotation, init);
                // With an annotation the variable's type is known even if the initializer
                // is wrong, which avoids cascading errors at its uses.
                let ty = if annotated {
                    declared
                } else {
                    init.as_ref().map(|e| e.ty.clone())
                };
                let (local, previous) = self.declare_local(name, ty, false);
                if let Some(previous) = previous {
                    let previous = self.body.locals[previous].span;
                    self.error(
                        Diagnostic::new(
                            format!("`{}` is already defined in this scope", name.name),
                            name.span,
                        )
                        .with_secondary(previous, "previous definition")
                        .with_note("shadowing is allowed in an inner block only"),
                    );
                }
                typed::StmtKind::Let { local, init: init? }
            }
            StmtKind::Assign { target, op, value } => self.assignment(target, *op, value)?,
            StmtKind::If {
                cond,
                then_block,
                else_branch,
            } => {
                let cond = self.expect_labeled(
                    cond,
                    &Type::Bool,
                    "the condition of `if` must be a `bool`",
                );
                let then_block = self.check_block(then_block);
                let else_block = match else_branch {
                    None => Some(None),
                    Some(Else::Block(block)) => self.check_block(block).map(Some),
                    Some(Else::If(stmt)) => self.check_stmt(stmt).map(|stmt| {
                        Some(typed::Block {
                            span: stmt.span,
                            stmts: vec![stmt],
                        })
                    }),
                };
                typed::StmtKind::If {
                    cond: cond?,
                    then_block: then_block?,
                    else_block: else_block?,
                }
            }
            StmtKind::While { cond, body } => {
                let cond = self.expect_labeled(
                    cond,
                    &Type::Bool,
                    "the condition of `while` must be a `bool`",
                );
                let body = self.loop_body(body);
                typed::StmtKind::While {
                    cond: cond?,
                    body: body?,
                }
            }
            StmtKind::For { var, lo, hi, body } => {
                let body_end = body.span.hi;
                let lo = self.expect(lo, &Type::Int);
                let hi = self.expect(hi, &Type::Int);
                self.body.scopes.push(HashMap::new());
                let (var, _) = self.declare_local(var, Some(Type::Int), true);
                let body = self.loop_body(body);
                self.close_scope(body_end);
                typed::StmtKind::For {
                    var,
                    lo: lo?,
                    hi: hi?,
                    body: body?,
                }
            }
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(stmt.kind, StmtKind::Break);
                if self.body.loop_depth == 0 {
                    let word = if is_break { "break" } else { "continue" };
                    self.error(Diagnostic::new(
                        format!("`{word}` outside of a loop"),
                        stmt.span,
                    ));
                    return None;
                }
                if is_break {
                    typed::StmtKind::Break
                } else {
                    typed::StmtKind::Continue
                }
            }
            StmtKind::Return(value) => {
                typed::StmtKind::Return(self.return_value(value, stmt.span)?)
            }
            StmtKind::Match { scrutinee, arms } => self.check_match(scrutinee, arms, stmt.span)?,
            StmtKind::Expr(expr) => {
                // A method call is reported as such where it is checked.
                let is_call = matches!(
                    expr.unparen().kind,
                    ast::ExprKind::Call { .. } | ast::ExprKind::MethodCall { .. }
                );
                if !is_call {
                    let mut diagnostic =
                        Diagnostic::new("only function calls can be used as statements", expr.span)
                            .with_label("this value is not used");
                    if let ast::ExprKind::Binary { op: BinOp::Eq, .. } = expr.kind {
                        diagnostic = diagnostic.with_help("to assign a value, use `=`");
                    }
                    self.error(diagnostic);
                    self.skim(expr);
                    return None;
                }
                typed::StmtKind::Expr(self.expr(expr, None)?)
            }
            StmtKind::Block(block) => typed::StmtKind::Block(self.check_block(block)?),
            StmtKind::Error => return None,
        };
        Some(Stmt {
            kind,
            span: stmt.span,
        })
    }

    /// [`Checker::expect`] with a label explaining why the type is required.
    fn expect_labeled(&mut self, expr: &ast::Expr, ty: &Type, why: &str) -> Option<typed::Expr> {
        let checked = self.value(expr, Some(ty))?;
        if checked.ty != *ty {
            let (expected, found) = (self.type_name(ty), self.type_name(&checked.ty));
            self.error(
                Diagnostic::new(
                    format!("mismatched types: expected `{expected}`, found `{found}`"),
                    expr.span,
                )
                .with_label(why),
            );
            return None;
        }
        Some(checked)
    }

    fn loop_body(&mut self, body: &ast::Block) -> Option<typed::Block> {
        self.body.loop_depth += 1;
        let body = self.check_block(body);
        self.body.loop_depth -= 1;
        body
    }

    /// Resolves a name to a variable, reporting it when there is none.
    pub(super) fn lookup_var(&mut self, name: &str, span: Span) -> Option<(Var, Option<Type>)> {
        if let Some(&id) = self.body.scopes.iter().rev().find_map(|s| s.get(name)) {
            self.record.use_of(span, self.body.locals[id].symbol);
            return Some((Var::Local(id), self.body.locals[id].ty.clone()));
        }
        if let Some(&id) = self.global_ids.get(name) {
            self.record_global_use(span, id);
            if self.body.constant {
                self.error(
                    Diagnostic::new(format!("a constant cannot use the global `{name}`"), span)
                        .with_note("a constant is made of literals, other constants and operators; use `let` for a global computed at run time"),
                );
                return None;
            }
            return match &self.globals[id] {
                super::GlobalType::Known(ty) => Some((Var::Global(id), Some(ty.clone()))),
                super::GlobalType::Poisoned => Some((Var::Global(id), None)),
                super::GlobalType::Pending => {
                    self.error(
                        Diagnostic::new(
                            format!("the type of global `{name}` is not known yet here"),
                            span,
                        )
                        .with_note(format!(
                            "`{name}` is declared later without a type annotation: add one, e.g. `let {name}: int = ...;`"
                        )),
                    );
                    None
                }
            };
        }
        if let Some(value) = self.lookup_const(name, span) {
            let value = value?;
            let ty = value.ty();
            return Some((Var::Const(value), Some(ty)));
        }
        if self.fn_ids.contains_key(name) || super::builtins::lookup(name).is_some() {
            self.error(
                Diagnostic::new(format!("`{name}` is a function, not a variable"), span)
                    .with_help(format!("call it with `{name}(...)`")),
            );
            return None;
        }
        let visible: Vec<&str> = self
            .body
            .scopes
            .iter()
            .flat_map(|s| s.keys().map(String::as_str))
            .chain(self.global_ids.keys().copied())
            .chain(self.const_ids.keys().copied())
            .collect();
        let hint = self.suggest.did_you_mean(name, visible);
        self.error(Diagnostic::new(
            format!("cannot find variable `{name}`{hint}"),
            span,
        ));
        None
    }

    fn assignment(
        &mut self,
        target: &ast::Expr,
        op: Option<BinOp>,
        value: &ast::Expr,
    ) -> Option<typed::StmtKind> {
        let place = self.place(target);
        let Some((place, ty)) = place else {
            self.skim(value);
            return None;
        };
        if let Some(op) = op
            && !super::expr::operator_accepts(op, &ty)
        {
            let ty = self.type_name(&ty);
            self.error(Diagnostic::new(
                format!(
                    "operator `{}=` cannot be applied to type `{ty}`",
                    op.symbol()
                ),
                target.span,
            ));
            self.skim(value);
            return None;
        }
        let value = self.expect(value, &ty)?;
        Some(match op {
            None => typed::StmtKind::Assign {
                target: place,
                value,
            },
            Some(op) => typed::StmtKind::CompoundAssign {
                target: place,
                op,
                value,
            },
        })
    }

    /// An assignable place and its type.
    fn place(&mut self, target: &ast::Expr) -> Option<(Place, Type)> {
        let target = target.unparen();
        match &target.kind {
            ast::ExprKind::Name(name) => {
                let (var, ty) = self.lookup_var(name, target.span)?;
                match var {
                    Var::Local(id) if self.body.locals[id].is_for_var => {
                        let declared = self.body.locals[id].span;
                        self.error(
                            Diagnostic::new(
                                format!("cannot assign to `{name}`, the variable of a `for` loop"),
                                target.span,
                            )
                            .with_secondary(declared, "declared here")
                            .with_help("to change it, copy it first: `let j = i;`"),
                        );
                        None
                    }
                    Var::Local(id) => Some((Place::Local(id), ty?)),
                    Var::Global(id) => Some((Place::Global(id), ty?)),
                    Var::Const(_) => {
                        let declared = self.consts[self.const_ids[name.as_str()]].decl.name.span;
                        self.error(
                            Diagnostic::new(
                                format!("cannot assign to `{name}`, which is a constant"),
                                target.span,
                            )
                            .with_secondary(declared, "declared as a constant here")
                            .with_help(format!(
                                "to change its value, declare it as a global: `let {name} = ...;`"
                            )),
                        );
                        None
                    }
                }
            }
            ast::ExprKind::Index { base, index } => {
                let base_checked = self.value(base, None);
                let index = self.index(base_checked.as_ref(), index);
                let base_checked = base_checked?;
                match base_checked.ty.clone() {
                    Type::Array(elem) => Some((
                        Place::Index {
                            base: base_checked,
                            index: index?,
                        },
                        *elem,
                    )),
                    Type::Str => {
                        self.error(
                            Diagnostic::new("cannot assign to a byte of a `str`", target.span)
                                .with_note("strings are immutable"),
                        );
                        None
                    }
                    other => {
                        self.not_indexable(&other, base.span);
                        None
                    }
                }
            }
            ast::ExprKind::Field { base, field } => {
                let base = self.value(base, None)?;
                let (index, ty) = self.field(&base.ty, field)?;
                Some((Place::Field { base, field: index }, ty))
            }
            _ => {
                self.error(
                    Diagnostic::new("invalid left-hand side of assignment", target.span)
                        .with_label("cannot assign to this expression")
                        .with_note("only variables, array elements `a[i]` and fields `s.f` can be assigned"),
                );
                // Only for errors inside it: whether it has a value does not matter any more.
                self.expr(target, None);
                None
            }
        }
    }

    fn return_value(
        &mut self,
        value: &Option<ast::Expr>,
        span: Span,
    ) -> Option<Option<typed::Expr>> {
        let name = self.body.fn_name.clone();
        match (value, self.body.ret.clone()) {
            (Some(value), Some(Type::Void)) => {
                self.error(
                    Diagnostic::new(
                        format!(
                            "function `{name}` has no return type, but this `return` has a value"
                        ),
                        value.span,
                    )
                    .with_note(format!(
                        "declare the return type, e.g. `fn {name}(...) -> int`"
                    )),
                );
                self.skim(value);
                None
            }
            (Some(value), Some(ret)) => Some(Some(self.expect(value, &ret)?)),
            (Some(value), None) => {
                self.skim(value);
                None
            }
            (None, Some(Type::Void)) => Some(None),
            (None, Some(ret)) => {
                let ret = self.type_name(&ret);
                self.error(Diagnostic::new(
                    format!("`return` without a value in function `{name}`, which returns `{ret}`"),
                    span,
                ));
                None
            }
            (None, None) => None,
        }
    }

    fn check_match(
        &mut self,
        scrutinee: &ast::Expr,
        arms: &[ast::MatchArm],
        span: Span,
    ) -> Option<typed::StmtKind> {
        let scrutinee = self.expect_labeled(scrutinee, &Type::Int, "`match` works on `int` values");
        let keyword = Span::new(span.lo as usize, span.lo as usize + "match".len());
        let mut seen: HashMap<i64, Span> = HashMap::new();
        let mut typed_arms = Vec::new();
        let mut default = None;
        let mut ok = true;
        for (k, arm) in arms.iter().enumerate() {
            let is_last = k + 1 == arms.len();
            let mut patterns = Vec::new();
            let mut is_default = false;
            for pattern in &arm.patterns {
                let (value, at) = match pattern {
                    &Pattern::Wildcard(at) => {
                        if arm.patterns.len() > 1 {
                            ok = false;
                            self.error(Diagnostic::new(
                                "`_` cannot be combined with other patterns",
                                at,
                            ));
                        } else if !is_last {
                            ok = false;
                            self.error(
                                Diagnostic::new("`_` must be the last arm of a `match`", at)
                                    .with_label("the arms after this one could never run"),
                            );
                        }
                        is_default = true;
                        continue;
                    }
                    &Pattern::Int {
                        magnitude,
                        negative,
                        span,
                    } => (self.int_literal(magnitude, negative, span), span),
                    Pattern::Const(name) => (self.const_pattern(name), name.span),
                };
                let Some(value) = value else {
                    ok = false;
                    continue;
                };
                // Values, not spellings: `K` and the literal it stands for are duplicates.
                if let Some(&first) = seen.get(&value) {
                    ok = false;
                    self.error(
                        Diagnostic::new(format!("duplicate pattern `{value}` in `match`"), at)
                            .with_secondary(first, "first used here"),
                    );
                } else {
                    seen.insert(value, at);
                }
                patterns.push((value, at));
            }
            let body = self.check_block(&arm.body);
            match body {
                Some(body) if is_default => default = Some(body),
                Some(body) => typed_arms.push(typed::MatchArm {
                    patterns,
                    body,
                    span: arm.span,
                }),
                None => ok = false,
            }
        }
        let has_wildcard = arms.iter().any(|arm| {
            arm.patterns
                .iter()
                .any(|p| matches!(p, Pattern::Wildcard(_)))
        });
        if !has_wildcard {
            self.error(
                Diagnostic::new("`match` must end with a `_` arm", keyword)
                    .with_label("add `_ => { ... }` as the last arm"),
            );
            return None;
        }
        let (scrutinee, default) = (scrutinee?, default?);
        ok.then_some(typed::StmtKind::Match {
            scrutinee,
            arms: typed_arms,
            default,
        })
    }
}
