//! Code sinking: a statement that only computes a value (arithmetic, an unchecked element read)
//! at the end of a block that branches moves into the successors that use the value, so no
//! register holds it across the branch on the paths that do not. An interpreter's dispatch reads
//! its operands before its `match` (bytecode_vm: `a`, `b` and `c`, read by most arms, not all):
//! kept above the jump table, all three were live into every arm, and the arms' own values were
//! spilled; read in the arms, they live only where they are used.
//!
//! A statement moves only where nothing between it and the start of the successor could tell:
//! its operands are not assigned after it, its result is neither read nor assigned after it,
//! and an element read moves past no statement that may write memory. Each successor must have
//! the block as its only predecessor, so the value reaches it from nowhere else. A statement no
//! successor needs is dropped. Instrumentation stays where it is.

use std::collections::BTreeSet;

use crate::mir::{
    BinOp, BlockId, Function, IdVec, LocalId, Rvalue, Statement, StatementKind, Type,
};

/// Sinks, in every block that branches to blocks it alone reaches, the statements its
/// successors can compute themselves.
pub fn sink_into_successors(func: &mut Function) {
    let live_in = func.live_in();
    let predecessors = func.predecessors();
    let profiling = func.profiling_locals();
    for b in func.blocks.ids().collect::<Vec<_>>() {
        let successors = func.blocks[b].term.kind.successors();
        if successors.len() < 2 || successors.iter().any(|&s| s == b || predecessors[s] != [b]) {
            continue;
        }
        // A statement every successor needs gains nothing by moving: it stays, and so do those
        // it would then be moved past.
        let mut stay = BTreeSet::new();
        let (sunk, needs) = loop {
            let sunk = sinkable(func, b, &profiling, &stay);
            let moved: Vec<&Statement> = sunk.iter().map(|&i| &func.blocks[b].stmts[i]).collect();
            let needs: Vec<Vec<usize>> = (successors.iter())
                .map(|&s| needed_by(&moved, &live_in[s]))
                .collect();
            let everywhere: Vec<usize> = (0..moved.len())
                .filter(|k| needs.iter().all(|n| n.contains(k)))
                .map(|k| sunk[k])
                .collect();
            if everywhere.is_empty() {
                break (sunk, needs);
            }
            stay.extend(everywhere);
        };
        if sunk.is_empty() {
            continue;
        }
        let moved: Vec<Statement> = (sunk.iter().rev())
            .map(|&i| func.blocks[b].stmts.remove(i))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        for (&s, needed) in successors.iter().zip(needs) {
            let stmts = &mut func.blocks[s].stmts;
            stmts.splice(0..0, needed.into_iter().map(|k| moved[k].clone()));
        }
    }
}

/// The indices (ascending) of the statements of block `b` that may move to its successors:
/// walked from the terminator up, a statement moves if it only computes a value and nothing it
/// would move past reads or assigns what it reads or assigns. Those in `stay` do not move.
fn sinkable(
    func: &Function,
    b: BlockId,
    profiling: &IdVec<LocalId, bool>,
    stay: &BTreeSet<usize>,
) -> Vec<usize> {
    let block = &func.blocks[b];
    let mut read_below: BTreeSet<LocalId> = block
        .term
        .kind
        .operand()
        .and_then(|op| op.local())
        .into_iter()
        .collect();
    let mut assigned_below = BTreeSet::new();
    let mut memory_written_below = false;
    let mut sunk = Vec::new();
    for (i, stmt) in block.stmts.iter().enumerate().rev() {
        let reads: Vec<LocalId> = (stmt.kind.operands().into_iter())
            .filter_map(|op| op.local())
            .collect();
        let movable = match &stmt.kind {
            StatementKind::Assign(dest, rvalue) if !stay.contains(&i) => {
                let after_count_stop =
                    i > 0 && matches!(block.stmts[i - 1].kind, StatementKind::CountStop { .. });
                // An element read must not move past a store that may change the element.
                let reads_written_memory =
                    memory_written_below && matches!(rvalue, Rvalue::Index { .. });
                computes_only(func, *dest, rvalue)
                    && !reads_written_memory
                    && !profiling[*dest]
                    && !after_count_stop
                    && !read_below.contains(dest)
                    && !assigned_below.contains(dest)
                    && reads
                        .iter()
                        .all(|l| !assigned_below.contains(l) && !profiling[*l])
            }
            _ => false,
        };
        if movable {
            sunk.push(i);
            continue;
        }
        read_below.extend(reads);
        assigned_below.extend(stmt.kind.dest());
        memory_written_below |=
            !matches!(&stmt.kind, StatementKind::Assign(_, rvalue) if !rvalue.makes_object());
    }
    sunk.reverse();
    sunk
}

/// Whether `dest = rvalue` computes a number or a truth value and can neither fail nor touch
/// anything but locals, except to read an element it is known to be able to read.
fn computes_only(func: &Function, dest: LocalId, rvalue: &Rvalue) -> bool {
    let scalar = |ty: &Type| matches!(ty, Type::Int | Type::Float | Type::Bool);
    if !scalar(&func.locals[dest].ty) {
        return false;
    }
    match rvalue {
        Rvalue::Use(op) | Rvalue::Unary(_, op) => scalar(&func.operand_type(op)),
        Rvalue::Binary(op, lhs, _) => {
            let ty = func.operand_type(lhs);
            scalar(&ty) && (!matches!(op, BinOp::Div | BinOp::Rem) || ty == Type::Float)
        }
        Rvalue::Index { checked, .. } => !checked,
        _ => false,
    }
}

