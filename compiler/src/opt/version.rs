//! Range-check elimination by loop versioning ([WWM09] §4: conditions at the loop's entry that
//! cover every iteration of an index linear in the loop variable, where HotSpot deoptimizes if
//! they fail; LLVM's IRCE and HotSpot's C2 split the iteration range instead): one test at a
//! loop's entry proves every bounds-checked access it covers in bounds for the whole iteration
//! space, and a copy of the loop without those checks runs when it holds; otherwise the
//! original loop runs with its checks intact, so a bounds error is reported exactly where and
//! when the program reports it unoptimized.
//!
//! Which loops: innermost loops of at most `MAX_LOOP_SIZE` statements, not headed by the entry
//! block, every back edge of which is a test of one induction variable `i` against a bound
//! (`i < n`, `n >= i`, ...; the lowering's loops are tested at the bottom), where `i` is
//! `i + s` at every back edge with `s` invariant (a constant or a local the loop does not
//! assign), and the test's direction agrees with the sign of `s`.
//!
//! What the test proves. The loop body is evaluated once from the header over polynomials in
//! the locals' values at the header (`mir/poly.rs`), so an index is `a × i + q`, with `i` the
//! induction variable's value at the header of the current iteration and `q` invariant. The
//! first iteration has `i = i0`, the value at the entry; every other one came through a back
//! edge whose test passed, so `i` is at most (at least, counting down) that test's bound, and
//! `i` only grows (shrinks) from `i0`: all header values lie between `i0` and the bounds. An
//! index affine in `i` is in bounds on that whole range when it is at both ends, so the guard
//! checks `0 <= a × e + q < len` at `i0` and at each back edge's bound `e`. All of that is exact
//! in wrapping arithmetic because the guard also checks that each quantity it computes from
//! (`i0`, `s`, the bounds' parts, each `q`) is within ±2^40 and `a` is at most 2^20: then
//! neither the induction variable nor any covered index nor the guard's own sums wrap around.
//! Accesses to one array whose `q`s differ by a constant share one range (`pgo/guard.rs`'s
//! spreads).
//!
//! Loads the loop cannot change (item 2 of issue 17): a global the loop does not store, or a
//! field of an object the loop does not reassign, where no store in the loop and no function it
//! calls (transitively) stores that global or that field of any object, and the length of an
//! array the loop does not reassign, is read once by the guard (a field after a null test of
//! its object), and the unchecked copy uses that value; an array read so is one the guard can
//! measure, and a length read so is an invariant bound. Array lengths never change
//! (docs/LANGUAGE.md), and a call cannot assign the caller's locals, so calls in the loop are no
//! obstacle otherwise.

use std::collections::{BTreeMap, BTreeSet};

use crate::mir::clone::{append_copies, size};
use crate::mir::poly::{
    Compare, Emitter, Poly, Spread, chain_tests, evaluate, int, operand, requirement, widened,
};
use crate::mir::{
    BasicBlock, BinOp, BlockId, Builtin, Callee, Const, ENTRY, FnId, Function, GlobalId, IdVec,
    LocalId, Operand, Program, Rvalue, StatementKind, StructId, Terminator, TerminatorKind, Type,
};

/// Larger loops (statements plus terminators) are not copied: the copy doubles their code.
pub const MAX_LOOP_SIZE: usize = 200;
/// Every quantity the guard computes with is within ±`BOUND`, so nothing it or the covered
/// indices compute wraps around (see the module comment).
const BOUND: i64 = 1 << 40;
/// The largest coefficient of the induction variable in a covered index.
const MAX_COEFFICIENT: i64 = 1 << 20;

/// Versions every loop of the program where the guard covers at least one bounds check.
pub fn version_loops(program: &mut Program) {
    let stores = stores(program);
    for func in program.functions.iter_mut() {
        for body in innermost_loops(func) {
            if let Some(plan) = plan(func, &body, &stores) {
                build(func, &body, &plan);
            }
        }
    }
}

/// Globals and struct fields (of any object) that code may store.
#[derive(Clone, Default, PartialEq)]
struct Stores {
    globals: BTreeSet<GlobalId>,
    fields: BTreeSet<(StructId, usize)>,
}

