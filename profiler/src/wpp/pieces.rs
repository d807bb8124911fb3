//! Acyclic paths cut before calls ([WPP] §2), and how they join back into Ball-Larus paths.
//!
//! WPP needs a caller's path to be in the trace before its callee's paths, so the edges leading
//! into a call end paths. The compiler splits every block before each call, so that the call
//! starts a block whose one in-edge is a *call cut*, and numbers the split CFG with those edges
//! cut ([`BallLarus::with_cuts`]). A path of that numbering is a *piece*: an ordinary
//! Ball-Larus path, or a part of one that a call interrupts.
//!
//! [`CallSplit`] recovers the function's own CFG (as lowered, before the split) by contracting
//! the call cuts, with its Ball-Larus numbering. [`Rejoin`] then walks a trace of pieces with a
//! stack of activations and joins the pieces of each activation into the ids of that numbering,
//! which are the ids `--profile=bl` counts for the same run. The nesting needs no
//! EnterRoutine/LeaveRoutine events: a piece starting at the entry starts an activation, one that
//! ends at EXIT or in a dead end finishes it, and any other piece continues the innermost one.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::ball_larus::{BallLarus, NumberingError, PathRegister};
use crate::cfg::{Cfg, CfgError, EdgeId, NodeId};
use crate::dag::EdgeRole;
use crate::regenerate::{CfgPath, PathEnd};

use super::grammar::{Grammar, Symbol};
use super::trace::KeyHasher;

/// The most paths a function may have for [`Rejoin`] to count them in an array.
const DENSE_PATHS: u64 = 1 << 16;

/// Path counts by (function, Ball-Larus id).
pub type JoinedCounts = HashMap<(u32, u64), u64, BuildHasherDefault<KeyHasher>>;

/// A function's CFG split before calls, its own CFG, and both numberings.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CallSplit {
    /// The CFG the instrumentation numbered: blocks split before calls.
    pub split: Cfg,
    /// Paths of `split`, with the call cuts (the pieces).
    pub pieces: BallLarus,
    /// The function's CFG with the call cuts contracted: the blocks as lowered.
    pub original: Cfg,
    /// Ball-Larus paths of `original`, as `--profile=bl` numbers them.
    pub paths: BallLarus,
    /// The edge of `original` behind each edge of `split` (`None` for a call cut).
    edge_map: Vec<Option<EdgeId>>,
    /// The node of `original` each node of `split` is part of.
    node_map: Vec<NodeId>,
    is_call_cut: Vec<bool>,
}

/// Why a split CFG is not one the compiler makes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    #[error(transparent)]
    Cfg(CfgError),
    #[error(transparent)]
    Numbering(NumberingError),
    /// A call cut that is not the only edge out of its source and into its target.
    #[error("call cut {0} is not a block split")]
    BadCut(usize),
}

impl CallSplit {
    /// `split` with `cuts`: each cut `u→v` is the only out-edge of `u` and the only in-edge of
    /// `v`, and the target `v` of a cut is a block the split added. Contracting the cuts merges
    /// each such chain into its first node; the other nodes keep their order, so when the split
    /// appended its blocks after the function's own and EXIT comes last, `original` numbers the
    /// blocks as lowered and lists their edges in the same order.
    pub fn new(split: Cfg, cuts: &[usize]) -> Result<CallSplit, SplitError> {
        let mut is_call_cut = vec![false; split.num_edges()];
        let mut continues = vec![false; split.num_nodes()];
        for &c in cuts {
            let edge = (c < split.num_edges())
                .then(|| split.edge(EdgeId(c)))
                .ok_or(SplitError::BadCut(c))?;
            if split.succs(edge.from).len() != 1
                || split.preds(edge.to).len() != 1
                || edge.to == split.entry()
                || edge.to == split.exit()
            {
                return Err(SplitError::BadCut(c));
            }
            is_call_cut[c] = true;
            continues[edge.to.0] = true;
        }
        // Original node ids: the nodes that do not continue another, in order.
        let mut new_id = vec![usize::MAX; split.num_nodes()];
        let mut count = 0;
        for v in 0..split.num_nodes() {
            if !continues[v] {
                new_id[v] = count;
                count += 1;
            }
        }
        let mut node_map = vec![NodeId(0); split.num_nodes()];
        let mut edge_map = vec![None; split.num_edges()];
        let mut pairs = Vec::new();
        for v in (0..split.num_nodes()).filter(|&v| !continues[v]) {
            let mut u = NodeId(v);
            node_map[u.0] = NodeId(new_id[v]);
            while let [e] = split.succs(u)
                && is_call_cut[e.0]
            {
                u = split.edge(*e).to;
                node_map[u.0] = NodeId(new_id[v]);
            }
            for &e in split.succs(u) {
                edge_map[e.0] = Some(EdgeId(pairs.len()));
                pairs.push((new_id[v], new_id[split.edge(e).to.0]));
            }
        }
        let original = Cfg::from_edges(
            count,
            new_id[split.entry().0],
            new_id[split.exit().0],
            &pairs,
        )
        .map_err(SplitError::Cfg)?;
        let call_cuts: Vec<EdgeId> = cuts.iter().map(|&c| EdgeId(c)).collect();
        let pieces =
            BallLarus::with_cuts(&split, &call_cuts, u64::MAX).map_err(SplitError::Numbering)?;
        let paths = BallLarus::new(&original).map_err(SplitError::Numbering)?;
        Ok(CallSplit {
            split,
            pieces,
            original,
            paths,
            edge_map,
            node_map,
            is_call_cut,
        })
    }

