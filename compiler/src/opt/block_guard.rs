//! Range-check elimination in straight-line code: a block whose bounds-checked accesses index an
//! array at `base + c` for a few bases (bytecode_vm's dispatch reads `code[i]`, `code[i + 1]`,
//! `code[i + 2]` and `code[i + 3]`) is entered through one guard that proves them all in bounds,
//! and a copy of the block without those checks runs when it holds; otherwise the original block
//! runs with its checks, so a bounds error is reported exactly where and when it is without the
//! pass. It is loop versioning (`version.rs`) for one block, where that pass covers loops whose
//! induction variable it can bound; what is left here is mostly the body of loops it cannot
//! (an interpreter's dispatch loop).
//!
//! The guard is the one of unrolled chains (`opt/guard.rs`) for a chain of one block: the
//! block's statements are evaluated over polynomials in the locals' values at its start
//! (`mir/poly.rs`), and per (array, base) the guard tests the smallest and the largest offset,
//! once, exactly in wrapping arithmetic. A guard costs about two checks per range, so a block is
//! guarded only when it saves at least [`MIN_CHECKS_PER_RANGE`] checks per range.

use super::guard::{self, Coverage};
use crate::mir::clone::size;
use crate::mir::poly::chain_tests;
use crate::mir::{BlockId, Function, TerminatorKind};

/// Blocks larger than this (statements and terminator) are not copied.
const MAX_BLOCK_SIZE: usize = 100;
/// The checks a guard must replace per (array, base) range it tests.
const MIN_CHECKS_PER_RANGE: usize = 3;

/// Guards every block of `func` whose checks pay for a guard.
pub fn guard_blocks(func: &mut Function) {
    let profiling = func.profiling_locals();
    // Only the blocks there were: the copies and guards made here have nothing left to cover.
    for b in func.blocks.ids().collect::<Vec<_>>() {
        // Too few checks to guard, told without `guard::cover`, whose cost grows with the
        // function's locals: in every block of a large function that would be quadratic.
        let checks = (func.blocks[b].stmts.iter())
            .filter(|s| s.kind.checked_access().is_some())
            .count();
        if checks < MIN_CHECKS_PER_RANGE || size(func, [b], &profiling) > MAX_BLOCK_SIZE {
            continue;
        }
        let coverage = guard::cover(func, &[b]);
        if coverage.ranges() > 0
            && coverage.covered.len() >= MIN_CHECKS_PER_RANGE * coverage.ranges()
        {
            guard_block(func, b, &coverage);
        }
    }
}

