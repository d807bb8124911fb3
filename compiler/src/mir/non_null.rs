//! Which struct locals are known to be non-null where: tested against null by the branch that
//! led here, accessed already (a field read or write that did not stop the program), or just
//! allocated. A forward must-analysis over the CFG, whose facts are about each local's original
//! (`mir::copies`): what one copy of an argument learns holds for the others. `-O 2`'s counter
//! promotion and merging ask it which field accesses cannot fail (`opt/counters.rs`,
//! `opt/merge_counts.rs`), and code generation leaves their null checks out.

use std::collections::BTreeSet;

use super::{
    BlockId, Callee, Const, FnId, Function, IdVec, LocalId, Operand, Program, Rvalue,
    StatementKind, TerminatorKind, Type,
};
use crate::mir::BinOp;

/// What a function's blocks know at their start: the non-null locals, each fact held by a
/// local's original (`mir::copies`), so that a copy made by inlining shares it.
pub struct NonNull {
    at_entry: IdVec<BlockId, Option<BTreeSet<LocalId>>>,
    originals: IdVec<LocalId, LocalId>,
}

/// The non-null locals at one point of a block, by original.
pub struct Known<'a> {
    set: BTreeSet<LocalId>,
    originals: &'a IdVec<LocalId, LocalId>,
}

impl NonNull {
    /// The forward must-analysis of `func`.
    pub fn of(func: &Function) -> NonNull {
        NonNull::with_params(func, &BTreeSet::new())
    }

    /// The same, given that the parameters `params` are non-null when `func` is entered
    /// ([`non_null_params`]).
    pub fn with_params(func: &Function, params: &BTreeSet<LocalId>) -> NonNull {
        let originals = super::copies::originals(func);
        let at_entry = at_entry(func, &originals, params);
        NonNull {
            at_entry,
            originals,
        }
    }

    /// What is known at the start of block `b` (nothing if it is unreachable).
    pub fn at_start(&self, b: BlockId) -> Known<'_> {
        Known {
            set: self.at_entry[b].clone().unwrap_or_default(),
            originals: &self.originals,
        }
    }

    /// The local whose value `local` holds wherever it is read.
    pub fn original(&self, local: LocalId) -> LocalId {
        self.originals[local]
    }
}

impl Known<'_> {
    /// Whether `local` is known to be non-null here.
    pub fn contains(&self, local: LocalId) -> bool {
        self.set.contains(&self.originals[local])
    }

    /// Whether the null check `kind` makes, if any, is known to pass.
    pub fn passes_null_check(&self, kind: &StatementKind) -> bool {
        null_checked(kind).is_some_and(|o| self.contains(o))
    }

    /// The originals known to be non-null here.
    pub fn originals(&self) -> impl Iterator<Item = LocalId> + '_ {
        self.set.iter().copied()
    }

    /// What is known after `kind`, if it does not stop the program.
    pub fn step(&mut self, kind: &StatementKind) {
        step(&mut self.set, self.originals, kind);
    }
}

/// Per block, the originals non-null at its start (`None`: unreachable), `params` at the entry.
fn at_entry(
    func: &Function,
    originals: &IdVec<LocalId, LocalId>,
    params: &BTreeSet<LocalId>,
) -> IdVec<BlockId, Option<BTreeSet<LocalId>>> {
    let order = func.reverse_postorder();
    let preds = func.predecessors();
    let mut entry: IdVec<BlockId, Option<BTreeSet<LocalId>>> =
        IdVec::from_elem(None, func.blocks.len());
    let mut at_end: IdVec<BlockId, Option<BTreeSet<LocalId>>> =
        IdVec::from_elem(None, func.blocks.len());
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            // The intersection over the edges already visited: an edge not yet visited adds
            // no constraint until it is (optimistic, so that loops keep their facts).
            let mut known: Option<BTreeSet<LocalId>> = (b == super::ENTRY).then(|| params.clone());
            for &p in &preds[b] {
                let Some(end) = &at_end[p] else { continue };
                let mut on_edge = end.clone();
                on_edge.extend(tested_non_null(func, originals, p, b));
                known = Some(match known {
                    None => on_edge,
                    Some(k) => k.intersection(&on_edge).copied().collect(),
                });
            }
            let Some(known) = known else { continue };
            let mut end = known.clone();
            for stmt in &func.blocks[b].stmts {
                step(&mut end, originals, &stmt.kind);
            }
            if entry[b].as_ref() != Some(&known) || at_end[b].as_ref() != Some(&end) {
                entry[b] = Some(known);
                at_end[b] = Some(end);
                changed = true;
            }
        }
    }
    entry
}