impl Stores {
    /// Adds the stores `kind` makes, counting a call as the stores of its callee (`callee`).
    fn add(&mut self, kind: &StatementKind, callee: &dyn Fn(FnId) -> Stores) {
        match kind {
            StatementKind::SetGlobal(g, _) => {
                self.globals.insert(*g);
            }
            StatementKind::SetField { strukt, field, .. } => {
                self.fields.insert((*strukt, *field));
            }
            _ => {
                if let Some(f) = kind.called_function() {
                    let theirs = callee(f);
                    self.globals.extend(theirs.globals);
                    self.fields.extend(theirs.fields);
                }
            }
        }
    }
}

/// What each function may store, itself or through the functions it calls (a fixed point
/// over the call graph).
fn stores(program: &Program) -> IdVec<FnId, Stores> {
    let mut stores: IdVec<FnId, Stores> =
        IdVec::from_elem(Stores::default(), program.functions.len());
    let mut changed = true;
    while changed {
        changed = false;
        for (id, func) in program.functions.iter_enumerated() {
            let mut s = Stores::default();
            for stmt in func.blocks.iter().flat_map(|b| &b.stmts) {
                s.add(&stmt.kind, &|f| stores[f].clone());
            }
            if s != stores[id] {
                stores[id] = s;
                changed = true;
            }
        }
    }
    stores
}

/// The blocks of each innermost natural loop of `func`, in reverse postorder (the header
/// first), except a loop headed by the entry block, which has no entry edge to guard.
fn innermost_loops(func: &Function) -> Vec<Vec<BlockId>> {
    let idom = func.immediate_dominators();
    let dominates = |a: BlockId, mut b: BlockId| loop {
        if a == b {
            return true;
        }
        match idom[b] {
            Some(d) => b = d,
            None => return false,
        }
    };
    let rpo = func.reverse_postorder();
    let mut latches: BTreeMap<BlockId, Vec<BlockId>> = BTreeMap::new();
    for &b in &rpo {
        for s in func.blocks[b].term.kind.successors() {
            if dominates(s, b) {
                latches.entry(s).or_default().push(b);
            }
        }
    }
    let mut reachable = IdVec::from_elem(false, func.blocks.len());
    for &b in &rpo {
        reachable[b] = true;
    }
    let predecessors = func.predecessors();
    let mut loops = Vec::new();
    for (&header, ends) in &latches {
        if header == ENTRY {
            continue;
        }
        let mut in_loop = IdVec::from_elem(false, func.blocks.len());
        in_loop[header] = true;
        let mut stack = ends.clone();
        while let Some(b) = stack.pop() {
            if reachable[b] && !in_loop[b] {
                in_loop[b] = true;
                stack.extend(&predecessors[b]);
            }
        }
        let body: Vec<BlockId> = rpo.iter().copied().filter(|&b| in_loop[b]).collect();
        if body[1..].iter().all(|b| !latches.contains_key(b)) {
            loops.push(body);
        }
    }
    loops
}

/// A value read once by the guard: a global, a field of an object, or the length of an array
/// or string (the object, array or string an invariant local or an earlier load).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Load {
    Global(GlobalId),
    Field(LocalId, StructId, usize),
    Len(LocalId),
}

/// How to version one loop.
#[derive(Debug)]
struct Plan {
    /// The loads the guard makes, in order, with their types; the guard's temporary for load
    /// `k` is local `first_load + k`, the next locals of the function.
    loads: Vec<(Load, Type)>,
    first_load: usize,
    /// (position in the loop, statement) of each load the copy replaces, and which load.
    hoisted: Vec<(usize, usize, usize)>,
    /// (position in the loop, statement) of each access that loses its check.
    covered: Vec<(usize, usize)>,
    /// Per (array, coefficient of the induction variable, invariant base), the spread of the
    /// constant offsets of the covered indices.
    ranges: BTreeMap<(LocalId, i64, Poly), Spread>,
    /// The ends of the induction variable's range: its value at the entry, each test's bound.
    ends: Vec<Poly>,
    /// Quantities that must be within ±`BOUND`.
    bounded: BTreeSet<Poly>,
    /// Quantities that must not be negative (the step's sign).
    non_negative: Vec<Poly>,
}

