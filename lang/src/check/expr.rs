//! Expressions. Every function returns `None` after an error (already reported); callers
//! treat `None` as "any type" and report nothing more about it.

use std::collections::HashMap;

use super::stmt::Var;
use super::{Checker, builtins};
use crate::ast::{self, ExprKind as Ast};
use crate::diagnostics::Diagnostic;
use crate::span::Span;
use crate::typed::{BUILTINS, BinOp, Builtin, Expr, ExprKind, StructId, Type, UnOp};

/// Method names of other languages (Python, JavaScript, Rust) and the PL built-in that does
/// their job, for the message of `x.f(...)`.
const METHOD_HABITS: &[(&str, &str)] = &[
    ("length", "len"),
    ("size", "len"),
    ("strip", "trim"),
    ("upper", "to_upper"),
    ("toUpperCase", "to_upper"),
    ("to_uppercase", "to_upper"),
    ("to_ascii_uppercase", "to_upper"),
    ("lower", "to_lower"),
    ("toLowerCase", "to_lower"),
    ("to_lowercase", "to_lower"),
    ("to_ascii_lowercase", "to_lower"),
    ("startswith", "starts_with"),
    ("startsWith", "starts_with"),
    ("endswith", "ends_with"),
    ("endsWith", "ends_with"),
    ("index", "find"),
    ("indexOf", "find"),
    ("replaceAll", "replace"),
];

/// Whether a binary operator (other than a comparison) applies to operands of this type.
pub(super) fn operator_accepts(op: BinOp, ty: &Type) -> bool {
    match op {
        BinOp::Add => matches!(ty, Type::Int | Type::Float | Type::Str),
        BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem => matches!(ty, Type::Int | Type::Float),
        BinOp::Shl | BinOp::Shr | BinOp::BitAnd | BinOp::BitXor | BinOp::BitOr => *ty == Type::Int,
        BinOp::Eq | BinOp::Ne => true,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            matches!(ty, Type::Int | Type::Float | Type::Str | Type::Bool)
        }
    }
}

/// Whether `+` with a `str` on the other side is a likely attempt at building text.
fn is_concatenable(ty: &Type) -> bool {
    matches!(ty, Type::Int | Type::Float | Type::Bool | Type::Str)
}

/// `null` and `[]` take their type from the context; in a comparison the other operand gives it.
fn needs_context(expr: &ast::Expr) -> bool {
    match &expr.unparen().kind {
        Ast::Null => true,
        Ast::ArrayLit(elems) => elems.is_empty(),
        _ => false,
    }
}

