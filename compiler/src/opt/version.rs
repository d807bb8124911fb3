//! Range-check elimination by loop versioning ([WWM09] §4: conditions at the loop's entry that
//! cover every iteration of an index linear in the loop variable, where HotSpot deoptimizes if
//! they fail; LLVM's IRCE and HotSpot's C2 split the iteration range instead): one test at a
//! loop's entry proves every bounds-checked access it covers in bounds for the whole iteration
//! space, and a copy of the loop without those checks runs when it holds; otherwise the
//! original loop runs with its checks intact, so a bounds error is reported exactly where and
//! when the program reports it unoptimized.
//!
//! Which loops: loops of at most `MAX_LOOP_SIZE` statements, not headed by the entry block,
//! not calling the function they are in unless instrumented (`calls_itself`),
//! innermost ones first, then those around them (the inner loops' versions and guards copied
//! with them: the outer guard covers the accesses affine in the outer induction variable, such
//! as a sieve's `flags[i - 1]` around the loop that clears multiples of `i`), every back edge of which is a test of one induction variable `i` against a bound
//! (`i < n`, `n >= i`, ...; the lowering's loops are tested at the bottom), where `i` is
//! `i + s` at every back edge with `s` invariant (a constant or a local the loop does not
//! assign), and the test's direction agrees with the sign of `s`.
//!
//! What the test proves. The loop body is evaluated once from the header over polynomials in
//! the locals' values at the header (`mir/poly.rs`; at an inner loop's header, what the inner
//! loop assigns is unknown), so an index is `a × i + q`, with `i` the
//! induction variable's value at the header of the current iteration and `q` invariant. The
//! first iteration has `i = i0`, the value at the entry; every other one came through a back
//! edge whose test passed, so `i` is at most (at least, counting down) that test's bound, and
//! `i` only grows (shrinks) from `i0`: all header values lie between `i0` and the bounds. An
//! index affine in `i` is in bounds on that whole range when it is at both ends, so the guard
//! checks `0 <= a × e + q < len` at `i0` and at each back edge's bound `e`. All of that is exact
//! in wrapping arithmetic because the guard also checks that each quantity it computes from
//! (`i0`, `s`, the bounds' parts, each `q`) is within ±2^41 and `a` is at most 2^20: then
//! neither the induction variable nor any covered index nor the guard's own sums wrap around.
//! The guard makes all its tests one: each quantity is in `[0, 2^40)` exactly when the OR of
//! them all is. A difference that must not be negative is tested so as it is; a quantity
//! `p + c` that must be bounded, as `p + 2^39` (so `p` is within ±2^39, and `p + c` within
//! ±2^40 for a constant `c` up to 2^39: `c` and `c + 7` are one test), unless `p + c'` is
//! already one of the differences for such a `c'` (then `p + c` is within ±2^41).
//! Accesses to one array whose `q`s differ by a constant share one range (`opt/guard.rs`'s
//! spreads). Locals that every block entering the loop ends with a constant in are replaced by
//! those constants, so what they decide is decided at compile time (a loop from 0 to 8 tests
//! only the lengths of its arrays), and locals they all end with a copy of another local in, by
//! that local, so one value is not tested twice (`let i = n1; while i >= 0`); of the conditions
//! `x + c >= 0` with one `x` only the one with the smallest `c` is tested.
//!
//! Loads the loop cannot change (item 2 of issue 17): a global the loop does not store, or a
//! field of an object the loop does not reassign, where no store in the loop and no function it
//! calls (transitively) stores that global or that field of any object, and the length of an
//! array the loop does not reassign, is read once by the guard (a field after a null test of
//! its object), and the unchecked copy uses that value (a copy that calls a function reads it
//! again where the loop does: the same value, cheaper than keeping it across the call); an
//! array read so is one the guard can measure, and a length read so is an invariant bound.
//! A loop that may change an array's length (`push`, `pop`, `insert`, `remove`, or a call of a
//! function that may: `Function::resizes_in`) is not versioned; in the others array lengths do
//! not change, and a call cannot assign the caller's locals, so calls in the loop are no
//! obstacle otherwise.
//!
//! Reads the loop's stores cannot change: in the copy, a covered read whose index depends on
//! the induction variable, of an array that no store of the loop writes (the guard also tests
//! that each array of the same type the loop stores into is another one), in a loop that calls
//! no function (nor `sort`, which writes elements), and whose value is used only in the loop,
//! is marked `readonly` (see `Plan::mark_readonly` for why Cranelift may then move it). Cranelift computes such a read
//! with the arithmetic that uses it, where it can fold into an add, instead of all reads first
//! (a 3×3 blur kept nine values live at once and spilled the loop's own).

use std::collections::{BTreeMap, BTreeSet};

use super::globals::fresh_globals;
use super::stores::{Stores, stores};
use crate::mir::clone::{append_copies, size};
use crate::mir::poly::{
    Compare, Emitter, Poly, Spread, Values, chain_tests, evaluate, int, operand, requirement,
    widened,
};
use crate::mir::{
    BasicBlock, BinOp, BlockId, Builtin, Callee, Const, FnId, Function, GlobalId, IdVec, LocalId,
    Operand, Program, Rvalue, StatementKind, StructId, Terminator, TerminatorKind, Type,
    natural_loop,
};

/// Larger loops (statements plus terminators) are not copied: the copy doubles their code.
pub const MAX_LOOP_SIZE: usize = 200;
/// The guard tests each of its quantities (offset) to be in `[0, BOUND)`, so that each
/// quantity it computes with is within ±2 × `BOUND`, and nothing it or the covered indices
/// compute wraps around (see the module comment).
const BOUND: i64 = 1 << 40;
/// The offset of a quantity the guard bounds, and the largest constant term left out of it.
const HALF: i64 = BOUND / 2;
/// The largest coefficient of the induction variable in a covered index.
const MAX_COEFFICIENT: i64 = 1 << 20;

/// Versions every loop of the program where the guard covers at least one bounds check.
pub fn version_loops(program: &mut Program) {
    let stores = stores(program);
    let fresh = fresh_globals(program);
    for (id, func) in program.functions.iter_enumerated_mut() {
        // Versioning adds only the guard's locals, which profiling does not read.
        let profiling = func.profiling_locals();
        let instrumented = func.is_instrumented();
        let mut readers = Readers::of_function(func);
        // Versions the loop `body` if a plan covers some check; whether it did.
        let mut version = |func: &mut Function, body: &[BlockId]| {
            if !instrumented && calls_itself(func, id, body) {
                return false;
            }
            let Some(plan) = plan(func, body, (&stores, &fresh), &profiling, &readers) else {
                return false;
            };
            let first = func.blocks.len();
            build(func, body, &plan);
            readers.add(func, first);
            true
        };
        let mut loops = func.natural_loops();
        let mut built = false;
        for l in loops.iter().filter(|l| l.innermost) {
            built |= version(func, &l.body);
        }
        // Then the loops around loops, smallest first, one at a time: each copy adds blocks and
        // loops (copies of the loops it holds, which are tried too, and cover nothing more).
        let mut tried = BTreeSet::new();
        loop {
            if std::mem::take(&mut built) {
                loops = func.natural_loops();
            }
            let Some(body) = (loops.iter())
                .filter(|l| !l.innermost && !tried.contains(&l.header()))
                .map(|l| l.body.clone())
                .min_by_key(Vec::len)
            else {
                break;
            };
            tried.insert(body[0]);
            built |= version(func, &body);
        }
    }
}

