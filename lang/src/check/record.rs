//! Records the [`Index`] an editor needs while the checker resolves names: each declaration
//! becomes a symbol, each resolved name a use of one.

use super::Checker;
use crate::ast;
use crate::id::IdVec;
use crate::index::{Index, Symbol, SymbolId, SymbolKind};
use crate::span::Span;
use crate::typed::{FnId, GlobalId, StructId, Type};

/// The index being built, and which symbol each declaration of the checker is.
#[derive(Default)]
pub(super) struct Recorder {
    pub index: Index,
    /// By position in `Checker::structs` (every declaration, duplicates too).
    pub structs: IdVec<StructId, SymbolId>,
    /// By struct, then field position.
    pub fields: IdVec<StructId, Vec<SymbolId>>,
    pub functions: IdVec<FnId, SymbolId>,
    pub globals: IdVec<GlobalId, SymbolId>,
}

impl Recorder {
    pub fn symbol(&mut self, kind: SymbolKind, name: &ast::Ident, decl_span: Span) -> SymbolId {
        self.index.symbols.push(Symbol {
            name: name.name.clone(),
            kind,
            span: name.span,
            decl_span,
            detail: "?".to_string(),
            scope: Span::new(0, u32::MAX as usize),
            parent: None,
        });
        self.index.symbols.len() - 1
    }

    pub fn use_of(&mut self, span: Span, symbol: SymbolId) {
        self.index.uses.push((span, symbol));
    }
}

impl Checker<'_> {
    /// A type as written in PL, or `?` when unknown.
    pub(super) fn detail(&self, ty: Option<&Type>) -> String {
        ty.map_or("?".to_string(), |ty| self.type_name(ty))
    }

    /// Gives struct and function symbols their signatures, once every type is resolved.
    pub(super) fn record_signatures(&mut self) {
        for (id, strukt) in self.structs.iter_enumerated() {
            let fields: Vec<String> = strukt
                .fields
                .iter()
                .map(|f| format!("{}: {}", f.name, self.detail(f.ty.as_ref())))
                .collect();
            for (&symbol, f) in self.record.fields[id].iter().zip(&strukt.fields) {
                self.record.index.symbols[symbol].detail = self.detail(f.ty.as_ref());
            }
            let symbol = self.record.structs[id];
            self.record.index.symbols[symbol].detail =
                format!("struct {} {{ {} }}", strukt.name, fields.join(", "));
        }
        for (id, f) in self.functions.iter_enumerated() {
            let params: Vec<String> = f
                .decl
                .params
                .iter()
                .zip(&f.params)
                .map(|((name, _), ty)| format!("{}: {}", name.name, self.detail(ty.as_ref())))
                .collect();
            let ret = match &f.ret {
                Some(Type::Void) => String::new(),
                ret => format!(" -> {}", self.detail(ret.as_ref())),
            };
            let symbol = self.record.functions[id];
            self.record.index.symbols[symbol].detail =
                format!("fn {}({}){ret}", f.decl.name.name, params.join(", "));
        }
    }

    /// Records a local (or parameter) of the function being checked; its scope starts after
    /// its name and ends when [`Checker::close_scope`] closes its block.
    pub(super) fn record_local(&mut self, name: &ast::Ident, ty: Option<&Type>) -> SymbolId {
        let kind = if self.body.locals.len() < self.body.params {
            SymbolKind::Parameter
        } else {
            SymbolKind::Local
        };
        let detail = self.detail(ty);
        let parent = self.body.fn_id.map(|id| self.record.functions[id]);
        let symbol = self.record.symbol(kind, name, name.span);
        let entry = &mut self.record.index.symbols[symbol];
        entry.detail = detail;
        entry.parent = parent;
        entry.scope = Span::new(name.span.hi as usize, u32::MAX as usize);
        symbol
    }

    /// Pops the innermost scope, whose locals can be named up to `end`.
    pub(super) fn close_scope(&mut self, end: u32) {
        if let Some(scope) = self.body.scopes.pop() {
            for id in scope.into_values() {
                let symbol = self.body.locals[id].symbol;
                self.record.index.symbols[symbol].scope.hi = end;
            }
        }
    }

    pub(super) fn record_struct_use(&mut self, span: Span, id: StructId) {
        let symbol = self.record.structs[id];
        self.record.use_of(span, symbol);
    }

    pub(super) fn record_field_use(&mut self, span: Span, strukt: StructId, field: usize) {
        if let Some(&symbol) = self.record.fields[strukt].get(field) {
            self.record.use_of(span, symbol);
        }
    }

    pub(super) fn record_fn_use(&mut self, span: Span, id: FnId) {
        let symbol = self.record.functions[id];
        self.record.use_of(span, symbol);
    }

    pub(super) fn record_global_use(&mut self, span: Span, id: GlobalId) {
        let symbol = self.record.globals[id];
        self.record.use_of(span, symbol);
    }
}
