//! Activation regions: a function whose objects cannot outlive its activation gives their memory
//! back when it returns.
//!
//! PL never frees (its heap is a bump allocator, `pcc_stdlib::heap`), so a function that builds a
//! scratch array on every call, such as AWFY's `Sieve` benchmark, touches fresh memory on every
//! call, and the kernel's page zeroing becomes most of its run time. This pass is the cheapest
//! useful escape analysis (the question of [CGS99]: may an object outlive the activation that
//! allocated it?), answered for a whole activation at once, interprocedurally:
//! an object allocated while `f` runs (by `f` or by its callees) is garbage when `f` returns if
//! - `f` returns no reference (its result cannot be one of them), and
//! - neither `f` nor any function it can call, transitively, stores a reference into a global, an
//!   array element or a struct field, except into an object the storing function allocated itself
//!   (so none of them can be linked from an older object or a global: an object built with
//!   references to them, `[a, b]` or `new P { next: a }`, or linked to them by its maker, as a list
//!   node is by `make_list`, is itself one of them, allocated during `f`'s activation).
//!
//! Such a function takes a mark of the heap on entry and releases it before each return
//! (`Callee::Region`; the runtime keeps the marks on a stack, so every path from a mark must pass
//! one release, or end the program). The pass runs before inlining, so an inlined callee brings its bracket
//! along, and a loop that calls it releases its scratch memory on every iteration. `main` and the
//! initializer are left alone: the program ends when they return. A runtime error or `exit()`
//! skips the release, which is harmless.

use crate::mir::{
    Callee, ENTRY, FnId, Function, IdVec, LocalDecl, LocalId, Operand, Program, RegionOp, Rvalue,
    Statement, StatementKind, TerminatorKind,
};

pub fn free_activation_regions(program: &mut Program) {
    let stores = stores_references(program);
    let ids: Vec<FnId> = program.functions.ids().collect();
    for f in ids {
        let func = &program.functions[f];
        if f != program.main
            && f != program.init
            && !func.ret.is_reference()
            && !stores[f]
            && allocates(func)
            && !entered_again(func)
        {
            bracket(&mut program.functions[f]);
        }
    }
}

/// Whether a jump leads back to the entry block: a mark there would be taken more than once per
/// activation, and the runtime's marks are paired with releases.
fn entered_again(func: &Function) -> bool {
    func.blocks
        .iter()
        .any(|b| b.term.kind.successors().contains(&ENTRY))
}

