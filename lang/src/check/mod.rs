//! Name resolution and type checking: the untyped tree in, the typed program (or every error
//! found) out.
//!
//! Declarations are collected first, so structs and functions may be used before they are
//! declared. Then global initializers are checked in source order, then function bodies.
//!
//! Errors do not cascade: a subexpression that failed to check yields `None`, which every
//! caller accepts silently (it acts as an error type that unifies with anything), and a
//! variable whose type could not be determined is "poisoned" the same way.

pub(crate) mod builtins;
mod constant;
mod expr;
mod flow;
mod record;
mod stmt;
mod suggest;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use crate::ast;
use crate::diagnostics::Diagnostic;
use crate::id::IdVec;
use crate::index::{Index, SymbolId, SymbolKind};
use crate::span::Span;
use crate::typed::{self, FnId, GlobalId, LocalId, StructId, Type};

/// Type names that no struct or function may take.
const BUILTIN_TYPES: &[&str] = &["int", "float", "bool", "str"];

pub fn check_program(
    file_name: &str,
    program: &ast::Program,
) -> Result<typed::Program, Vec<Diagnostic>> {
    check_program_indexed(file_name, program, &mut Index::default())
}

/// [`check_program`], also filling `index` with every declaration and use (even when there are
/// errors, and for a program the parser had to skip parts of).
pub fn check_program_indexed(
    file_name: &str,
    program: &ast::Program,
    index: &mut Index,
) -> Result<typed::Program, Vec<Diagnostic>> {
    let mut checker = Checker::default();
    checker.declare_structs(program);
    checker.declare_functions(program);
    checker.declare_constants(program);
    checker.record_signatures();
    let main = checker.find_main();
    let globals = checker.check_globals(program);
    let functions: Vec<_> = checker
        .functions
        .ids()
        .map(|id| checker.check_function(id))
        .collect();
    *index = std::mem::take(&mut checker.record.index);
    if !checker.diagnostics.is_empty() {
        return Err(checker.diagnostics);
    }
    // Without diagnostics, nothing above produced `None`.
    let (Some(main), Some(globals), Some(functions)) = (
        main,
        globals.into_iter().collect::<Option<IdVec<_, _>>>(),
        functions.into_iter().collect::<Option<IdVec<_, _>>>(),
    ) else {
        return Err(vec![Diagnostic::new(
            "internal error: checking failed without a diagnostic",
            Span::default(),
        )]);
    };
    let structs = checker
        .structs
        .into_iter()
        .map(|s| typed::StructDef {
            name: s.name,
            fields: s
                .fields
                .into_iter()
                .map(|f| typed::Field {
                    name: f.name,
                    ty: f.ty.unwrap_or(Type::Void),
                })
                .collect(),
            span: s.span,
        })
        .collect();
    Ok(typed::Program {
        file_name: file_name.to_string(),
        structs,
        globals,
        functions,
        main,
        warnings: crate::Diagnostics::new(checker.warnings),
    })
}

struct StructInfo {
    name: String,
    /// The whole declaration.
    span: Span,
    name_span: Span,
    fields: Vec<FieldInfo>,
}

struct FieldInfo {
    name: String,
    /// `None` when the declared type does not exist (already reported).
    ty: Option<Type>,
}

#[derive(Clone)]
enum GlobalType {
    /// Declared without annotation; its initializer has not been checked yet.
    Pending,
    Known(Type),
    /// Could not be determined (already reported).
    Poisoned,
}

struct FnInfo<'a> {
    decl: &'a ast::FnDecl,
    /// `None` for a parameter whose type does not exist (already reported).
    params: Vec<Option<Type>>,
    /// `Some(Type::Void)` without a return type; `None` when it does not exist.
    ret: Option<Type>,
}

struct LocalInfo {
    name: String,
    /// `None` when poisoned by an earlier error.
    ty: Option<Type>,
    span: Span,
    /// `for` variables cannot be assigned.
    is_for_var: bool,
    symbol: SymbolId,
}