/// The non-null originals after `kind`, given those before it (`known`), if it does not stop
/// the program. A copy's assignment changes nothing: it holds its original's value.
fn step(known: &mut BTreeSet<LocalId>, originals: &IdVec<LocalId, LocalId>, kind: &StatementKind) {
    if let Some(object) = null_checked(kind) {
        known.insert(originals[object]);
    }
    let Some(dest) = kind.dest() else { return };
    if originals[dest] != dest {
        return;
    }
    let non_null = match kind {
        StatementKind::Assign(_, Rvalue::New { .. }) => true,
        StatementKind::Assign(_, Rvalue::Use(Operand::Local(x))) => known.contains(&originals[*x]),
        _ => false,
    };
    if non_null {
        known.insert(dest);
    } else {
        known.remove(&dest);
    }
}

/// Per function, its struct parameters that every call in the program passes a value known
/// non-null at the call (`self` of a method whose callers have used it already: AWFY Queens'
/// recursive `place_queen` tested `self` in every iteration of its loop). The greatest fixed
/// point over the call graph: every parameter is assumed non-null, and one a call may pass null
/// is dropped, until no call can; sound because every activation but `main`'s and the
/// initializer's (which take no struct) was called from one whose assumed facts held, by
/// induction on the call stack.
pub fn non_null_params(program: &Program) -> IdVec<FnId, BTreeSet<LocalId>> {
    let mut params: IdVec<FnId, BTreeSet<LocalId>> = (program.functions.iter())
        .map(|f| {
            let structs = f
                .params
                .iter()
                .filter(|&&p| matches!(f.locals[p].ty, Type::Struct(_)));
            structs.copied().collect()
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (id, func) in program.functions.iter_enumerated() {
            let facts = NonNull::with_params(func, &params[id]);
            for b in func.blocks.ids() {
                let mut known = facts.at_start(b);
                for stmt in &func.blocks[b].stmts {
                    if let StatementKind::Call {
                        callee: Callee::Function(callee),
                        args,
                        ..
                    } = &stmt.kind
                    {
                        let callee_params = &program.functions[*callee].params;
                        for (param, arg) in callee_params.iter().zip(args) {
                            let non_null = match arg {
                                Operand::Local(l) => known.contains(*l),
                                Operand::Const(_) => false,
                            };
                            if !non_null && params[*callee].remove(param) {
                                changed = true;
                            }
                        }
                    }
                    known.step(&stmt.kind);
                }
            }
        }
    }
    params
}

/// The local whose null check `kind` makes: the object of a field read or write.
pub fn null_checked(kind: &StatementKind) -> Option<LocalId> {
    match kind {
        StatementKind::Assign(
            _,
            Rvalue::Field {
                object: Operand::Local(object),
                ..
            },
        )
        | StatementKind::SetField {
            object: Operand::Local(object),
            ..
        } => Some(*object),
        _ => None,
    }
}

/// The local that block `d`'s branch proves non-null on its edge to `b`: `x` when `d` ends in
/// `branch c ? b : _` after `c = x != null` (or in `branch c ? _ : b` after `c = x == null`),
/// and nothing assigns `x` after that test; by its original.
fn tested_non_null(
    func: &Function,
    originals: &IdVec<LocalId, LocalId>,
    d: BlockId,
    b: BlockId,
) -> Option<LocalId> {
    let TerminatorKind::Branch {
        cond: Operand::Local(c),
        then_bb,
        else_bb,
    } = func.blocks[d].term.kind
    else {
        return None;
    };
    if then_bb == else_bb {
        return None;
    }
    let stmts = &func.blocks[d].stmts;
    let test = stmts.iter().rposition(|s| s.kind.dest() == Some(c))?;
    let StatementKind::Assign(_, Rvalue::Binary(op, lhs, rhs)) = &stmts[test].kind else {
        return None;
    };
    let object = match (lhs, rhs) {
        (Operand::Local(x), Operand::Const(Const::Null))
        | (Operand::Const(Const::Null), Operand::Local(x)) => *x,
        _ => return None,
    };
    let proves = match op {
        BinOp::Ne => then_bb == b,
        BinOp::Eq => else_bb == b,
        _ => false,
    };
    let object = originals[object];
    let reassigned = stmts[test..].iter().any(|s| s.kind.dest() == Some(object));
    (proves && !reassigned).then_some(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The locals non-null where `f` of `source` (as lowered) reads field `next` of one of
    /// them, by the name of the local read.
    fn known_at_reads(source: &str) -> Vec<(String, bool)> {
        let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
        let program = crate::lower::lower_program(&typed);
        let func = program.functions.iter().find(|f| f.name == "f").unwrap();
        let non_null = NonNull::of(func);
        let mut reads = Vec::new();
        for (b, block) in func.blocks.iter_enumerated() {
            let mut known = non_null.at_start(b);
            for stmt in &block.stmts {
                if let Some(object) = null_checked(&stmt.kind) {
                    let name = func.locals[object].name.clone().unwrap_or_default();
                    reads.push((name, known.contains(object)));
                }
                known.step(&stmt.kind);
            }
        }
        reads.sort();
        reads
    }

    #[test]
    fn parameters_every_call_passes_non_null_are_non_null_at_entry() {
        // `walk` recurses with `s`, which it has read already; `main` passes a new object to
        // `walk` and `look`, but `look` is also called with `s.next`, which may be null, and
        // `first` with the result of a call.
        let source = "struct S { n: int, next: S }
             fn walk(s: S, k: int) -> int { if k == 0 { return s.n; } look(s.next); \
             return walk(s, k - 1); }
             fn look(s: S) -> int { return s.n; }
             fn first(s: S) -> int { return s.n; }
             fn make() -> S { return new S { n: 1, next: null }; }
             fn main() { let s = new S { n: 1, next: null }; \
             println(walk(s, 3), look(s), first(make())); }";
        let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
        let program = crate::lower::lower_program(&typed);
        let params = non_null_params(&program);
        let non_null = |name: &str| {
            let (id, func) = (program.functions.iter_enumerated())
                .find(|(_, f)| f.name == name)
                .unwrap();
            params[id].contains(&func.params[0])
        };
        assert!(non_null("walk"));
        assert!(!non_null("look"));
        assert!(!non_null("first"));
    }

    #[test]
    fn a_null_test_on_every_edge_and_an_earlier_access_prove_non_null() {
        // `b` is tested by the loop's condition on both edges into its body; `a` by the `if`
        // only on the path that reads it; `c` is read twice, the second time after the first.
        let reads = known_at_reads(
            "struct E { next: E }
             fn f(x: E, y: E, z: E) -> int {
                 let a = x; let b = y; let c = z;
                 while b != null {
                     if a == null { return 1; }
                     a = a.next;
                     b = b.next;
                 }
                 let d = c.next;
                 d = c.next;
                 return 0;
             }
             fn main() { println(f(null, null, null)); }",
        );
        let expected = [("a", true), ("b", true), ("c", false), ("c", true)];
        assert_eq!(reads, expected.map(|(n, k)| (n.to_string(), k)));
    }

    #[test]
    fn an_assignment_forgets_what_was_known() {
        // After `a = a.next`, the new `a` may be null: the loop's second read is unproven.
        let reads = known_at_reads(
            "struct E { next: E }
             fn f(x: E) -> int {
                 let a = x;
                 if a != null {
                     a = a.next;
                     a = a.next;
                 }
                 return 0;
             }
             fn main() { println(f(null)); }",
        );
        let expected = [("a", false), ("a", true)];
        assert_eq!(reads, expected.map(|(n, k)| (n.to_string(), k)));
    }
}
