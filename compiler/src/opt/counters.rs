//! Counter promotion: an innermost loop in which nothing can stop the program in a call keeps
//! the counts of the array counters whose index it does not change in locals, which Cranelift
//! keeps in registers, and adds them to the counters on every edge that leaves the loop. A
//! counter incremented in memory in every iteration makes each iteration wait for the store of
//! the one before; gcc moves the stores of its own edge counters out of loops for the same reason.
//!
//! The profile is the same. Where nothing in the loop can end the program (no check that may
//! fail, no call that may stop: `profiling::statement_stop`; a field read of an object known to
//! be non-null cannot fail, `mir::non_null`), every count kept in a local reaches its counter
//! before the profile is written. Where a check may fail, each block of the loop lists the
//! counts kept in locals (`BasicBlock::flush_at_stop`), and code generation adds them to their
//! counters on the check's error path; then a local is incremented where its count was, so that
//! it holds exactly the counts made so far. A call that may stop is not a check: a loop with one
//! keeps its counts in memory.
//!
//! Which counts:
//! - at a constant index, in any innermost loop (`edge`, `block`): the counts of one block share
//!   a local, since they run equally often (with checks, those with no check between them);
//! - also a count whose index is the same in every iteration but perhaps the first: `bl`'s count
//!   at a back edge, `count[r + c]`, after which the latch resets `r` to a constant `K`. The
//!   others, `K + c`, are counted at the exits, as many as the iterations less one. The first
//!   iteration's, `r + c` with `r` as the loop is entered, is made before the loop if the count
//!   is in the header, which runs in every iteration, and no check can stop the loop before it;
//!   else at the exits (or at a stop), if the count was made at all: the count's block must then
//!   run in every iteration but the last (dominate every latch), so that it ran in the first if
//!   it ran. (A second local summing the count's indices would tell the first iteration's count
//!   apart without that condition, but it keeps the path register alive in the loop: AWFY List's
//!   `bl` overhead went from 1.29 to 1.53 with it.)
//!
//! Then the path register, where the loop only resets it: see [`move_reset_to_exits`].
//!
//! Not in a loop with a `match` dispatch (an interpreter's): each arm's counts run in a few of its
//! iterations, and the locals take registers its arms need (bytecode_vm's loop ran 1.2 times as
//! long with 4 of its counts in locals as with none; keeping only a loop's every-iteration counts
//! would lose edge's counts in the arms of an `if`, and keeping all or none, those loops whose
//! other counts cannot be kept: spectralnorm's `bl` 1.06 → 1.08).

use std::collections::BTreeMap;

use pcc_profiler::edge_profile::Stop;

use crate::mir::non_null::NonNull;
use crate::mir::{
    BasicBlock, BinOp, BlockId, Const, Dominators, Function, LocalId, Operand, Program, Rvalue,
    Statement, StatementKind, StopFlush, Terminator, TerminatorKind, Type,
};
use crate::profiling::{Quiet, quiet_functions, statement_stop};

/// The most locals a loop keeps counts in (blocks with promoted counts): each holds a register.
const MAX_LOCALS: usize = 4;

/// Promotes the counts of every innermost loop of the program where nothing can stop it in a
/// call.
pub fn promote_loop_counters(program: &mut Program) {
    if program.counter_tables.is_empty() {
        return;
    }
    let quiet = quiet_functions(program);
    let arrays: Vec<bool> = (program.counter_tables.iter())
        .map(|t| !t.hashed && !t.keyed)
        .collect();
    for func in program.functions.iter_mut() {
        let loops = func.innermost_loops();
        if loops.is_empty() {
            continue;
        }
        let non_null = NonNull::of(func);
        // Promotion only inserts blocks on edges into and out of a loop, which changes no
        // dominance between the blocks there were: one tree serves all of the function's loops.
        let idom = func.dominators();
        let mut resets = Vec::new();
        for body in loops {
            let dispatch = (body.iter())
                .any(|&b| matches!(func.blocks[b].term.kind, TerminatorKind::Switch { .. }));
            if dispatch {
                continue;
            }
            if let Some(checks) = checks(func, &body, &quiet, &non_null) {
                resets.extend(promote(func, &body, &idom, &arrays, &checks));
            }
        }
        // The sums `r + c` that indexed the promoted counts are now read by nothing.
        super::dead_code::remove_dead_assignments(func);
        for reset in resets {
            move_reset_to_exits(func, &idom, reset);
        }
    }
}

/// Per block of the loop `body`, which of its statements may stop the program at a failing
/// check; `None` if one may stop it in a call.
fn checks(
    func: &Function,
    body: &[BlockId],
    quiet: &Quiet,
    non_null: &NonNull,
) -> Option<BTreeMap<BlockId, Vec<bool>>> {
    let mut checks = BTreeMap::new();
    for &b in body {
        let stops = statement_stops(func, b, non_null, quiet);
        if stops.contains(&Stop::InCall) {
            return None;
        }
        checks.insert(b, stops.iter().map(|&s| s == Stop::AtCheck).collect());
    }
    Some(checks)
}

