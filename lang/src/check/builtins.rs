//! The checking of calls to the built-in functions (their names: `typed::BUILTINS`).

use super::Checker;
use crate::ast;
use crate::diagnostics::Diagnostic;
use crate::span::Span;
use crate::typed::{BUILTINS, Builtin, Expr, ExprKind, Type};

pub fn lookup(name: &str) -> Option<Builtin> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|&(_, b)| b)
}

/// What a built-in accepts, beyond a fixed list of parameter types.
enum Signature {
    Fixed(Vec<Type>, Type),
    /// `print`, `println`: any number of values of any type.
    Print,
    /// `len`: an array or a `str`.
    Len,
    /// `str`: an `int`, `float` or `bool`.
    ToStr,
    /// `abs`: an `int` or a `float`, returned as is.
    Abs,
    /// `min`, `max`: two `int`s or two `float`s.
    MinMax,
    /// `assert`: a `bool`, and optionally a `str` message.
    Assert,
    /// `get`, `set`, `has`, `delete`, `keys`: a map, then keys and values of its types.
    Map,
    /// `push`, `pop`, `insert`, `remove`: an array, then positions and elements of its type.
    Grow,
    /// `sort`: an array of `int`, `float` or `str`.
    Sort,
}

fn signature(builtin: Builtin) -> Signature {
    use Type::{Bool, Float, Int, Str, Void};
    let fixed = |params: &[Type], ret: Type| Signature::Fixed(params.to_vec(), ret);
    match builtin {
        Builtin::Print | Builtin::Println => Signature::Print,
        Builtin::Len => Signature::Len,
        Builtin::ToStr => Signature::ToStr,
        Builtin::Abs => Signature::Abs,
        Builtin::Min | Builtin::Max => Signature::MinMax,
        Builtin::Assert => Signature::Assert,
        Builtin::MapNew
        | Builtin::MapLen
        | Builtin::MapGet
        | Builtin::MapSet
        | Builtin::MapHas
        | Builtin::MapDelete
        | Builtin::MapKeys => Signature::Map,
        Builtin::Push | Builtin::Pop | Builtin::Insert | Builtin::Remove => Signature::Grow,
        Builtin::ToFloat => fixed(&[Int], Float),
        Builtin::ToInt => fixed(&[Float], Int),
        Builtin::Fixed => fixed(&[Float, Int], Str),
        Builtin::Chr => fixed(&[Int], Str),
        Builtin::Substr => fixed(&[Str, Int, Int], Str),
        Builtin::ParseInt => fixed(&[Str], Int),
        Builtin::ParseFloat => fixed(&[Str], Float),
        Builtin::Sqrt
        | Builtin::Sin
        | Builtin::Cos
        | Builtin::Tan
        | Builtin::Atan
        | Builtin::Exp
        | Builtin::Log
        | Builtin::Floor
        | Builtin::Ceil => fixed(&[Float], Float),
        Builtin::Pow | Builtin::Atan2 => fixed(&[Float, Float], Float),
        Builtin::Argc | Builtin::ClockNs => fixed(&[], Int),
        Builtin::Arg => fixed(&[Int], Str),
        Builtin::ReadLine => fixed(&[], Str),
        Builtin::Eof => fixed(&[], Bool),
        Builtin::ReadInt => fixed(&[], Int),
        Builtin::Exit => fixed(&[Int], Void),
        Builtin::Split => Signature::Fixed(vec![Str, Str], Type::Array(Box::new(Str))),
        Builtin::Join => Signature::Fixed(vec![Type::Array(Box::new(Str)), Str], Str),
        Builtin::Find => fixed(&[Str, Str, Int], Int),
        Builtin::Replace => fixed(&[Str, Str, Str], Str),
        Builtin::Trim | Builtin::ToUpper | Builtin::ToLower => fixed(&[Str], Str),
        Builtin::StartsWith | Builtin::EndsWith => fixed(&[Str, Str], Bool),
        Builtin::Sort => Signature::Sort,
    }
}

