//! One range guard for a run of blocks entered in one place instead of a bounds check per
//! access: the payoff of unrolling along one path (`pgo/unroll.rs`, `--use-profile` in
//! docs/CLI.md), and of `-O 2`'s block guards (`opt/block_guard.rs`).
//!
//! A chain is entered in one place, its guard block, and each copy of the path is reached only
//! from the copy before it, so what every int local holds at any statement of the chain is a
//! function of the locals' values at the guard. Evaluating the path's statements copy after copy
//! over polynomials in those values (`mir/poly.rs`: `+ - *` and shifts by constants; PL's ints
//! wrap, and polynomials with wrapping coefficients are exactly that arithmetic) gives every array
//! index of the chain as `base + c`: for `a[y * w + x + 1]` with `x` stepping by one, the copies
//! share the base `y * w + x` and differ in `c` only. All accesses to one array with one base
//! are in bounds when the smallest and the largest are, so the guard checks two indices per
//! (array, base) for the whole chain and the accesses lose their checks. If the guard fails,
//! as at the end of a run, control goes to the general loop, whose checks are intact: a bounds
//! error is reported exactly where and when the original program reports it.

use std::collections::BTreeMap;

use pcc_lang::Span;

use crate::mir::poly::{
    Compare, Emitter, Poly, Spread, Values, evaluate, int, operand, requirement, widened,
};
use crate::mir::{
    BinOp, BlockId, Builtin, Callee, Function, IdVec, LocalId, Operand, Rvalue, Statement,
    StatementKind, TerminatorKind, Type,
};

/// What a chain's guard establishes: per (array, base), the spread of the constant offsets of
/// its indices; per (left base, right base, strict) of the comparisons that steer the chain,
/// the spreads of the two sides. And which statements lose their checks and which branches
/// their test.
#[derive(Default)]
pub struct Coverage {
    ranges: BTreeMap<(LocalId, Poly), Spread>,
    comparisons: BTreeMap<(Poly, Poly, bool), (Spread, Spread)>,
    /// (position in the chain, statement index) of each covered access.
    pub covered: Vec<(usize, usize)>,
    /// How many bounds-checked accesses the chain has, covered or not.
    checks: usize,
    /// (position in the chain, whether the path leaves by `then`) of each decided branch.
    pub decided: Vec<(usize, bool)>,
}

impl Coverage {
    /// How many (array, base) ranges the guard checks.
    pub fn ranges(&self) -> usize {
        self.ranges.len()
    }

    /// How many comparisons the guard makes for the decided branches.
    pub fn comparisons(&self) -> usize {
        self.comparisons.len()
    }

    /// Whether the guard covers every bounds check of the chain.
    pub fn covers_every_check(&self) -> bool {
        self.covered.len() == self.checks
    }

    /// Whether a chain of `copies` copies with this guard beats the loop: the guard costs about
    /// two checks per range and three per comparison, every chain entry. Strided indices
    /// (`a[k]`, `k += step`) have a base per copy and do not pay.
    pub fn pays(&self, copies: usize) -> bool {
        let saved = self.covered.len() + self.decided.len();
        saved >= 2 * self.ranges() + 3 * self.comparisons() && self.covered.len() >= copies
    }

    /// Takes the access at `at` into the guard if its index is `index` (base + offset).
    fn cover_access(&mut self, at: (usize, usize), array: LocalId, index: Poly) {
        let (base, c) = index.split_constant();
        let spread = self
            .ranges
            .get(&(array, base.clone()))
            .map_or(Some((c, c)), |&s| widened(s, c));
        if let Some(spread) = spread {
            self.ranges.insert((array, base), spread);
            self.covered.push(at);
        }
    }

    /// Takes the branch at the end of `position` into the guard if the path's way out of it is
    /// `left < right` (`strict`) or `left <= right`.
    fn decide(&mut self, position: usize, then: bool, (left, right, strict): (Poly, Poly, bool)) {
        let ((lb, lc), (rb, rc)) = (left.split_constant(), right.split_constant());
        let key = (lb, rb, strict);
        let spreads = match self.comparisons.get(&key) {
            None => Some(((lc, lc), (rc, rc))),
            Some(&(l, r)) => widened(l, lc).zip(widened(r, rc)),
        };
        if let Some(spreads) = spreads {
            self.comparisons.insert(key, spreads);
            self.decided.push((position, then));
        }
    }
}

