//! Polynomials over the values of int locals at one point of a function, with wrapping
//! coefficients: PL's ints wrap, and polynomials with wrapping coefficients are exactly that
//! arithmetic. `evaluate` reads an rvalue as a polynomial in what the locals held; `Emitter`
//! writes a polynomial back as MIR statements, and `chain_tests` puts a guard's tests in blocks.
//! Used by the guards of `opt/guard.rs` and of `opt/version.rs`.

use std::collections::BTreeMap;

use pcc_lang::Span;

use crate::mir::{
    BasicBlock, BinOp, BlockId, Const, Function, LocalId, Operand, Rvalue, Statement,
    StatementKind, Terminator, TerminatorKind, Type,
};

/// Polynomials with more terms or a higher degree are given up on: no real index needs them.
const MAX_TERMS: usize = 8;
const MAX_DEGREE: usize = 3;

/// `Σ coefficient × monomial` over the locals' values at the guard; a monomial is a sorted
/// list of locals (repeats allowed), the empty one the constant term. No zero coefficients.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Poly(pub BTreeMap<Vec<LocalId>, i64>);

impl Poly {
    pub fn constant(c: i64) -> Poly {
        Poly(BTreeMap::new()).plus_term(Vec::new(), c)
    }

    pub fn local(l: LocalId) -> Poly {
        Poly(BTreeMap::from([(vec![l], 1)]))
    }

    pub fn plus_term(mut self, monomial: Vec<LocalId>, coefficient: i64) -> Poly {
        let sum = self
            .0
            .get(&monomial)
            .map_or(coefficient, |c| c.wrapping_add(coefficient));
        if sum == 0 {
            self.0.remove(&monomial);
        } else {
            self.0.insert(monomial, sum);
        }
        self
    }

    pub fn add(&self, other: &Poly, sign: i64) -> Option<Poly> {
        let sum = other.0.iter().fold(self.clone(), |acc, (m, c)| {
            acc.plus_term(m.clone(), c.wrapping_mul(sign))
        });
        (sum.0.len() <= MAX_TERMS).then_some(sum)
    }

    pub fn mul(&self, other: &Poly) -> Option<Poly> {
        let mut product = Poly(BTreeMap::new());
        for (m1, c1) in &self.0 {
            for (m2, c2) in &other.0 {
                let mut m: Vec<LocalId> = m1.iter().chain(m2).copied().collect();
                if m.len() > MAX_DEGREE {
                    return None;
                }
                m.sort_unstable();
                product = product.plus_term(m, c1.wrapping_mul(*c2));
            }
        }
        (product.0.len() <= MAX_TERMS).then_some(product)
    }

    /// The polynomial with the locals `value` knows replaced by their values (polynomials in
    /// other locals); `None` if that is too large.
    pub fn substitute(&self, value: impl Fn(LocalId) -> Option<Poly>) -> Option<Poly> {
        let mut result = Poly(BTreeMap::new());
        for (monomial, &c) in &self.0 {
            let mut term = Poly::constant(c);
            for &l in monomial {
                term = term.mul(&value(l).unwrap_or_else(|| Poly::local(l)))?;
            }
            result = result.add(&term, 1)?;
        }
        Some(result)
    }

    /// The polynomial without its constant term, and that term.
    pub fn split_constant(&self) -> (Poly, i64) {
        let mut base = self.clone();
        let c = base.0.remove(&Vec::new()).unwrap_or(0);
        (base, c)
    }
}

/// The widest spread of constant offsets one guard covers per array and base; with array
/// lengths below 2^60 it keeps the indices between the two checked ones from wrapping around.
pub const MAX_SPREAD: i64 = 1 << 20;

/// The smallest and the largest constant offset seen with one base.
pub type Spread = (i64, i64);

/// `spread` widened to take `c`, unless that makes it wider than `MAX_SPREAD`.
pub fn widened(spread: Spread, c: i64) -> Option<Spread> {
    let w = (spread.0.min(c), spread.1.max(c));
    w.1.checked_sub(w.0)
        .is_some_and(|d| d <= MAX_SPREAD)
        .then_some(w)
}

/// A comparison of ints a bool local holds: `a op b`.
pub type Compare = (BinOp, Poly, Poly);