/// For each function: whether it, or a function it can call, stores a reference into memory that
/// outlives the store (a global, an element, a field). A fixpoint over the call graph.
fn stores_references(program: &Program) -> IdVec<FnId, bool> {
    let mut stores: IdVec<FnId, bool> = program
        .functions
        .iter()
        .map(|func| {
            let fresh = fresh_locals(func);
            statements(func).any(|kind| stores_reference(program, func, &fresh, kind))
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (f, func) in program.functions.iter_enumerated() {
            if !stores[f]
                && statements(func).any(|kind| kind.called_function().is_some_and(|g| stores[g]))
            {
                stores[f] = true;
                changed = true;
            }
        }
    }
    stores
}

fn statements(func: &Function) -> impl Iterator<Item = &StatementKind> {
    func.blocks.iter().flat_map(|b| &b.stmts).map(|s| &s.kind)
}

/// Whether the statement stores a reference where it may outlive the activation: a global, or an
/// object the function did not allocate itself.
fn stores_reference(
    program: &Program,
    func: &Function,
    fresh: &IdVec<LocalId, bool>,
    kind: &StatementKind,
) -> bool {
    let older = |object: &Operand| !matches!(object, Operand::Local(l) if fresh[*l]);
    match kind {
        StatementKind::SetGlobal(g, _) => program.globals[*g].ty.is_reference(),
        StatementKind::SetIndex { array, value, .. } => {
            func.operand_type(value).is_reference() && older(array)
        }
        StatementKind::SetField {
            object,
            strukt,
            field,
            ..
        } => program.structs[*strukt].fields[*field].ty.is_reference() && older(object),
        _ => false,
    }
}

/// The locals that only ever hold objects the function allocated in the current activation:
/// every assignment makes a new object or copies such a local (the greatest such set, so copies
/// around a loop stay fresh). Parameters are never fresh.
fn fresh_locals(func: &Function) -> IdVec<LocalId, bool> {
    let mut fresh: IdVec<LocalId, bool> = func.locals.iter().map(|_| true).collect();
    for &p in &func.params {
        fresh[p] = false;
    }
    let mut changed = true;
    while changed {
        changed = false;
        for kind in statements(func) {
            let Some(dest) = kind.dest() else { continue };
            let allocates = match kind {
                StatementKind::Assign(_, Rvalue::Use(Operand::Local(l))) => fresh[*l],
                StatementKind::Assign(_, rvalue) => rvalue.makes_object(),
                _ => false,
            };
            if fresh[dest] && !allocates {
                fresh[dest] = false;
                changed = true;
            }
        }
    }
    fresh
}

/// Whether `func` itself makes arrays or structs, or gets new objects from a PL function: only
/// then does a bracket pay for its two runtime calls. Strings from concatenation and conversions
/// are left out: they are mostly output, short and short-lived (`clbg_fasta` builds one per
/// line), and the calls, in a loop that would otherwise call nothing, cost more than their memory.
fn allocates(func: &Function) -> bool {
    statements(func).any(|kind| match kind {
        StatementKind::Assign(_, rvalue) => rvalue.makes_object(),
        StatementKind::Call {
            dest: Some(dest),
            callee: Callee::Function(_),
            ..
        } => func.locals[*dest].ty.is_reference(),
        _ => false,
    })
}

/// Marks the heap at the entry and releases the mark before every return (the runtime keeps the
/// marks, so the function keeps no register for it).
///
/// The result passes through the release (`r = region_release(v); return r`): Cranelift treats
/// loads of lengths and string bytes as pure and computes them where they are first needed, which
/// for `return len(a)` would be after the release has zeroed `a`. As an argument of the call, the
/// result is computed before it.
fn bracket(func: &mut Function) {
    let span = func.span;
    let call = |callee, dest, args| Statement {
        kind: StatementKind::Call { dest, callee, args },
        span,
    };
    func.blocks[ENTRY]
        .stmts
        .insert(0, call(Callee::Region(RegionOp::Mark), None, vec![]));
    let release = Callee::Region(RegionOp::Release);
    let ret = func.ret.clone();
    for b in func.blocks.ids() {
        let TerminatorKind::Return(value) = &func.blocks[b].term.kind else {
            continue;
        };
        let (dest, args) = match value.clone() {
            Some(value) => {
                let result = func.locals.push(LocalDecl {
                    ty: ret.clone(),
                    name: None,
                });
                (Some(result), vec![value])
            }
            None => (None, vec![]),
        };
        let block = &mut func.blocks[b];
        block.stmts.push(call(release, dest, args));
        if let Some(result) = dest {
            block.term.kind = TerminatorKind::Return(Some(Operand::Local(result)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{lower, text};
    use super::*;

    fn regions(source: &str, name: &str) -> String {
        let mut program = lower(source);
        free_activation_regions(&mut program);
        crate::mir::verify::after_pass(&program, "region");
        text(&program, source, name)
    }

    #[test]
    fn a_scratch_array_is_released_at_every_return() {
        let source = "fn count(n: int) -> int {
            let a = [true; n];
            if n > 3 { return len(a); }
            return 0;
        }
        fn main() { println(count(5)); }";
        let mir = regions(source, "count");
        assert_eq!(mir.matches("region_mark()").count(), 1, "{mir}");
        assert_eq!(mir.matches("region_release(").count(), 2, "{mir}");
        // The result is computed before the release, and passes through it.
        assert!(mir.contains("= region_release("), "{mir}");
        assert!(!regions(source, "main").contains("region"));
    }

    #[test]
    fn objects_that_can_escape_keep_their_memory() {
        // Returned, stored in a global, linked from an argument, or stored by a callee.
        for source in [
            "fn f() -> [int] { return [1, 2]; } fn main() { println(f()); }",
            "let g: [int] = [0]; fn f() -> int { g = [1]; return 0; } fn main() { println(f()); }",
            "struct P { next: P } fn f(p: P) -> int { p.next = new P { next: null }; return 0; }
             fn main() { println(f(new P { next: null })); }",
            "fn keep(a: [[int]]) { a[0] = [1]; }
             fn f(a: [[int]]) -> int { let b = [2]; keep(a); return len(b); }
             fn main() { println(f([[0]])); }",
        ] {
            assert!(!regions(source, "f").contains("region"), "{source}");
        }
    }

    #[test]
    fn links_between_new_objects_do_not_escape() {
        // `make` links each node it made to the rest; `f` gets every node back when it returns.
        let source = "struct N { v: int, next: N }
            fn make(n: int) -> N {
                if n == 0 { return null; }
                let e = new N { v: n, next: null };
                e.next = make(n - 1);
                let a = [[0]; 2];
                a[1] = [n];
                return e;
            }
            fn f(n: int) -> int { let l = make(n); return l.v; }
            fn main() { println(f(3)); }";
        assert!(regions(source, "f").contains("region_mark"));
        // A parameter, or a local that may hold one, is an older object.
        for store in ["p.next = e;", "let q = p; if n > 1 { q = e; } q.next = e;"] {
            let source = format!(
                "struct N {{ v: int, next: N }}
                fn g(p: N, n: int) -> int {{ let e = new N {{ v: n, next: null }}; {store} return 0; }}
                fn f(n: int) -> int {{ return g(new N {{ v: 0, next: null }}, n); }}
                fn main() {{ println(f(3)); }}"
            );
            assert!(!regions(&source, "f").contains("region"), "{store}");
        }
    }

    #[test]
    fn a_function_that_allocates_nothing_gets_no_bracket() {
        let source = "fn f(a: [int]) -> int { return a[0] + 1; } fn main() { println(f([1])); }";
        assert!(!regions(source, "f").contains("region"));
    }
}