/// The locals that the loop headed by `header` with back edges from `latches` assigns. `None`
/// if `header` does not dominate every latch (the flow into it is irreducible), so these are
/// not back edges.
fn assigned_in_loop(
    func: &Function,
    header: BlockId,
    latches: &[BlockId],
) -> Option<BTreeSet<LocalId>> {
    if latches.is_empty() {
        return Some(BTreeSet::new());
    }
    let idom = func.dominators();
    if !latches.iter().all(|&l| idom.dominates(header, l)) {
        return None;
    }
    let in_loop = natural_loop(header, latches, &func.predecessors(), &idom);
    Some(
        (func.blocks.iter_enumerated())
            .filter(|&(b, _)| in_loop[b])
            .flat_map(|(_, block)| &block.stmts)
            .filter_map(|stmt| stmt.kind.dest())
            .collect(),
    )
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
    /// (position in the loop, statement) of each covered read the copy marks `readonly`, and
    /// the pairs of arrays (invariant locals or loads) the guard tests are not the same, so
    /// that the loop's stores do not write the arrays those reads read.
    readonly: Vec<(usize, usize)>,
    distinct: BTreeSet<(LocalId, LocalId)>,
    /// Whether the loop calls a function (or brackets an inlined one's activation region) or
    /// `sort`.
    calls: bool,
    /// Quantities the guard tests to be within ±`HALF` (each a required one less a constant
    /// up to `HALF`), with the values the locals have at the guard.
    bounded: BTreeSet<Poly>,
    /// Quantities that must not be negative: the step's sign, and each covered index at each
    /// end of the induction variable's range and its distance from the end of its array. Kept
    /// as (part without constant term, smallest constant term): `x - 8 >= 0` implies `x - 1 >= 0`.
    non_negative: BTreeMap<Poly, i64>,
    /// The blocks outside the loop that jump to its header: where the guard goes.
    entries: Vec<BlockId>,
}

/// What the evaluation of the loop body knows at a point, about the values at the header.
#[derive(Clone)]
struct State {
    /// The int locals' values as polynomials in those at the header.
    value: Values,
    /// The invariant local (or load) a local of another type holds.
    alias: IdVec<LocalId, Option<LocalId>>,
    /// The comparison of ints a bool local holds.
    compare: IdVec<LocalId, Option<Compare>>,
}

impl State {
    /// What both `self` and `other` know.
    fn meet(&mut self, other: &State, func: &Function) {
        self.value.meet(&other.value, func);
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

/// Whether the loop `body` of function `id` calls `id`. Such a loop (a backtracking search's,
/// AWFY Queens' `place_queen`) is entered about as often as it iterates, each call running
/// the guard, whose loads of fields and lengths come first in the call, while most iterations
/// fail their first test and run one check: Queens ran 7% faster without its guard, with 35%
/// more instructions executed. Not in an instrumented function, whose checked loop with its
/// counts was the slower one (Queens under `edge`: 0.89 s versioned, 1.08 s not; `bl`, `ppp`
/// and `kbl` 2–6%). It still is now that the counters' address is no longer held across the
/// call (codegen's `profile_array_address`): 0.90 s against 1.03 s, the checked loop
/// executing 31% more instructions (cachegrind).
fn calls_itself(func: &Function, id: FnId, body: &[BlockId]) -> bool {
    func.calls_in(body, id)
}

/// The plan for versioning the loop `body` (header first), if its guard covers some check:
/// the body evaluated over the values at the header, the induction variable found at its back
/// edges, and each checked access whose index is linear in it given a range the guard tests.
fn plan(
    func: &Function,
    body: &[BlockId],
    (stores, fresh): (&IdVec<FnId, Stores>, &BTreeSet<GlobalId>),
    profiling: &IdVec<LocalId, bool>,
    readers: &Readers,
) -> Option<Plan> {
    // The guard measures lengths once, which a loop that may resize an array changes.
    if size(func, body.iter().copied(), profiling) > MAX_LOOP_SIZE || func.resizes_in(body) {
        return None;
    }
    let scan = Scan::new(func, body, stores);
    let mut plan = Plan {
        loads: Vec::new(),
        first_load: scan.n,
        hoisted: Vec::new(),
        covered: Vec::new(),
        readonly: Vec::new(),
        distinct: BTreeSet::new(),
        // `sort` counts as a call: it writes the elements of the array it is given.
        calls: (body.iter().flat_map(|&b| &func.blocks[b].stmts)).any(|stmt| match stmt.kind {
            StatementKind::Call {
                callee: Callee::Function(_),
                ..
            } => true,
            StatementKind::Call {
                callee: Callee::Builtin(b),
                ..
            } => b.writes_elements(),
            _ => false,
        }),
        bounded: BTreeSet::new(),
        non_negative: BTreeMap::new(),
        entries: Vec::new(),
    };
    let evaluation = scan.evaluate(&mut plan)?;
    // What the guard must prove, as found; folded with the locals' values at the guard at the
    // end.
    let mut required = Required::default();
    let i = scan.induction(&evaluation.out, &mut required)?;
    for (k, s, array, index) in evaluation.accesses {
        let Some((a, rest)) = linear(&index, i) else {
            continue;
        };
        if a.unsigned_abs() > MAX_COEFFICIENT as u64 || !scan.invariant(&rest) {
            continue;
        }
        let (base, c) = rest.split_constant();
        let key = (array, a, base);
        let spread = match required.ranges.get(&key) {
            None => Some((c, c)),
            Some(&spread) => widened(spread, c),
        };
        if let Some(spread) = spread {
            required.ranges.insert(key, spread);
            plan.covered.push((k, s));
            if a != 0 {
                let written = (evaluation.written.as_slice(), fresh);
                plan.mark_readonly(func, body, (k, s, array), written, readers);
            }
        }
    }
    if plan.covered.is_empty() {
        return None;
    }
    plan.entries = (func.predecessors_of(scan.header()).into_iter())
        .filter(|p| !scan.position.contains_key(p))
        .collect();
    let at_guard = values_at_end(func, &plan.entries);
    plan.require(required, &at_guard)?;
    Some(plan)
}

/// What `plan` knows of a loop before evaluating it: where each block is in the body, what the
/// body assigns and stores, and the edges within it.
struct Scan<'f> {
    func: &'f Function,
    body: &'f [BlockId],
    /// The function's locals: a local numbered from here on is a load of the guard.
    n: usize,
    position: BTreeMap<BlockId, usize>,
    assigned: IdVec<LocalId, bool>,
    stored: Stores,
    /// The edges within the loop, which are all the evaluation follows.
    predecessors: BTreeMap<BlockId, Vec<BlockId>>,
}

/// The loop body evaluated over the values at its header ([`Scan::evaluate`]).
struct Evaluation {
    /// Per block of the body, in its order, what is known at its end.
    out: Vec<State>,
    /// Checked accesses: (position, statement, array, index).
    accesses: Vec<(usize, usize, LocalId, Poly)>,
    /// The arrays the loop's element stores write: their type, and the invariant local or load
    /// each is (`None`: neither).
    written: Vec<(Type, Option<LocalId>)>,
}

impl<'f> Scan<'f> {
    fn new(func: &'f Function, body: &'f [BlockId], stores: &IdVec<FnId, Stores>) -> Self {
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
        let mut predecessors: BTreeMap<BlockId, Vec<BlockId>> = BTreeMap::new();
        for &b in body {
            for s in func.blocks[b].term.kind.successors() {
                if position.contains_key(&s) {
                    predecessors.entry(s).or_default().push(b);
                }
            }
        }
        Scan {
            func,
            body,
            n,
            position,
            assigned,
            stored,
            predecessors,
        }
    }