/// How each statement of block `b` may stop the program ([`statement_stop`]): a field access
/// of an object known to be non-null there (`non_null`) cannot fail.
pub(super) fn statement_stops(
    func: &Function,
    b: BlockId,
    non_null: &NonNull,
    quiet: &Quiet,
) -> Vec<Stop> {
    let mut known = non_null.at_start(b);
    let mut stops = Vec::new();
    for stmt in &func.blocks[b].stmts {
        let stop = match statement_stop(func, &stmt.kind, quiet) {
            Stop::AtCheck if known.passes_null_check(&stmt.kind) => Stop::Never,
            stop => stop,
        };
        known.step(&stmt.kind);
        stops.push(stop);
    }
    stops
}

/// A counter index: a local's value (none: zero) plus a constant.
type Index = (Option<LocalId>, i64);

/// Where a promoted count goes at the loop's exits.
struct Promoted {
    table: usize,
    /// The index in every iteration after the first: a constant, or a local the loop does not
    /// assign plus a constant.
    index: Index,
    /// The first iteration's index, when it differs: the entry value of a local plus a constant.
    first: Option<(LocalId, i64)>,
}

/// The counts of one block kept in a local.
struct Kept {
    local: LocalId,
    promoted: Vec<Promoted>,
    /// Whether the first iteration's counts wait for the exits, made there if the block ran: a
    /// block other than the header may not run in the first iteration (the header's are made
    /// before the loop).
    first_at_exit: bool,
    /// An induction variable that the block, and only the block, steps by one (+1 or -1) each
    /// time it runs, with a local holding its value at the loop's entry: the local is then not
    /// incremented in the loop but computed at each exit from the two (see `counted_by`).
    derived: Option<(LocalId, i64, LocalId)>,
    /// What the local starts at: -1 if every count of the block has a first iteration's index,
    /// counted apart (before the loop, or at the exits if the block ran), so that the local holds
    /// what the other iterations add: `local - 1` at an exit would keep the value before the
    /// last increment alive across the back edge as well (Cranelift folds `(x + 1) - 1` into
    /// `x`), a register move per iteration. 0 where a failing check flushes the counts
    /// ([`StopFlush`] counts executions from 0) and the first iteration's count waits for the
    /// exits: there, -1 moved the spills of loops with checks (sieve, brainfuck) for the worse.
    start: i64,
}

/// The loop being promoted: its blocks, the header first, and its latches.
struct Loop<'a> {
    body: &'a [BlockId],
    latches: Vec<BlockId>,
    idom: &'a Dominators,
    /// Whether a check in the loop may stop the program.
    may_stop: bool,
}

/// Replaces the promotable counts of the loop `body` (blocks, the header first) by increments of
/// a local per block, set on entry ([`Kept::start`]) and added to the counters on every exit.
/// Returns the path register resets that the loop may no longer need ([`move_reset_to_exits`]).
fn promote(
    func: &mut Function,
    body: &[BlockId],
    idom: &Dominators,
    arrays: &[bool],
    checks: &BTreeMap<BlockId, Vec<bool>>,
) -> Vec<Reset> {
    let header = body[0];
    let may_stop = checks.values().flatten().any(|&c| c);
    let jumps_to_header = |b: &BlockId| func.blocks[*b].term.kind.jumps_to(header);
    let the_loop = Loop {
        body,
        latches: body.iter().copied().filter(jumps_to_header).collect(),
        idom,
        may_stop,
    };
    let mut by_block: BTreeMap<BlockId, Kept> = BTreeMap::new();
    for &b in body {
        if by_block.len() == MAX_LOCALS {
            break;
        }
        if let Some(kept) = keep_counts(func, &the_loop, b, arrays, &checks[&b]) {
            by_block.insert(b, kept);
        }
    }
    if by_block.is_empty() {
        return Vec::new();
    }
    let resets = (by_block.iter())
        .filter_map(|(&block, kept)| {
            let register = kept.promoted.iter().find_map(|p| p.first)?.0;
            let ran = match kept.derived {
                Some((v, _, v0)) => (v, Operand::Local(v0)),
                None => (kept.local, int(kept.start)),
            };
            Some(Reset {
                body: body.to_vec(),
                register,
                block,
                ran,
            })
        })
        .collect();
    let first_index = enter(func, &the_loop, &by_block);
    for &from in body {
        for exit in func.blocks[from].term.kind.successors() {
            if !body.contains(&exit) {
                leave(func, &the_loop, &by_block, &first_index, (from, exit));
            }
        }
    }
    resets
}