/// Makes `b` the guard of `coverage`: it goes on to a copy of the block without the covered
/// checks when the guard holds, else to a copy of the block as it was.
fn guard_block(func: &mut Function, b: BlockId, coverage: &Coverage) {
    let span = func.blocks[b].term.span;
    let mut original = func.blocks[b].clone();
    original.cold = true;
    if coverage.comparisons() == 0 {
        // The guard fails only where the access at the smallest or the largest offset of a
        // range is out of bounds, and this copy runs that access, so it stops with that error
        // before its end: its successors keep the copy without checks as their only
        // predecessor (which `sink.rs` needs to move the block's reads into them).
        original.term.kind = TerminatorKind::Unreachable;
    }
    let checked = func.blocks.push(original);
    let mut copy = func.blocks[b].clone();
    for &(_, s) in &coverage.covered {
        copy.stmts[s].kind.uncheck();
    }
    let unchecked = func.blocks.push(copy);
    let tests = guard::guard_tests(func, coverage, span);
    chain_tests(func, tests, b, unchecked, checked, span);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opt::testing::lower;

    fn guarded(source: &str) -> Function {
        let mut program = lower(source);
        let id = program
            .functions
            .position(|f| f.name == "f")
            .expect("f exists");
        let func = &mut program.functions[id];
        guard_blocks(func);
        func.clone()
    }

    fn checked_accesses(func: &Function, b: BlockId) -> usize {
        (func.blocks[b].stmts.iter())
            .filter(|s| s.kind.checked_access().is_some())
            .count()
    }

    /// `code[i]` … `code[i + 3]`: one range, four checks; the entry block becomes the guard,
    /// which goes to an unchecked copy or falls back to the checked original, cold.
    #[test]
    fn four_reads_at_one_base_get_one_guard() {
        let func = guarded(
            "fn f(code: [int], pc: int) -> int { let i = pc * 4; \
             return code[i] + code[i + 1] * code[i + 2] - code[i + 3]; }\n\
             fn main() { println(f([1, 2, 3, 4], 0)); }",
        );
        let TerminatorKind::Branch {
            then_bb, else_bb, ..
        } = func.blocks[crate::mir::ENTRY].term.kind
        else {
            panic!("the entry block is the guard");
        };
        assert_eq!(checked_accesses(&func, then_bb), 0);
        assert_eq!(checked_accesses(&func, else_bb), 4);
        assert!(!func.blocks[then_bb].cold && func.blocks[else_bb].cold);
        // The checked copy stops at a failing read before its end.
        assert!(matches!(
            func.blocks[else_bb].term.kind,
            TerminatorKind::Unreachable
        ));
    }

    /// Two accesses at one base, or accesses at as many bases as accesses, do not pay.
    #[test]
    fn too_few_checks_per_range_are_left_alone() {
        for body in ["return a[i] + a[i + 1];", "return a[i] + a[j] + a[i * j];"] {
            let source = format!(
                "fn f(a: [int], i: int, j: int) -> int {{ {body} }}\n\
                 fn main() {{ println(f([1, 2, 3, 4], 0, 1)); }}"
            );
            let before = lower(&source);
            let after = guarded(&source);
            let id = before.functions.position(|f| f.name == "f").unwrap();
            assert_eq!(
                after.blocks.len(),
                before.functions[id].blocks.len(),
                "{body}"
            );
        }
    }

    /// An array assigned in the block is not the one a guard at its start would measure.
    #[test]
    fn an_array_assigned_in_the_block_is_not_covered() {
        let func = guarded(
            "fn f(a: [int], b: [int]) -> int { let s = a[0] + a[1]; a = b; \
             return s + a[0] + a[1] + a[2]; }\n\
             fn main() { println(f([1, 2, 3], [4, 5, 6])); }",
        );
        assert_eq!(checked_accesses(&func, crate::mir::ENTRY), 5);
    }

    /// The pass on a whole function, as `--emit mir` shows it (`UPDATE_EXPECT=1` rewrites the
    /// snapshot): one guard of `i` and `i + 2` against the length, then the block unchecked; the
    /// checked copy where the guard fails.
    #[test]
    fn snapshot() {
        let source = "fn f(a: [int], i: int) -> int { return a[i] + a[i + 1] + a[i + 2]; }\n\
                      fn main() { println(f([1, 2, 3], 0)); }";
        expect_test::expect![[r#"
            before:
            fn f(_0: [int], _1: int) -> int {
                let _2: int;
                let _3: int;
                let _4: int;
                let _5: int;
                let _6: int;
                let _7: int;
                let _8: int;
              bb0:
                _2 = _0[_1]
                _3 = _1 + 1
                _4 = _0[_3]
                _5 = _2 + _4
                _6 = _1 + 2
                _7 = _0[_6]
                _8 = _5 + _7
                return _8
            }
            after:
            fn f(_0: [int], _1: int) -> int {
                let _2: int;
                let _3: int;
                let _4: int;
                let _5: int;
                let _6: int;
                let _7: int;
                let _8: int;
                let _9: int;
                let _10: int;
                let _11: int;
                let _12: int;
                let _13: int;
                let _14: int;
                let _15: int;
                let _16: int;
                let _17: bool;
              bb0:
                _9 = len(_0)
                _10 = _1 + 0
                _11 = _1 + 2
                _12 = _9 - 1
                _13 = _12 - _11
                _14 = 0 | _10
                _15 = _14 | _11
                _16 = _15 | _13
                _17 = _16 >= 0
                branch _17 ? bb2 : bb1
              bb1:
                _2 = _0[_1]
                _3 = _1 + 1
                _4 = _0[_3]
                _5 = _2 + _4
                _6 = _1 + 2
                _7 = _0[_6]
                _8 = _5 + _7
                unreachable
              bb2:
                _2 = unchecked _0[_1]
                _3 = _1 + 1
                _4 = unchecked _0[_3]
                _5 = _2 + _4
                _6 = _1 + 2
                _7 = unchecked _0[_6]
                _8 = _5 + _7
                return _8
            }
        "#]]
        .assert_eq(&crate::opt::testing::before_and_after(
            source,
            "f",
            guard_blocks,
        ));
    }
}