impl Checker<'_> {
    pub(super) fn builtin_call(
        &mut self,
        builtin: Builtin,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let make = |args, ty| Expr {
            kind: ExprKind::Builtin { builtin, args },
            ty,
            span,
        };
        match signature(builtin) {
            Signature::Fixed(params, ret) => {
                if !self.arity_ok(&callee.name, params.len()..=params.len(), args, span) {
                    return None;
                }
                let args: Vec<_> = args
                    .iter()
                    .zip(&params)
                    .map(|(arg, ty)| self.expect(arg, ty))
                    .collect();
                Some(make(args.into_iter().collect::<Option<_>>()?, ret))
            }
            Signature::Print => {
                // A bare `null` has no struct type to take, but printing it is well defined.
                let args: Vec<_> = args
                    .iter()
                    .map(|arg| match arg.kind {
                        ast::ExprKind::Null => Some(Expr {
                            kind: ExprKind::Null,
                            ty: Type::Null,
                            span: arg.span,
                        }),
                        _ => self.value(arg, None),
                    })
                    .collect();
                Some(make(args.into_iter().collect::<Option<_>>()?, Type::Void))
            }
            Signature::Assert => {
                if !self.arity_ok(&callee.name, 1..=2, args, span) {
                    return None;
                }
                let cond = self.expect(&args[0], &Type::Bool);
                let message = args.get(1).map(|msg| self.expect(msg, &Type::Str));
                let mut typed = vec![cond?];
                if let Some(message) = message {
                    typed.push(message?);
                }
                Some(make(typed, Type::Void))
            }
            Signature::Len => {
                let len = self.one_argument(
                    builtin,
                    callee,
                    args,
                    span,
                    "an array, a map or `str`",
                    |ty| {
                        matches!(ty, Type::Array(_) | Type::Map(..) | Type::Str)
                            .then_some(Type::Int)
                    },
                )?;
                let ExprKind::Builtin { args, .. } = len.kind else {
                    return None;
                };
                // A map's length changes at every `set`, an array's only at `push`, `pop`,
                // `insert` and `remove` (`Builtin::resizes`), which the optimizer tracks.
                let builtin = match args[0].ty {
                    Type::Map(..) => Builtin::MapLen,
                    _ => Builtin::Len,
                };
                Some(Expr {
                    kind: ExprKind::Builtin { builtin, args },
                    ty: Type::Int,
                    span,
                })
            }
            Signature::Map => self.map_call(builtin, callee, args, span),
            Signature::Grow => self.grow_call(builtin, callee, args, span),
            Signature::Sort => self.one_argument(
                builtin,
                callee,
                args,
                span,
                "`[int]`, `[float]` or `[str]`",
                |ty| match ty {
                    Type::Array(elem) if matches!(**elem, Type::Int | Type::Float | Type::Str) => {
                        Some(Type::Void)
                    }
                    _ => None,
                },
            ),
            Signature::ToStr => self.one_argument(
                builtin,
                callee,
                args,
                span,
                "`int`, `float` or `bool`",
                |ty| matches!(ty, Type::Int | Type::Float | Type::Bool).then_some(Type::Str),
            ),
            Signature::Abs => {
                self.one_argument(builtin, callee, args, span, "`int` or `float`", |ty| {
                    matches!(ty, Type::Int | Type::Float).then(|| ty.clone())
                })
            }
            Signature::MinMax => {
                if !self.arity_ok(&callee.name, 2..=2, args, span) {
                    return None;
                }
                let first = self.value(&args[0], None);
                match first {
                    Some(
                        first @ Expr {
                            ty: Type::Int | Type::Float,
                            ..
                        },
                    ) => {
                        let second = self.expect(&args[1], &first.ty)?;
                        let ty = first.ty.clone();
                        Some(make(vec![first, second], ty))
                    }
                    other => {
                        if let Some(first) = other {
                            self.wrong_argument(
                                callee,
                                "`int` or `float`",
                                &first.ty,
                                args[0].span,
                            );
                        }
                        self.skim(&args[1]);
                        None
                    }
                }
            }
        }
    }

    /// A built-in of one argument whose result type depends on the argument's: `result` gives
    /// it, or `None` when the argument's type is not accepted.
    fn one_argument(
        &mut self,
        builtin: Builtin,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        wanted: &str,
        result: impl Fn(&Type) -> Option<Type>,
    ) -> Option<Expr> {
        if !self.arity_ok(&callee.name, 1..=1, args, span) {
            return None;
        }
        let arg = self.value(&args[0], None)?;
        let Some(ty) = result(&arg.ty) else {
            self.wrong_argument(callee, wanted, &arg.ty, args[0].span);
            return None;
        };
        Some(Expr {
            kind: ExprKind::Builtin {
                builtin,
                args: vec![arg],
            },
            ty,
            span,
        })
    }

    /// `get(m, k, default)`, `set(m, k, v)`, `has(m, k)`, `delete(m, k)`, `keys(m)`.
    fn map_call(
        &mut self,
        builtin: Builtin,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let arity = match builtin {
            Builtin::MapGet | Builtin::MapSet => 3,
            Builtin::MapHas | Builtin::MapDelete => 2,
            _ => 1,
        };
        if !self.arity_ok(&callee.name, arity..=arity, args, span) {
            return None;
        }
        let (map, (key, value)) = self.first_argument(callee, args, "a map", |ty| match ty {
            Type::Map(key, value) => Some(((**key).clone(), (**value).clone())),
            _ => None,
        })?;
        let mut checked = vec![map];
        if let Some(arg) = args.get(1) {
            checked.push(self.expect(arg, &key));
        }
        if let Some(arg) = args.get(2) {
            checked.push(self.expect(arg, &value));
        }
        let ty = match builtin {
            Builtin::MapGet => value,
            Builtin::MapHas => Type::Bool,
            Builtin::MapKeys => Type::Array(Box::new(key)),
            _ => Type::Void,
        };
        Some(Expr {
            kind: ExprKind::Builtin {
                builtin,
                args: checked.into_iter().collect::<Option<_>>()?,
            },
            ty,
            span,
        })
    }

    /// `push(a, v)`, `pop(a)`, `insert(a, i, v)`, `remove(a, i)`.
    fn grow_call(
        &mut self,
        builtin: Builtin,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Expr> {
        let arity = match builtin {
            Builtin::Insert => 3,
            Builtin::Pop => 1,
            _ => 2,
        };
        if !self.arity_ok(&callee.name, arity..=arity, args, span) {
            return None;
        }
        let (array, element) = self.first_argument(callee, args, "an array", |ty| match ty {
            Type::Array(element) => Some((**element).clone()),
            _ => None,
        })?;
        let mut checked = vec![array];
        for (i, arg) in args.iter().enumerate().skip(1) {
            // The position comes before the element: `insert(a, i, v)`, `remove(a, i)`.
            let is_position = matches!(builtin, Builtin::Insert | Builtin::Remove) && i == 1;
            let ty = if is_position { &Type::Int } else { &element };
            checked.push(self.expect(arg, ty));
        }
        let ty = match builtin {
            Builtin::Pop | Builtin::Remove => element,
            _ => Type::Void,
        };
        Some(Expr {
            kind: ExprKind::Builtin {
                builtin,
                args: checked.into_iter().collect::<Option<_>>()?,
            },
            ty,
            span,
        })
    }

    /// The first argument of a call of `callee` (the map or array the built-in works on), if
    /// `of` accepts its type, and what `of` reads off that type; else the error naming `wanted`
    /// (none if the argument has errors of its own), and the other arguments only skimmed.
    fn first_argument<T>(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        wanted: &str,
        of: impl Fn(&Type) -> Option<T>,
    ) -> Option<(Option<Expr>, T)> {
        let first = self.value(&args[0], None);
        let found = first.as_ref().map(|e| e.ty.clone());
        if let Some(parts) = found.as_ref().and_then(&of) {
            return Some((first, parts));
        }
        if let Some(found) = found {
            self.wrong_argument(callee, wanted, &found, args[0].span);
        }
        args[1..].iter().for_each(|arg| self.skim(arg));
        None
    }

    fn wrong_argument(&mut self, callee: &ast::Ident, wanted: &str, found: &Type, span: Span) {
        let found = self.type_name(found);
        self.error(
            Diagnostic::new(
                format!("mismatched types: expected {wanted}, found `{found}`"),
                span,
            )
            .with_label(format!("`{}` takes {wanted}", callee.name)),
        );
    }
}