    fn header(&self) -> BlockId {
        self.body[0]
    }

    /// Whether `p` mentions only locals the loop does not assign, or the guard's loads.
    fn invariant(&self, p: &Poly) -> bool {
        p.0.keys()
            .flatten()
            .all(|l| l.index() >= self.n || !self.assigned[*l])
    }

    /// Evaluates the body block by block, in its order, over the values at the header: the
    /// int locals as polynomials, the invariant arrays other locals hold, the comparisons bool
    /// locals hold; adds to `plan` the loads of invariant globals, fields and lengths the guard
    /// makes instead. `None` if a block is reached before its predecessors other than the latches
    /// of a loop it heads.
    fn evaluate(&self, plan: &mut Plan) -> Option<Evaluation> {
        let func = self.func;
        let n = self.n;
        let mut accesses = Vec::new();
        let mut written = Vec::new();
        let mut out: Vec<State> = Vec::with_capacity(self.body.len());
        for (k, &b) in self.body.iter().enumerate() {
            let mut state = if k == 0 {
                State {
                    value: Values::default(),
                    alias: (func.locals.iter_enumerated())
                        .map(|(l, decl)| (decl.ty != Type::Int && !self.assigned[l]).then_some(l))
                        .collect(),
                    compare: IdVec::from_elem(None, n),
                }
            } else {
                self.entry_state(b, &out)?
            };
            for (s, stmt) in func.blocks[b].stmts.iter().enumerate() {
                if let StatementKind::SetIndex {
                    array: Operand::Local(array),
                    ..
                } = stmt.kind
                {
                    written.push((func.locals[array].ty.clone(), state.alias[array]));
                }
                if let Some((Operand::Local(array), index)) = stmt.kind.checked_access()
                    && let Some(array) = state.alias[*array]
                    && let Some(index) = operand(&|l| state.value.get(func, l), index)
                {
                    accesses.push((k, s, array, index));
                }
                let Some(dest) = stmt.kind.dest() else {
                    continue;
                };
                let loaded = self.load(&stmt.kind, &state).map(|load| {
                    let l = plan.load(load, &func.locals[dest].ty);
                    plan.hoisted.push((k, s, l.index() - n));
                    l
                });
                let is_int = func.locals[dest].ty == Type::Int;
                let known = |l: LocalId| state.value.get(func, l);
                let compare = match &stmt.kind {
                    StatementKind::Assign(_, Rvalue::Binary(op, a, b)) => operand(&known, a)
                        .zip(operand(&known, b))
                        .map(|(a, b)| (*op, a, b)),
                    _ => None,
                };
                let value = match (&stmt.kind, loaded) {
                    (_, Some(l)) if is_int => Some(Poly::local(l)),
                    (StatementKind::Assign(_, rvalue), None) if is_int => evaluate(&known, rvalue),
                    _ => None,
                };
                state.compare[dest] = compare;
                state.value.set(dest, value);
                state.alias[dest] = match (&stmt.kind, loaded) {
                    (_, Some(l)) if !is_int => Some(l),
                    (StatementKind::Assign(_, Rvalue::Use(Operand::Local(src))), None)
                        if !is_int =>
                    {
                        state.alias[*src]
                    }
                    _ => None,
                };
            }
            out.push(state);
        }
        Some(Evaluation {
            out,
            accesses,
            written,
        })
    }

    /// What is known at the start of block `b` of the body (not the header), from the states
    /// at the end of its predecessors evaluated so far (`out`).
    fn entry_state(&self, b: BlockId, out: &[State]) -> Option<State> {
        // The header dominates the loop: other predecessors are unreachable. A predecessor in
        // the body not visited yet (the body's order does not put it first) is the latch of a
        // loop inside this one, headed by `b`, or the loop is not versioned.
        let mut known: Option<State> = None;
        let mut latches = Vec::new();
        for p in self.predecessors.get(&b).into_iter().flatten() {
            if let Some(&j) = self.position.get(p) {
                match out.get(j) {
                    Some(before) => match &mut known {
                        None => known = Some(before.clone()),
                        Some(known) => known.meet(before, self.func),
                    },
                    None => latches.push(*p),
                }
            }
        }
        let mut state = known?;
        // Through the inner loop's latches come values only it assigns; all else is as it was
        // on entering it.
        for l in assigned_in_loop(self.func, b, &latches)? {
            state.value.set(l, None);
            state.alias[l] = None;
            state.compare[l] = None;
        }
        Some(state)
    }