/// What the evaluation of the loop body knows at a point, about the values at the header.
#[derive(Clone, PartialEq)]
struct State {
    /// An int local's value as a polynomial.
    value: IdVec<LocalId, Option<Poly>>,
    /// The invariant local (or load) a local of another type holds.
    alias: IdVec<LocalId, Option<LocalId>>,
    /// The comparison of ints a bool local holds.
    compare: IdVec<LocalId, Option<Compare>>,
}

impl State {
    /// What both `self` and `other` know.
    fn meet(&mut self, other: &State) {
        fn meet<T: PartialEq>(
            mine: &mut IdVec<LocalId, Option<T>>,
            theirs: &IdVec<LocalId, Option<T>>,
        ) {
            for (m, t) in mine.iter_mut().zip(theirs.iter()) {
                if m != t {
                    *m = None;
                }
            }
        }
        meet(&mut self.value, &other.value);
        meet(&mut self.alias, &other.alias);
        meet(&mut self.compare, &other.compare);
    }
}

/// `p` as `a × i + rest`, unless `i` occurs in a monomial other than `i` itself.
fn linear(p: &Poly, i: LocalId) -> Option<(i64, Poly)> {
    let mut rest = p.clone();
    let a = rest.0.remove(&vec![i]).unwrap_or(0);
    rest.0.keys().all(|m| !m.contains(&i)).then_some((a, rest))
}