impl Builtin {
    /// Every built-in, in the order of docs/LANGUAGE.md.
    pub fn all() -> impl Iterator<Item = Builtin> {
        BUILTINS.iter().map(|&(_, b)| b)
    }

    /// How an editor shows it: `fn substr(str, int, int) -> str`.
    pub fn signature(self) -> String {
        let name = self.name();
        fn type_name(ty: &Type) -> String {
            match ty {
                Type::Int => "int".into(),
                Type::Float => "float".into(),
                Type::Bool => "bool".into(),
                Type::Str => "str".into(),
                Type::Array(elem) => format!("[{}]", type_name(elem)),
                _ => "?".into(),
            }
        }
        let (params, ret) = match signature(self) {
            Signature::Fixed(params, ret) => {
                let params: Vec<String> = params.iter().map(type_name).collect();
                (params.join(", "), ret)
            }
            Signature::Sort => {
                return format!("fn {name}(a: [T])  (T is int, float or str; in place, ascending)");
            }
            Signature::Print => ("any...".into(), Type::Void),
            Signature::Len => ("[T], map[K]V or str".into(), Type::Int),
            Signature::ToStr => ("int, float or bool".into(), Type::Str),
            Signature::Abs => return format!("fn {name}(x: T) -> T  (T is int or float)"),
            Signature::MinMax => {
                return format!("fn {name}(a: T, b: T) -> T  (T is int or float)");
            }
            Signature::Assert => ("bool [, str]".into(), Type::Void),
            Signature::Map => {
                return match self {
                    Builtin::MapGet => format!("fn {name}(m: map[K]V, key: K, default: V) -> V"),
                    Builtin::MapSet => format!("fn {name}(m: map[K]V, key: K, value: V)"),
                    Builtin::MapHas => format!("fn {name}(m: map[K]V, key: K) -> bool"),
                    Builtin::MapDelete => format!("fn {name}(m: map[K]V, key: K)"),
                    Builtin::MapKeys => {
                        format!("fn {name}(m: map[K]V) -> [K]  (in insertion order)")
                    }
                    _ => format!("fn {name}(map[K]V) -> int"),
                };
            }
            Signature::Grow => {
                return match self {
                    Builtin::Push => format!("fn {name}(a: [T], value: T)  (appends)"),
                    Builtin::Pop => format!("fn {name}(a: [T]) -> T  (removes the last element)"),
                    Builtin::Insert => format!("fn {name}(a: [T], i: int, value: T)"),
                    _ => format!("fn {name}(a: [T], i: int) -> T  (removes element i)"),
                };
            }
        };
        match ret {
            Type::Void => format!("fn {name}({params})"),
            ret => format!("fn {name}({params}) -> {}", type_name(&ret)),
        }
    }
}