    /// The load of an invariant global, field or length that `kind` makes, if the loop stores
    /// none of it.
    fn load(&self, kind: &StatementKind, state: &State) -> Option<Load> {
        match kind {
            StatementKind::Assign(_, Rvalue::Global(g)) if !self.stored.globals.contains(g) => {
                Some(Load::Global(*g))
            }
            StatementKind::Assign(
                _,
                Rvalue::Field {
                    object: Operand::Local(o),
                    strukt,
                    field,
                },
            ) if !self.stored.fields.contains(&(*strukt, *field)) => {
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
        }
    }

    /// The induction variable, from the test at each back edge (the same variable, step and
    /// direction at all of them), with what the guard must prove of its range added to
    /// `required`.
    fn induction(&self, out: &[State], required: &mut Required) -> Option<LocalId> {
        let func = self.func;
        let header = self.header();
        let mut induction: Option<(LocalId, Poly, bool)> = None;
        for p in self.predecessors.get(&header).into_iter().flatten() {
            let Some(&k) = self.position.get(p) else {
                continue;
            };
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
            if self.position.contains_key(&exit) {
                return None;
            }
            let (left, right, strict) = requirement(state.compare[c].as_ref()?, stay)?;
            let mut varying = (left.0.keys().chain(right.0.keys()).flatten())
                .filter(|l| l.index() < self.n && self.assigned[**l]);
            let i = *varying.next()?;
            if varying.any(|l| *l != i) {
                return None;
            }
            // The side with `i` is `i + offset`; the loop goes on while it is below (`up`) or
            // above the other side.
            let (up, offset, other) = match (linear(&left, i)?, linear(&right, i)?) {
                ((1, offset), (0, other)) => (true, offset, other),
                ((0, other), (1, offset)) => (false, offset, other),
                _ => return None,
            };
            let (1, step) = linear(&state.value.get(func, i)?, i)? else {
                return None;
            };
            if !self.invariant(&offset)
                || !self.invariant(&other)
                || !self.invariant(&step)
                || step.0.is_empty()
            {
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
            required.ends.insert(end);
            required.bounded.extend([other, offset]);
        }
        let (i, step, up) = induction?;
        let one = Poly::constant(1);
        required.non_negative.push(if up {
            step.add(&one, -1)?
        } else {
            Poly::constant(-1).add(&step, -1)?
        });
        required.ends.insert(Poly::local(i));
        required.bounded.extend([step, Poly::local(i)]);
        Some(i)
    }
}

/// What the guard must prove, over the locals' values at the loop's entry.
#[derive(Default)]
struct Required {
    /// Per (array, coefficient of the induction variable, invariant base), the spread of the
    /// constant offsets of the covered indices.
    ranges: BTreeMap<(LocalId, i64, Poly), Spread>,
    /// The ends of the induction variable's range: its value at the entry, each test's bound.
    ends: BTreeSet<Poly>,
    /// Quantities that must be within ±`BOUND`, besides each range's extreme offsets.
    bounded: Vec<Poly>,
    /// Quantities that must not be negative, besides the ranges' conditions.
    non_negative: Vec<Poly>,
}

impl Plan {
    /// Marks the covered access at (`k`, `s`) of the loop `body`, of `array` (an invariant
    /// local or load), `readonly` if it is a read whose index depends on the induction
    /// variable, and nothing can write `array` while its value is in use: the loop calls no
    /// function, each of its element stores writes an array of another type or one the guard
    /// tests is not `array` (arrays do not overlap; two globals that only ever hold objects
    /// made for them need no test: `opt/globals.rs`), and nothing computed from the value is read
    /// outside the loop. Then the value is used in the iteration that reads it, after the index
    /// is known, whatever Cranelift moves: it computes a pure value where its first use needs
    /// it (which would be after the loop for a value read there, and after a store the program
    /// makes there), and hoists it no further than its operands, the index among them.
    fn mark_readonly(
        &mut self,
        func: &Function,
        body: &[BlockId],
        (k, s, array): (usize, usize, LocalId),
        (written, fresh): (&[(Type, Option<LocalId>)], &BTreeSet<GlobalId>),
        readers: &Readers,
    ) {
        let StatementKind::Assign(
            dest,
            Rvalue::Index {
                base: Operand::Local(base),
                ..
            },
        ) = func.blocks[body[k]].stmts[s].kind
        else {
            return;
        };
        let ty = &func.locals[base].ty;
        if !matches!(ty, Type::Array(_)) {
            return;
        }
        let mut distinct = BTreeSet::new();
        for (_, other) in written.iter().filter(|(t, _)| t == ty) {
            match *other {
                Some(other) if other != array => {
                    // Loads of two globals that always hold objects of their own are never
                    // one array; other pairs the guard tests.
                    if !(self.fresh_global(array, fresh) && self.fresh_global(other, fresh)) {
                        distinct.insert((array.min(other), array.max(other)));
                    }
                }
                _ => return,
            }
        }
        if self.calls || read_outside(func, body, dest, readers) {
            return;
        }
        self.readonly.push((k, s));
        self.distinct.append(&mut distinct);
    }

    /// Whether `local` is the guard's load of a global of `fresh` (`opt/globals.rs`), which no
    /// other global's load can be the same array as.
    fn fresh_global(&self, local: LocalId, fresh: &BTreeSet<GlobalId>) -> bool {
        let load = (local.index().checked_sub(self.first_load)).and_then(|k| self.loads.get(k));
        matches!(load, Some((Load::Global(g), _)) if fresh.contains(g))
    }

    /// The load `load` of type `ty` (made once): the guard's temporary for it.
    fn load(&mut self, load: Load, ty: &Type) -> LocalId {
        let k = match self.loads.iter().position(|(known, _)| *known == load) {
            Some(k) => k,
            None => {
                self.loads.push((load, ty.clone()));
                self.loads.len() - 1
            }
        };
        LocalId::new(self.first_load + k)
    }

    /// Adds the conditions of `required` (each range's indices are in bounds at both ends of
    /// every end of the induction variable's range), with the values the locals are known to
    /// hold at the guard put in: what constants decide is decided now, so a loop that counts
    /// between constants has only its arrays' lengths tested. `None` if a condition fails.
    fn require(&mut self, mut required: Required, known: &BTreeMap<LocalId, Poly>) -> Option<()> {
        for ((array, a, base), &(lo, hi)) in &required.ranges {
            let last_slot = Poly::local(self.load(Load::Len(*array), &Type::Int))
                .add(&Poly::constant(1), -1)?;
            for end in &required.ends {
                let at = Poly::constant(*a).mul(end)?.add(base, 1)?;
                let first = at.add(&Poly::constant(lo), 1)?;
                let room = last_slot.add(&at, -1)?.add(&Poly::constant(hi), -1)?;
                required.non_negative.extend([first, room]);
            }
            for c in [lo, hi] {
                required.bounded.push(base.add(&Poly::constant(c), 1)?);
            }
        }
        let at_guard = |p: &Poly| p.substitute(|l| known.get(&l).cloned());
        for p in &required.bounded {
            self.bound(at_guard(p)?)?;
        }
        for p in &required.non_negative {
            self.not_negative(at_guard(p)?)?;
        }
        // Bounded by a difference that must not be negative.
        let non_negative = &self.non_negative;
        self.bounded
            .retain(|p| (non_negative.get(p)).is_none_or(|c| c.unsigned_abs() > HALF as u64));
        Some(())
    }

    /// Requires `p` to be within ±`BOUND`: at run time (see the module comment), or now if it
    /// is a constant.
    fn bound(&mut self, p: Poly) -> Option<()> {
        let (rest, c) = p.split_constant();
        if rest.0.is_empty() {
            return (c.unsigned_abs() <= BOUND as u64).then_some(());
        }
        self.bounded.insert(if c.unsigned_abs() <= HALF as u64 {
            rest
        } else {
            p
        });
        Some(())
    }

    /// Requires `p` not to be negative: at run time, or now if it is a constant.
    fn not_negative(&mut self, p: Poly) -> Option<()> {
        let (rest, c) = p.split_constant();
        if rest.0.is_empty() {
            return (c >= 0).then_some(());
        }
        let least = self.non_negative.entry(rest).or_insert(c);
        *least = c.min(*least);
        Some(())
    }
}

/// The int locals that each of `blocks` ends with a constant in, or with a copy of another
/// local that it does not assign after the copy, by its own statements (nothing is assumed
/// across blocks), when they all agree on it: a loop's `let i = n1; while i >= 0` is guarded
/// over `n1` alone.
fn values_at_end(func: &Function, blocks: &[BlockId]) -> BTreeMap<LocalId, Poly> {
    let at_end = |b: BlockId| {
        let mut known: BTreeMap<LocalId, Poly> = BTreeMap::new();
        for stmt in &func.blocks[b].stmts {
            let Some(dest) = stmt.kind.dest() else {
                continue;
            };
            // What held `dest`'s old value no longer says anything.
            known.retain(|_, v| !v.0.keys().flatten().any(|l| *l == dest));
            let value = match &stmt.kind {
                StatementKind::Assign(_, Rvalue::Use(Operand::Const(Const::Int(v)))) => {
                    Some(Poly::constant(*v))
                }
                StatementKind::Assign(_, Rvalue::Use(Operand::Local(l)))
                    if func.locals[*l].ty == Type::Int && *l != dest =>
                {
                    Some(known.get(l).cloned().unwrap_or_else(|| Poly::local(*l)))
                }
                _ => None,
            };
            match value {
                Some(v) => known.insert(dest, v),
                None => known.remove(&dest),
            };
        }
        known
    };
    let mut ends = blocks.iter().map(|&b| at_end(b));
    let first = ends.next().unwrap_or_default();
    ends.fold(first, |mut agreed, known| {
        agreed.retain(|l, v| known.get(l) == Some(v));
        agreed
    })
}

/// Whether `value`, assigned in the loop `body`, or a local computed from it in the loop, is
/// read outside the loop.
fn read_outside(func: &Function, body: &[BlockId], value: LocalId, readers: &Readers) -> bool {
    let mut from_value = BTreeSet::from([value]);
    // To a fixed point: a loop carries values from one iteration to the next.
    loop {
        let before = from_value.len();
        for stmt in body.iter().flat_map(|&b| &func.blocks[b].stmts) {
            if let Some(dest) = stmt.kind.dest()
                && (stmt.kind.operands().into_iter())
                    .any(|op| matches!(op, Operand::Local(l) if from_value.contains(l)))
            {
                from_value.insert(dest);
            }
        }
        if from_value.len() == before {
            break;
        }
    }
    (from_value.iter()).any(|&l| readers.of(l).iter().any(|b| !body.contains(b)))
}

/// The blocks that read each local, kept up to date as versioning adds blocks (it changes no
/// read of the blocks there were), so that asking costs no scan of the whole function per loop
/// (1,500 loops in one function took twice as long to compile with such a scan).
struct Readers(Vec<Vec<BlockId>>);

impl Readers {
    fn of_function(func: &Function) -> Readers {
        let mut readers = Readers(Vec::new());
        readers.add(func, 0);
        readers
    }

    /// Adds the reads of the blocks of `func` from the `first` on.
    fn add(&mut self, func: &Function, first: usize) {
        for (b, block) in func.blocks.iter_enumerated().skip(first) {
            for op in block.reads().flatten() {
                if let Operand::Local(l) = op {
                    if self.0.len() <= l.index() {
                        self.0.resize(l.index() + 1, Vec::new());
                    }
                    self.0[l.index()].push(b);
                }
            }
        }
    }

    /// The blocks that read `local` (a block once per read).
    fn of(&self, local: LocalId) -> &[BlockId] {
        self.0.get(local.index()).map_or(&[], Vec::as_slice)
    }
}

/// Copies the loop `body` without the checks `plan` covers, with its loads hoisted (unless it
/// calls a function) and its reads `plan` marks readonly, and makes the loop's entry edges go
/// through the guard, which enters the copy or the original.
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
    for &(a, b) in &plan.distinct {
        tests.push(out.test(BinOp::Ne, Operand::Local(a), Operand::Local(b)));
    }
    // Each quantity is in [0, BOUND) when its OR with all the others is: `v + HALF` for one
    // within ±`HALF`, the difference itself for one that must not be negative (which is less
    // than an array's length wherever the accesses are in bounds: only arrays of 2^40 elements
    // or more fail it needlessly, and run the checked loop).
    let mut terms = Vec::new();
    for p in &plan.bounded {
        let v = out.polynomial(p);
        terms.push(out.binary(BinOp::Add, v, int(HALF)));
    }
    for (rest, &c) in &plan.non_negative {
        terms.push(out.polynomial(&rest.clone().plus_term(Vec::new(), c)));
    }
    let all = terms
        .into_iter()
        .fold(int(0), |all, t| out.binary(BinOp::BitOr, all, t));
    let high = out.binary(BinOp::Shr, all, int(BOUND.trailing_zeros() as i64));
    tests.push(out.test(BinOp::Eq, high, int(0)));

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
    for &(k, s) in &plan.readonly {
        func.blocks[BlockId::new(first + k)].stmts[s]
            .kind
            .set_readonly(true);
    }
    // A value the copy keeps across a call needs a callee-saved register or a stack slot:
    // reading it again where the loop does is no dearer, and leaves the register to the loop's
    // own values (AWFY Queens kept its loop counter on the stack).
    for &(k, s, l) in plan.hoisted.iter().filter(|_| !plan.calls) {
        let kind = &mut func.blocks[BlockId::new(first + k)].stmts[s].kind;
        let dest = kind.dest().expect("a load assigns a local");
        *kind = StatementKind::Assign(dest, Rvalue::Use(Operand::Local(load(l))));
    }

    // The guard's blocks; a failing test enters the original loop.
    // A placeholder block for the first test, which `chain_tests` replaces.
    let guard = func.blocks.push(BasicBlock::new(
        Vec::new(),
        Terminator {
            kind: TerminatorKind::Unreachable,
            span,
        },
    ));
    chain_tests(func, tests, guard, BlockId::new(first), header, span);
    for &p in &plan.entries {
        func.blocks[p].term.kind.retarget(header, guard);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opt::testing::lower;

    /// The plan for the innermost loop of `f` in `source`, after the passes before this one
    /// (which rotate loops: their tests move to the bottom), with the conditions its guard
    /// tests that must not be negative, as text.
    fn plan_of(source: &str) -> Option<(Plan, Vec<String>)> {
        let mut program = lower(source);
        for func in program.functions.iter_mut() {
            crate::opt::const_fold::fold_constants(func);
            crate::opt::simplify_cfg::simplify_cfg(func);
            crate::opt::dead_code::remove_dead_assignments(func);
        }
        program.note_steady_callees();
        let f = program.functions.position(|f| f.name == "f").expect("f");
        let func = &program.functions[f];
        let loops = func.innermost_loops();
        assert_eq!(loops.len(), 1, "one innermost loop");
        let readers = Readers::of_function(func);
        let plan = plan(
            func,
            &loops[0],
            (&stores(&program), &fresh_globals(&program)),
            &func.profiling_locals(),
            &readers,
        )?;
        let mut conditions: Vec<String> = (plan.non_negative.iter())
            .map(|(rest, &c)| text(func, &plan, &rest.clone().plus_term(Vec::new(), c)))
            .collect();
        conditions.sort();
        Some((plan, conditions))
    }

    #[test]
    fn instrumentation_changes_no_versioning() {
        // Loops of about `MAX_LOOP_SIZE` statements, each iteration a path of its own through
        // `n` branches: the counts and path arithmetic profiling adds must not tip one over
        // the limit.
        use pcc_profiler::profile::Mode;
        let versioned = |mut program: Program, source: &str| {
            crate::opt::optimize(&mut program);
            let text = crate::opt::testing::text(&program, source, "f");
            // The guard measures the array; the loop itself only compares with `m`.
            text.contains("len(_0)")
        };
        let mut seen = BTreeSet::new();
        for n in 16..=24 {
            // `a[i]` for `i` below a parameter: only versioning proves it in bounds.
            let body = "if a[i] > 2 { s += a[i]; } else { s -= 1; } ".repeat(n);
            let source = format!(
                "fn f(a: [int], m: int) -> int {{ let s = 0; for i in 0..m {{ {body} }} return s; }}\n\
                 fn main() {{ println(f([1, 2, 3], 3)); }}\n"
            );
            let plain = versioned(lower(&source), &source);
            seen.insert(plain);
            for mode in [Mode::Bl, Mode::Edge] {
                let instrumented = crate::opt::testing::instrumented(&source, mode);
                assert_eq!(
                    versioned(instrumented, &source),
                    plain,
                    "{mode:?}, {n} branches"
                );
            }
        }
        assert_eq!(
            seen.len(),
            2,
            "some loops are versioned and some are too large"
        );
    }

    #[test]
    fn a_loop_around_a_loop_is_versioned_for_its_own_accesses() {
        let source = crate::opt::testing::SIEVE;
        let mut program = lower(source);
        crate::opt::optimize(&mut program);
        let text = crate::opt::testing::text(&program, source, "f");
        // The outer loop reads `flags[i - 1]` unchecked in its copy, around both versions of
        // the inner loop (stores `flags[k - 1]` unchecked in its own copies).
        assert_eq!(text.matches("= unchecked _0[").count(), 1, "{text}");
        assert_eq!(text.matches("= _0[").count(), 1, "{text}");
        assert!(text.matches("unchecked _0[_").count() >= 3, "{text}");
    }

    #[test]
    fn a_loop_whose_first_test_folds_is_versioned() {
        // The first test `2 < 101` is decided at compile time, so the loop is entered at its
        // body; tail duplication must not copy the body's branch into the entry, which would
        // enter the loop at both of its arms.
        let source = "\
fn f(flags: [bool]) -> int {
    let count = 0;
    for i in 2..101 {
        if flags[i - 1] { count += 1; }
    }
    return count;
}
fn main() { println(f([true; 100])); }
";
        let mut program = lower(source);
        crate::opt::optimize(&mut program);
        let text = crate::opt::testing::text(&program, source, "f");
        assert_eq!(
            text.matches("= unchecked readonly _0[").count(),
            1,
            "{text}"
        );
    }

    /// `p` with the locals' source names (`_N` for temporaries), `len(a)` for the guard's load
    /// of the length of `a` and `loadK` for its other loads.
    fn text(func: &Function, plan: &Plan, p: &Poly) -> String {
        let name = |l: LocalId| {
            let Some(k) = l.index().checked_sub(plan.first_load) else {
                return (func.locals[l].name.clone()).unwrap_or(format!("_{}", l.index()));
            };
            match &plan.loads[k].0 {
                Load::Len(a) if a.index() < plan.first_load => {
                    format!("len({})", func.locals[*a].name.as_ref().unwrap())
                }
                _ => format!("load{k}"),
            }
        };
        let terms: Vec<String> = (p.0.iter().rev())
            .map(|(monomial, c)| {
                let factors = monomial.iter().map(|&l| name(l));
                let factors: Vec<String> = match c {
                    1 if !monomial.is_empty() => factors.collect(),
                    _ => std::iter::once(c.to_string()).chain(factors).collect(),
                };
                factors.join("*")
            })
            .collect();
        terms.join(" + ")
    }

    fn with_main(f: &str) -> String {
        format!("{f}\nfn main() {{}}")
    }

    #[test]
    fn indices_are_affine_in_the_induction_variable() {
        // `a[i - 1]`, `a[i + 1]` share a range; `b[2 * i]` has coefficient 2; `a[i * i]` is not
        // affine and keeps its check. `i` runs from 1 (`a[0]`, `b[2]` are in bounds if the
        // arrays are long enough) to `n - 1`, the bound of the bottom test `i + 1 < n` (whose
        // `n` the loop's entry copies into a temporary).
        let (plan, conditions) = plan_of(&with_main(
            "fn f(a: [int], b: [int], n: int) -> int { let s = 0; for i in 1..n { \
             s += a[i - 1] + a[i + 1] + b[2 * i] + a[i * i]; } return s; }",
        ))
        .expect("versioned");
        assert_eq!(plan.covered.len(), 3);
        assert_eq!(
            conditions,
            [
                "2*n + -2",
                "len(a) + -1*n + -1",
                "len(a) + -3",
                "len(b) + -2*n + 1",
                "len(b) + -3",
                "n + -2"
            ]
        );
    }

    #[test]
    fn a_variable_step_is_tested_for_its_sign() {
        // The sieve's inner loop: `k += i`, `k <= size`; the bound is `size` itself, the start
        // `k` as it enters, which is `_4`, the `i + i` it copies.
        let (plan, conditions) = plan_of(&with_main(
            "fn f(flags: [bool], size: int, i: int) { let k = i + i; \
             while k <= size { flags[k - 1] = false; k += i; } }",
        ))
        .expect("versioned");
        assert_eq!(plan.covered.len(), 1);
        assert_eq!(
            conditions,
            [
                "_4 + -1",
                "i + -1",
                "len(flags) + -1*_4",
                "len(flags) + -1*size",
                "size + -1"
            ]
        );
        // Counting down needs a lower bound, 0 after each step here; a constant step is
        // checked now. (`_4` is `len(a) - 1`, which `i` copies.)
        let (_, down) = plan_of(&with_main(
            "fn f(a: [int]) -> int { let s = 0; let i = len(a) - 1; \
             while i >= 0 { s += a[i]; i -= 2; } return s; }",
        ))
        .expect("versioned");
        assert_eq!(down, ["_4", "len(a) + -1", "len(a) + -1*_4 + -1"]);
    }

    #[test]
    fn what_the_entry_decides_is_decided_now() {
        // From 0 to 8 in steps of 1: only the array's length is left to test.
        let (plan, conditions) = plan_of(&with_main(
            "fn f(a: [int]) -> int { let s = 0; for i in 0..8 { s += a[i] + a[7 - i]; } \
             return s; }",
        ))
        .expect("versioned");
        assert_eq!(plan.covered.len(), 2);
        assert!(plan.bounded.is_empty());
        assert_eq!(conditions, ["len(a) + -8"]);
        // `a[i - 1]` is out of bounds in the first iteration: no copy that could never run.
        assert!(
            plan_of(&with_main(
                "fn f(a: [int]) -> int { let s = 0; for i in 0..8 { s += a[i - 1]; } return s; }"
            ))
            .is_none()
        );
    }

    #[test]
    fn quantities_a_constant_apart_are_bounded_once() {
        // AWFY Queens' `free_maxs[c + r]` and `free_mins[c - r + 7]`: `c` and `c + 7` must be
        // small enough not to wrap around. `c` must not be negative, which the guard tests as
        // being in `[0, 2^40)`: that bounds both.
        let (plan, conditions) = plan_of(&with_main(
            "fn f(a: [int], b: [int], c: int) -> int { let s = 0; \
             for r in 0..8 { s += a[c + r] + b[c - r + 7]; } return s; }",
        ))
        .expect("versioned");
        assert_eq!(plan.covered.len(), 2);
        assert!(plan.bounded.is_empty(), "{:?}", plan.bounded);
        assert!(conditions.contains(&"c".to_string()), "{conditions:?}");
        // The parts `n` and `k` of the test `i + k < n` are tested only in differences: each
        // is bounded.
        let (plan, _) = plan_of(&with_main(
            "fn f(a: [int], n: int, k: int) -> int { let s = 0; let i = 0; \
             while i + k < n { s += a[i]; i += 1; } return s; }",
        ))
        .expect("versioned");
        assert_eq!(plan.covered.len(), 1);
        assert_eq!(plan.bounded.len(), 2, "{:?}", plan.bounded);
        assert!(plan.bounded.iter().all(|p| p.split_constant().1 == 0));
    }

    #[test]
    fn a_loop_that_calls_a_function_reads_its_loads_again() {
        // The guard reads `s.a` and its length; the unchecked copy of a loop that calls `f`
        // reads `s.a` where the loop does rather than keep it across the call, and one that
        // calls nothing uses the guard's value.
        let source = "struct S { a: [int] }
fn f(s: S, d: int) -> int {
    let t = 0;
    for i in 0..8 { t += s.a[i]; if d > 0 { t += g(s, d - 1); } }
    for i in 0..8 { t += s.a[i]; }
    return t;
}
fn g(s: S, d: int) -> int { if d > 0 { return g(s, d - 1) + f(s, d - 1); } return d; }
fn main() { println(f(new S { a: [1; 8] }, 2)); }
";
        let mut program = lower(source);
        crate::opt::optimize(&mut program);
        let text = crate::opt::testing::text(&program, source, "f");
        assert_eq!(text.matches("unchecked _").count(), 2, "{text}");
        // One read in each of the checked loops, one in the guards, one in the calling copy.
        assert_eq!(text.matches(".a ").count(), 5, "{text}");
    }

    #[test]
    fn a_loop_that_calls_its_own_function_is_not_versioned() {
        // A backtracking search's loop: the recursive call runs the guard again about as
        // often as the loop iterates. The loop after it, which calls nothing, is versioned.
        // (Locals `_3` and `_4` are the two loops' `i`.)
        let source = "fn f(a: [int], d: int) -> int {
    let t = 0;
    for i in 0..8 { t += a[i]; if d > 0 { t += f(a, d - 1); } }
    for i in 0..8 { t += a[i]; }
    return t;
}
fn main() { println(f([1; 8], 2)); }
";
        let mut program = lower(source);
        crate::opt::optimize(&mut program);
        let text = crate::opt::testing::text(&program, source, "f");
        assert_eq!(text.matches(" = f(_").count(), 1, "{text}");
        assert_eq!(text.matches(" = _0[_3]").count(), 1, "{text}");
        assert!(text.contains("unchecked _0[_4]"), "{text}");
        // Instrumented, it is.
        let mut program =
            crate::opt::testing::instrumented(source, pcc_profiler::profile::Mode::Edge);
        crate::opt::optimize(&mut program);
        let text = crate::opt::testing::text(&program, source, "f");
        assert!(text.contains("unchecked _0[_3]"), "{text}");
    }