/// The counts of block `b` of the loop kept in a local, if any: the block's statements lose
/// them and gain the local's increment (`checks`: which statements may stop the program at a
/// failing check).
fn keep_counts(
    func: &mut Function,
    the_loop: &Loop,
    b: BlockId,
    arrays: &[bool],
    checks: &[bool],
) -> Option<Kept> {
    let (header, may_stop) = (the_loop.body[0], the_loop.may_stop);
    let mut promoted = Vec::new();
    let mut kept = Vec::new();
    // Where the local is incremented: at the block's first promoted count.
    let mut increment_at = None;
    let stmts = std::mem::take(&mut func.blocks[b].stmts);
    for (at, stmt) in stmts.iter().enumerate() {
        // With a check between them, two counts of a block do not run equally often.
        let checked_since = |from: usize| checks[from..at].iter().any(|&c| c);
        if increment_at.is_some_and(|(from, _)| checked_since(from)) {
            kept.push(stmt.clone());
            continue;
        }
        let found = match &stmt.kind {
            StatementKind::Count { table, index } if arrays[*table] => match index {
                Operand::Const(Const::Int(k)) => Some(((None, *k), None)),
                Operand::Local(l) => steady_index(func, the_loop, b, &stmts, at, *l),
                _ => None,
            }
            .map(|(index, first)| Promoted {
                table: *table,
                index,
                first,
            }),
            _ => None,
        };
        match found {
            Some(p) => {
                promoted.push(p);
                increment_at.get_or_insert((at, kept.len()));
            }
            None => kept.push(stmt.clone()),
        }
    }
    let Some((at, position)) = increment_at else {
        func.blocks[b].stmts = stmts;
        return None;
    };
    let local = func.new_temp(Type::Int);
    let derived = (!may_stop)
        .then(|| counted_by(func, the_loop.body, b, &kept))
        .flatten()
        .map(|(v, step)| (v, step, func.new_temp(Type::Int)));
    if derived.is_none() {
        let add = StatementKind::Assign(
            local,
            Rvalue::Binary(BinOp::Add, Operand::Local(local), int(1)),
        );
        kept.insert(
            position,
            Statement {
                kind: add,
                span: stmts[at].span,
            },
        );
    }
    func.blocks[b].stmts = kept;
    let first_at_exit = (b != header || may_stop) && promoted.iter().any(|p| p.first.is_some());
    let firsts_apart = promoted.iter().all(|p| p.first.is_some());
    let start = -i64::from(firsts_apart && !(first_at_exit && may_stop));
    Some(Kept {
        local,
        promoted,
        first_at_exit,
        derived,
        start,
    })
}

/// Before the loop: the locals start; the header's first iteration's count is made here, and
/// another block's first index is kept for the exits (returned, by block and count); with
/// checks, every block lists the counts a failing check adds (`flush_at_stop`).
fn enter(
    func: &mut Function,
    the_loop: &Loop,
    by_block: &BTreeMap<BlockId, Kept>,
) -> BTreeMap<(BlockId, usize), Operand> {
    let header = the_loop.body[0];
    let entries: Vec<BlockId> = (func.predecessors_of(header).into_iter())
        .filter(|p| !the_loop.body.contains(p))
        .collect();
    let span = func.blocks[header].term.span;
    let stmt = |kind| Statement { kind, span };
    let mut entry = Vec::new();
    let mut first_index: BTreeMap<(BlockId, usize), Operand> = BTreeMap::new();
    let mut flush_at_stop = Vec::new();
    for (&b, kept) in by_block {
        entry.push(stmt(match kept.derived {
            Some((v, _, v0)) => StatementKind::Assign(v0, Rvalue::Use(Operand::Local(v))),
            None => StatementKind::Assign(kept.local, Rvalue::Use(int(kept.start))),
        }));
        for (k, p) in kept.promoted.iter().enumerate() {
            if let Some((l, c)) = p.first {
                let index = offset(func, &mut entry, Some(l), c, span);
                if kept.first_at_exit {
                    first_index.insert((b, k), index);
                } else {
                    entry.push(stmt(StatementKind::Count {
                        table: p.table,
                        index,
                    }));
                }
            }
            if the_loop.may_stop {
                // The index's local does not change in the loop; with checks, the first
                // iteration's count always waits (`first_at_exit`).
                let index = offset(func, &mut entry, p.index.0, p.index.1, span);
                flush_at_stop.push(StopFlush {
                    table: p.table,
                    index,
                    amount: kept.local,
                    first: first_index.get(&(b, k)).cloned(),
                });
            }
        }
    }
    let preheader = jump_block(func, entry, header, span);
    for p in entries {
        func.blocks[p].term.kind.retarget(header, preheader);
    }
    for &b in the_loop.body {
        func.blocks[b].flush_at_stop = flush_at_stop.clone();
    }
    first_index
}

