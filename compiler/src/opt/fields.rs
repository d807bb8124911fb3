//! Redundant field loads (issue 17's item 3, on MIR): a field of an object read again, with no
//! store to that field of any object and no call that may store it in between, reuses the
//! local the earlier read, or the store, left its value in. Cranelift could merge the two loads
//! (their alias regions say what a store between them can change) but not the null checks that
//! come with each: the second is on a value it cannot prove equal to the first. A copy has no
//! check, and the first read checked the same object, so a null object still fails there,
//! first, with the same message; the copy never runs.
//!
//! Known values flow through the CFG as available expressions do: a block starts with what
//! holds at the end of all its predecessors, so a loop's test (`while s.current != null`) and
//! its body's reads (`s.current.link`) share one load, the latch's included.

use std::collections::BTreeMap;

use super::stores::{Stores, stores};
use crate::mir::{
    BlockId, ENTRY, FnId, Function, IdVec, LocalId, Operand, Program, Rvalue, StatementKind,
    StructId,
};

pub fn reuse_field_loads(program: &mut Program) {
    let stores = stores(program);
    for func in program.functions.iter_mut() {
        reuse_in(func, &stores);
    }
}

/// Per field of an object (its local, the struct and field), a local that holds its value.
type Known = BTreeMap<(LocalId, StructId, usize), LocalId>;

fn reuse_in(func: &mut Function, stores: &IdVec<FnId, Stores>) {
    // Available values (the dataflow of available expressions, optimistic at loop headers):
    // what holds at a block's start is what holds at the end of every predecessor; `None`
    // until a block is first visited.
    let preds = func.predecessors();
    let rpo = func.reverse_postorder();
    let mut at_end: IdVec<BlockId, Option<Known>> = IdVec::from_elem(None, func.blocks.len());
    let at_start = |b: BlockId, at_end: &IdVec<BlockId, Option<Known>>| -> Known {
        if b == ENTRY {
            return Known::new();
        }
        let mut ends = preds[b].iter().filter_map(|&p| at_end[p].as_ref());
        let mut known = ends.next().cloned().unwrap_or_default();
        for end in ends {
            known.retain(|key, holder| end.get(key) == Some(holder));
        }
        known
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &rpo {
            let mut known = at_start(b, &at_end);
            for stmt in &func.blocks[b].stmts {
                step(&mut known, &stmt.kind, stores);
            }
            if at_end[b].as_ref() != Some(&known) {
                at_end[b] = Some(known);
                changed = true;
            }
        }
    }
    for &b in &rpo {
        let mut known = at_start(b, &at_end);
        for stmt in &mut func.blocks[b].stmts {
            if let Some(holder) = step(&mut known, &stmt.kind, stores)
                && let StatementKind::Assign(_, rvalue) = &mut stmt.kind
            {
                *rvalue = Rvalue::Use(Operand::Local(holder));
            }
        }
    }
}

/// Updates `known` past the statement `kind`; returns the local that already holds the field
/// it reads, if it reads one that is known.
fn step(known: &mut Known, kind: &StatementKind, stores: &IdVec<FnId, Stores>) -> Option<LocalId> {
    match kind {
        StatementKind::Assign(
            dest,
            Rvalue::Field {
                object: Operand::Local(object),
                strukt,
                field,
            },
        ) => {
            let key = (*object, *strukt, *field);
            let holder = known.get(&key).copied();
            assigned(known, *dest);
            if object != dest {
                known.insert(key, *dest);
            }
            holder
        }
        StatementKind::Assign(dest, Rvalue::Use(Operand::Local(src))) if src != dest => {
            assigned(known, *dest);
            // The copy holds the value too; preferring the newer name lets a loop's values meet
            // at its header, where the loop copies them into the variables its test reads.
            for holder in known.values_mut().filter(|holder| **holder == *src) {
                *holder = *dest;
            }
            None
        }
        StatementKind::SetField {
            object,
            strukt,
            field,
            value,
        } => {
            // Any object's: `object` may be another local's object too.
            known.retain(|&(_, s, f), _| (s, f) != (*strukt, *field));
            if let (Operand::Local(object), Operand::Local(value)) = (object, value) {
                known.insert((*object, *strukt, *field), *value);
            }
            None
        }
        kind => {
            if let Some(callee) = kind.called_function() {
                let stored = &stores[callee].fields;
                known.retain(|&(_, s, f), _| !stored.contains(&(s, f)));
            }
            if let Some(dest) = kind.dest() {
                assigned(known, dest);
            }
            None
        }
    }
}

/// Forgets what assigning `local` makes stale: fields of the object it held, and values it held.
fn assigned(known: &mut Known, local: LocalId) {
    known.retain(|&(object, ..), &mut holder| object != local && holder != local);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opt::testing::{lower, text};

    fn reused(source: &str, name: &str) -> String {
        let mut program = lower(source);
        reuse_field_loads(&mut program);
        text(&program, source, name)
    }

    #[test]
    fn a_field_read_again_reuses_the_read_on_every_way_in() {
        let source = "\
struct S { cur: S, n: int }
fn walk(s: S) -> int {
    let k = 0;
    while s.cur != null {
        k += s.cur.n;
        s.cur = s.cur.cur;
    }
    return k;
}
fn main() { println(walk(new S { cur: null, n: 1 })); }
";
        let text = reused(source, "walk");
        // The test reads `s.cur` into `_2`, at the entry and again at the latch, where the
        // store's value is copied into `_2`: the body's two reads of `s.cur` reuse it.
        assert_eq!(text.matches("= _0.cur ").count(), 1, "{text}");
        assert!(text.contains("_4 = _2 "), "{text}");
    }

    #[test]
    fn stores_to_the_field_calls_that_may_store_it_and_reassignments_forget_it() {
        let source = "\
struct S { a: int, b: int }
fn set_a(s: S) { s.a = 5; }
fn set_b(s: S) { s.b = 5; }
fn f(s: S, t: S) -> int {
    let x = s.a;
    t.a = 1;
    let y = s.a;
    set_b(s);
    let z = s.a;
    set_a(t);
    let w = s.a;
    s = t;
    let v = s.a;
    return x + y + z + w + v;
}
fn main() { let s = new S { a: 1, b: 2 }; println(f(s, s)); }
";
        let text = reused(source, "f");
        // Read for `x`; again after `t.a = 1` (`t` may be `s`) for `y`; `z` reuses that read
        // (`set_b` stores no `a`); read again after `set_a`, and after `s` is reassigned.
        assert_eq!(text.matches("= _0.a ").count(), 4, "{text}");
        assert!(text.contains("_9 = _3 "), "{text}");
    }

    /// The pass on a whole function, as `--emit mir` shows it (`UPDATE_EXPECT=1` rewrites the
    /// snapshot): the second read of `p.x` reuses the first.
    #[test]
    fn snapshot() {
        let source = "struct P { x: int }\nfn f(p: P) -> int { return p.x * p.x; }\n\
                      fn main() { println(f(new P { x: 2 })); }";
        expect_test::expect![[r#"
            before:
            fn f(_0: P) -> int {
                let _1: int;
                let _2: int;
                let _3: int;
              bb0:
                _1 = _0.x
                _2 = _0.x
                _3 = _1 * _2
                return _3
            }
            after:
            fn f(_0: P) -> int {
                let _1: int;
                let _2: int;
                let _3: int;
              bb0:
                _1 = _0.x
                _2 = _1
                _3 = _1 * _2
                return _3
            }
        "#]]
        .assert_eq(&crate::opt::testing::program_before_and_after(
            source,
            "f",
            reuse_field_loads,
        ));
    }
}