    #[test]
    fn a_loop_that_may_resize_an_array_keeps_its_checks() {
        // `push` in the loop, or a call of a function that pops: the length the guard would
        // measure changes. A loop calling a function that only reads is versioned.
        let mut checked = Vec::new();
        for (body, g) in [
            ("t += a[i]; push(a, t);", ""),
            (
                "t += a[i] + g(a);",
                "fn g(a: [int]) -> int { return pop(a); }",
            ),
            (
                "t += a[i] + g(a);",
                "fn g(a: [int]) -> int { return a[0]; }",
            ),
        ] {
            let source = format!(
                "fn f(a: [int]) -> int {{ let t = 0; for i in 0..8 {{ {body} }} return t; }}
                 {g}
fn main() {{ println(f([1; 8])); }}
"
            );
            checked.push(optimized_lines(&source, "unchecked").is_empty());
        }
        assert_eq!(checked, [true, true, false]);
    }

    /// The statements of `f` in `source` after `-O 2` that contain `what`, as text.
    fn optimized_lines(source: &str, what: &str) -> Vec<String> {
        let mut program = lower(source);
        crate::opt::optimize(&mut program);
        let text = crate::opt::testing::text(&program, source, "f");
        text.lines()
            .filter(|l| l.contains(what))
            .map(|l| l.split("//").next().unwrap().trim().to_string())
            .collect()
    }