/// On the edge `from → exit` out of the loop: the locals' counts go to their counters; a
/// block's whose first iteration's count waits for the exit only if it ran.
fn leave(
    func: &mut Function,
    the_loop: &Loop,
    by_block: &BTreeMap<BlockId, Kept>,
    first_index: &BTreeMap<(BlockId, usize), Operand>,
    (from, exit): (BlockId, BlockId),
) {
    let span = func.blocks[the_loop.body[0]].term.span;
    let stmt = |kind| Statement { kind, span };
    let mut next = exit;
    let mut always = Vec::new();
    for (&b, kept) in by_block {
        let mut flush = Vec::new();
        for (k, p) in kept.promoted.iter().enumerate() {
            // The first iteration's count was made before the loop, or is made here.
            let correction = kept.start + i64::from(p.first.is_some());
            let amount = match correction {
                0 => kept.local,
                c => {
                    let amount = func.new_temp(Type::Int);
                    flush.push(stmt(StatementKind::Assign(
                        amount,
                        Rvalue::Binary(BinOp::Add, Operand::Local(kept.local), int(-c)),
                    )));
                    amount
                }
            };
            if let Some(index) = first_index.get(&(b, k)) {
                flush.push(stmt(StatementKind::Count {
                    table: p.table,
                    index: index.clone(),
                }));
            }
            let index = offset(func, &mut flush, p.index.0, p.index.1, span);
            flush.push(stmt(StatementKind::CountBy {
                table: p.table,
                index,
                amount: Operand::Local(amount),
            }));
        }
        // An exit after the block in the iteration knows that it ran.
        if !kept.first_at_exit || the_loop.idom.dominates(b, from) {
            always.extend(flush);
            continue;
        }
        let counts = jump_block(func, flush, next, span);
        next = branch_if_differ(func, (kept.local, int(kept.start)), counts, next, span);
    }
    if !always.is_empty() {
        next = jump_block(func, always, next, span);
    }
    // First, the counts of the blocks that step an induction variable: how far it went.
    let derive: Vec<Statement> = (by_block.values())
        .filter_map(|kept| kept.derived.map(|d| (kept, d)))
        .flat_map(|(kept, (v, step, v0))| {
            let (a, b) = if step == 1 { (v, v0) } else { (v0, v) };
            let distance = Rvalue::Binary(BinOp::Sub, Operand::Local(a), Operand::Local(b));
            let started = Rvalue::Binary(BinOp::Add, Operand::Local(kept.local), int(kept.start));
            let started =
                (kept.start != 0).then(|| stmt(StatementKind::Assign(kept.local, started)));
            std::iter::once(stmt(StatementKind::Assign(kept.local, distance))).chain(started)
        })
        .collect();
    if !derive.is_empty() {
        next = jump_block(func, derive, next, span);
    }
    func.blocks[from].term.kind.retarget(exit, next);
}

/// A promoted loop's path register `r`, reset in `block` after a count `count[r + c]` that is
/// now kept in a local.
struct Reset {
    body: Vec<BlockId>,
    register: LocalId,
    block: BlockId,
    /// `block` ran in this entry of the loop if these differ: its local and where it started,
    /// or the induction variable it steps and its value at the entry.
    ran: (LocalId, Operand),
}

/// Where nothing in the loop but the reset `r = K` in `block` touches the path register `r`,
/// which the exits read (a `return` in the loop ends a path), `r` is `K` at an exit if `block`
/// ran, else what it was at the loop's entry: the exits set it so, and the iterations no longer
/// reset it, which kept it alive around the loop (AWFY List's loop zeroed a register in each
/// iteration).
fn move_reset_to_exits(func: &mut Function, idom: &Dominators, reset: Reset) {
    let Reset {
        body,
        register,
        block,
        ran: (local, start),
    } = reset;
    let mut resets = Vec::new();
    for &b in &body {
        let reads = func.blocks[b].reads().flatten();
        if reads.into_iter().any(|op| *op == Operand::Local(register)) {
            return;
        }
        let stmts = func.blocks[b].stmts.iter().enumerate();
        resets.extend(
            stmts
                .filter(|(_, s)| s.kind.dest() == Some(register))
                .map(|(at, s)| (b, at, s.clone())),
        );
    }
    let [(b, at, assign)] = &resets[..] else {
        return;
    };
    if *b != block
        || !matches!(
            assign.kind,
            StatementKind::Assign(_, Rvalue::Use(Operand::Const(_)))
        )
    {
        return;
    }
    func.blocks[block].stmts.remove(*at);
    let span = assign.span;
    for &from in &body {
        let mut exits = func.blocks[from].term.kind.successors();
        exits.retain(|s| !body.contains(s));
        exits.sort_unstable();
        exits.dedup();
        for exit in exits {
            let set = jump_block(func, vec![assign.clone()], exit, span);
            // An exit after the block in the iteration knows that it ran (testing the local
            // there would keep its value before the increment alive, as in `Kept::start`).
            if idom.dominates(block, from) {
                func.blocks[from].term.kind.retarget(exit, set);
                continue;
            }
            let test = branch_if_differ(func, (local, start.clone()), set, exit, span);
            func.blocks[from].term.kind.retarget(exit, test);
        }
    }
}