    /// The node of the original CFG that split node `v` is part of.
    pub fn original_node(&self, v: NodeId) -> NodeId {
        self.node_map[v.0]
    }

    /// Whether the path ends at a call cut (its activation continues after the call).
    pub fn ends_at_call(&self, piece: &CfgPath) -> bool {
        matches!(piece.end, PathEnd::Truncated(e) if self.is_call_cut[e.0])
    }

    /// What piece `id` does to its activation's Ball-Larus register, or `None` if there is no
    /// such piece.
    pub fn effect(&self, id: u64) -> Option<PieceEffect> {
        let piece = self.pieces.path(id)?;
        let starts = piece.start == self.split.entry();
        // The original edges the piece takes, then the back or cut edge that ends it (a call cut
        // has no original edge: the path goes on after the call).
        let closing = match piece.end {
            PathEnd::BackEdge(e) | PathEnd::Truncated(e) => self.edge_map[e.0],
            PathEnd::Exit | PathEnd::DeadEnd(_) => None,
        };
        let mut register = PathRegister::default();
        let mut emits: Vec<u64> = piece
            .edges
            .iter()
            .filter_map(|e| self.edge_map[e.0])
            .chain(closing)
            .filter_map(|e| register.take(&self.paths, e))
            .collect();
        let ends = matches!(piece.end, PathEnd::Exit | PathEnd::DeadEnd(_));
        if ends {
            let last = piece.nodes(&self.split).last().copied();
            let stop = last.map(|v| self.original_node(v));
            emits.extend(stop.and_then(|v| register.stop_at(&self.paths, v)));
        }
        Some(PieceEffect {
            starts,
            ends,
            start_register: if starts {
                Some(0)
            } else {
                self.restart(piece.start)
            },
            emits,
            register: register.0,
        })
    }

    /// The register a piece starting at `v` (not the entry) finds, when every edge that can
    /// start it is a back edge of both numberings (not a call cut): each such edge resets the
    /// register to the value of the `ENTRY→v` dummy of `paths` ([BL96] §3.3), whatever ran
    /// before it.
    fn restart(&self, v: NodeId) -> Option<u64> {
        let mut value = None;
        for &e in self.split.preds(v) {
            if !matches!(self.pieces.dag().role(e), EdgeRole::Closing { .. }) {
                continue;
            }
            let original = self.edge_map[e.0]?;
            if !matches!(self.paths.dag().role(original), EdgeRole::Closing { .. }) {
                return None;
            }
            let mut register = PathRegister::default();
            register.take(&self.paths, original);
            if value.is_some_and(|known| known != register.0) {
                return None;
            }
            value = Some(register.0);
        }
        value
    }
}

