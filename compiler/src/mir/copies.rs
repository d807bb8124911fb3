//! Which locals are copies of which: a local assigned only by copies `x = y` of one local that is
//! assigned at most once before each of them (a parameter never assigned, or one assignment that
//! dominates the copies), equals `y` wherever one of the copies dominates the use: on every path
//! there, the last assignment of `x` copied `y`'s one value. (Were `y` assigned again between a
//! copy and a use, a path from the entry through `y`'s first assignment and then that second one
//! would reach the use without a copy.) Inlining copies each argument into a parameter local,
//! and versioning and peeling copy loops with such copies in them; the non-null analysis
//! (`mir::non_null`) speaks of the originals, so that a null test or a field access in one
//! inlined callee tells the next one's that the object is not null. The code keeps its copies: reading the original instead would make it live longer,
//! and Cranelift then spilled AWFY Richards' task pointer in its hottest loop.

use super::{BlockId, Function, IdVec, LocalId, Operand, Rvalue, StatementKind};

/// Where a local is assigned: as a parameter, or by statement `.1` of block `.0`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Def {
    Param,
    At(BlockId, usize),
}

/// Each local's original: the local it is a copy of (through copies of copies), or itself.
pub fn originals(func: &Function) -> IdVec<LocalId, LocalId> {
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
    let idom = func.dominators();
    // Whether `def` runs before `(b, i)` (statement `i`, or the terminator at `stmts.len()`)
    // on every path from the entry.
    let before = |def: Def, b: BlockId, i: usize| match def {
        Def::Param => true,
        Def::At(db, di) => {
            (db == b && di < i) || (db != b && idom[b].is_some() && idom.dominates(db, b))
        }
    };
    let mut uses: IdVec<LocalId, Vec<(BlockId, usize)>> =
        IdVec::from_elem(Vec::new(), func.locals.len());
    for (b, block) in func.blocks.iter_enumerated() {
        for (i, operands) in block.reads().enumerate() {
            for op in operands {
                if let Operand::Local(l) = op {
                    uses[*l].push((b, i));
                }
            }
        }
    }
    // The copies whose uses could read the original.
    let mut source: IdVec<LocalId, Option<LocalId>> = IdVec::from_elem(None, func.locals.len());
    for x in func.locals.ids() {
        // Every assignment copies the same `y`.
        let copied = |def: &Def| match *def {
            Def::At(b, i) => match func.blocks[b].stmts[i].kind {
                StatementKind::Assign(_, Rvalue::Use(Operand::Local(y))) => Some((y, b, i)),
                _ => None,
            },
            Def::Param => None,
        };
        let Some(copies) = defs[x].iter().map(copied).collect::<Option<Vec<_>>>() else {
            continue;
        };
        let Some(&(y, _, _)) = copies.first() else {
            continue;
        };
        let same_y = copies.iter().all(|&(z, _, _)| z == y);
        let y_once_before = |b, i| matches!(defs[y][..], [def] if before(def, b, i));
        let y_before_each = copies.iter().all(|&(_, b, i)| y_once_before(b, i));
        let assigned_before_uses =
            (uses[x].iter()).all(|&(ub, ui)| defs[x].iter().any(|&def| before(def, ub, ui)));
        if y != x && same_y && y_before_each && assigned_before_uses {
            source[x] = Some(y);
        }
    }
    (func.locals.ids())
        .map(|mut l| {
            while let Some(s) = source[l] {
                l = s;
            }
            l
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::mir::LocalId;

    /// The original of each named local of function `f` of `source`, as lowered, by name.
    fn originals(source: &str) -> Vec<(String, String)> {
        let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
        let program = crate::lower::lower_program(&typed);
        let func = program.functions.iter().find(|f| f.name == "f").unwrap();
        let name = |l: LocalId| func.locals[l].name.clone().unwrap_or(format!("_{}", l.0));
        let originals = super::originals(func);
        (func.locals.ids())
            .filter(|&l| func.locals[l].name.is_some())
            .map(|l| (name(l), name(originals[l])))
            .collect()
    }

    /// A chain of copies of a parameter: each is the parameter.
    #[test]
    fn a_chain_of_copies_is_its_original() {
        let source = "struct S { x: int }
fn f(a: S) -> int {
    let b = a;
    let c = b;
    return c.x + b.x;
}
fn main() { println(f(new S { x: 1 })); }
";
        let pairs = originals(source);
        for (name, original) in &pairs {
            assert_eq!(original, "a", "{name}: {pairs:?}");
        }
    }

    /// A local assigned in a loop and in the copy `-O 2`'s versioning makes of it, each time
    /// from the same parameter, is that parameter.
    #[test]
    fn a_copy_copied_with_its_loop_is_its_original() {
        let source = "struct S { a: [int] }
fn g(t: S, i: int) -> int { return t.a[i]; }
fn f(s: S, n: int) -> int { let x = 0; for i in 0..n { x += g(s, i); } return x; }
fn main() { println(f(new S { a: [1; 4] }, 4)); }
";
        let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
        let mut program = crate::lower::lower_program(&typed);
        crate::opt::optimize(&mut program);
        let func = program.functions.iter().find(|f| f.name == "f").unwrap();
        let originals = super::originals(func);
        // `t`, `g`'s parameter inlined, assigned `t = s` in both versions of the loop.
        let t = (func.locals.ids())
            .find(|&l| func.locals[l].name.as_deref() == Some("t"))
            .expect("g inlined");
        let assignments = (func.blocks.iter())
            .flat_map(|b| &b.stmts)
            .filter(|s| s.kind.dest() == Some(t))
            .count();
        assert_eq!(assignments, 2, "the loop is versioned");
        assert_eq!(originals[t], func.params[0]);
    }

    /// A copy of a parameter the function assigns, or a local assigned twice, is its own.
    #[test]
    fn a_copy_of_a_changing_local_is_its_own() {
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
        let pairs = originals(source);
        for (name, original) in &pairs {
            assert_eq!(name, original, "{pairs:?}");
        }
    }
}