    #[test]
    fn reads_of_arrays_the_loop_does_not_write_are_readonly() {
        // A blur: the copy reads `src` and `mask` readonly once the guard has seen that
        // neither is `dst`, the array the loop writes.
        let source = "fn f(src: [int], mask: [int], dst: [int], n: int) {
    for i in 1..n { if mask[i] != 0 { dst[i] = src[i - 1] + src[i]; } }
}
fn main() { f([1; 4], [1; 4], [0; 4], 3); }
";
        assert_eq!(optimized_lines(source, "readonly").len(), 3);
        let mut tests = optimized_lines(source, " != _");
        tests.sort();
        assert_eq!(tests.len(), 2, "{tests:?}");
        assert!(tests[0].ends_with("_0 != _2") && tests[1].ends_with("_1 != _2"));
        // Not when the loop writes the array it reads, calls a function, or a value read
        // is used after the loop (where Cranelift would put the read).
        for f in [
            "fn f(a: [int], n: int) { for i in 1..n { a[i] = a[i - 1] + 1; } }",
            "fn f(a: [int], b: [int], n: int) { for i in 0..n { b[i] = a[i]; g(); } }\n\
             fn g() { if argc() > 9 { g(); } }",
            // `sort` writes the elements of `a` between its read and the use of the value.
            "fn f(a: [int], b: [int], n: int) { for i in 0..n { let v = a[i]; sort(a); \
             b[i] = v; } }",
            "fn f(a: [int], n: int) -> int { let x = 0; for i in 0..n { x = a[i] * 2; } \
             a[0] = 5; return x; }",
        ] {
            let source = format!("{f}\nfn main() {{}}\n");
            assert!(!optimized_lines(&source, "unchecked").is_empty(), "{f}");
            assert_eq!(
                optimized_lines(&source, "readonly"),
                Vec::<String>::new(),
                "{f}"
            );
        }
    }