/// The plan for versioning the loop `body` (header first), if its guard covers some check.
fn plan(func: &Function, body: &[BlockId], stores: &IdVec<FnId, Stores>) -> Option<Plan> {
    if size(func, body.iter().copied()) > MAX_LOOP_SIZE {
        return None;
    }
    let header = body[0];
    let n = func.locals.len();
    let position: BTreeMap<BlockId, usize> =
        body.iter().enumerate().map(|(k, &b)| (b, k)).collect();
    let mut assigned = IdVec::from_elem(false, n);
    let mut stored = Stores::default();
    for &b in body {
        for stmt in &func.blocks[b].stmts {
            if let Some(dest) = stmt.kind.dest() {
                assigned[dest] = true;
            }
            stored.add(&stmt.kind, &|f| stores[f].clone());
        }
    }
    // Invariant: mentions only locals the loop does not assign, or the guard's loads.
    let invariant = |p: &Poly| {
        p.0.keys()
            .flatten()
            .all(|l| l.index() >= n || !assigned[*l])
    };

    let mut plan = Plan {
        loads: Vec::new(),
        first_load: n,
        hoisted: Vec::new(),
        covered: Vec::new(),
        ranges: BTreeMap::new(),
        ends: Vec::new(),
        bounded: BTreeSet::new(),
        non_negative: Vec::new(),
    };
    // Checked accesses: (position, statement, array, index).
    let mut accesses = Vec::new();
    let predecessors = func.predecessors();
    let mut out: Vec<State> = Vec::with_capacity(body.len());
    for (k, &b) in body.iter().enumerate() {
        let mut state = if k == 0 {
            State {
                value: func
                    .locals
                    .iter_enumerated()
                    .map(|(l, decl)| (decl.ty == Type::Int).then(|| Poly::local(l)))
                    .collect(),
                alias: func
                    .locals
                    .iter_enumerated()
                    .map(|(l, decl)| (decl.ty != Type::Int && !assigned[l]).then_some(l))
                    .collect(),
                compare: IdVec::from_elem(None, n),
            }
        } else {
            // The header dominates the loop: other predecessors are unreachable. A predecessor
            // in the body not visited yet (the body's order does not put it first) has no state
            // to meet: the loop is not versioned.
            let mut known: Option<State> = None;
            for p in &predecessors[b] {
                if let Some(&j) = position.get(p) {
                    let before = out.get(j)?;
                    match &mut known {
                        None => known = Some(before.clone()),
                        Some(known) => known.meet(before),
                    }
                }
            }
            known?
        };
        for (s, stmt) in func.blocks[b].stmts.iter().enumerate() {
            if let Some((Operand::Local(array), index)) = stmt.kind.checked_access()
                && let Some(array) = state.alias[*array]
                && let Some(index) = operand(&state.value, index)
            {
                accesses.push((k, s, array, index));
            }
            let Some(dest) = stmt.kind.dest() else {
                continue;
            };
            let load = match &stmt.kind {
                StatementKind::Assign(_, Rvalue::Global(g)) if !stored.globals.contains(g) => {
                    Some(Load::Global(*g))
                }
                StatementKind::Assign(
                    _,
                    Rvalue::Field {
                        object: Operand::Local(o),
                        strukt,
                        field,
                    },
                ) if !stored.fields.contains(&(*strukt, *field)) => {
                    state.alias[*o].map(|o| Load::Field(o, *strukt, *field))
                }
                StatementKind::Call {
                    callee: Callee::Builtin(Builtin::Len),
                    args,
                    ..
                } => match args[..] {
                    [Operand::Local(a)] => state.alias[a].map(Load::Len),
                    _ => None,
                },
                _ => None,
            };
            let loaded = load.map(|load| {
                let l = match plan.loads.iter().position(|(known, _)| *known == load) {
                    Some(l) => l,
                    None => {
                        plan.loads.push((load, func.locals[dest].ty.clone()));
                        plan.loads.len() - 1
                    }
                };
                plan.hoisted.push((k, s, l));
                LocalId::new(n + l)
            });
            let is_int = func.locals[dest].ty == Type::Int;
            state.compare[dest] = match &stmt.kind {
                StatementKind::Assign(_, Rvalue::Binary(op, a, b)) => operand(&state.value, a)
                    .zip(operand(&state.value, b))
                    .map(|(a, b)| (*op, a, b)),
                _ => None,
            };
            state.value[dest] = match (&stmt.kind, loaded) {
                (_, Some(l)) if is_int => Some(Poly::local(l)),
                (StatementKind::Assign(_, rvalue), None) if is_int => {
                    evaluate(&state.value, rvalue)
                }
                _ => None,
            };
            state.alias[dest] = match (&stmt.kind, loaded) {
                (_, Some(l)) if !is_int => Some(l),
                (StatementKind::Assign(_, Rvalue::Use(Operand::Local(src))), None) if !is_int => {
                    state.alias[*src]
                }
                _ => None,
            };
        }
        out.push(state);
    }

    // The induction variable, its step and direction, from the test at each back edge.
    let mut induction: Option<(LocalId, Poly, bool)> = None;
    for p in &predecessors[header] {
        let Some(&k) = position.get(p) else { continue };
        let state = &out[k];
        let TerminatorKind::Branch {
            cond: Operand::Local(c),
            then_bb,
            else_bb,
        } = func.blocks[*p].term.kind
        else {
            return None;
        };
        let stay = then_bb == header;
        let exit = if stay { else_bb } else { then_bb };
        if position.contains_key(&exit) {
            return None;
        }
        let (left, right, strict) = requirement(state.compare[c].as_ref()?, stay)?;
        let mut varying = left
            .0
            .keys()
            .chain(right.0.keys())
            .flatten()
            .filter(|l| l.index() < n && assigned[**l]);
        let i = *varying.next()?;
        if varying.any(|l| *l != i) {
            return None;
        }
        // The side with `i` is `i + offset`; the loop goes on while it is below (`up`) or above
        // the other side.
        let (up, offset, other) = match (linear(&left, i)?, linear(&right, i)?) {
            ((1, offset), (0, other)) => (true, offset, other),
            ((0, other), (1, offset)) => (false, offset, other),
            _ => return None,
        };
        let (1, step) = linear(state.value[i].as_ref()?, i)? else {
            return None;
        };
        if !invariant(&offset) || !invariant(&other) || !invariant(&step) || step.0.is_empty() {
            return None;
        }
        match &induction {
            None => induction = Some((i, step.clone(), up)),
            Some(known) if *known == (i, step.clone(), up) => {}
            Some(_) => return None,
        }
        // The next header value is `i + step`, and the test saw `i + offset`: the bound on
        // the next value is `other - offset + step`, one less (more) if the test is strict.
        let slack = match (up, strict) {
            (_, false) => 0,
            (true, true) => -1,
            (false, true) => 1,
        };
        let end = other
            .add(&offset, -1)?
            .add(&step, 1)?
            .add(&Poly::constant(slack), 1)?;
        plan.ends.push(end);
        plan.bound(other)?;
        plan.bound(offset)?;
    }
    let (i, step, up) = induction?;
    let one = Poly::constant(1);
    plan.not_negative(if up {
        step.add(&one, -1)?
    } else {
        Poly::constant(-1).add(&step, -1)?
    })?;
    plan.bound(step)?;
    plan.ends.push(Poly::local(i));
    plan.bound(Poly::local(i))?;

    for (k, s, array, index) in accesses {
        let Some((a, rest)) = linear(&index, i) else {
            continue;
        };
        if a.unsigned_abs() > MAX_COEFFICIENT as u64 || !invariant(&rest) {
            continue;
        }
        let (base, c) = rest.split_constant();
        let key = (array, a, base);
        let spread = match plan.ranges.get(&key) {
            None => Some((c, c)),
            Some(&spread) => widened(spread, c),
        };
        if let Some(spread) = spread {
            plan.ranges.insert(key, spread);
            plan.covered.push((k, s));
        }
    }
    if plan.covered.is_empty() {
        return None;
    }
    let ranges: Vec<(Poly, Spread)> = plan
        .ranges
        .iter()
        .map(|((_, _, base), &spread)| (base.clone(), spread))
        .collect();
    for (base, (lo, hi)) in ranges {
        for c in [lo, hi] {
            plan.bound(base.add(&Poly::constant(c), 1)?)?;
        }
    }
    Some(plan)
}

