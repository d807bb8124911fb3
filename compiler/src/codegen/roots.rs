//! Where the collector may run in a function, and which references it must find there.
//!
//! Cranelift's safepoint spiller (cranelift-frontend 0.135, `frontend/safepoints.rs`) keeps a
//! needs-stack-map value that is live across any call in a stack slot for its whole life and
//! reloads it at every use, before the call as well as after. A reference variable that a loop
//! reads every iteration (bytecode_vm's code array) would so be loaded from the stack at every
//! read. Instead, only a copy made just before a statement that may collect needs a stack map:
//! it is stored before the statement and reloaded once after it, and the variable's other
//! values stay in registers. The collector does not move objects, so the value in a register
//! stays valid while the copy on the stack keeps its object alive.

use std::collections::BTreeSet;

use crate::mir::{self, BlockId, FnId, IdVec, LocalId, Statement};

/// The references a statement that may collect holds while it runs.
#[derive(Clone)]
pub struct Held {
    /// The reference locals live after the statement (but its destination) and its reference
    /// operands, which its code may read after it allocated (an array literal's elements).
    pub during: Vec<LocalId>,
    /// Those of them read after the statement.
    pub after: Vec<LocalId>,
}

/// Per block of a function, per statement.
pub struct Collections {
    /// What the statement holds, `None` where it cannot collect.
    pub held: IdVec<BlockId, Vec<Option<Held>>>,
    /// Whether no collection can happen from the statement on (in it, or after it on any path
    /// through the function). Only there may a length or a read-only element be read with a
    /// load Cranelift moves: it places such a load (and the pure arithmetic on its value) at
    /// its first use, which must not come after a collection that frees the object it reads
    /// (`len(t)` of a temporary `t` that a later `print` prints).
    pub quiet: IdVec<BlockId, Vec<bool>>,
}

/// Where function `id` may collect (`collects`: `Program::collecting`).
pub fn collections(mir: &mir::Function, id: FnId, collects: &IdVec<FnId, bool>) -> Collections {
    let may_collect = |s: &Statement| {
        collects[id]
            && (mir.allocates_at(s) || s.kind.called_function().is_some_and(|f| collects[f]))
    };
    Collections {
        held: held(mir, may_collect),
        quiet: quiet(mir, may_collect),
    }
}

/// Per statement, what it holds if it may collect.
fn held(
    mir: &mir::Function,
    may_collect: impl Fn(&Statement) -> bool,
) -> IdVec<BlockId, Vec<Option<Held>>> {
    let live_in = mir.live_in();
    let reference = |l: &LocalId| mir.locals[*l].ty.is_reference();
    (mir.blocks.iter())
        .map(|block| {
            let mut live: BTreeSet<LocalId> = (block.term.kind.successors().iter())
                .flat_map(|&s| live_in[s].iter().copied())
                .collect();
            live.extend(block.term.kind.operand().and_then(|op| op.local()));
            let mut held: Vec<Option<Held>> = Vec::with_capacity(block.stmts.len());
            for stmt in block.stmts.iter().rev() {
                let dest = stmt.kind.dest();
                let operands = stmt.kind.operands().into_iter().filter_map(|op| op.local());
                held.push(may_collect(stmt).then(|| {
                    let after: Vec<LocalId> = (live.iter())
                        .filter(|&&l| Some(l) != dest && reference(&l))
                        .copied()
                        .collect();
                    let mut during: BTreeSet<LocalId> = after.iter().copied().collect();
                    during.extend(operands.clone().filter(reference));
                    Held {
                        during: during.into_iter().collect(),
                        after,
                    }
                }));
                if let Some(d) = dest {
                    live.remove(&d);
                }
                live.extend(operands);
            }
            held.reverse();
            held
        })
        .collect()
}

/// Per statement, whether no collection can happen from it on: a backward dataflow over the
/// blocks (a block can reach a collection if it collects or a successor can), then a walk back
/// through each block.
fn quiet(
    mir: &mir::Function,
    may_collect: impl Fn(&Statement) -> bool,
) -> IdVec<BlockId, Vec<bool>> {
    let mut reaches: IdVec<BlockId, bool> = (mir.blocks.iter())
        .map(|b| b.stmts.iter().any(&may_collect))
        .collect();
    let order: Vec<BlockId> = mir.reverse_postorder().into_iter().rev().collect();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            if !reaches[b]
                && mir.blocks[b]
                    .term
                    .kind
                    .successors()
                    .iter()
                    .any(|&s| reaches[s])
            {
                reaches[b] = true;
                changed = true;
            }
        }
    }
    (mir.blocks.iter())
        .map(|block| {
            let mut later = (block.term.kind.successors().iter()).any(|&s| reaches[s]);
            let mut quiet: Vec<bool> = (block.stmts.iter().rev())
                .map(|s| {
                    later |= may_collect(s);
                    !later
                })
                .collect();
            quiet.reverse();
            quiet
        })
        .collect()
}