/// Evaluates the chain `blocks` (copies of the path in execution order, each block's
/// statements run in full before the next; the originals will do, the copies have the same
/// statements) from the guard, and collects the checked accesses whose index it can express
/// and the branches on comparisons it can express that the path leaves the same way.
pub fn cover(func: &Function, blocks: &[BlockId]) -> Coverage {
    // Locals assigned anywhere in the chain: an array held in one may not be the one the guard
    // measured.
    let assigned: IdVec<LocalId, bool> = {
        let mut a = IdVec::from_elem(false, func.locals.len());
        for &b in blocks {
            for stmt in &func.blocks[b].stmts {
                if let Some(dest) = stmt.kind.dest() {
                    a[dest] = true;
                }
            }
        }
        a
    };
    let mut value = Values::default();
    // Bools hold unknown comparisons at the guard.
    let mut compare: IdVec<LocalId, Option<Compare>> = IdVec::from_elem(None, func.locals.len());
    let mut coverage = Coverage::default();
    // Whether an array's length may have changed since the guard, which measured them: the
    // accesses after that keep their checks.
    let mut resized = false;
    for (position, &b) in blocks.iter().enumerate() {
        let block = &func.blocks[b];
        for (s, stmt) in block.stmts.iter().enumerate() {
            resized |= func.resizes_at(&stmt.kind);
            if let Some((array, index)) = stmt.kind.checked_access() {
                coverage.checks += 1;
                if let Operand::Local(array) = array
                    && !resized
                    && !assigned[*array]
                    && let Some(index) = operand(&|l| value.get(func, l), index)
                {
                    coverage.cover_access((position, s), *array, index);
                }
            }
            if let Some(dest) = stmt.kind.dest() {
                let known = |l: LocalId| value.get(func, l);
                compare[dest] = match &stmt.kind {
                    StatementKind::Assign(_, Rvalue::Binary(op, a, b)) => operand(&known, a)
                        .zip(operand(&known, b))
                        .map(|(a, b)| (*op, a, b)),
                    _ => None,
                };
                let assigned = match &stmt.kind {
                    StatementKind::Assign(_, rvalue) => evaluate(&known, rvalue),
                    _ => None,
                };
                value.set(dest, assigned);
            }
        }
        // The last block's branch goes back to the guard: it stays.
        if let Some(&next) = blocks.get(position + 1)
            && let TerminatorKind::Branch {
                cond: Operand::Local(c),
                then_bb,
                else_bb,
            } = block.term.kind
            && then_bb != else_bb
            && (then_bb == next || else_bb == next)
            && let Some(required) = compare[c]
                .as_ref()
                .and_then(|cmp| requirement(cmp, then_bb == next))
        {
            coverage.decide(position, then_bb == next, required);
        }
    }
    coverage
}

/// The guard of `coverage` as a sequence of tests, each statements computing a new bool local
/// and that local: the chain may be entered when all are true.
///
/// First the index ranges: per (array, base) with offsets `lo..=hi`, `base + lo` and `base + hi`
/// are at least 0 and `base + hi <= len - 1`; the sign bits of all those differences are or-ed
/// together and tested once. Then per comparison with left offsets `l0..=l1` and right offsets
/// `r0..=r1`: `left + l1 < right + r0` (or `<=`), the largest left below the smallest right;
/// and, where a side has several offsets, `side + lo <= side + hi`, so that no value between
/// them wrapped around.
pub fn guard_tests(
    func: &mut Function,
    coverage: &Coverage,
    span: Span,
) -> Vec<(Vec<Statement>, LocalId)> {
    let mut out = Emitter::new(func, span);
    let mut tests = Vec::new();
    if !coverage.ranges.is_empty() {
        let mut signs = int(0);
        for ((array, base), &(lo, hi)) in &coverage.ranges {
            let base = out.polynomial(base);
            let len = out.func.new_temp(Type::Int);
            out.push(StatementKind::Call {
                dest: Some(len),
                callee: Callee::Builtin(Builtin::Len),
                args: vec![Operand::Local(*array)],
            });
            let first = out.binary(BinOp::Add, base.clone(), int(lo));
            let last = out.binary(BinOp::Add, base, int(hi));
            let last_slot = out.binary(BinOp::Sub, Operand::Local(len), int(1));
            let room = out.binary(BinOp::Sub, last_slot, last.clone());
            for difference in [first, last, room] {
                signs = out.binary(BinOp::BitOr, signs, difference);
            }
        }
        tests.push(out.test(BinOp::Ge, signs, int(0)));
    }
    for ((left, right, strict), &(l, r)) in &coverage.comparisons {
        let (left, right) = (out.polynomial(left), out.polynomial(right));
        let largest_left = out.binary(BinOp::Add, left.clone(), int(l.1));
        let smallest_right = out.binary(BinOp::Add, right.clone(), int(r.0));
        let op = if *strict { BinOp::Lt } else { BinOp::Le };
        tests.push(out.test(op, largest_left, smallest_right));
        for (side, (lo, hi)) in [(left, l), (right, r)] {
            if lo < hi {
                let low = out.binary(BinOp::Add, side.clone(), int(lo));
                let high = out.binary(BinOp::Add, side, int(hi));
                tests.push(out.test(BinOp::Le, low, high));
            }
        }
    }
    tests
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The loop body `s += a[i] + a[i + 1]; i += 1` run three times from the guard.
    #[test]
    fn a_chain_needs_one_range_per_array_and_base() {
        let source = "fn f(a: [int], n: int) -> int { let s = 0; let i = 0; \
                      while i < n { s += a[i] + a[i + 1] + a[(i * 7) % 5]; i += 1; } return s; }\n\
                      fn main() { println(f([1, 2, 3], 1)); }";
        let program = pcc_lang::check_bytes("t.pl", source.as_bytes()).expect("valid");
        let func =
            crate::lower::lower_program(&program).functions[crate::mir::FnId::new(0)].clone();
        // The body: the block holding the accesses, three times.
        // The loop body.
        let body = crate::opt::testing::accessing_block(&func);
        let coverage = cover(&func, &[body, body, body]);
        // a[i + j] and a[i + j + 1] for j = 0, 1, 2: base i, offsets 0..=3; the `%` index
        // is not a polynomial and keeps its check.
        assert_eq!(coverage.ranges(), 1);
        assert_eq!(coverage.ranges.values().next(), Some(&(0, 3)));
        assert_eq!(coverage.covered.len(), 6);
        assert_eq!(coverage.checks, 9);
        assert!(!coverage.covers_every_check());
    }
}