/// An induction variable that block `b` of the loop `body` (its statements `stmts`, taken out
/// of it) steps by one (`v = v + 1`, `v = v + -1`, `v = v - 1`), where nothing else in the loop
/// assigns it: each run of `b` then moves it by one, so how often `b` ran is how far it moved since the loop's entry (in
/// wrapping arithmetic, whatever its range). Only in a loop that nothing can stop, so that no
/// count is made between the step and the block's counts.
fn counted_by(
    func: &Function,
    body: &[BlockId],
    b: BlockId,
    stmts: &[Statement],
) -> Option<(LocalId, i64)> {
    let assigns = |x: BlockId, v: LocalId| {
        let block = if x == b {
            stmts
        } else {
            &func.blocks[x].stmts[..]
        };
        block.iter().filter(|s| s.kind.dest() == Some(v)).count()
    };
    stmts.iter().find_map(|stmt| {
        let (v, step) = match &stmt.kind {
            StatementKind::Assign(
                v,
                Rvalue::Binary(BinOp::Add, Operand::Local(x), Operand::Const(Const::Int(k)))
                | Rvalue::Binary(BinOp::Add, Operand::Const(Const::Int(k)), Operand::Local(x)),
            ) if v == x && matches!(k, 1 | -1) => (*v, *k),
            StatementKind::Assign(
                v,
                Rvalue::Binary(BinOp::Sub, Operand::Local(x), Operand::Const(Const::Int(k))),
            ) if v == x && matches!(k, 1 | -1) => (*v, -*k),
            _ => return None,
        };
        (func.locals[v].ty == Type::Int && body.iter().map(|&x| assigns(x, v)).sum::<usize>() == 1)
            .then_some((v, step))
    })
}

/// In block `b` of the loop (statements `stmts`, taken out of it), the index of the count at
/// `at`, local `index` there: the same in every iteration after the first (a local the loop
/// does not assign, or none, plus a constant), and the first iteration's if it differs (a local
/// at the loop's entry plus a constant); `None` if it changes otherwise.
///
/// The index of `bl`'s count at a back edge, `count[r + c]` after which the latch resets `r` to
/// a constant `K`, is `K + c` in every iteration but the first, when `r` holds what it held as
/// the loop was entered, if nothing assigns `r` between the header and the count.
fn steady_index(
    func: &Function,
    the_loop: &Loop,
    b: BlockId,
    stmts: &[Statement],
    at: usize,
    index: LocalId,
) -> Option<(Index, Option<(LocalId, i64)>)> {
    // Follow `index` back through copies and additions of constants to the block's entry.
    let (mut local, mut c, mut before) = (index, 0i64, at);
    while let Some(def) = (0..before)
        .rev()
        .find(|&s| stmts[s].kind.dest() == Some(local))
    {
        match &stmts[def].kind {
            StatementKind::Assign(_, Rvalue::Use(Operand::Local(x))) => local = *x,
            StatementKind::Assign(_, Rvalue::Use(Operand::Const(Const::Int(k)))) => {
                return Some(((None, c.wrapping_add(*k)), None));
            }
            StatementKind::Assign(
                _,
                Rvalue::Binary(BinOp::Add, Operand::Local(x), Operand::Const(Const::Int(k)))
                | Rvalue::Binary(BinOp::Add, Operand::Const(Const::Int(k)), Operand::Local(x)),
            ) => {
                local = *x;
                c = c.wrapping_add(*k);
            }
            _ => return None,
        }
        before = def;
    }
    let block_stmts = |x: BlockId| {
        if x == b {
            stmts
        } else {
            &func.blocks[x].stmts[..]
        }
    };
    let assigns = |x: BlockId| block_stmts(x).iter().any(|s| s.kind.dest() == Some(local));
    let assigning: Vec<BlockId> = (the_loop.body.iter().copied())
        .filter(|&x| assigns(x))
        .collect();
    if assigning.is_empty() {
        return Some(((Some(local), c), None));
    }
    // `local` as an iteration after the first starts: a constant, what every block that assigns
    // it last assigns it. Only `b` itself (after the count: nothing assigns `local` in `b` before
    // the point followed back to), and latches that go nowhere else in the loop, may assign it,
    // so that it holds the same value from the header to `b`; either `b` or every latch must
    // assign it, so that it holds that constant at the end of each iteration; and `b` runs in
    // every iteration but perhaps the last, so that it runs in the first iteration if it runs
    // at all. (Mandelbrot's inner loop counts its path in its header and resets the path
    // register there, after the count.)
    let header = the_loop.body[0];
    let only_to_header = |x: BlockId| {
        (func.blocks[x].term.kind.successors().iter())
            .all(|s| *s == header || !the_loop.body.contains(s))
    };
    if !assigning.iter().all(|&x| x == b || only_to_header(x))
        || !(assigning.contains(&b) || the_loop.latches.iter().all(|l| assigning.contains(l)))
        || !(the_loop.latches.iter()).all(|&l| the_loop.idom.dominates(b, l))
    {
        return None;
    }
    let mut reset = assigning.iter().map(|&x| {
        match block_stmts(x)
            .iter()
            .rev()
            .find(|s| s.kind.dest() == Some(local))
        {
            Some(Statement {
                kind: StatementKind::Assign(_, Rvalue::Use(Operand::Const(Const::Int(k)))),
                ..
            }) => Some(*k),
            _ => None,
        }
    });
    let k = reset.next()??;
    reset
        .all(|other| other == Some(k))
        .then_some(((None, c.wrapping_add(k)), Some((local, c))))
}

