//! Copy propagation: a local assigned once, by a copy `x = y` of a local that is assigned at
//! most once before it (a parameter never assigned, or one assignment that dominates the
//! copy), equals `y` wherever the copy dominates the use, so its uses read `y` instead. (Were
//! `y` assigned again between the copy and a use, a path from the entry through `y`'s first
//! assignment and then that second one would reach the use without the copy.) Inlining copies
//! each argument into a parameter local: once those reads go to the caller's local, a null
//! test or a field access in one inlined callee tells the next one's that the object is not
//! null (`mir::non_null`), and its field loads are the caller's (`opt/fields.rs`).

use crate::mir::{BlockId, Function, IdVec, LocalId, Operand, Rvalue, StatementKind, dominates};

/// Where a local is assigned: as a parameter, or by statement `.1` of block `.0`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Def {
    Param,
    At(BlockId, usize),
}

pub fn propagate_copies(func: &mut Function) {
    let mut defs: IdVec<LocalId, Vec<Def>> = IdVec::from_elem(Vec::new(), func.locals.len());
    for &p in &func.params {
        defs[p].push(Def::Param);
    }
    for (b, block) in func.blocks.iter_enumerated() {
        for (i, stmt) in block.stmts.iter().enumerate() {
            if let Some(dest) = stmt.kind.dest() {
                defs[dest].push(Def::At(b, i));
            }
        }
    }
    let idom = func.immediate_dominators();
    // Whether `def` runs before `(b, i)` (statement `i`, or the terminator at `stmts.len()`)
    // on every path from the entry.
    let before = |def: Def, b: BlockId, i: usize| match def {
        Def::Param => true,
        Def::At(db, di) => {
            (db == b && di < i) || (db != b && idom[b].is_some() && dominates(&idom, db, b))
        }
    };
    let mut uses: IdVec<LocalId, Vec<(BlockId, usize)>> =
        IdVec::from_elem(Vec::new(), func.locals.len());
    for (b, block) in func.blocks.iter_enumerated() {
        let statements = block.stmts.iter().map(|s| s.kind.operands());
        let terminator = std::iter::once(block.term.kind.operand().into_iter().collect());
        for (i, operands) in statements.chain(terminator).enumerate() {
            for op in operands {
                if let Operand::Local(l) = op {
                    uses[*l].push((b, i));
                }
            }
        }
    }
    // The copies whose uses can read the original.
    let mut source: IdVec<LocalId, Option<LocalId>> = IdVec::from_elem(None, func.locals.len());
    for x in func.locals.ids() {
        let [Def::At(b, i)] = defs[x][..] else {
            continue;
        };
        let StatementKind::Assign(_, Rvalue::Use(Operand::Local(y))) = func.blocks[b].stmts[i].kind
        else {
            continue;
        };
        let y_once_before = matches!(defs[y][..], [def] if before(def, b, i));
        if y != x && y_once_before && uses[x].iter().all(|&(ub, ui)| before(defs[x][0], ub, ui)) {
            source[x] = Some(y);
        }
    }
    let root = |mut l: LocalId| {
        while let Some(s) = source[l] {
            l = s;
        }
        l
    };
    for block in func.blocks.iter_mut() {
        let statements = block.stmts.iter_mut().flat_map(|s| s.kind.operands_mut());
        for op in statements.chain(block.term.kind.operand_mut()) {
            if let Operand::Local(l) = op {
                *l = root(*l);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::opt::testing::{lower, text};

    /// Function `f` of `source`, as lowered and after copy propagation.
    fn propagated(source: &str) -> (String, String) {
        let mut program = lower(source);
        let before = text(&program, source, "f");
        let id = program.functions.position(|f| f.name == "f").unwrap();
        super::propagate_copies(&mut program.functions[id]);
        (before, text(&program, source, "f"))
    }

    /// A chain of copies of a parameter: every read goes to the parameter.
    #[test]
    fn reads_of_a_chain_of_copies_go_to_the_original() {
        let source = "struct S { x: int }
fn f(a: S) -> int {
    let b = a;
    let c = b;
    return c.x + b.x;
}
fn main() { println(f(new S { x: 1 })); }
";
        let (before, after) = propagated(source);
        assert!(before.contains("= _2.x"), "{before}");
        assert!(after.contains("= _0.x"), "{after}");
        assert!(
            !after.contains("= _1.x") && !after.contains("= _2.x"),
            "{after}"
        );
    }

    /// A copy of a parameter the function assigns, or a local assigned twice, stays.
    #[test]
    fn a_copy_of_a_changing_local_stays() {
        let source = "fn f(a: int, n: int) -> int {
    let b = a;
    let s = 0;
    let i = 0;
    while i < n { s += b; a += 1; i += 1; }
    let c = s;
    c += 1;
    return c;
}
fn main() { println(f(1, 2)); }
";
        let (before, after) = propagated(source);
        assert_eq!(before, after);
    }
}