/// What one piece does to the register of its activation, computed with a register that starts
/// at 0: the first id it emits, and the register it leaves when it emits none, are to be added to
/// the incoming register unless the piece starts the activation; later ones are exact (a back or
/// cut edge resets the register).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceEffect {
    /// The piece starts at the function's entry: a new activation.
    pub starts: bool,
    /// The piece ends at EXIT or in a dead end: its activation is over.
    pub ends: bool,
    /// The incoming register, when the piece alone determines it (0 for a piece that starts
    /// the activation; after a back edge, that edge's restart value; `None` after a call).
    pub start_register: Option<u64>,
    /// Ids of the Ball-Larus paths the piece finishes, in order.
    pub emits: Vec<u64>,
    /// The register afterwards.
    pub register: u64,
}

impl PieceEffect {
    /// The register the piece leaves when its activation came in with `incoming`: a piece that
    /// emits nothing has only added to it, one that emits restarted it.
    pub fn register_after(&self, incoming: u64) -> u64 {
        if self.emits.is_empty() {
            incoming.wrapping_add(self.register)
        } else {
            self.register
        }
    }
}

/// A trace that is not a sequence of pieces of nested activations.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("path {position} of the trace: {message}")]
pub struct RejoinError {
    /// Position in the trace.
    pub position: u64,
    pub message: String,
}

/// The register of the innermost activation on `stack`, which must be one of function `f`
/// (`position`: where in the trace, for the error).
fn innermost(stack: &mut [(u32, u64)], f: u32, position: u64) -> Result<&mut u64, RejoinError> {
    match stack.last_mut() {
        Some((top, register)) if *top == f => Ok(register),
        _ => Err(RejoinError {
            position,
            message: format!("a path of function {f} continues no activation of it"),
        }),
    }
}

/// Joins a trace of pieces, given as terminal symbols, into Ball-Larus path counts per
/// function. Each symbol's effect is computed once.
pub struct Rejoin<'a> {
    /// Per terminal symbol: its function and effect (`None`: not a piece).
    effects: Vec<Option<(u32, PieceEffect)>>,
    /// Activations in progress, innermost last: (function, register).
    stack: Vec<(u32, u64)>,
    /// How often each symbol was seen; its exact emissions are counted from this at the end.
    seen: Vec<u64>,
    /// Emissions that depend on the incoming register: per function with at most
    /// [`DENSE_PATHS`] paths, a count per id (no hashing per path of a hot loop) ...
    dense: Vec<Vec<u64>>,
    /// ... and the others.
    joined: JoinedCounts,
    position: u64,
    _split: std::marker::PhantomData<&'a ()>,
}