/// A new block of `stmts` that jumps to `to`.
fn jump_block(
    func: &mut Function,
    stmts: Vec<Statement>,
    to: BlockId,
    span: pcc_lang::Span,
) -> BlockId {
    let term = Terminator {
        kind: TerminatorKind::Goto(to),
        span,
    };
    func.blocks.push(BasicBlock::new(stmts, term))
}

/// A new block that goes to `then_bb` if the two values differ (a block ran in this entry of the
/// loop: its local left where it started), else to `else_bb`.
fn branch_if_differ(
    func: &mut Function,
    (local, start): (LocalId, Operand),
    then_bb: BlockId,
    else_bb: BlockId,
    span: pcc_lang::Span,
) -> BlockId {
    let ran = func.new_temp(Type::Bool);
    let test = Rvalue::Binary(BinOp::Ne, Operand::Local(local), start);
    func.blocks.push(BasicBlock::new(
        vec![Statement {
            kind: StatementKind::Assign(ran, test),
            span,
        }],
        Terminator {
            kind: TerminatorKind::Branch {
                cond: Operand::Local(ran),
                then_bb,
                else_bb,
            },
            span,
        },
    ))
}

fn int(value: i64) -> Operand {
    Operand::Const(Const::Int(value))
}

/// `local + c` as an operand (a constant without a local), computed at the end of `stmts`.
fn offset(
    func: &mut Function,
    stmts: &mut Vec<Statement>,
    local: Option<LocalId>,
    c: i64,
    span: pcc_lang::Span,
) -> Operand {
    let Some(local) = local else {
        return int(c);
    };
    let sum = func.new_temp(Type::Int);
    stmts.push(Statement {
        kind: StatementKind::Assign(
            sum,
            Rvalue::Binary(BinOp::Add, Operand::Local(local), int(c)),
        ),
        span,
    });
    Operand::Local(sum)
}

#[cfg(test)]
mod tests {
    use pcc_profiler::profile::Mode;

    use crate::opt::testing::{instrumented, text};

    /// Function `f` of `source`, instrumented for `mode` and optimized at -O2.
    fn optimized(source: &str, mode: Mode) -> String {
        let mut program = instrumented(source, mode);
        crate::opt::optimize(&mut program);
        text(&program, source, "f")
    }

    /// The blocks of `text` that branch back to themselves: one-block loops.
    fn one_block_loops(text: &str) -> Vec<&str> {
        let blocks = text.split("\n  bb").skip(1);
        blocks
            .filter(|b| {
                let (name, rest) = b.split_once(':').expect("a block label");
                rest.contains(&format!("? bb{name} :")) || rest.contains(&format!(": bb{name} "))
            })
            .collect()
    }