impl Plan {
    /// Requires `p` to be within ±`BOUND`: at run time, or now if it is a constant.
    fn bound(&mut self, p: Poly) -> Option<()> {
        match constant(&p) {
            Some(c) => (c.unsigned_abs() <= BOUND as u64).then_some(()),
            None => {
                self.bounded.insert(p);
                Some(())
            }
        }
    }

    /// Requires `p` not to be negative: at run time, or now if it is a constant.
    fn not_negative(&mut self, p: Poly) -> Option<()> {
        match constant(&p) {
            Some(c) => (c >= 0).then_some(()),
            None => {
                self.non_negative.push(p);
                Some(())
            }
        }
    }
}

/// The value of a polynomial without locals.
fn constant(p: &Poly) -> Option<i64> {
    let (rest, c) = p.split_constant();
    rest.0.is_empty().then_some(c)
}

/// Copies the loop `body` without the checks `plan` covers and with its loads hoisted, and
/// makes the loop's entry edges go through the guard, which enters the copy or the original.
fn build(func: &mut Function, body: &[BlockId], plan: &Plan) {
    let header = body[0];
    let span = func.blocks[header].term.span;
    for (k, (_, ty)) in plan.loads.iter().enumerate() {
        let temp = func.new_temp(ty.clone());
        assert_eq!(
            temp.index(),
            plan.first_load + k,
            "the loads' temporaries come next"
        );
    }
    let load = |k: usize| LocalId::new(plan.first_load + k);

    // The guard: the loads (each field after a null test of its object), then one test that
    // every difference that must not be negative is not.
    let mut out = Emitter::new(func, span);
    let mut tests = Vec::new();
    let mut non_null = BTreeSet::new();
    for (k, (what, _)) in plan.loads.iter().enumerate() {
        let rvalue = match *what {
            Load::Global(g) => Rvalue::Global(g),
            Load::Len(array) => {
                out.push(StatementKind::Call {
                    dest: Some(load(k)),
                    callee: Callee::Builtin(Builtin::Len),
                    args: vec![Operand::Local(array)],
                });
                continue;
            }
            Load::Field(object, strukt, field) => {
                if non_null.insert(object) {
                    tests.push(out.test(
                        BinOp::Ne,
                        Operand::Local(object),
                        Operand::Const(Const::Null),
                    ));
                }
                Rvalue::Field {
                    object: Operand::Local(object),
                    strukt,
                    field,
                }
            }
        };
        out.push(StatementKind::Assign(load(k), rvalue));
    }
    let mut differences = Vec::new();
    for p in &plan.bounded {
        let v = out.polynomial(p);
        differences.push(out.binary(BinOp::Add, v.clone(), int(BOUND)));
        differences.push(out.binary(BinOp::Sub, int(BOUND), v));
    }
    for p in &plan.non_negative {
        differences.push(out.polynomial(p));
    }
    let ends: Vec<Operand> = plan.ends.iter().map(|e| out.polynomial(e)).collect();
    for ((array, a, base), &(lo, hi)) in &plan.ranges {
        let len = out.func.new_temp(Type::Int);
        out.push(StatementKind::Call {
            dest: Some(len),
            callee: Callee::Builtin(Builtin::Len),
            args: vec![Operand::Local(*array)],
        });
        let last_slot = out.binary(BinOp::Sub, Operand::Local(len), int(1));
        let base = (!base.0.is_empty()).then(|| out.polynomial(base));
        for end in &ends {
            let scaled = match a {
                1 => end.clone(),
                _ => out.binary(BinOp::Mul, int(*a), end.clone()),
            };
            let at = match &base {
                Some(base) => out.binary(BinOp::Add, scaled, base.clone()),
                None => scaled,
            };
            let first = out.binary(BinOp::Add, at.clone(), int(lo));
            let last = out.binary(BinOp::Add, at, int(hi));
            let room = out.binary(BinOp::Sub, last_slot.clone(), last);
            differences.extend([first, room]);
        }
    }
    let signs = differences
        .into_iter()
        .fold(int(0), |signs, d| out.binary(BinOp::BitOr, signs, d));
    tests.push(out.test(BinOp::Ge, signs, int(0)));

    // The copy: edges within the loop stay in the copy, exits go where the loop's go.
    let first = func.blocks.len();
    let position: BTreeMap<BlockId, usize> =
        body.iter().enumerate().map(|(k, &b)| (b, k)).collect();
    append_copies(func, body, |_, target| {
        position
            .get(&target)
            .map_or(target, |&k| BlockId::new(first + k))
    });
    for &(k, s) in &plan.covered {
        func.blocks[BlockId::new(first + k)].stmts[s].kind.uncheck();
    }
    for &(k, s, l) in &plan.hoisted {
        let kind = &mut func.blocks[BlockId::new(first + k)].stmts[s].kind;
        let dest = kind.dest().expect("a load assigns a local");
        *kind = StatementKind::Assign(dest, Rvalue::Use(Operand::Local(load(l))));
    }

    // The guard's blocks; a failing test enters the original loop.
    let entries: Vec<BlockId> = func.predecessors()[header]
        .iter()
        .copied()
        .filter(|p| !position.contains_key(p))
        .collect();
    // A placeholder block for the first test, which `chain_tests` replaces.
    let guard = func.blocks.push(BasicBlock::new(
        Vec::new(),
        Terminator {
            kind: TerminatorKind::Unreachable,
            span,
        },
    ));
    chain_tests(func, tests, guard, BlockId::new(first), header, span);
    for p in entries {
        func.blocks[p].term.kind.retarget(header, guard);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opt::testing::lower;

    /// The plan for the innermost loop of `f` in `source`, after the passes before this one
    /// (which rotate loops: their tests move to the bottom).
    fn plan_of(source: &str) -> Option<Plan> {
        let mut program = lower(source);
        for func in program.functions.iter_mut() {
            crate::opt::const_fold::fold_constants(func);
            crate::opt::simplify_cfg::simplify_cfg(func);
            crate::opt::dead_code::remove_dead_assignments(func);
        }
        let f = program.functions.position(|f| f.name == "f").expect("f");
        let func = &program.functions[f];
        let loops = innermost_loops(func);
        assert_eq!(loops.len(), 1, "one innermost loop");
        plan(func, &loops[0], &stores(&program))
    }

    fn with_main(f: &str) -> String {
        format!("{f}\nfn main() {{}}")
    }

    #[test]
    fn indices_are_affine_in_the_induction_variable() {
        // `a[i - 1]`, `a[i + 1]` share a base; `b[2 * i]` has coefficient 2; `a[i * i]` is not
        // affine and keeps its check.
        let plan = plan_of(&with_main(
            "fn f(a: [int], b: [int], n: int) -> int { let s = 0; for i in 1..n { \
             s += a[i - 1] + a[i + 1] + b[2 * i] + a[i * i]; } return s; }",
        ))
        .expect("versioned");
        assert_eq!(plan.covered.len(), 3);
        let ranges: Vec<(i64, Spread)> =
            plan.ranges.iter().map(|((_, a, _), s)| (*a, *s)).collect();
        assert_eq!(ranges, [(1, (-1, 1)), (2, (0, 0))]);
        // The ends: `n - 1` (the bound of the bottom test `i + 1 < n`) and the start `i`.
        assert_eq!(plan.ends.len(), 2);
        assert_eq!(
            constant(&plan.ends[0].add(&plan.ends[1], -1).unwrap()),
            None
        );
    }

    #[test]
    fn a_variable_step_is_tested_for_its_sign() {
        // The sieve's inner loop: `k += i`, `k <= size`; the bound is `size` itself.
        let plan = plan_of(&with_main(
            "fn f(flags: [bool], size: int, i: int) { let k = i + i; \
             while k <= size { flags[k - 1] = false; k += i; } }",
        ))
        .expect("versioned");
        assert_eq!(plan.covered.len(), 1);
        assert_eq!(plan.non_negative.len(), 1, "i - 1 >= 0");
        let size = LocalId::new(1);
        assert_eq!(plan.ends[0], Poly::local(size));
        // Counting down needs a lower bound; a constant step is checked now.
        let down = plan_of(&with_main(
            "fn f(a: [int]) -> int { let s = 0; let i = len(a) - 1; \
             while i >= 0 { s += a[i]; i -= 2; } return s; }",
        ))
        .expect("versioned");
        assert!(down.non_negative.is_empty());
        assert_eq!(constant(&down.ends[0]), Some(0), "i >= 0 after each step");
    }

    #[test]
    fn loops_it_cannot_bound_are_left_alone() {
        for f in [
            // The step's sign disagrees with the test, no test at the back edge, two variables.
            "fn f(a: [int], n: int) { let i = 0; while i < n { a[i] = 0; i -= 1; } }",
            "fn f(a: [int], n: int) { let i = 0; while true { a[i] = 0; i += 1; } }",
            "fn f(a: [int]) { let i = 0; let j = 0; while i < j { a[i] = 0; i += 1; j += 1; } }",
            // The array changes in the loop; the index is not a polynomial.
            "fn f(a: [int], n: int) { let i = 0; while i < n { a[i] = 0; a = [0; 3]; i += 1; } }",
            "fn f(a: [int], n: int) { let i = 0; while i < n { a[i % 3] = 0; i += 1; } }",
        ] {
            assert!(plan_of(&with_main(f)).is_none(), "{f}");
        }
    }

    #[test]
    fn loads_are_hoisted_only_where_nothing_stores_them() {
        let source = "struct S { a: [int], n: int }\nlet G: [int] = [1];\n\
                      fn f(s: S) -> int { let t = 0; for i in 0..s.n { \
                      t += s.a[i] + G[i] + len(s.a); if i == 9 { g(s); } } return t; }\n";
        // `g` stores `G`: it is read every time, and `G[i]` keeps its check.
        let stored = plan_of(&format!(
            "{source}fn g(s: S) {{ G = [2]; }}\nfn main() {{}}"
        ))
        .expect("versioned");
        assert_eq!(stored.covered.len(), 1);
        assert!(
            stored
                .loads
                .iter()
                .all(|(l, _)| !matches!(l, Load::Global(_)))
        );
        // `g` stores nothing: `s.a`, `G` and `len(s.a)` are read once (`s.n` is, by the `for`).
        let plan = plan_of(&format!(
            "{source}fn g(s: S) {{ println(1); }}\nfn main() {{}}"
        ))
        .expect("versioned");
        let loads: Vec<&Load> = plan.loads.iter().map(|(l, _)| l).collect();
        assert!(
            matches!(
                loads[..],
                [Load::Field(_, _, 0), Load::Global(_), Load::Len(_)]
            ),
            "{loads:?}"
        );
        assert_eq!(plan.covered.len(), 2);
        // A callee of a callee stores the field `a`: its reads stay, so does `s.a[i]`'s check.
        let deep = plan_of(&format!(
            "{source}fn g(s: S) {{ h(s); }}\nfn h(s: S) {{ s.a = [3]; }}\nfn main() {{}}"
        ))
        .expect("versioned");
        assert_eq!(deep.covered.len(), 1);
        assert!(
            deep.loads
                .iter()
                .all(|(l, _)| !matches!(l, Load::Field(_, _, 0)))
        );
    }
}
