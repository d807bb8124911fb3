//! What each function may store to globals and struct fields, itself or through the functions
//! it calls: what a call may change, for the passes that keep a loaded value across one.

use std::collections::BTreeSet;

use crate::mir::{FnId, GlobalId, IdVec, Program, StatementKind, StructId};

/// Globals and struct fields (of any object) that code may store.
#[derive(Clone, Default, PartialEq)]
pub struct Stores {
    pub globals: BTreeSet<GlobalId>,
    pub fields: BTreeSet<(StructId, usize)>,
}

impl Stores {
    /// Adds the stores `kind` makes, counting a call as the stores of its callee (`callee`).
    pub fn add(&mut self, kind: &StatementKind, callee: &dyn Fn(FnId) -> Stores) {
        match kind {
            StatementKind::SetGlobal(g, _) => {
                self.globals.insert(*g);
            }
            StatementKind::SetField { strukt, field, .. } => {
                self.fields.insert((*strukt, *field));
            }
            _ => {
                if let Some(f) = kind.called_function() {
                    let theirs = callee(f);
                    self.globals.extend(theirs.globals);
                    self.fields.extend(theirs.fields);
                }
            }
        }
    }
}

/// What each function may store, itself or through the functions it calls (a fixed point
/// over the call graph).
pub fn stores(program: &Program) -> IdVec<FnId, Stores> {
    let mut stores: IdVec<FnId, Stores> =
        IdVec::from_elem(Stores::default(), program.functions.len());
    let mut changed = true;
    while changed {
        changed = false;
        for (id, func) in program.functions.iter_enumerated() {
            let mut s = Stores::default();
            for stmt in func.blocks.iter().flat_map(|b| &b.stmts) {
                s.add(&stmt.kind, &|f| stores[f].clone());
            }
            if s != stores[id] {
                stores[id] = s;
                changed = true;
            }
        }
    }
    stores
}