impl<'a> Rejoin<'a> {
    /// `symbols[t]` is the (function, piece id) of terminal `t`; `split(f)` the split of
    /// function `f`, if it has one.
    pub fn new(
        symbols: impl IntoIterator<Item = (u32, u64)>,
        split: impl Fn(u32) -> Option<&'a CallSplit>,
    ) -> Rejoin<'a> {
        let mut dense: Vec<Vec<u64>> = Vec::new();
        let effects: Vec<_> = symbols
            .into_iter()
            .map(|(f, id)| {
                let s = split(f)?;
                let paths = s.paths.num_paths();
                if paths <= DENSE_PATHS && dense.get(f as usize).is_none_or(Vec::is_empty) {
                    dense.resize(dense.len().max(f as usize + 1), Vec::new());
                    dense[f as usize] = vec![0; paths as usize];
                }
                s.effect(id).map(|e| (f, e))
            })
            .collect();
        Rejoin {
            seen: vec![0; effects.len()],
            effects,
            stack: Vec::new(),
            dense,
            joined: JoinedCounts::default(),
            position: 0,
            _split: std::marker::PhantomData,
        }
    }

    /// The next piece of the trace.
    pub fn push(&mut self, symbol: u32) -> Result<(), RejoinError> {
        let Some(Some((f, effect))) = self.effects.get(symbol as usize) else {
            return Err(RejoinError {
                position: self.position,
                message: format!("symbol {symbol} is not a path"),
            });
        };
        let f = *f;
        let (starts, ends) = (effect.starts, effect.ends);
        let first = effect.emits.first().copied();
        // A first emission that depends on the incoming register is counted here; the others
        // are counted from `seen` at the end.
        let counted_here = first.filter(|_| effect.start_register.is_none());
        if starts {
            self.stack.push((f, 0));
        }
        let register = innermost(&mut self.stack, f, self.position)?;
        let incoming = *register;
        *register = effect.register_after(incoming);
        if ends {
            self.stack.pop();
        }
        if let Some(first) = counted_here {
            self.count(f, incoming.wrapping_add(first), 1);
        }
        self.seen[symbol as usize] += 1;
        self.position += 1;
        Ok(())
    }

    /// Counts `times` executions of path `id` of function `f`.
    fn count(&mut self, f: u32, id: u64, times: u64) {
        match (self.dense.get_mut(f as usize)).and_then(|row| row.get_mut(id as usize)) {
            Some(count) => *count += times,
            None => *self.joined.entry((f, id)).or_default() += times,
        }
    }

    /// The whole trace that `grammar` generates. A rule whose effect on the activations around
    /// it does not depend on their registers but through its own first pieces (a [`Summary`]:
    /// whole paths, a loop's paths, which start after a back edge, and whole calls with what
    /// follows them) is not expanded: the paths it determines are counted once per use of the
    /// rule, so a trace of 10^8 loop paths, or of 10^7 calls that repeat, costs about the size of
    /// its grammar, not its length.
    pub fn push_trace(&mut self, grammar: &Grammar) -> Result<(), RejoinError> {
        let rules = grammar.rules();
        let order = grammar.topological_order();
        let lengths = grammar.rule_lengths();
        // Each rule's summary: the quick kind where it has one, else the general one.
        let quick_terminals: Vec<Option<Quick>> =
            (0..self.effects.len()).map(|t| self.quick(t)).collect();
        let terminals: Vec<Option<Summary>> =
            (0..self.effects.len()).map(|t| self.summary(t)).collect();
        let mut quick: Vec<Option<Quick>> = vec![None; rules.len()];
        let mut summaries: Vec<Option<Summary>> = vec![None; rules.len()];
        // Children before parents; the start rule is never skipped.
        for &r in order.iter().rev().filter(|&&r| r != 0) {
            let r = r as usize;
            quick[r] = rules[r].iter().try_fold(Quick::default(), |q, symbol| {
                q.then(match *symbol {
                    Symbol::Terminal(t) => (*quick_terminals.get(t as usize)?)?,
                    Symbol::Rule(c) => quick[c as usize]?,
                })
            });
            if quick[r].is_some() {
                continue;
            }
            let mut summary = Summary::default();
            let whole = rules[r].iter().all(|symbol| {
                let part = match *symbol {
                    Symbol::Terminal(t) => terminals.get(t as usize).and_then(Option::as_ref),
                    Symbol::Rule(c) => match quick[c as usize] {
                        Some(q) => return summary.then(&Summary::of(q)),
                        None => summaries[c as usize].as_ref(),
                    },
                };
                part.is_some_and(|part| summary.then(part))
            });
            summaries[r] = whole.then_some(summary);
        }
        // The trace in order, but for the uses of summarized rules, which are only counted.
        let mut uses = vec![0u64; rules.len()];
        // The rules being expanded, innermost last, each at its next symbol.
        let mut walk = vec![rules[0].iter()];
        while let Some(rule) = walk.last_mut() {
            let Some(&symbol) = rule.next() else {
                walk.pop();
                continue;
            };
            let c = match symbol {
                Symbol::Terminal(t) => {
                    self.push(t)?;
                    continue;
                }
                Symbol::Rule(c) => c as usize,
            };
            match (quick[c], &summaries[c]) {
                (Some(q), _) => {
                    if let Some((f, left)) = q.activation {
                        *innermost(&mut self.stack, f, self.position)? = left;
                    }
                }
                (None, Some(summary)) => self.apply(summary)?,
                (None, None) => {
                    walk.push(rules[c].iter());
                    continue;
                }
            }
            uses[c] += 1;
            self.position += lengths[c];
        }
        // Parents before children, so that a rule's uses are complete when it is reached.
        for &r in order {
            let times = uses[r as usize];
            if times == 0 {
                continue;
            }
            for symbol in &rules[r as usize] {
                match *symbol {
                    Symbol::Terminal(t) => self.seen[t as usize] += times,
                    Symbol::Rule(c) => uses[c as usize] += times,
                }
            }
            if let Some(summary) = &summaries[r as usize] {
                for &(f, id) in &summary.counts {
                    self.count(f, id, times);
                }
            }
        }
        Ok(())
    }

    /// What terminal `symbol` does, when no context changes it: a whole path, or a piece of an
    /// activation in progress whose incoming register it determines.
    fn quick(&self, symbol: usize) -> Option<Quick> {
        let (f, effect) = self.effects.get(symbol)?.as_ref()?;
        let start = effect.start_register?;
        match (effect.starts, effect.ends) {
            (true, true) => Some(Quick::default()),
            (false, false) => Some(Quick {
                activation: Some((*f, effect.register_after(start))),
            }),
            _ => None,
        }
    }

    /// What terminal `symbol` does to the activations.
    fn summary(&self, symbol: usize) -> Option<Summary> {
        let (f, effect) = self.effects.get(symbol)?.as_ref()?;
        let f = *f;
        Some(match effect.starts {
            true if effect.ends => Summary::default(),
            true => Summary {
                inner: vec![(f, effect.register_after(0))],
                ..Summary::default()
            },
            false => Summary {
                outer: vec![Touch {
                    f,
                    first: (effect.emits.first())
                        .filter(|_| effect.start_register.is_none())
                        .copied(),
                    after: match effect.emits.is_empty() {
                        true => Register::Add(effect.register),
                        false => Register::Set(effect.register),
                    },
                    ends: effect.ends,
                }],
                ..Summary::default()
            },
        })
    }

    /// Does to the activations in progress what a stretch of `summary` does.
    fn apply(&mut self, summary: &Summary) -> Result<(), RejoinError> {
        for touch in &summary.outer {
            let register = innermost(&mut self.stack, touch.f, self.position)?;
            let incoming = *register;
            *register = touch.after.of(incoming);
            if touch.ends {
                self.stack.pop();
            }
            if let Some(first) = touch.first {
                self.count(touch.f, incoming.wrapping_add(first), 1);
            }
        }
        self.stack.extend_from_slice(&summary.inner);
        Ok(())
    }

    /// Path counts per (function, Ball-Larus id). Paths of activations still in progress (the
    /// program ended inside them) are not counted, as `bl` does not count them.
    pub fn finish(self) -> JoinedCounts {
        let mut counts = self.joined;
        for (f, row) in self.dense.iter().enumerate() {
            for (id, &count) in row.iter().enumerate().filter(|(_, c)| **c > 0) {
                *counts.entry((f as u32, id as u64)).or_default() += count;
            }
        }
        for (effect, &seen) in self.effects.iter().zip(&self.seen) {
            let Some((f, effect)) = effect.as_ref().filter(|_| seen > 0) else {
                continue;
            };
            // The first emission is exact when the piece determines its incoming register.
            let (skip, offset) = match effect.start_register {
                Some(start) => (0, start),
                None => (1, 0),
            };
            for (i, &id) in effect.emits.iter().enumerate().skip(skip) {
                let id = if i == 0 { offset.wrapping_add(id) } else { id };
                *counts.entry((*f, id)).or_default() += seen;
            }
        }
        counts
    }
}