/// What is being checked right now: a function body, or a global initializer (no locals).
#[derive(Default)]
struct Body {
    fn_name: String,
    /// `None` when the return type does not exist.
    ret: Option<Type>,
    locals: IdVec<LocalId, LocalInfo>,
    scopes: Vec<HashMap<String, LocalId>>,
    loop_depth: u32,
    /// The function being checked (`None` for a global initializer) and its parameter count.
    fn_id: Option<FnId>,
    params: usize,
    /// A constant's initializer, which may not read globals.
    constant: bool,
}

#[derive(Default)]
struct Checker<'a> {
    diagnostics: Vec<Diagnostic>,
    warnings: Vec<Diagnostic>,
    structs: IdVec<StructId, StructInfo>,
    struct_ids: HashMap<&'a str, StructId>,
    globals: IdVec<GlobalId, GlobalType>,
    global_ids: HashMap<&'a str, GlobalId>,
    consts: Vec<constant::ConstInfo<'a>>,
    const_ids: HashMap<&'a str, constant::ConstId>,
    functions: IdVec<FnId, FnInfo<'a>>,
    fn_ids: HashMap<&'a str, FnId>,
    body: Body,
    /// "Did you mean" suggestions, within one budget for the whole check.
    suggest: suggest::Suggester,
    record: record::Recorder,
}

