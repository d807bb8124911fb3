//! One range guard per unrolled chain instead of a bounds check per access (the payoff of
//! unrolling along one path, DESIGN.md "Profile-guided recompilation").
//!
//! A chain is entered in one place, its guard block, and each copy of the path is reached only
//! from the copy before it, so what every int local holds at any statement of the chain is a
//! function of the locals' values at the guard. Evaluating the path's statements copy after copy
//! over polynomials in those values (`+ - *` and shifts by constants; PL's ints wrap, and
//! polynomials with wrapping coefficients are exactly that arithmetic) gives every array
//! index of the chain as `base + c`: for `a[y * w + x + 1]` with `x` stepping by one, the copies
//! share the base `y * w + x` and differ in `c` only. All accesses to one array with one base
//! are in bounds when the smallest and the largest are, so the guard checks two indices per
//! (array, base) for the whole chain and the accesses lose their checks. If the guard fails,
//! as at the end of a run, control goes to the general loop, whose checks are intact: a bounds
//! error is reported exactly where and when the original program reports it.

use std::collections::BTreeMap;

use pcc_lang::Span;

use crate::mir::{
    BinOp, Builtin, Callee, Const, Function, LocalId, Operand, Rvalue, Statement, StatementKind,
    Type,
};

/// Polynomials with more terms or a higher degree are given up on: no real index needs them.
const MAX_TERMS: usize = 8;
const MAX_DEGREE: usize = 3;
/// The widest spread of constant offsets one guard covers; with array lengths below 2^60 it
/// keeps the indices between the two checked ones from wrapping around.
const MAX_SPREAD: i64 = 1 << 20;

/// `Σ coefficient × monomial` over the locals' values at the guard; a monomial is a sorted
/// list of locals (repeats allowed), the empty one the constant term. No zero coefficients.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Poly(BTreeMap<Vec<LocalId>, i64>);

impl Poly {
    fn constant(c: i64) -> Poly {
        Poly(BTreeMap::new()).plus_term(Vec::new(), c)
    }

    fn local(l: LocalId) -> Poly {
        Poly(BTreeMap::from([(vec![l], 1)]))
    }

    fn plus_term(mut self, monomial: Vec<LocalId>, coefficient: i64) -> Poly {
        let entry = self.0.entry(monomial).or_insert(0);
        *entry = entry.wrapping_add(coefficient);
        self.0.retain(|_, c| *c != 0);
        self
    }

    fn add(&self, other: &Poly, sign: i64) -> Option<Poly> {
        let sum = other.0.iter().fold(self.clone(), |acc, (m, c)| {
            acc.plus_term(m.clone(), c.wrapping_mul(sign))
        });
        (sum.0.len() <= MAX_TERMS).then_some(sum)
    }

    fn mul(&self, other: &Poly) -> Option<Poly> {
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

    /// The polynomial without its constant term, and that term.
    fn split_constant(&self) -> (Poly, i64) {
        let mut base = self.clone();
        let c = base.0.remove(&Vec::new()).unwrap_or(0);
        (base, c)
    }
}

/// The accesses of a chain that its guard covers: per (array, base), the spread of constant
/// offsets, and which statements lose their checks.
#[derive(Default)]
pub struct Coverage {
    ranges: BTreeMap<(LocalId, Poly), (i64, i64)>,
    /// (block, statement index) of each covered access.
    pub covered: Vec<(usize, usize)>,
}

impl Coverage {
    /// How many (array, base) ranges the guard checks.
    pub fn ranges(&self) -> usize {
        self.ranges.len()
    }
}

/// Evaluates the chain `blocks` (copies of the path in execution order, each block's
/// statements run in full before the next) from the guard, and collects the checked accesses
/// whose index it can express.
pub fn cover(func: &Function, blocks: &[usize]) -> Coverage {
    // Locals assigned anywhere in the chain: an array held in one may not be the one the guard
    // measured.
    let assigned: Vec<bool> = {
        let mut a = vec![false; func.locals.len()];
        for &b in blocks {
            for stmt in &func.blocks[b].stmts {
                if let Some(dest) = stmt.kind.dest() {
                    a[dest] = true;
                }
            }
        }
        a
    };
    let mut value: Vec<Option<Poly>> = func
        .locals
        .iter()
        .enumerate()
        .map(|(l, decl)| (decl.ty == Type::Int).then(|| Poly::local(l)))
        .collect();
    let mut coverage = Coverage::default();
    for &b in blocks {
        for (s, stmt) in func.blocks[b].stmts.iter().enumerate() {
            if let Some((Operand::Local(array), index)) = checked_access(&stmt.kind)
                && !assigned[*array]
                && let Some(index) = operand(&value, index)
            {
                let (base, c) = index.split_constant();
                let range = coverage.ranges.entry((*array, base)).or_insert((c, c));
                let widened = (range.0.min(c), range.1.max(c));
                if widened.1.wrapping_sub(widened.0) <= MAX_SPREAD && widened.0 <= widened.1 {
                    *range = widened;
                    coverage.covered.push((b, s));
                }
            }
            match &stmt.kind {
                StatementKind::Assign(dest, rvalue) => value[*dest] = evaluate(&value, rvalue),
                StatementKind::Call {
                    dest: Some(dest), ..
                } => value[*dest] = None,
                _ => {}
            }
        }
    }
    coverage
}

/// The array and index of a bounds-checked element access.
fn checked_access(kind: &StatementKind) -> Option<(&Operand, &Operand)> {
    match kind {
        StatementKind::Assign(
            _,
            Rvalue::Index {
                base,
                index,
                checked: true,
            },
        ) => Some((base, index)),
        StatementKind::SetIndex {
            array,
            index,
            checked: true,
            ..
        } => Some((array, index)),
        _ => None,
    }
}

fn operand(value: &[Option<Poly>], op: &Operand) -> Option<Poly> {
    match op {
        Operand::Local(l) => value[*l].clone(),
        Operand::Const(Const::Int(c)) => Some(Poly::constant(*c)),
        Operand::Const(_) => None,
    }
}

fn evaluate(value: &[Option<Poly>], rvalue: &Rvalue) -> Option<Poly> {
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

/// Statements computing the guard of `coverage` into a new bool local, which is returned: true
/// when every covered index is in bounds. Per (array, base) with offsets `lo..=hi`: `base + lo`
/// and `base + hi` are at least 0 and `base + hi <= len - 1`; the sign bits of all those
/// differences are or-ed together and tested once.
pub fn guard_statements(
    func: &mut Function,
    coverage: &Coverage,
    span: Span,
) -> (Vec<Statement>, LocalId) {
    let mut out = Emitter {
        func,
        stmts: Vec::new(),
        span,
    };
    let mut signs = Operand::Const(Const::Int(0));
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
    let ok = out.func.new_temp(Type::Bool);
    out.push(StatementKind::Assign(
        ok,
        Rvalue::Binary(BinOp::Ge, signs, int(0)),
    ));
    (out.stmts, ok)
}

fn int(v: i64) -> Operand {
    Operand::Const(Const::Int(v))
}

/// Appends int computations to a list of statements, each into a new temporary.
struct Emitter<'a> {
    func: &'a mut Function,
    stmts: Vec<Statement>,
    span: Span,
}

impl Emitter<'_> {
    fn push(&mut self, kind: StatementKind) {
        self.stmts.push(Statement {
            kind,
            span: self.span,
        });
    }