/// What a stretch of context-free pieces does to the activations: nothing, or, when it holds
/// pieces of an activation in progress (all of one function), the register it leaves that
/// activation. The common kind of [`Summary`] (loops), kept small for the walk of a long trace.
#[derive(Clone, Copy, Debug, Default)]
struct Quick {
    activation: Option<(u32, u64)>,
}

impl Quick {
    /// This stretch followed by `next`; `None` when they continue activations of different
    /// functions (only an invalid trace does, and then each piece is checked on its own).
    fn then(self, next: Quick) -> Option<Quick> {
        match (self.activation, next.activation) {
            (Some((f, _)), Some((g, _))) if f != g => None,
            (_, Some(_)) => Some(next),
            (_, None) => Some(self),
        }
    }
}

/// What a stretch of the trace does to the activations around it, when it is the same whatever
/// their registers ([`Rejoin::push_trace`]).
#[derive(Clone, Debug, Default)]
struct Summary {
    /// The activations in progress before the stretch that it continues, innermost first: all
    /// but the last end in it.
    outer: Vec<Touch>,
    /// The activations it starts and leaves in progress, innermost last, with their registers.
    inner: Vec<(u32, u64)>,
    /// Paths the stretch determines, but none of its parts alone: an activation started in one
    /// part and continued in another (after a call). Counted once per use of the stretch.
    counts: Vec<(u32, u64)>,
}