/// What must hold for a branch on `a op b` to leave by `then` (or else), as `left < right`
/// (strict) or `left <= right`.
pub fn requirement((op, a, b): &Compare, then: bool) -> Option<(Poly, Poly, bool)> {
    let (a, b) = (a.clone(), b.clone());
    Some(match (op, then) {
        (BinOp::Lt, true) | (BinOp::Ge, false) => (a, b, true),
        (BinOp::Le, true) | (BinOp::Gt, false) => (a, b, false),
        (BinOp::Gt, true) | (BinOp::Le, false) => (b, a, true),
        (BinOp::Ge, true) | (BinOp::Lt, false) => (b, a, false),
        _ => return None,
    })
}

/// The int locals' values as polynomials in what they held at a start point (a loop's header,
/// a guard): a local not assigned since holds itself, one assigned what [`Values::set`] recorded.
/// Only the assigned ones are kept: a function of a thousand loops has many locals, and a loop
/// or a chain assigns few of them.
#[derive(Clone, Default)]
pub struct Values(BTreeMap<LocalId, Option<Poly>>);

impl Values {
    /// Local `l`'s value of `func` (`None`: unknown, or not an int).
    pub fn get(&self, func: &Function, l: LocalId) -> Option<Poly> {
        match self.0.get(&l) {
            Some(value) => value.clone(),
            None => (func.locals[l].ty == Type::Int).then(|| Poly::local(l)),
        }
    }

    /// Records that `l` now holds `value` (`None`: unknown).
    pub fn set(&mut self, l: LocalId, value: Option<Poly>) {
        self.0.insert(l, value);
    }

    /// Forgets the values `self` and `other` disagree on.
    pub fn meet(&mut self, other: &Values, func: &Function) {
        let assigned: Vec<LocalId> = (self.0.keys().chain(other.0.keys())).copied().collect();
        for l in assigned {
            if self.get(func, l) != other.get(func, l) {
                self.set(l, None);
            }
        }
    }
}

/// The value of `op` as a polynomial, given each local's (`value`; `None` where unknown or
/// not an int).
pub fn operand(value: &dyn Fn(LocalId) -> Option<Poly>, op: &Operand) -> Option<Poly> {
    match op {
        Operand::Local(l) => value(*l),
        Operand::Const(Const::Int(c)) => Some(Poly::constant(*c)),
        Operand::Const(_) => None,
    }
}

/// The value of `rvalue` as a polynomial, given each local's as [`operand`] does.
pub fn evaluate(value: &dyn Fn(LocalId) -> Option<Poly>, rvalue: &Rvalue) -> Option<Poly> {
    match rvalue {
        Rvalue::Use(op) => operand(value, op),
        Rvalue::Binary(op, a, b) => {
            let (a, b) = (operand(value, a)?, operand(value, b)?);
            match op {
                BinOp::Add => a.add(&b, 1),
                BinOp::Sub => a.add(&b, -1),
                BinOp::Mul => a.mul(&b),
                // `x << c` is `x * 2^c` in wrapping arithmetic.
                BinOp::Shl => match b.split_constant() {
                    (rest, c) if rest.0.is_empty() && (0..63).contains(&c) => {
                        a.mul(&Poly::constant(1 << c))
                    }
                    _ => None,
                },
                _ => None,
            }
        }
        _ => None,
    }
}

pub fn int(v: i64) -> Operand {
    Operand::Const(Const::Int(v))
}

/// Appends int computations to a list of statements, each into a new temporary.
pub struct Emitter<'a> {
    pub func: &'a mut Function,
    stmts: Vec<Statement>,
    span: Span,
}