/// The indices (ascending) of the `moved` statements a successor needs, given the locals live
/// at its start: those whose results it reads, and those whose results they read.
fn needed_by(moved: &[&Statement], live: &BTreeSet<LocalId>) -> Vec<usize> {
    let mut wanted = live.clone();
    let mut needed = Vec::new();
    for (i, stmt) in moved.iter().enumerate().rev() {
        let Some(dest) = stmt.kind.dest() else {
            continue;
        };
        if wanted.remove(&dest) {
            needed.push(i);
            wanted.extend(stmt.kind.operands().into_iter().filter_map(|op| op.local()));
        }
    }
    needed.reverse();
    needed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{ENTRY, Rvalue, TerminatorKind};
    use crate::opt::testing::lower;

    fn function_f(source: &str) -> Function {
        let program = lower(source);
        let id = program
            .functions
            .position(|f| f.name == "f")
            .expect("f exists");
        program.functions[id].clone()
    }

    fn branch_targets(func: &Function) -> (BlockId, BlockId) {
        match func.blocks[ENTRY].term.kind {
            TerminatorKind::Branch {
                then_bb, else_bb, ..
            } => (then_bb, else_bb),
            _ => panic!("the entry block branches"),
        }
    }

    fn multiplies(func: &Function, b: BlockId) -> bool {
        (func.blocks[b].stmts.iter()).any(|s| {
            matches!(
                s.kind,
                StatementKind::Assign(_, Rvalue::Binary(BinOp::Mul, ..))
            )
        })
    }

    fn reads_elements(func: &Function, b: BlockId) -> bool {
        (func.blocks[b].stmts.iter())
            .any(|s| matches!(s.kind, StatementKind::Assign(_, Rvalue::Index { .. })))
    }

    /// `x = n * 3` moves to the arm that returns it; the checked read, which may fail, stays.
    #[test]
    fn arithmetic_moves_to_the_successor_that_reads_it() {
        let mut func = function_f(
            "fn f(a: [int], n: int, c: bool) -> int { let x = n * 3; let y = a[n]; \
             if c { return x; } return y + 1; }\nfn main() { println(f([1, 2], 1, true)); }",
        );
        sink_into_successors(&mut func);
        let (then_bb, else_bb) = branch_targets(&func);
        assert!(!multiplies(&func, ENTRY) && multiplies(&func, then_bb));
        assert!(!multiplies(&func, else_bb));
        assert!(reads_elements(&func, ENTRY));
    }

    /// An unchecked read moves, but not past a store that may write the element it reads.
    #[test]
    fn an_element_read_does_not_move_past_a_store() {
        let source = |store: &str| {
            format!(
                "fn f(a: [int], n: int, c: bool) -> int {{ let y = a[n]; {store} \
                 if c {{ return y; }} return 0; }}\nfn main() {{ println(f([1, 2], 1, true)); }}"
            )
        };
        for (store, moves) in [("a[0] = 5;", false), ("", true)] {
            let mut func = function_f(&source(store));
            for stmt in &mut func.blocks[ENTRY].stmts {
                if stmt.kind.checked_access().is_some() && stmt.kind.dest().is_some() {
                    stmt.kind.uncheck();
                }
            }
            sink_into_successors(&mut func);
            let (then_bb, _) = branch_targets(&func);
            assert_eq!(reads_elements(&func, then_bb), moves, "{store:?}");
            assert_eq!(reads_elements(&func, ENTRY), !moves, "{store:?}");
        }
    }

    /// A value read after it in the block, or read by every successor, stays.
    #[test]
    fn a_value_read_below_or_everywhere_stays() {
        for tail in [
            "println(x); if c { return x; } return 0;",
            "if c { return x; } return x + 1;",
        ] {
            let mut func = function_f(&format!(
                "fn f(n: int, c: bool) -> int {{ let x = n * 3; {tail} }}\n\
                 fn main() {{ println(f(1, true)); }}"
            ));
            sink_into_successors(&mut func);
            assert!(multiplies(&func, ENTRY), "{tail}");
        }
    }

    /// The pass on a whole function, as `--emit mir` shows it (`UPDATE_EXPECT=1` rewrites the
    /// snapshot): `x = n * 3` goes down to the arm that returns it.
    #[test]
    fn snapshot() {
        let source = "fn f(a: [int], n: int, c: bool) -> int { let x = n * 3; let y = a[n]; \
                      if c { return x; } return y + 1; }\nfn main() { println(f([1, 2], 1, true)); }";
        expect_test::expect![[r#"
            before:
            fn f(_0: [int], _1: int, _2: bool) -> int {
                let _3: int;
                let _4: int;
                let _5: int;
                let _6: int;
                let _7: int;
              bb0:
                _5 = _1 * 3
                _3 = _5
                _6 = _0[_1]
                _4 = _6
                branch _2 ? bb1 : bb2
              bb1:
                return _3
              bb2:
                _7 = _4 + 1
                return _7
            }
            after:
            fn f(_0: [int], _1: int, _2: bool) -> int {
                let _3: int;
                let _4: int;
                let _5: int;
                let _6: int;
                let _7: int;
              bb0:
                _6 = _0[_1]
                branch _2 ? bb1 : bb2
              bb1:
                _5 = _1 * 3
                _3 = _5
                return _3
              bb2:
                _4 = _6
                _7 = _4 + 1
                return _7
            }
        "#]]
        .assert_eq(&crate::opt::testing::before_and_after(
            source,
            "f",
            sink_into_successors,
        ));
    }
}