    #[test]
    fn globals_that_hold_arrays_of_their_own_are_not_tested_against_each_other() {
        // nbody_globals' shape: the loop reads `X` and writes `V`, two globals that are only
        // ever given new arrays, so they are never one array and the guard does not test it;
        // `W` may be `X` (`main` stores `X` into it), so a loop writing it keeps its test.
        let source = "let X: [float] = [1.0; 5];\nlet V: [float] = [0.0; 5];\n\
                      let W: [float] = [0.0; 5];\n\
                      fn f(n: int) { for j in 0..n { V[j] += X[j]; } }\n\
                      fn g(n: int) { for j in 0..n { W[j] += X[j]; } }\n\
                      fn main() { W = X; f(5); g(5); }\n";
        for (f, tests) in [("f", 0), ("g", 1)] {
            let mut program = crate::opt::testing::lower(source);
            crate::opt::optimize(&mut program);
            let text = crate::opt::testing::text(&program, source, f);
            let readonly = text.lines().filter(|l| l.contains("readonly")).count();
            let distinct = text.lines().filter(|l| l.contains(" != _")).count();
            assert_eq!((readonly, distinct), (1, tests), "{f}:\n{text}");
        }
    }

    #[test]
    fn a_copy_made_at_the_entry_is_tested_once() {
        // AWFY Permute's `let i = n1; while i >= 0`: `i` enters as `n1`, so the guard tests
        // `n1` (and its distance from the end) and nothing about `i`.
        let (plan, conditions) = plan_of(&with_main(
            "fn f(a: [int], n: int) -> int { let s = 0; let n1 = n - 1; let i = n1; \
             while i >= 0 { s += a[i] + a[n1]; i -= 1; } return s; }",
        ))
        .expect("versioned");
        // (`_5` is `n - 1`, which `n1` and then `i` copy.)
        assert_eq!(plan.covered.len(), 2);
        assert_eq!(conditions, ["_5", "len(a) + -1", "len(a) + -1*_5 + -1"]);
        // Bounded by the first condition.
        assert!(plan.bounded.is_empty(), "{:?}", plan.bounded);
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
        let (stored, _) = plan_of(&format!(
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
        // `g` stores nothing: `s.a`, `G` and `len(s.a)` are read once (`s.n` is, by the `for`),
        // and the guard reads `len(G)` for the range of `G[i]`.
        let (plan, _) = plan_of(&format!(
            "{source}fn g(s: S) {{ println(1); }}\nfn main() {{}}"
        ))
        .expect("versioned");
        let loads: Vec<&Load> = plan.loads.iter().map(|(l, _)| l).collect();
        let (s_a, g) = (
            LocalId::new(plan.first_load),
            LocalId::new(plan.first_load + 1),
        );
        assert!(
            matches!(
                loads[..],
                [Load::Field(_, _, 0), Load::Global(_), Load::Len(a), Load::Len(b)]
                    if *a == s_a && *b == g
            ),
            "{loads:?}"
        );
        assert_eq!(plan.covered.len(), 2);
        // A callee of a callee stores the field `a`: its reads stay, so does `s.a[i]`'s check.
        let (deep, _) = plan_of(&format!(
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

    /// The pass on a whole function, as `--emit mir` shows it (`UPDATE_EXPECT=1` rewrites the
    /// snapshot), after the CFG simplification that runs before it in the pipeline (which puts
    /// the loop's test on its back edge): a guard before the loop tests the range of `i`
    /// against `len(a)` once, and the copy it enters reads `a[i]` unchecked; the original loop,
    /// checks intact, where it fails.
    #[test]
    fn snapshot() {
        let source = "fn f(a: [int], n: int) -> int { let s = 0; for i in 0..n { s += a[i]; } \
                      return s; }\nfn main() { println(f([1, 2], 2)); }";
        expect_test::expect![[r#"
            before:
            fn f(_0: [int], _1: int) -> int {
                let _2: int;
                let _3: int;
                let _4: int;
                let _5: bool;
                let _6: int;
              bb0:
                _2 = 0
                _4 = _1
                _3 = 0
                goto bb1
              bb1:
                _5 = _3 < _4
                branch _5 ? bb2 : bb4
              bb2:
                _6 = _0[_3]
                _2 = _2 + _6
                goto bb3
              bb3:
                _3 = _3 + 1
                goto bb1
              bb4:
                return _2
            }
            after:
            fn f(_0: [int], _1: int) -> int {
                let _2: int;
                let _3: int;
                let _4: int;
                let _5: bool;
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
                let _16: bool;
              bb0:
                _2 = 0
                _4 = _1
                _3 = 0
                _5 = _3 < _4
                branch _5 ? bb4 : bb2
              bb1:
                _6 = _0[_3]
                _2 = _2 + _6
                _3 = _3 + 1
                _5 = _3 < _4
                branch _5 ? bb1 : bb2
              bb2:
                return _2
              bb3:
                _6 = unchecked _0[_3]
                _2 = _2 + _6
                _3 = _3 + 1
                _5 = _3 < _4
                branch _5 ? bb3 : bb2
              bb4:
                _7 = len(_0)
                _8 = -1 * _1
                _9 = _8 + _7
                _10 = -1 + _1
                _11 = -1 + _7
                _12 = 0 | _9
                _13 = _12 | _10
                _14 = _13 | _11
                _15 = _14 >> 40
                _16 = _15 == 0
                branch _16 ? bb3 : bb1
            }
        "#]]
        .assert_eq(&crate::opt::testing::program_before_and_after(
            source,
            "f",
            |program| {
                (program.functions.iter_mut()).for_each(crate::opt::simplify_cfg::simplify_cfg);
                version_loops(program);
            },
        ));
    }
}