/// What a stretch does to one activation in progress before it, of function `f`.
#[derive(Clone, Copy, Debug)]
struct Touch {
    f: u32,
    /// The path it finishes first, at `incoming + first`, when its id depends on the register
    /// the activation came in with (a piece after a call); the later ones do not.
    first: Option<u64>,
    after: Register,
    ends: bool,
}

/// The register a stretch leaves an activation, from the one it came in with.
#[derive(Clone, Copy, Debug)]
enum Register {
    Add(u64),
    Set(u64),
}

impl Register {
    fn of(self, incoming: u64) -> u64 {
        match self {
            Register::Add(d) => incoming.wrapping_add(d),
            Register::Set(r) => r,
        }
    }

    /// This, then `next`.
    fn then(self, next: Register) -> Register {
        match next {
            Register::Add(d) => match self {
                Register::Add(e) => Register::Add(e.wrapping_add(d)),
                Register::Set(r) => Register::Set(r.wrapping_add(d)),
            },
            set => set,
        }
    }
}

/// Summaries that would hold more activations than this are not made (the rule is expanded).
const MAX_SUMMARY: usize = 64;

impl Summary {
    /// The summary of a [`Quick`] one.
    fn of(quick: Quick) -> Summary {
        let outer = quick.activation.map(|(f, left)| Touch {
            f,
            first: None,
            after: Register::Set(left),
            ends: false,
        });
        Summary {
            outer: outer.into_iter().collect(),
            ..Summary::default()
        }
    }