impl<'a> Checker<'a> {
    fn error(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    fn declare_structs(&mut self, program: &'a ast::Program) {
        let decls: Vec<&ast::StructDecl> = program
            .items
            .iter()
            .filter_map(|item| match item {
                ast::Item::Struct(s) => Some(s),
                _ => None,
            })
            .collect();
        for decl in &decls {
            let name = &decl.name;
            if BUILTIN_TYPES.contains(&name.name.as_str()) {
                self.error(Diagnostic::new(
                    format!("cannot redefine the built-in type `{}`", name.name),
                    name.span,
                ));
            } else if let Some(&first) = self.struct_ids.get(name.name.as_str()) {
                let first = self.structs[first].name_span;
                self.error(
                    Diagnostic::new(
                        format!("struct `{}` is defined more than once", name.name),
                        name.span,
                    )
                    .with_secondary(first, "first defined here"),
                );
            } else {
                self.struct_ids.insert(&name.name, self.structs.next_id());
            }
            let symbol = self.record.symbol(SymbolKind::Struct, name, decl.span);
            self.record.structs.push(symbol);
            let fields = decl
                .fields
                .iter()
                .map(|(field, ty)| {
                    let field =
                        self.record
                            .symbol(SymbolKind::Field, field, field.span.to(ty.span));
                    self.record.index.symbols[field].parent = Some(symbol);
                    field
                })
                .collect();
            self.record.fields.push(fields);
            self.structs.push(StructInfo {
                name: name.name.clone(),
                span: decl.span,
                name_span: name.span,
                fields: Vec::new(),
            });
        }
        // Field types may name any struct, so they are resolved once all are known.
        for (id, decl) in self.structs.ids().zip(&decls) {
            let mut seen: HashMap<&str, Span> = HashMap::new();
            for (field, ty) in &decl.fields {
                if let Some(&first) = seen.get(field.name.as_str()) {
                    self.error(
                        Diagnostic::new(
                            format!(
                                "field `{}` is declared more than once in struct `{}`",
                                field.name, decl.name.name
                            ),
                            field.span,
                        )
                        .with_secondary(first, "first declared here"),
                    );
                }
                seen.entry(&field.name).or_insert(field.span);
                let ty = self.resolve_type(ty);
                self.structs[id].fields.push(FieldInfo {
                    name: field.name.clone(),
                    ty,
                });
            }
        }
    }

    fn declare_functions(&mut self, program: &'a ast::Program) {
        for item in &program.items {
            let ast::Item::Fn(decl) = item else { continue };
            let name = &decl.name;
            if BUILTIN_TYPES.contains(&name.name.as_str()) {
                self.error(Diagnostic::new(
                    format!("cannot redefine the built-in type `{}`", name.name),
                    name.span,
                ));
            } else if let Some(&first) = self.fn_ids.get(name.name.as_str()) {
                let first = self.functions[first].decl.name.span;
                self.error(
                    Diagnostic::new(
                        format!("function `{}` is defined more than once", name.name),
                        name.span,
                    )
                    .with_secondary(first, "first defined here"),
                );
            } else {
                self.fn_ids.insert(&name.name, self.functions.next_id());
            }
            let params = decl
                .params
                .iter()
                .map(|(_, ty)| self.resolve_type(ty))
                .collect();
            let ret = match &decl.ret {
                Some(ty) => self.resolve_type(ty),
                None => Some(Type::Void),
            };
            let symbol = self.record.symbol(SymbolKind::Function, name, decl.span);
            self.record.functions.push(symbol);
            self.functions.push(FnInfo { decl, params, ret });
        }
    }

    /// Finds `main` and checks its signature: `fn main()` or `fn main() -> int`.
    fn find_main(&mut self) -> Option<FnId> {
        let Some(&id) = self.fn_ids.get("main") else {
            let note = "a program needs `fn main() { ... }` or `fn main() -> int { ... }`";
            let typo = suggest::closest("main", self.fn_ids.keys().copied());
            let diagnostic = match typo.map(|name| self.functions[self.fn_ids[name]].decl) {
                Some(decl) => Diagnostic::new("no `main` function", decl.name.span)
                    .with_label("did you mean `main`?"),
                None => Diagnostic::new("no `main` function", Span::new(0, 0)),
            };
            self.error(diagnostic.with_note(note));
            return None;
        };
        let decl = self.functions[id].decl;
        let mut ok = true;
        if !decl.params.is_empty() {
            ok = false;
            self.error(
                Diagnostic::new("`main` must not take parameters", decl.params_span)
                    .with_note("program arguments are read with `argc()` and `arg(i)`"),
            );
        }
        if let Some(ret) = &decl.ret
            && !matches!(self.functions[id].ret, Some(Type::Int) | None)
        {
            ok = false;
            self.error(
                Diagnostic::new("`main` must return `int` or nothing", ret.span)
                    .with_label("the result of `main` is the exit status"),
            );
        }
        ok.then_some(id)
    }

    /// Checks global declarations in source order. Annotated globals are usable anywhere;
    /// the type of an unannotated one is known once its initializer has been checked.
    fn check_globals(&mut self, program: &'a ast::Program) -> Vec<Option<typed::Global>> {
        let decls: Vec<&ast::GlobalDecl> = program
            .items
            .iter()
            .filter_map(|item| match item {
                ast::Item::Global(g) => Some(g),
                _ => None,
            })
            .collect();
        let mut annotations = Vec::new();
        for decl in &decls {
            let name = &decl.name;
            if let Some(&first) = self.global_ids.get(name.name.as_str()) {
                let first = decls[first.index()].name.span;
                self.error(
                    Diagnostic::new(
                        format!("global `{}` is defined more than once", name.name),
                        name.span,
                    )
                    .with_secondary(first, "first defined here"),
                );
            } else if let Some(&constant) = self.const_ids.get(name.name.as_str()) {
                let constant = self.consts[constant].decl.name.span;
                self.error(
                    Diagnostic::new(
                        format!(
                            "`{}` is defined both as a global and as a constant",
                            name.name
                        ),
                        name.span,
                    )
                    .with_secondary(constant, "the constant"),
                );
            } else {
                self.global_ids.insert(&name.name, self.globals.next_id());
            }
            let annotation = decl.ty.as_ref().map(|ty| self.resolve_type(ty));
            let ty = match &annotation {
                None => GlobalType::Pending,
                Some(Some(ty)) => GlobalType::Known(ty.clone()),
                Some(None) => GlobalType::Poisoned,
            };
            let symbol = self.record.symbol(SymbolKind::Global, name, decl.span);
            self.record.globals.push(symbol);
            self.globals.push(ty);
            annotations.push(annotation);
        }
        // Constants may name globals only to be told they are not constant: globals first.
        self.evaluate_constants();
        decls
            .iter()
            .zip(annotations)
            .zip(self.globals.ids())
            .map(|((decl, annotation), id)| {
                self.body = Body::default();
                let init = self.initializer(&decl.name, annotation, &decl.init);
                if let GlobalType::Pending = self.globals[id] {
                    self.globals[id] = match &init {
                        Some(init) => GlobalType::Known(init.ty.clone()),
                        None => GlobalType::Poisoned,
                    };
                }
                if let GlobalType::Known(ty) = &self.globals[id] {
                    self.record.index.symbols[self.record.globals[id]].detail = self.type_name(ty);
                }
                let init = init?;
                Some(typed::Global {
                    name: decl.name.name.clone(),
                    ty: init.ty.clone(),
                    init,
                    span: decl.span,
                })
            })
            .collect()
    }

    fn check_function(&mut self, id: FnId) -> Option<typed::Function> {
        let FnInfo { decl, params, ret } = &self.functions[id];
        let (decl, params, ret) = (*decl, params.clone(), ret.clone());
        self.body = Body {
            fn_name: decl.name.name.clone(),
            ret: ret.clone(),
            scopes: vec![HashMap::new()],
            fn_id: Some(id),
            params: decl.params.len(),
            ..Body::default()
        };
        for ((name, _), ty) in decl.params.iter().zip(params) {
            if let (_, Some(previous)) = self.declare_local(name, ty, false) {
                let previous = self.body.locals[previous].span;
                self.error(
                    Diagnostic::new(format!("duplicate parameter `{}`", name.name), name.span)
                        .with_secondary(previous, "first declared here"),
                );
            }
        }
        // The body shares the parameters' scope, as in C: redeclaring a parameter at the top
        // of the body is an error, shadowing it in an inner block is not.
        let stmts = self.check_stmts(&decl.body.stmts);
        if let Some(ret) = &ret
            && *ret != Type::Void
            && self.falls_through(&decl.body.stmts)
        {
            let end = Span::new(decl.body.span.hi as usize - 1, decl.body.span.hi as usize);
            let ret = self.type_name(ret);
            self.error(
                Diagnostic::new(
                    format!(
                        "missing `return`: function `{}` must return a value of type `{ret}` on every path",
                        decl.name.name
                    ),
                    end,
                )
                .with_label("execution can reach the end of the function here"),
            );
        }
        while !self.body.scopes.is_empty() {
            self.close_scope(decl.body.span.hi);
        }
        let body = std::mem::take(&mut self.body);
        let locals = body
            .locals
            .into_iter()
            .map(|l| typed::Local {
                name: l.name,
                ty: l.ty.unwrap_or(Type::Void),
                span: l.span,
            })
            .collect();
        Some(typed::Function {
            name: decl.name.name.clone(),
            params: (0..decl.params.len()).map(LocalId::new).collect(),
            ret: ret?,
            locals,
            body: typed::Block {
                stmts: stmts?,
                span: decl.body.span,
            },
            span: decl.span,
            name_span: decl.name.span,
        })
    }

    /// The initializer of a `let` (local or global), with its optional annotation:
    /// `Some(None)` is an annotation naming a type that does not exist.
    fn initializer(
        &mut self,
        name: &ast::Ident,
        annotation: Option<Option<Type>>,
        init: &ast::Expr,
    ) -> Option<typed::Expr> {
        match annotation {
            Some(Some(ty)) => self.expect(init, &ty),
            Some(None) => {
                self.skim(init);
                None
            }
            None => {
                match &init.unparen().kind {
                    ast::ExprKind::Null => {
                        self.error(Diagnostic::new(
                        format!(
                            "cannot infer the type of `null`: `let {}` needs a type annotation",
                            name.name
                        ),
                        init.span,
                    ).with_note(format!("for example `let {}: Node = null;` where `Node` is a struct", name.name)));
                        None
                    }
                    ast::ExprKind::ArrayLit(elems) if elems.is_empty() => {
                        self.error(Diagnostic::new(
                        format!(
                            "cannot infer the element type of `[]`: `let {}` needs a type annotation",
                            name.name
                        ),
                        init.span,
                    ).with_note(format!("for example `let {}: [int] = [];`", name.name)));
                        None
                    }
                    _ => self.value(init, None),
                }
            }
        }
    }

    fn resolve_type(&mut self, ty: &ast::TypeExpr) -> Option<Type> {
        match &ty.kind {
            ast::TypeKind::Named(name) => match name.as_str() {
                "int" => Some(Type::Int),
                "float" => Some(Type::Float),
                "bool" => Some(Type::Bool),
                "str" => Some(Type::Str),
                _ => match self.struct_ids.get(name.as_str()) {
                    Some(&id) => {
                        self.record_struct_use(ty.span, id);
                        Some(Type::Struct(id))
                    }
                    None => {
                        let candidates = BUILTIN_TYPES
                            .iter()
                            .copied()
                            .chain(self.struct_ids.keys().copied());
                        let hint = match suggest::type_in_other_languages(name) {
                            Some(pl) => format!(" — PL writes `{pl}`"),
                            None => self.suggest.did_you_mean(name, candidates),
                        };
                        self.error(Diagnostic::new(
                            format!("cannot find type `{name}`{hint}"),
                            ty.span,
                        ));
                        None
                    }
                },
            },
            ast::TypeKind::Array(elem) => Some(Type::Array(Box::new(self.resolve_type(elem)?))),
            ast::TypeKind::Map(key, value) => {
                let key_type = self.resolve_type(key);
                let value = self.resolve_type(value);
                let key_type = key_type?;
                if !matches!(key_type, Type::Int | Type::Str) {
                    let name = self.type_name(&key_type);
                    self.error(
                        Diagnostic::new(format!("a map key cannot be of type `{name}`"), key.span)
                            .with_note("map keys are `int` or `str`"),
                    );
                    return None;
                }
                Some(Type::Map(Box::new(key_type), Box::new(value?)))
            }
            ast::TypeKind::Error => None,
        }
    }

    /// A type as written in PL.
    fn type_name(&self, ty: &Type) -> String {
        match ty {
            Type::Int => "int".to_string(),
            Type::Float => "float".to_string(),
            Type::Bool => "bool".to_string(),
            Type::Str => "str".to_string(),
            Type::Array(elem) => format!("[{}]", self.type_name(elem)),
            Type::Map(key, value) => {
                format!("map[{}]{}", self.type_name(key), self.type_name(value))
            }
            Type::Struct(id) => self.structs[*id].name.clone(),
            Type::Null => "null".to_string(),
            Type::Void => "()".to_string(),
        }
    }

    fn mismatch(&mut self, expected: &Type, found: &Type, span: Span) {
        let found = self.type_name(found);
        self.mismatch_found(expected, &format!("`{found}`"), span);
    }

    /// `found` is already formatted (with its backticks).
    fn mismatch_found(&mut self, expected: &Type, found: &str, span: Span) {
        let expected = self.type_name(expected);
        self.error(
            Diagnostic::new(
                format!("mismatched types: expected `{expected}`, found {found}"),
                span,
            )
            .with_label(format!("expected `{expected}`")),
        );
    }

    /// Checks an argument count against what a function accepts; on a mismatch, reports it
    /// and still checks the arguments for errors of their own.
    fn arity_ok(
        &mut self,
        name: &str,
        accepted: std::ops::RangeInclusive<usize>,
        args: &[ast::Expr],
        span: Span,
    ) -> bool {
        if accepted.contains(&args.len()) {
            return true;
        }
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let takes = if accepted.start() == accepted.end() {
            let n = *accepted.start();
            format!("{n} argument{}", plural(n))
        } else {
            format!("{} or {} arguments", accepted.start(), accepted.end())
        };
        let supplied = match args.len() {
            1 => "1 was supplied".to_string(),
            n => format!("{n} were supplied"),
        };
        let mut diagnostic = Diagnostic::new(
            format!("function `{name}` takes {takes} but {supplied}"),
            span,
        );
        if let Some(&id) = self.fn_ids.get(name) {
            diagnostic =
                diagnostic.with_secondary(self.functions[id].decl.name.span, "defined here");
        }
        self.error(diagnostic);
        for arg in args {
            self.skim(arg);
        }
        false
    }
}
