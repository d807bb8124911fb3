//! What the whole program tells about its globals: which are constants in all but name, and
//! which always hold an object made for them alone.
//!
//! A student writes `let N: int = 5;` where `const` would do, and `let X: [float] = [0.0; N];`
//! for each coordinate of a simulation. Read from a global, `N` is a load the loops it bounds
//! must guard, and two array globals might be one array, so that versioning tests every array
//! a loop reads against every one it writes (nbody_globals: 12 tests at each entry of a loop
//! that runs 2.5 iterations on average).

use std::collections::{BTreeMap, BTreeSet};

use crate::mir::{
    Const, ENTRY, Function, GlobalId, IdVec, LocalId, Operand, Program, Rvalue, StatementKind,
};

/// Replaces every read of a constant global (see [`constant_globals`]) outside the globals'
/// initializer by its constant, for constant folding to decide what it decides.
pub fn fold_constant_globals(program: &mut Program) {
    let constants = constant_globals(program);
    if constants.is_empty() {
        return;
    }
    let init = program.init;
    for (id, func) in program.functions.iter_enumerated_mut() {
        if id == init {
            continue;
        }
        for stmt in func.blocks.iter_mut().flat_map(|b| &mut b.stmts) {
            if let StatementKind::Assign(_, rvalue) = &mut stmt.kind
                && let Rvalue::Global(g) = *rvalue
                && let Some(c) = constants.get(&g)
            {
                *rvalue = Rvalue::Use(Operand::Const(c.clone()));
            }
        }
    }
}

/// The globals that only the initializer stores, once, a constant, before it runs any function
/// of the program: outside the initializer, every read finds that constant (the initializer
/// runs before `main`, and only the functions it calls could see the global unset).
fn constant_globals(program: &Program) -> BTreeMap<GlobalId, Const> {
    let mut stores: IdVec<GlobalId, usize> = IdVec::from_elem(0, program.globals.len());
    for func in program.functions.iter() {
        for stmt in func.blocks.iter().flat_map(|b| &b.stmts) {
            if let StatementKind::SetGlobal(g, _) = stmt.kind {
                stores[g] += 1;
            }
        }
    }
    let init = &program.functions[program.init];
    let entry = &init.blocks[ENTRY];
    (entry.stmts.iter())
        .take_while(|stmt| stmt.kind.called_function().is_none())
        .filter_map(|stmt| match &stmt.kind {
            StatementKind::SetGlobal(g, Operand::Const(c)) if stores[*g] == 1 => {
                Some((*g, c.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The globals every store of which, anywhere in the program, is of an object just made for it
/// (`@X = t` where `t` is only ever assigned a new array or struct and read only there). Two of
/// them never hold the same object: each object made is stored into one global at most.
pub fn fresh_globals(program: &Program) -> BTreeSet<GlobalId> {
    let mut fresh: IdVec<GlobalId, bool> = IdVec::from_elem(true, program.globals.len());
    for func in program.functions.iter() {
        let made = made_for_one_store(func);
        for stmt in func.blocks.iter().flat_map(|b| &b.stmts) {
            if let StatementKind::SetGlobal(g, value) = &stmt.kind {
                fresh[*g] &= value.local().is_some_and(|t| made[t]);
            }
        }
    }
    (fresh.iter_enumerated())
        .filter_map(|(g, &f)| f.then_some(g))
        .collect()
}

/// Per local of `func`, whether it is not a parameter, each of its assignments makes a new
/// object, and it is read once.
fn made_for_one_store(func: &Function) -> IdVec<LocalId, bool> {
    let mut made = IdVec::from_elem(true, func.locals.len());
    for &p in &func.params {
        made[p] = false;
    }
    let mut reads: IdVec<LocalId, usize> = IdVec::from_elem(0, func.locals.len());
    for block in func.blocks.iter() {
        for stmt in &block.stmts {
            match &stmt.kind {
                StatementKind::Assign(dest, rvalue) => made[*dest] &= rvalue.makes_object(),
                kind => {
                    if let Some(dest) = kind.dest() {
                        made[dest] = false;
                    }
                }
            }
        }
        for operand in block.reads().flatten() {
            if let Some(l) = operand.local() {
                reads[l] += 1;
            }
        }
    }
    for (l, &n) in reads.iter_enumerated() {
        made[l] &= n == 1;
    }
    made
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opt::testing::lower;

    #[test]
    fn a_global_only_its_initializer_sets_to_a_constant_is_that_constant() {
        let program = lower(
            "let N: int = 5;
             let K: int = 2;
             let S: int = f();
             let T: int = 1;
             fn f() -> int { return N; }
             fn main() { K = 3; println(N, K, S, T); }",
        );
        let constants = constant_globals(&program);
        let name = |g: &GlobalId| program.globals[*g].name.as_str();
        let names: Vec<&str> = constants.keys().map(name).collect();
        // K is stored again; T is set after the initializer called `f`, which could read it.
        assert_eq!(names, ["N"]);
    }

    #[test]
    fn globals_stored_only_new_objects_are_fresh() {
        let program = lower(
            "let X: [int] = [0; 5];
             let Y: [int] = [1, 2];
             let Z: [int] = X;
             let W: [int] = [0; 3];
             fn main() { Y = [0; 4]; W = Z; println(X, Y, Z, W); }",
        );
        let fresh = fresh_globals(&program);
        let names: Vec<&str> = (fresh.iter())
            .map(|g| program.globals[*g].name.as_str())
            .collect();
        assert_eq!(names, ["X", "Y"]);
    }
}