impl Checker<'_> {
    /// Checks an expression whose value is used: a call of a function without a return type
    /// is an error here. `hint` is the type the context expects, used to type `null`, `[]` and
    /// array literals; the caller still compares the result with what it needs.
    pub(super) fn value(&mut self, expr: &ast::Expr, hint: Option<&Type>) -> Option<Expr> {
        let checked = self.expr(expr, hint)?;
        if checked.ty == Type::Void {
            let name = match &expr.unparen().kind {
                Ast::Call { callee, .. } => callee.name.as_str(),
                _ => "this function",
            };
            self.error(
                Diagnostic::new(format!("`{name}` does not return a value"), expr.span)
                    .with_label("this call has no value to use"),
            );
            return None;
        }
        Some(checked)
    }

    /// Checks an expression only for errors of its own, where the type it should have is
    /// unknown because of an earlier error: `null` and `[]` are accepted there.
    pub(super) fn skim(&mut self, expr: &ast::Expr) {
        if !needs_context(expr) {
            self.value(expr, None);
        }
    }

    /// Checks an expression that must have type `ty`.
    pub(super) fn expect(&mut self, expr: &ast::Expr, ty: &Type) -> Option<Expr> {
        let checked = self.value(expr, Some(ty))?;
        if checked.ty != *ty {
            self.mismatch(ty, &checked.ty, expr.span);
            return None;
        }
        Some(checked)
    }

    /// Checks any expression, including calls without a value (as in expression statements).
    pub(super) fn expr(&mut self, expr: &ast::Expr, hint: Option<&Type>) -> Option<Expr> {
        let span = expr.span;
        let (kind, ty) = match &expr.kind {
            Ast::Int(magnitude) => (
                ExprKind::Int(self.int_literal(*magnitude, false, span)?),
                Type::Int,
            ),
            Ast::Float(value) => (ExprKind::Float(*value), Type::Float),
            Ast::Str(bytes) => (ExprKind::Str(bytes.clone()), Type::Str),
            Ast::Bool(value) => (ExprKind::Bool(*value), Type::Bool),
            Ast::Null => match hint {
                Some(ty @ Type::Struct(_)) => (ExprKind::Null, ty.clone()),
                Some(other) => {
                    let expected = self.type_name(other);
                    self.error(
                        Diagnostic::new(
                            format!("mismatched types: expected `{expected}`, found `null`"),
                            span,
                        )
                        .with_label(format!("expected `{expected}`"))
                        .with_note("only struct types have `null`"),
                    );
                    return None;
                }
                None => {
                    self.error(
                        Diagnostic::new("cannot infer the type of `null` here", span).with_note(
                            "`null` is a value of struct types only, and needs one from its context",
                        ),
                    );
                    return None;
                }
            },
            Ast::Name(name) => {
                let (var, ty) = self.lookup_var(name, span)?;
                let kind = match var {
                    Var::Local(id) => ExprKind::Local(id),
                    Var::Global(id) => ExprKind::Global(id),
                    Var::Const(value) => return Some(value.literal(span)),
                };
                (kind, ty?)
            }
            Ast::Call { callee, args } => return self.call(callee, args, span),
            Ast::Index { base, index } => {
                let base_checked = self.value(base, None);
                let index = self.index(base_checked.as_ref(), index);
                let base_checked = base_checked?;
                let ty = match &base_checked.ty {
                    Type::Array(elem) => (**elem).clone(),
                    Type::Str => Type::Int,
                    other => {
                        let other = other.clone();
                        self.not_indexable(&other, base.span);
                        return None;
                    }
                };
                let kind = ExprKind::Index {
                    base: Box::new(base_checked),
                    index: Box::new(index?),
                };
                (kind, ty)
            }
            Ast::Field { base, field } => {
                let base = self.value(base, None)?;
                let (index, ty) = self.field(&base.ty, field)?;
                let kind = ExprKind::Field {
                    base: Box::new(base),
                    field: index,
                };
                (kind, ty)
            }
            Ast::MethodCall {
                receiver,
                method,
                args,
            } => {
                self.method_call(receiver, method, args);
                return None;
            }
            Ast::Unary { op, operand } => return self.unary(*op, operand, span),
            Ast::Binary { op, lhs, rhs } => return self.binary(*op, lhs, rhs, span),
            Ast::And(lhs, rhs) | Ast::Or(lhs, rhs) => {
                let lhs = self.logical_operand(lhs);
                let rhs = self.logical_operand(rhs);
                let (lhs, rhs) = (Box::new(lhs?), Box::new(rhs?));
                let kind = match expr.kind {
                    Ast::And(..) => ExprKind::And(lhs, rhs),
                    _ => ExprKind::Or(lhs, rhs),
                };
                (kind, Type::Bool)
            }
            Ast::Paren(inner) => return self.expr(inner, hint),
            Ast::ArrayLit(elems) => return self.array_literal(elems, hint, span),
            Ast::ArrayRepeat { value, count } => {
                self.warn_shared_rows(value, span);
                let value = match hint {
                    Some(Type::Array(elem)) => self.expect(value, elem),
                    _ => self.value(value, None),
                };
                let count = self.expect(count, &Type::Int);
                let value = value?;
                let ty = Type::Array(Box::new(value.ty.clone()));
                let kind = ExprKind::ArrayRepeat {
                    value: Box::new(value),
                    count: Box::new(count?),
                };
                (kind, ty)
            }
            Ast::New { strukt, fields } => return self.new_struct(strukt, fields, span),
            Ast::NewMap(ty) => {
                let ty = self.resolve_type(ty)?;
                let kind = ExprKind::Builtin {
                    builtin: Builtin::MapNew,
                    args: Vec::new(),
                };
                (kind, ty)
            }
            Ast::Error => return None,
        };
        Some(Expr { kind, ty, span })
    }

    /// `[[0; w]; h]` evaluates its row once: every row is the same array, which is rarely what
    /// the grid's author meant, so say so (the program is still valid).
    fn warn_shared_rows(&mut self, value: &ast::Expr, span: Span) {
        let what = match &value.unparen().kind {
            // Empty rows, each to be replaced, are the way to start a grid.
            Ast::ArrayRepeat { count, .. } if matches!(count.unparen().kind, Ast::Int(0)) => {
                return;
            }
            Ast::ArrayLit(elements) if elements.is_empty() => return,
            Ast::ArrayRepeat { .. } | Ast::ArrayLit(_) => "array",
            Ast::New { .. } => "struct",
            Ast::NewMap(_) => "map",
            _ => return,
        };
        self.warnings.push(
            Diagnostic::warning(format!("every element of this array is the same {what}"), span)
                .with_secondary(value.span, "made once, shared by every element")
                .with_note("`[v; n]` evaluates `v` once, so changing one row changes them all")
                .with_help("make each element in a loop: `let g = [[0; 0]; h]; for i in 0..h { g[i] = [0; w]; }`"),
        );
    }

    /// The value of an integer literal, `-` included: it must fit in `int`.
    pub(super) fn int_literal(
        &mut self,
        magnitude: u64,
        negative: bool,
        span: Span,
    ) -> Option<i64> {
        let value = if negative {
            -i128::from(magnitude)
        } else {
            i128::from(magnitude)
        };
        match i64::try_from(value) {
            Ok(value) => Some(value),
            Err(_) => {
                self.error(
                    Diagnostic::new("integer literal is out of range for `int`", span)
                        .with_note("`int` holds -9223372036854775808 to 9223372036854775807"),
                );
                None
            }
        }
    }

    fn unary(&mut self, op: UnOp, operand: &ast::Expr, span: Span) -> Option<Expr> {
        // `-` directly on a literal is a negative literal (the only way to write `int`'s minimum).
        if op == UnOp::Neg {
            let literal = match operand.kind {
                Ast::Int(magnitude) => Some((
                    ExprKind::Int(self.int_literal(magnitude, true, span)?),
                    Type::Int,
                )),
                Ast::Float(value) => Some((ExprKind::Float(-value), Type::Float)),
                _ => None,
            };
            if let Some((kind, ty)) = literal {
                return Some(Expr { kind, ty, span });
            }
        }
        let operand_checked = self.value(operand, None)?;
        let ok = match op {
            UnOp::Neg => matches!(operand_checked.ty, Type::Int | Type::Float),
            UnOp::Not => operand_checked.ty == Type::Bool,
            UnOp::BitNot => operand_checked.ty == Type::Int,
        };
        if !ok {
            let symbol = op.symbol();
            let ty = self.type_name(&operand_checked.ty);
            let mut diagnostic = Diagnostic::new(
                format!("operator `{symbol}` cannot be applied to type `{ty}`"),
                operand.span,
            );
            if op == UnOp::Not && operand_checked.ty == Type::Int {
                diagnostic = diagnostic.with_help("bitwise not on `int` is `~`");
            }
            self.error(diagnostic);
            return None;
        }
        Some(Expr {
            ty: operand_checked.ty.clone(),
            kind: ExprKind::Unary {
                op,
                operand: Box::new(operand_checked),
            },
            span,
        })
    }

    fn binary(&mut self, op: BinOp, lhs: &ast::Expr, rhs: &ast::Expr, span: Span) -> Option<Expr> {
        if op.is_comparison() {
            return self.comparison(op, lhs, rhs, span);
        }
        let lhs_checked = self.value(lhs, None);
        let rhs_checked = match &lhs_checked {
            Some(l) if op == BinOp::Add && operator_accepts(op, &l.ty) => {
                let l_ty = l.ty.clone();
                self.add_operand(&l_ty, rhs)
            }
            Some(l) if operator_accepts(op, &l.ty) => self.expect(rhs, &l.ty),
            Some(l) => {
                let ty = self.type_name(&l.ty);
                self.error(Diagnostic::new(
                    format!(
                        "operator `{}` cannot be applied to type `{ty}`",
                        op.symbol()
                    ),
                    lhs.span,
                ));
                self.skim(rhs);
                return None;
            }
            None => {
                self.skim(rhs);
                return None;
            }
        };
        let (lhs, rhs) = (lhs_checked?, rhs_checked?);
        Some(Expr {
            ty: lhs.ty.clone(),
            kind: ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            span,
        })
    }

    /// The right operand of `+` whose left operand has type `lhs` (a number or a `str`): of the
    /// same type, and when one side is a `str` and the other a number or a `bool`, a hint at
    /// `str(...)`, since PL converts nothing implicitly.
    fn add_operand(&mut self, lhs: &Type, rhs: &ast::Expr) -> Option<Expr> {
        let checked = self.value(rhs, Some(lhs))?;
        if checked.ty == *lhs {
            return Some(checked);
        }
        let number = match (lhs, &checked.ty) {
            (Type::Str, other) | (other, Type::Str) if is_concatenable(other) => Some(other),
            _ => None,
        };
        let Some(number) = number else {
            self.mismatch(lhs, &checked.ty, rhs.span);
            return None;
        };
        let example = match lhs {
            Type::Str => "\"n = \" + str(n)",
            _ => "str(n) + \" apples\"",
        };
        let number = self.type_name(number);
        self.error(
            Diagnostic::new(
                format!("`+` cannot join `str` and `{number}`: it adds two numbers or joins two strings"),
                rhs.span,
            )
            .with_help(format!(
                "PL converts nothing implicitly: turn the `{number}` into text with `str(...)`, as in `{example}`"
            )),
        );
        None
    }

    fn comparison(
        &mut self,
        op: BinOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<Expr> {
        if let Ast::Binary { op: inner, .. } = lhs.kind
            && inner.is_comparison()
        {
            self.error(
                Diagnostic::new("comparison operators cannot be chained", span)
                    .with_note("split the comparison with `&&`, e.g. `a < b && b < c`"),
            );
            return None;
        }
        // Check the operand that can type itself first, so that `null == p` works too.
        let swapped = needs_context(lhs) && !needs_context(rhs);
        let (first, second) = if swapped { (rhs, lhs) } else { (lhs, rhs) };
        let first_checked = self.value(first, None);
        let Some(first_checked) = first_checked else {
            self.skim(second);
            return None;
        };
        let second_checked = self.value(second, Some(&first_checked.ty))?;
        let (lhs, rhs) = if swapped {
            (second_checked, first_checked)
        } else {
            (first_checked, second_checked)
        };
        if lhs.ty != rhs.ty {
            self.mismatch(&lhs.ty, &rhs.ty, rhs.span);
            // `s[0] == "a"`: a string's byte is an `int`, which a one-byte literal has.
            let literal = |e: &Expr| match &e.kind {
                ExprKind::Str(bytes) if bytes.len() == 1 => {
                    Some(String::from_utf8_lossy(bytes).into_owned())
                }
                _ => None,
            };
            let text = match (&lhs.ty, &rhs.ty) {
                (Type::Int, Type::Str) => literal(&rhs),
                (Type::Str, Type::Int) => literal(&lhs),
                _ => None,
            };
            if let Some(text) = text
                && let Some(last) = self.diagnostics.last_mut()
            {
                *last = last.clone().with_help(format!(
                    "indexing a `str` gives a byte, an `int`: compare it with `\"{text}\"[0]`"
                ));
            }
            return None;
        }
        if !operator_accepts(op, &lhs.ty) {
            let ty = self.type_name(&lhs.ty);
            self.error(
                Diagnostic::new(
                    format!(
                        "operator `{}` cannot be applied to type `{ty}`",
                        op.symbol()
                    ),
                    span,
                )
                .with_note("arrays and structs can only be compared with `==` and `!=` (identity)"),
            );
            return None;
        }
        Some(Expr {
            kind: ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            ty: Type::Bool,
            span,
        })
    }

    fn logical_operand(&mut self, operand: &ast::Expr) -> Option<Expr> {
        self.expect(operand, &Type::Bool)
    }

    fn array_literal(
        &mut self,
        elems: &[ast::Expr],
        hint: Option<&Type>,
        span: Span,
    ) -> Option<Expr> {
        let mut elem_ty = match hint {
            Some(Type::Array(elem)) => Some((**elem).clone()),
            _ => None,
        };
        if elems.is_empty() {
            return match (elem_ty, hint) {
                (Some(elem), _) => Some(Expr {
                    kind: ExprKind::ArrayLit(Vec::new()),
                    ty: Type::Array(Box::new(elem)),
                    span,
                }),
                (None, Some(other)) => {
                    self.mismatch_found(other, "`[]`", span);
                    None
                }
                (None, None) => {
                    self.error(
                        Diagnostic::new("cannot infer the element type of `[]` here", span)
                            .with_note("give the variable a type, e.g. `let a: [int] = [];`"),
                    );
                    None
                }
            };
        }
        // Without a hint, the first element that checks gives the element type.
        let mut checked = Vec::new();
        for elem in elems {
            checked.push(match &elem_ty {
                Some(ty) => self.expect(elem, &ty.clone()),
                None => {
                    let e = self.value(elem, None);
                    elem_ty = e.as_ref().map(|e| e.ty.clone());
                    e
                }
            });
        }
        let checked = checked.into_iter().collect::<Option<Vec<_>>>()?;
        Some(Expr {
            kind: ExprKind::ArrayLit(checked),
            ty: Type::Array(Box::new(elem_ty?)),
            span,
        })
    }

    fn new_struct(
        &mut self,
        strukt: &ast::Ident,
        fields: &[(ast::Ident, ast::Expr)],
        span: Span,
    ) -> Option<Expr> {
        let Some(&id) = self.struct_ids.get(strukt.name.as_str()) else {
            let hint = (self.suggest).did_you_mean(&strukt.name, self.struct_ids.keys().copied());
            self.error(Diagnostic::new(
                format!("cannot find struct `{}`{hint}", strukt.name),
                strukt.span,
            ));
            for (_, value) in fields {
                self.skim(value);
            }
            return None;
        };
        self.record_struct_use(strukt.span, id);
        let mut given: HashMap<usize, Span> = HashMap::new();
        let mut checked = Vec::new();
        let mut ok = true;
        let mut unknown_fields = false;
        for (name, value) in fields {
            let index = self.structs[id]
                .fields
                .iter()
                .position(|f| f.name == name.name);
            let Some(index) = index else {
                ok = false;
                unknown_fields = true;
                self.no_such_field(id, name);
                self.skim(value);
                continue;
            };
            self.record_field_use(name.span, id, index);
            if let Some(&first) = given.get(&index) {
                ok = false;
                self.error(
                    Diagnostic::new(
                        format!("field `{}` is given more than once", name.name),
                        name.span,
                    )
                    .with_secondary(first, "first given here"),
                );
            }
            given.entry(index).or_insert(name.span);
            let value = match self.structs[id].fields[index].ty.clone() {
                Some(ty) => self.expect(value, &ty),
                None => {
                    self.skim(value);
                    None
                }
            };
            match value {
                Some(value) => checked.push((index, value)),
                None => ok = false,
            }
        }
        let missing: Vec<String> = self.structs[id]
            .fields
            .iter()
            .enumerate()
            .filter(|(index, _)| !given.contains_key(index))
            .map(|(_, f)| format!("`{}`", f.name))
            .collect();
        // With a misspelled field, the missing one is most likely that one: say it once.
        if !missing.is_empty() && !unknown_fields {
            ok = false;
            let list = match missing.as_slice() {
                [one] => format!("field {one}"),
                [init @ .., last] => format!("fields {} and {last}", init.join(", ")),
                [] => String::new(),
            };
            self.error(
                Diagnostic::new(
                    format!("missing {list} in `new {}`", strukt.name),
                    Span::new(span.lo as usize, strukt.span.hi as usize),
                )
                .with_note("every field must be given exactly once"),
            );
        }
        ok.then_some(Expr {
            kind: ExprKind::New {
                strukt: id,
                fields: checked,
            },
            ty: Type::Struct(id),
            span,
        })
    }

    /// Resolves `base.field` for a base of type `ty`: the field's index and type.
    pub(super) fn field(&mut self, ty: &Type, field: &ast::Ident) -> Option<(usize, Type)> {
        let Type::Struct(id) = *ty else {
            let ty_name = self.type_name(ty);
            let mut diagnostic = Diagnostic::new(
                format!("type `{ty_name}` has no field `{}`", field.name),
                field.span,
            )
            .with_label("only structs have fields");
            if field.name == "len" && matches!(ty, Type::Array(_) | Type::Str) {
                diagnostic = diagnostic.with_note("the length is `len(x)`");
            }
            self.error(diagnostic);
            return None;
        };
        match self.structs[id]
            .fields
            .iter()
            .position(|f| f.name == field.name)
        {
            Some(index) => {
                self.record_field_use(field.span, id, index);
                Some((index, self.structs[id].fields[index].ty.clone()?))
            }
            None => {
                self.no_such_field(id, field);
                None
            }
        }
    }

    fn no_such_field(&mut self, id: StructId, field: &ast::Ident) {
        let strukt = &self.structs[id];
        let names = || strukt.fields.iter().map(|f| f.name.as_str());
        let hint = self.suggest.did_you_mean(&field.name, names());
        let mut diagnostic = Diagnostic::new(
            format!(
                "struct `{}` has no field `{}`{hint}",
                strukt.name, field.name
            ),
            field.span,
        );
        if hint.is_empty() {
            let fields: Vec<String> = names().map(|n| format!("`{n}`")).collect();
            diagnostic = diagnostic.with_note(match fields.as_slice() {
                [] => format!("`{}` has no fields", strukt.name),
                [one] => format!("its only field is {one}"),
                [init @ .., last] => format!("its fields are {} and {last}", init.join(", ")),
            });
        }
        self.error(diagnostic);
    }

    /// The index of `base[index]`: an `int`, except that a map's is only checked for errors of
    /// its own (indexing a map is the error reported).
    pub(super) fn index(&mut self, base: Option<&Expr>, index: &ast::Expr) -> Option<Expr> {
        if base.is_some_and(|b| matches!(b.ty, Type::Map(..))) {
            self.skim(index);
            return None;
        }
        self.expect(index, &Type::Int)
    }

    pub(super) fn not_indexable(&mut self, ty: &Type, span: Span) {
        let is_map = matches!(ty, Type::Map(..));
        let ty = self.type_name(ty);
        let mut diagnostic =
            Diagnostic::new(format!("cannot index into a value of type `{ty}`"), span)
                .with_label("only arrays and strings can be indexed");
        if is_map {
            diagnostic = diagnostic.with_help(
                "a map is read with `get(m, key, default)` and written with `set(m, key, value)`",
            );
        }
        self.error(diagnostic);
    }

    /// `x.f(...)`, a method call of other languages: PL calls `f(x, ...)`. Reported, with the
    /// errors of the receiver and the arguments.
    fn method_call(&mut self, receiver: &ast::Expr, method: &ast::Ident, args: &[ast::Expr]) {
        let name = method.name.as_str();
        let is_function = self.fn_ids.contains_key(name) || builtins::lookup(name).is_some();
        let receiver_text = match &receiver.unparen().kind {
            Ast::Name(name) => name.as_str(),
            _ => "x",
        };
        // Arguments that are names or integers are shown as written (`push(a, 3)`).
        let simple: Option<Vec<String>> = (args.iter())
            .map(|arg| match &arg.kind {
                Ast::Name(name) => Some(name.clone()),
                Ast::Int(magnitude) => Some(magnitude.to_string()),
                _ => None,
            })
            .collect();
        let rest = match simple {
            _ if args.is_empty() => String::new(),
            Some(args) => format!(", {}", args.join(", ")),
            None => ", ...".to_string(),
        };
        let mut diagnostic = Diagnostic::new("PL has no methods", method.span);
        let builtin_for = (METHOD_HABITS.iter()).find(|(habit, _)| *habit == name);
        diagnostic = if name == "join" && !self.fn_ids.contains_key(name) {
            // Python's `sep.join(parts)` has the separator first.
            diagnostic
                .with_label("`join` is a function")
                .with_help("pass the parts first and the separator second: `join(parts, sep)`")
        } else if is_function {
            diagnostic
                .with_label(format!("`{name}` is a function"))
                .with_help(format!(
                    "pass the value as the first argument: `{name}({receiver_text}{rest})`"
                ))
        } else if let Some((_, builtin)) = builtin_for {
            diagnostic
                .with_label(format!("PL's function for this is `{builtin}`"))
                .with_help(format!(
                    "pass the value as the first argument: `{builtin}({receiver_text}{rest})`"
                ))
        } else {
            diagnostic.with_note(format!(
                "functions are called as `f(x, ...)`, and there is no function `{name}`"
            ))
        };
        self.error(diagnostic);
        self.skim(receiver);
        args.iter().for_each(|arg| self.skim(arg));
    }

    fn call(&mut self, callee: &ast::Ident, args: &[ast::Expr], span: Span) -> Option<Expr> {
        let name = callee.name.as_str();
        // A function of the program takes precedence over a built-in of the same name.
        let Some(&id) = self.fn_ids.get(name) else {
            if let Some(builtin) = builtins::lookup(name) {
                return self.builtin_call(builtin, callee, args, span);
            }
            let is_variable = self.body.scopes.iter().any(|s| s.contains_key(name))
                || self.global_ids.contains_key(name);
            let message = if is_variable {
                format!("`{name}` is a variable, not a function")
            } else {
                let fn_ids = &self.fn_ids;
                let candidates =
                    || (fn_ids.keys().copied()).chain(BUILTINS.iter().map(|(n, _)| *n));
                let hint = self.suggest.did_you_mean_function(name, candidates);
                format!("cannot find function `{name}`{hint}")
            };
            self.error(Diagnostic::new(message, callee.span));
            for arg in args {
                self.skim(arg);
            }
            return None;
        };
        self.record_fn_use(callee.span, id);
        let params = self.functions[id].params.clone();
        if !self.arity_ok(name, params.len()..=params.len(), args, span) {
            return None;
        }
        let checked: Vec<_> = args
            .iter()
            .zip(&params)
            .map(|(arg, param)| match param {
                Some(ty) => self.expect(arg, ty),
                None => {
                    self.skim(arg);
                    None
                }
            })
            .collect();
        let args = checked.into_iter().collect::<Option<Vec<_>>>()?;
        Some(Expr {
            kind: ExprKind::Call { func: id, args },
            ty: self.functions[id].ret.clone()?,
            span,
        })
    }
}