    fn binary(&mut self, op: BinOp, a: Operand, b: Operand) -> Operand {
        let dest = self.func.new_temp(Type::Int);
        self.push(StatementKind::Assign(dest, Rvalue::Binary(op, a, b)));
        Operand::Local(dest)
    }

    /// `poly` computed from the locals, whose values are those at the guard.
    fn polynomial(&mut self, poly: &Poly) -> Operand {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polynomials_are_exact_in_wrapping_arithmetic() {
        let (i, w) = (Poly::local(1), Poly::local(2));
        // (i * (2^62 + 1)) - (i * 2^62) is i, whatever i is.
        let big = i.mul(&Poly::constant((1 << 62) + 1)).unwrap();
        let bigger = i.mul(&Poly::constant(1 << 62)).unwrap();
        assert_eq!(big.add(&bigger, -1), Some(i.clone()));
        // y * w + x + 1 - 1 splits into the base y * w + x and the offset 0.
        let y = Poly::local(0);
        let index = y.mul(&w).unwrap().add(&i, 1).unwrap();
        let shifted = index.add(&Poly::constant(1), 1).unwrap();
        assert_eq!(shifted.split_constant(), (index.clone(), 1));
        // `x << 3` is `8 * x`; a shift by a variable or out of range is not a polynomial.
        let shl = |amount: Operand| {
            let values = vec![Some(Poly::local(0)), Some(Poly::local(1))];
            evaluate(
                &values,
                &Rvalue::Binary(BinOp::Shl, Operand::Local(0), amount),
            )
        };
        assert_eq!(shl(int(3)), Poly::local(0).mul(&Poly::constant(8)));
        assert_eq!(shl(Operand::Local(1)), None);
        assert_eq!(shl(int(64)), None);
        // Too high a degree is given up on.
        let cube = y.mul(&y).unwrap().mul(&y).unwrap();
        assert_eq!(cube.mul(&y), None);
    }

    /// The loop body `s += a[i] + a[i + 1]; i += 1` run three times from the guard.
    #[test]
    fn a_chain_needs_one_range_per_array_and_base() {
        let source = "fn f(a: [int], n: int) -> int { let s = 0; let i = 0; \
                      while i < n { s += a[i] + a[i + 1] + a[(i * 7) % 5]; i += 1; } return s; }\n\
                      fn main() { println(f([1, 2, 3], 1)); }";
        let program = pcc_lang::check_bytes("t.pl", source.as_bytes()).expect("valid");
        let func = crate::lower::lower_program(&program).functions[0].clone();
        // The body: the block holding the accesses, three times.
        let body = (0..func.blocks.len())
            .find(|&b| {
                func.blocks[b]
                    .stmts
                    .iter()
                    .any(|s| checked_access(&s.kind).is_some())
            })
            .expect("the loop body");
        let coverage = cover(&func, &[body, body, body]);
        // a[i + j] and a[i + j + 1] for j = 0, 1, 2: base i, offsets 0..=3; the `%` index
        // is not a polynomial and keeps its check.
        assert_eq!(coverage.ranges(), 1);
        assert_eq!(coverage.ranges.values().next(), Some(&(0, 3)));
        assert_eq!(coverage.covered.len(), 6);
    }
}
