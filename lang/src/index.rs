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
    Const,
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

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "struct P { x: int }
let G = 2;
fn f(a: int) -> int {
    let b = a + G;
    {
        let b = new P { x: b };
        return b.x;
    }
}
fn main() { println(f(1)); }
";

    fn offset(needle: &str, nth: usize) -> u32 {
        SOURCE.match_indices(needle).nth(nth).expect(needle).0 as u32
    }

    fn symbol<'a>(index: &'a Index, needle: &str, nth: usize) -> &'a Symbol {
        &index.symbols[index.symbol_at(offset(needle, nth)).expect(needle)]
    }

    #[test]
    fn names_resolve_to_their_declarations() {
        let (checked, index) = crate::analyze("t.pl", SOURCE);
        assert!(checked.is_ok());
        let inner_b = symbol(&index, "b.x", 0);
        assert_eq!(
            (inner_b.kind, inner_b.detail.as_str(), inner_b.span.lo),
            (SymbolKind::Local, "P", offset("b = new", 0))
        );
        // `{ x: b }` is the outer `b`: the inner one is declared after its initializer.
        let outer_b = symbol(&index, "b }", 0);
        assert_eq!(
            (outer_b.detail.as_str(), outer_b.span.lo),
            ("int", offset("b = a", 0))
        );
        assert_eq!(symbol(&index, "a + G", 0).kind, SymbolKind::Parameter);
        assert_eq!(symbol(&index, "G;", 0).detail, "int");
        assert_eq!(symbol(&index, "x: int", 0).detail, "int");
        assert_eq!(symbol(&index, "f(1)", 0).detail, "fn f(a: int) -> int");
        assert_eq!(symbol(&index, "P {", 1).detail, "struct P { x: int }");
        let field = index.symbol_at(offset("x: b", 0)).unwrap();
        let uses: Vec<u32> = index.occurrences(field).iter().map(|s| s.lo).collect();
        assert_eq!(
            uses,
            [offset("x: int", 0), offset("x: b", 0), offset("x;", 0)]
        );
    }

    #[test]
    fn scopes_end_with_their_blocks() {
        let (_, index) = crate::analyze("t.pl", SOURCE);
        let names = |at: u32| -> Vec<String> {
            let mut names: Vec<String> = index
                .visible_at(at)
                .into_iter()
                .map(|id| format!("{}:{}", index.symbols[id].name, index.symbols[id].detail))
                .collect();
            names.sort();
            names
        };
        // In the inner block, the inner `b` hides the outer one.
        assert!(names(offset("return", 0)).contains(&"b:P".to_string()));
        assert!(!names(offset("return", 0)).contains(&"b:int".to_string()));
        assert_eq!(
            names(offset("println", 0)),
            [
                "G:int",
                "P:struct P { x: int }",
                "f:fn f(a: int) -> int",
                "main:fn main()"
            ]
        );
    }

    #[test]
    fn an_index_survives_syntax_errors() {
        // The items before and after a broken one are indexed; the broken one is not.
        let source =
            "fn f(a: int) -> int { return a; }\nfn g() { let x = ; }\nfn main() { f(1); }\n";
        let (checked, index) = crate::analyze("t.pl", source);
        assert!(checked.is_err());
        let call = source.find("f(1)").unwrap() as u32;
        assert_eq!(
            index.symbols[index.symbol_at(call).unwrap()].detail,
            "fn f(a: int) -> int"
        );
        let a = source.find("a;").unwrap() as u32;
        assert_eq!(
            index.symbols[index.symbol_at(a).unwrap()].kind,
            SymbolKind::Parameter
        );
        assert!(index.symbols.iter().all(|s| s.name != "g"));
    }
}
