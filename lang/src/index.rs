//! What an editor asks of a program: every declared name (a [`Symbol`]) with its span, kind and
//! type, and every use of one. The checker records it while it resolves names, so the language
//! server never resolves a name itself; it is built even when the program has errors.

use crate::span::Span;

/// Index into [`Index::symbols`].
pub type SymbolId = usize;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Function,
    Struct,
    Field,
    Global,
    Parameter,
    Local,
}

#[derive(Clone, Debug)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    /// The name where it is declared.
    pub span: Span,
    /// The whole declaration (a local's or parameter's is its name).
    pub decl_span: Span,
    /// Its type (`int`, `[Node]`; `?` when unknown), or a function's or struct's signature.
    pub detail: String,
    /// Where a local or parameter can be named: from its declaration to the end of its
    /// scope. The whole file for every other kind.
    pub scope: Span,
    /// The function a local or parameter belongs to, the struct a field belongs to.
    pub parent: Option<SymbolId>,
}

#[derive(Clone, Debug, Default)]
pub struct Index {
    pub symbols: Vec<Symbol>,
    /// Every use of a symbol (not its declaration), in the order met.
    pub uses: Vec<(Span, SymbolId)>,
}

impl Index {
    /// The symbol declared or used at byte `offset` (spans are half-open, but a cursor just
    /// after a name is on it).
    pub fn symbol_at(&self, offset: u32) -> Option<SymbolId> {
        let on = |span: &Span| span.lo <= offset && offset <= span.hi;
        self.uses
            .iter()
            .find(|(span, _)| on(span))
            .map(|&(_, id)| id)
            .or_else(|| self.symbols.iter().position(|s| on(&s.span)))
    }

    /// The declaration and every use of a symbol, declaration first.
    pub fn occurrences(&self, id: SymbolId) -> Vec<Span> {
        let mut spans = vec![self.symbols[id].span];
        spans.extend(self.uses.iter().filter(|u| u.1 == id).map(|u| u.0));
        spans
    }

    /// The symbols that can be named at `offset`: the locals and parameters whose scope holds
    /// it (the innermost of a name only) and every function, struct and global.
    pub fn visible_at(&self, offset: u32) -> Vec<SymbolId> {
        let mut visible: Vec<SymbolId> = Vec::new();
        // Later declarations of a name shadow earlier ones: walk them last to first.
        for (id, symbol) in self.symbols.iter().enumerate().rev() {
            let in_scope = match symbol.kind {
                SymbolKind::Local | SymbolKind::Parameter => {
                    symbol.scope.lo <= offset && offset <= symbol.scope.hi
                }
                SymbolKind::Field => false,
                _ => true,
            };
            let shadowed = visible.iter().any(|&v| {
                let other = &self.symbols[v];
                other.name == symbol.name && namespace(other.kind) == namespace(symbol.kind)
            });
            if in_scope && !shadowed {
                visible.push(id);
            }
        }
        visible.reverse();
        visible
    }
}

/// Variables, functions and structs have names of their own: a local hides only a variable.
fn namespace(kind: SymbolKind) -> u8 {
    match kind {
        SymbolKind::Function => 0,
        SymbolKind::Struct => 1,
        _ => 2,
    }
}