    /// Makes this stretch that followed by `next`, with its counts and the paths that `next`
    /// finishes in the activations this one started (`next`'s own counts stay with `next`,
    /// counted by its uses); false when the two do not fit (an invalid trace, where each piece
    /// is then checked) or the summary would grow too large.
    fn then(&mut self, next: &Summary) -> bool {
        for touch in &next.outer {
            if let Some((f, register)) = self.inner.last_mut() {
                // One of the activations this stretch started: its register is known.
                if *f != touch.f {
                    return false;
                }
                if let Some(first) = touch.first {
                    self.counts.push((*f, register.wrapping_add(first)));
                }
                *register = touch.after.of(*register);
                if touch.ends {
                    self.inner.pop();
                }
                continue;
            }
            match self.outer.last_mut().filter(|last| !last.ends) {
                // The activation this stretch continued and left in progress.
                Some(last) => {
                    if last.f != touch.f {
                        return false;
                    }
                    match (last.first, touch.first, last.after) {
                        (_, Some(first), Register::Set(r)) => {
                            self.counts.push((last.f, r.wrapping_add(first)))
                        }
                        (None, Some(first), Register::Add(d)) => {
                            last.first = Some(d.wrapping_add(first))
                        }
                        // A path finished leaves a register that does not depend on the one
                        // before.
                        (Some(_), Some(_), Register::Add(_)) => return false,
                        (_, None, _) => {}
                    }
                    last.after = last.after.then(touch.after);
                    last.ends = touch.ends;
                }
                None => self.outer.push(*touch),
            }
        }
        self.inner.extend_from_slice(&next.inner);
        self.outer.len() + self.inner.len() <= MAX_SUMMARY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::{add_even_numbers, edges_along};
    use crate::wpp::Sequitur;

    /// AddEvenNumbers ([PFP] Fig. 10) with a call in block 4 (`sum = sum + j` as a call): block 4
    /// becomes 4 → 7 (new, the call and the rest of 4), and 4→7 is a call cut. Exit 7 moves to 8.
    fn add_even_with_call() -> (Cfg, Vec<usize>) {
        let original = add_even_numbers();
        let n = original.num_nodes() - 1; // blocks; the exit was node n
        let moved = |v: NodeId| if v == original.exit() { n + 1 } else { v.0 };
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        for (_, e) in original.edges() {
            let from = if e.from.0 == 4 { n } else { e.from.0 };
            pairs.push((from, moved(e.to)));
        }
        pairs.push((4, n));
        let cut = pairs.len() - 1;
        (Cfg::from_edges(n + 2, 0, n + 1, &pairs).unwrap(), vec![cut])
    }

    #[test]
    fn contraction_gives_back_the_original_numbering() {
        let (split, cuts) = add_even_with_call();
        let s = CallSplit::new(split.clone(), &cuts).unwrap();
        let original = add_even_numbers();
        let pairs = |c: &Cfg| c.edges().map(|(_, e)| (e.from, e.to)).collect::<Vec<_>>();
        assert_eq!(pairs(&s.original), pairs(&original));
        assert_eq!(s.paths.num_paths(), 6);
        // The cut splits each path through block 4 in two.
        assert!(s.pieces.num_paths() > 6);
        assert_eq!(s.original_node(NodeId(7)), NodeId(4));
        // 2→3 is not a block split: 2 has two successors.
        assert_eq!(
            CallSplit::new(split, &[2]).err(),
            Some(SplitError::BadCut(2))
        );
    }

    /// Joining the pieces of nested activations (a call to another function, then a recursive
    /// call) gives what `path_ids_of_execution` gives for each activation on the original CFG.
    #[test]
    fn rejoined_ids_are_the_original_ids() {
        let (split, cuts) = add_even_with_call();
        let s = CallSplit::new(split.clone(), &cuts).unwrap();
        let original = add_even_numbers();
        // Original blocks: activation A (function 0) calls twice (block 4); the first call runs
        // B (function 1), the second C (function 0 again); B and C call nothing.
        let a: &[usize] = &[0, 1, 2, 3, 4, 5, 2, 3, 5, 2, 3, 4, 5, 2, 6, 7];
        let b: &[usize] = &[0, 1, 2, 3, 5, 2, 6, 7];
        let c: &[usize] = &[0, 1, 2, 3, 5, 2, 3, 5, 2, 6, 7];
        let ids = |run: &[usize]| {
            s.paths
                .path_ids_of_execution(&original, &edges_along(&original, run))
        };
        // The same runs on the split CFG: 4 is followed by the new block 7, EXIT is 8.
        let pieces = |run: &[usize]| {
            let mut blocks = Vec::new();
            for &v in run {
                blocks.push(if v == 7 { 8 } else { v });
                if v == 4 {
                    blocks.push(7);
                }
            }
            s.pieces
                .path_ids_of_execution(&split, &edges_along(&split, &blocks))
        };
        let mut symbols: Vec<(u32, u64)> = Vec::new();
        let mut trace = Vec::new();
        let mut emit = |f: u32, id: u64| {
            let t = symbols
                .iter()
                .position(|&k| k == (f, id))
                .unwrap_or_else(|| {
                    symbols.push((f, id));
                    symbols.len() - 1
                });
            trace.push(t as u32);
        };
        let mut callees = [(1, pieces(b)), (0, pieces(c))].into_iter();
        for id in pieces(a) {
            emit(0, id);
            if s.ends_at_call(&s.pieces.path(id).unwrap()) {
                let (f, inner) = callees.next().unwrap();
                inner.into_iter().for_each(|id| emit(f, id));
            }
        }
        assert!(callees.next().is_none());
        let mut expected = JoinedCounts::default();
        for (f, run) in [(0, a), (1, b), (0, c)] {
            for id in ids(run) {
                *expected.entry((f, id)).or_default() += 1;
            }
        }
        let rejoined = |trace: &[u32]| {
            let mut rejoin = Rejoin::new(symbols.iter().copied(), |_| Some(&s));
            trace.iter().for_each(|&t| rejoin.push(t).unwrap());
            rejoin.finish()
        };
        assert_eq!(rejoined(&trace), expected);
        // The same trace from a grammar, repeated so that rules of whole paths form.
        let repeated: Vec<u32> = (0..50).flat_map(|_| trace.iter().copied()).collect();
        let mut grammar = Sequitur::new();
        grammar.extend(repeated.iter().copied());
        let mut rejoin = Rejoin::new(symbols.iter().copied(), |_| Some(&s));
        rejoin.push_trace(&grammar.finish()).unwrap();
        assert_eq!(rejoin.finish(), rejoined(&repeated));
        // A trace cut short inside B (the program ended there) loses the paths in progress: B's
        // last, and A's whose first piece ran before the call.
        let first_call = trace
            .iter()
            .position(|&t| symbols[t as usize].0 == 1)
            .unwrap();
        let b_pieces = pieces(b).len();
        let cut_short = rejoined(&trace[..first_call + b_pieces - 1]);
        let mut expected = JoinedCounts::default();
        for id in &ids(b)[..ids(b).len() - 1] {
            *expected.entry((1, *id)).or_default() += 1;
        }
        assert_eq!(cut_short, expected);
    }

    /// Random nested and recursive activations of AddEvenNumbers with a call: the counts from a
    /// grammar of the trace (SEQUITUR's, and the block coder's) are those of the trace symbol by
    /// symbol, whole or cut short, and those of each activation's own run.
    #[test]
    fn grammars_of_calls_count_what_the_pieces_count() {
        let (split, cuts) = add_even_with_call();
        let s = CallSplit::new(split, &cuts).unwrap();
        let original = add_even_numbers();
        let mut x = 3u64;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        // One activation of function `f` at `depth`: its run's pieces, with a callee's
        // activation after each piece that ends at the call.
        fn activation(
            f: u32,
            depth: u32,
            s: &CallSplit,
            original: &Cfg,
            next: &mut dyn FnMut(u64) -> u64,
            trace: &mut Vec<(u32, u64)>,
            expected: &mut JoinedCounts,
        ) {
            let mut run = vec![0, 1, 2];
            for _ in 0..next(4) {
                run.push(3);
                if depth < 6 && next(3) == 0 {
                    run.push(4);
                }
                run.extend([5, 2]);
            }
            run.extend([6, 7]);
            let ids = s
                .paths
                .path_ids_of_execution(original, &edges_along(original, &run));
            for id in ids {
                *expected.entry((f, id)).or_default() += 1;
            }
            let split_run: Vec<usize> = (run.iter())
                .flat_map(|&v| match v {
                    7 => vec![8],
                    4 => vec![4, 7],
                    v => vec![v],
                })
                .collect();
            let pieces = s
                .pieces
                .path_ids_of_execution(&s.split, &edges_along(&s.split, &split_run));
            for id in pieces {
                trace.push((f, id));
                if s.ends_at_call(&s.pieces.path(id).unwrap()) {
                    let callee = next(2) as u32;
                    activation(callee, depth + 1, s, original, next, trace, expected);
                }
            }
        }
        for round in 0..20 {
            let (mut pieces, mut expected) = (Vec::new(), JoinedCounts::default());
            for _ in 0..1 + round * 3 {
                activation(0, 0, &s, &original, &mut next, &mut pieces, &mut expected);
            }
            let mut symbols: Vec<(u32, u64)> = pieces.clone();
            symbols.sort();
            symbols.dedup();
            let trace: Vec<u32> = (pieces.iter())
                .map(|k| symbols.binary_search(k).unwrap() as u32)
                .collect();
            let rejoined = |trace: &[u32]| {
                let mut rejoin = Rejoin::new(symbols.iter().copied(), |_| Some(&s));
                trace.iter().for_each(|&t| rejoin.push(t).unwrap());
                rejoin.finish()
            };
            assert_eq!(rejoined(&trace), expected, "round {round}");
            for len in [trace.len(), trace.len() * 2 / 3, trace.len() / 3] {
                let prefix = &trace[..len];
                let mut sequitur = Sequitur::new();
                sequitur.extend(prefix.iter().copied());
                let mut blocks = crate::wpp::BlockSequitur::new();
                prefix.iter().for_each(|&t| blocks.push(t));
                for grammar in [sequitur.finish(), blocks.finish()] {
                    let mut rejoin = Rejoin::new(symbols.iter().copied(), |_| Some(&s));
                    rejoin.push_trace(&grammar).unwrap();
                    assert_eq!(rejoin.finish(), rejoined(prefix), "round {round}, {len}");
                }
            }
        }
    }

    #[test]
    fn inconsistent_traces_are_errors() {
        let (split, cuts) = add_even_with_call();
        let s = CallSplit::new(split, &cuts).unwrap();
        // A piece that continues an activation, with none in progress.
        let continuing = (0..s.pieces.num_paths())
            .find(|&id| !s.effect(id).unwrap().starts)
            .unwrap();
        let mut rejoin = Rejoin::new([(0, continuing)], |_| Some(&s));
        assert!(rejoin.push(0).is_err());
        assert!(rejoin.push(7).is_err());
    }
}