    const SUM: &str = "\
fn f(n: int) -> int {
    let s = 0;
    let i = 0;
    while i < n { s += i; i += 1; }
    return s;
}
fn main() { println(f(10)); }
";

    #[test]
    fn a_one_block_loop_counts_its_path_in_a_local() {
        let text = optimized(SUM, Mode::Bl);
        let loops = one_block_loops(&text);
        assert_eq!(loops.len(), 1, "{text}");
        assert!(!loops[0].contains("count"), "{text}");
        // The first iteration's path is counted before the loop, the others at its exit, and
        // the path that leaves the function after the loop where it ends.
        assert_eq!(text.matches("] += ").count(), 1, "{text}");
        assert_eq!(text.matches("count table").count(), 3, "{text}");
    }

    #[test]
    fn constant_counters_of_a_loop_are_kept_in_locals() {
        for mode in [Mode::Edge, Mode::Block] {
            let text = optimized(SUM, mode);
            let loops = one_block_loops(&text);
            assert_eq!(loops.len(), 1, "{text}");
            assert!(!loops[0].contains("count table"), "{text}");
            assert!(text.contains("] += "), "{text}");
        }
    }

    /// AWFY List's `isShorterThan`: a loop of two blocks whose field reads follow null tests.
    const SHORTER: &str = "\
struct E { next: E }
fn f(x: E, y: E) -> bool {
    let a = x;
    let b = y;
    while b != null {
        if a == null { return true; }
        a = a.next;
        b = b.next;
    }
    return false;
}
fn main() { println(f(null, null)); }
";

    #[test]
    fn a_loop_that_steps_an_induction_variable_by_one_counts_nothing_in_its_iterations() {
        // How often the block ran is how far `i` moved: the exits compute the count from `i`
        // and its value at the entry, so the loop is the plain one (but for bl's reset of the
        // path register).
        for (source, step) in [
            (SUM.to_string(), "_2 = _2 + 1"),
            (
                SUM.replace("let i = 0;", "let i = n;")
                    .replace("i < n", "i > 0")
                    .replace("i += 1", "i -= 1"),
                "_2 = _2 - 1",
            ),
        ] {
            for mode in [Mode::Edge, Mode::Bl] {
                let text = optimized(&source, mode);
                let loops = one_block_loops(&text);
                assert_eq!(loops.len(), 1, "{text}");
                let assignments = loops[0].matches(" = _").count();
                assert!(loops[0].contains(step), "{text}");
                assert_eq!(assignments, 3, "{text}");
                assert!(
                    text.contains(" = _2 - _") || text.contains(" - _2 "),
                    "{text}"
                );
                assert!(text.contains("] += "), "{text}");
            }
        }
    }

    #[test]
    fn a_header_that_resets_the_path_register_after_its_count_counts_in_a_local() {
        // Mandelbrot's loop: the first test is decided at the entry, so the loop is entered at
        // its body, which counts the path that ends there and then resets the path register;
        // the latch, which tests the other condition, does not assign it.
        let source = "\
fn f(c: float) -> int {
    let i = 0;
    let z = 0.0;
    while i < 50 && z <= 4.0 { z = z * z + c; i += 1; }
    return i;
}
fn main() { println(f(0.5)); }
";
        let text = optimized(source, Mode::Bl);
        let body = text
            .split("\n  bb")
            .find(|b| b.contains(" * "))
            .expect("the loop's body");
        assert!(!body.contains("count"), "{text}");
        assert!(text.contains("] += "), "{text}");
    }

    #[test]
    fn a_latch_counts_its_path_in_a_local_if_it_runs() {
        let text = optimized(SHORTER, Mode::Bl);
        // The back edge's path is counted at the exits, by the iterations less one, and the
        // first iteration's there too; at the header's exit only if the latch ran. The local
        // starts at -1, so that the exits add it as it is.
        assert_eq!(text.matches("] += ").count(), 2, "{text}");
        assert!(!text.contains(" + -1"), "{text}");
        let latch = text
            .split("\n  bb")
            .find(|b| b.contains(".next"))
            .expect("the latch");
        assert!(!latch.contains("count"), "{text}");
        // Nor does the latch reset the path register, which the `return` in the loop reads:
        // the exits set it, the header's (a second test of the local) if the latch ran.
        assert!(!latch.contains(" = 0 "), "{text}");
        assert_eq!(text.matches(" != -1 ").count(), 2, "{text}");
        assert_eq!(text.matches(" = 0 ").count(), 2, "{text}");
    }

    #[test]
    fn a_dispatch_loop_counts_in_memory() {
        let body = "match i % 3 { 0 => { s += 1; } 1 => { s += 2; } _ => { s += 3; } }";
        for mode in [Mode::Bl, Mode::Edge] {
            let text = optimized(&SUM.replace("s += i;", body), mode);
            assert!(text.contains("switch"), "{text}");
            assert!(!text.contains("] += "), "{text}");
        }
        // The same choice made by `if`s is no dispatch: edge keeps its counts in locals.
        let ifs = "if i % 3 == 0 { s += 1; } else if i % 3 == 1 { s += 2; } else { s += 3; }";
        let text = optimized(&SUM.replace("s += i;", ifs), Mode::Edge);
        assert!(text.contains("] += "), "{text}");
    }

    #[test]
    fn a_field_read_that_may_fail_flushes_the_counts_where_it_fails() {
        let text = optimized(
            &SHORTER.replace("if a == null { return true; }", ""),
            Mode::Bl,
        );
        assert!(text.contains("at a stop: count table"), "{text}");
        let proven = optimized(SHORTER, Mode::Bl);
        assert!(!proven.contains("at a stop"), "{proven}");
    }

    #[test]
    fn a_loop_that_may_stop_in_a_call_counts_in_memory() {
        // `println` may fail (a closed output): the profile written then must hold the
        // iterations so far, and nothing runs between the failure and the exit.
        let text = optimized(&SUM.replace("s += i;", "println(i);"), Mode::Bl);
        assert!(!text.contains("] += "), "{text}");
        assert!(!text.contains("at a stop"), "{text}");
    }

    #[test]
    fn a_loop_that_may_stop_at_a_check_lists_its_counts_for_the_error_path() {
        // The division may divide by zero: the loop's block lists the count it keeps, which the
        // check's error path adds; the first iteration's count is not made before the loop,
        // since the division may stop it first.
        let text = optimized(&SUM.replace("s += i;", "s += 100 / (n - i);"), Mode::Bl);
        let loops = one_block_loops(&text);
        assert_eq!(loops.len(), 1, "{text}");
        assert!(loops[0].contains("at a stop: count table"), "{text}");
        assert!(!loops[0].contains("\n    count table"), "{text}");
        // At the exit: the first iteration's count and the others'; then the function's.
        let counts: Vec<&str> = (text.lines())
            .filter(|l| l.trim_start().starts_with("count table"))
            .collect();
        assert_eq!(counts.len(), 3, "{text}");
        assert_eq!(
            counts.iter().filter(|c| c.contains("] += ")).count(),
            1,
            "{text}"
        );
    }

    #[test]
    fn promotion_leaves_no_path_sum_unread() {
        // Sieve's inner loop counted `count[r + c]`; promoted, the sum `r + c` is read by
        // nothing, and computing it kept the path register alive around the loop (a register
        // zeroed in each iteration).
        let source = crate::opt::testing::SIEVE;
        let text = optimized(source, Mode::Bl);
        assert!(text.contains("] += "), "{text}");
        // A statement `_N = ...` assigns `_N`; everything else a line says, it reads.
        fn split(line: &str) -> (Option<&str>, &str) {
            let local = |w: &str| {
                w.strip_prefix('_')
                    .is_some_and(|n| n.parse::<u32>().is_ok())
            };
            match line.split_once(" = ") {
                Some((dest, read)) if local(dest) => (Some(dest), read),
                _ => (None, line),
            }
        }
        let statements = (text.lines().map(str::trim)).filter(|l| !l.starts_with("let "));
        let (assigned, reads): (Vec<_>, Vec<_>) = statements.map(split).unzip();
        let read = |local: &str| {
            reads.iter().any(|r| {
                r.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .any(|word| word == local)
            })
        };
        for local in assigned.into_iter().flatten() {
            assert!(read(local), "{local} is never read:\n{text}");
        }
    }

    /// The pass on a whole function, as `--emit mir` shows it (`UPDATE_EXPECT=1` rewrites the
    /// snapshot): under `edge`, the loop body's count is no longer made in the loop: the body
    /// steps `i` by one, so the exit adds how far `i` went (`_4 = _2 - _5`) to its counter.
    #[test]
    fn snapshot() {
        let source = "fn f(n: int) -> int { let s = 0; let i = 0; while i < n { s += i; i += 1; } \
                      return s; }\nfn main() { println(f(3)); }";
        expect_test::expect![[r#"
            before:
            fn f(_0: int) -> int {
                let _1: int;
                let _2: int;
                let _3: bool;
              bb0:
                _1 = 0
                _2 = 0
                goto bb1
              bb1:
                _3 = _2 < _0
                branch _3 ? bb2 : bb3
              bb2:
                _1 = _1 + _2
                _2 = _2 + 1
                count table0[0]
                goto bb1
              bb3:
                count table0[1]
                return _1
            }
            after:
            fn f(_0: int) -> int {
                let _1: int;
                let _2: int;
                let _3: bool;
                let _4: int;
                let _5: int;
              bb0:
                _1 = 0
                _2 = 0
                goto bb4
              bb1:
                _3 = _2 < _0
                branch _3 ? bb2 : bb6
              bb2:
                _1 = _1 + _2
                _2 = _2 + 1
                goto bb1
              bb3:
                count table0[1]
                return _1
              bb4:
                _5 = _2
                goto bb1
              bb5:
                count table0[0] += _4
                goto bb3
              bb6:
                _4 = _2 - _5
                goto bb5
            }
        "#]]
        .assert_eq(&crate::opt::testing::instrumented_before_and_after(
            source,
            Mode::Edge,
            "f",
            super::promote_loop_counters,
        ));
    }
}