impl<'a> Emitter<'a> {
    /// Statements of `func` located at `span`.
    pub fn new(func: &'a mut Function, span: Span) -> Emitter<'a> {
        Emitter {
            func,
            stmts: Vec::new(),
            span,
        }
    }

    /// `a op b` into a new bool local, with the statements emitted since the last test.
    pub fn test(&mut self, op: BinOp, a: Operand, b: Operand) -> (Vec<Statement>, LocalId) {
        let ok = self.func.new_temp(Type::Bool);
        self.push(StatementKind::Assign(ok, Rvalue::Binary(op, a, b)));
        (std::mem::take(&mut self.stmts), ok)
    }

    pub fn push(&mut self, kind: StatementKind) {
        self.stmts.push(Statement {
            kind,
            span: self.span,
        });
    }

    pub fn binary(&mut self, op: BinOp, a: Operand, b: Operand) -> Operand {
        let dest = self.func.new_temp(Type::Int);
        self.push(StatementKind::Assign(dest, Rvalue::Binary(op, a, b)));
        Operand::Local(dest)
    }

    /// `poly` computed from the locals, whose values are those at the guard.
    pub fn polynomial(&mut self, poly: &Poly) -> Operand {
        let mut sum: Option<Operand> = None;
        for (monomial, &coefficient) in &poly.0 {
            let mut factors = monomial.iter().map(|&l| Operand::Local(l));
            let first = match (coefficient, factors.next()) {
                (1, Some(local)) => local,
                (_, Some(local)) => self.binary(BinOp::Mul, int(coefficient), local),
                (_, None) => int(coefficient),
            };
            let term = factors.fold(first, |term, f| self.binary(BinOp::Mul, term, f));
            sum = Some(match sum {
                Some(sum) => self.binary(BinOp::Add, sum, term),
                None => term,
            });
        }
        sum.unwrap_or(int(0))
    }
}

/// Chains the blocks of `tests` (each made by [`Emitter::test`]s, as `pgo::guard::guard_tests`
/// makes them): each goes on to the next when its test holds and to `fail` when it does not,
/// the last one to `pass`. The first block replaces `at`; the others are appended. With no
/// tests, `at` goes straight to `pass`.
pub fn chain_tests(
    func: &mut Function,
    tests: Vec<(Vec<Statement>, LocalId)>,
    at: BlockId,
    pass: BlockId,
    fail: BlockId,
    span: Span,
) {
    let count = tests.len();
    let next = func.blocks.len();
    let mut blocks = tests.into_iter().enumerate().map(|(t, (stmts, ok))| {
        let then_bb = if t + 1 < count {
            BlockId::new(next + t)
        } else {
            pass
        };
        let branch = TerminatorKind::Branch {
            cond: Operand::Local(ok),
            then_bb,
            else_bb: fail,
        };
        BasicBlock::new(stmts, Terminator { kind: branch, span })
    });
    func.blocks[at] = blocks.next().unwrap_or_else(|| {
        BasicBlock::new(
            Vec::new(),
            Terminator {
                kind: TerminatorKind::Goto(pass),
                span,
            },
        )
    });
    for block in blocks {
        func.blocks.push(block);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polynomials_are_exact_in_wrapping_arithmetic() {
        let (i, w) = (Poly::local(LocalId::new(1)), Poly::local(LocalId::new(2)));
        // (i * (2^62 + 1)) - (i * 2^62) is i, whatever i is.
        let big = i.mul(&Poly::constant((1 << 62) + 1)).unwrap();
        let bigger = i.mul(&Poly::constant(1 << 62)).unwrap();
        assert_eq!(big.add(&bigger, -1), Some(i.clone()));
        // y * w + x + 1 - 1 splits into the base y * w + x and the offset 0.
        let y = Poly::local(LocalId::new(0));
        let index = y.mul(&w).unwrap().add(&i, 1).unwrap();
        let shifted = index.add(&Poly::constant(1), 1).unwrap();
        assert_eq!(shifted.split_constant(), (index.clone(), 1));
        // `x << 3` is `8 * x`; a shift by a variable or out of range is not a polynomial.
        let shl = |amount: Operand| {
            let values = [Some(Poly::local(LocalId::new(0))), Some(i.clone())];
            evaluate(
                &|l: LocalId| values[l.index()].clone(),
                &Rvalue::Binary(BinOp::Shl, Operand::Local(LocalId::new(0)), amount),
            )
        };
        assert_eq!(shl(int(3)), y.mul(&Poly::constant(8)));
        assert_eq!(shl(Operand::Local(LocalId::new(1))), None);
        assert_eq!(shl(int(64)), None);
        // Too high a degree is given up on.
        let cube = y.mul(&y).unwrap().mul(&y).unwrap();
        assert_eq!(cube.mul(&y), None);
    }
}
