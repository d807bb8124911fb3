//! Profiling instrumentation: MIR passes that make a program count its paths (`bl`) or edges
//! (`edge`), and the [`ProfileSpec`] the program carries so that it can write its profile.
//!
//! The profiler crate decides what code goes on which CFG edge (Ball-Larus numbering and chord
//! placement, [PPP] Fig. 1 and §5; or edge counters on the chords of a spanning tree); this module
//! puts that code into MIR: on an edge out of a block with one successor, at the block's end; on
//! an edge into a block with one predecessor, at its start; otherwise in a new block that splits
//! the edge. The path register is an ordinary MIR local.

mod block;
mod cfg;
mod tpp;
mod trace;
mod wpp;

pub use cfg::{FunctionCfg, block, cfg_hash, function_cfg, node, node_line, node_lines};
pub use tpp::EdgeProfileSource;
pub(crate) use tpp::edge_counts;
pub use trace::trace_blocks;
pub use wpp::call_split;

use pcc_lang::{LineIndex, Span};
use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::cfg::{EdgeId, NodeId};
use pcc_profiler::dag::Dag;
use pcc_profiler::edge_profile::EdgeProfilePlan;
use pcc_profiler::estimate::{estimated_hot_paths, static_edge_weights};
use pcc_profiler::instrument::{PathOp, PathPlan};
use pcc_profiler::ppp::{EMPTY_SLOT, Ppp, PppOp};
use pcc_profiler::profile::{Mode, Profile};
use pcc_profiler::spec::{FunctionSpec, ProfileSpec};

use crate::mir::{
    self, BasicBlock, BinOp, BlockId, Builtin, Callee, Const, CounterTable, IdVec, Operand, Rvalue,
    Statement, StatementKind, StreamEvent, Terminator, TerminatorKind, Type,
};

/// The most counters an array table may have (128 MiB): past that a function counts its paths in
/// the hash table whatever `--hash-threshold` says, so no threshold can exhaust memory.
pub const MAX_ARRAY_COUNTERS: u64 = 1 << 24;

/// What to instrument and where the profile goes.
pub struct Instrumentation<'a> {
    pub mode: Mode,
    pub program_path: &'a str,
    /// `pcc_profiler::profile::content_hash` of the source file's bytes.
    pub source_hash: String,
    pub output: String,
    pub hash_threshold: u64,
    /// `ppp`: where the interesting paths come from (`None`: no path is interesting).
    pub interesting: Option<InterestingSource>,
    /// `kbl`: the longest sequences of path ids counted ([KBLPP]'s `k`).
    pub k: usize,
    /// `tpp`: the edge profile and thresholds the plan is made from.
    pub edge_profile: Option<EdgeProfileSource>,
}

/// Where `--profile=ppp` takes its interesting paths from.
pub enum InterestingSource {
    /// The executed paths of a path profile (`bl`; of a `ppp` one, its interesting and residual
    /// paths), per function the hottest ones that cover `share` (0–1] of its path executions.
    /// `name` says where the profile came from, for warnings.
    Profile {
        profile: Box<Profile>,
        name: String,
        share: f64,
    },
    /// A static Wu-Larus-style estimate: the estimated hottest paths that cover `coverage` of
    /// the estimated path executions.
    Estimate { coverage: f64 },
}

/// At most this many interesting paths per function come from the static estimate.
const MAX_ESTIMATED_PATHS: usize = 256;

/// Instruments every function of `program` but the global initializers (counter table `i` for
/// the spec's function `i`) and returns the spec the runtime needs to write the profile. `source`
/// gives the functions' source lines.
pub fn instrument(
    program: &mut mir::Program,
    how: &Instrumentation,
    source: &str,
) -> Result<ProfileSpec, String> {
    let lines = LineIndex::new(source);
    let array_limit = how.hash_threshold.min(MAX_ARRAY_COUNTERS);
    let mut functions = Vec::new();
    if how.mode == Mode::Wpp {
        program.stream = mir::PathStream::Wpp;
    }
    let init = program.init;
    // The code as lowered identifies the function, whatever the instrumentation changes.
    let hashes: Vec<String> = program
        .functions
        .iter()
        .map(|func| cfg_hash(program, func))
        .collect();
    // The global initializers run once, before `main`: they are not profiled.
    for (func, hash) in program
        .functions
        .iter_mut()
        .zip(hashes)
        .enumerate()
        .filter(|&(id, _)| id != init.index())
        .map(|(_, pair)| pair)
    {
        let table = functions.len();
        let continuations = match how.mode {
            Mode::Wpp => wpp::split_before_calls(func),
            _ => Vec::new(),
        };
        let fcfg = function_cfg(func);
        let call_cuts = wpp::call_cuts(&fcfg, &continuations);
        let cuts: Vec<EdgeId> = call_cuts.iter().map(|&e| EdgeId(e)).collect();
        // Edge and block profiles count edges or blocks: their paths are never numbered.
        let numbering = (!matches!(how.mode, Mode::Edge | Mode::Block))
            .then(|| BallLarus::with_cuts(&fcfg.cfg, &cuts, u64::MAX))
            .transpose()
            .map_err(|e| format!("cannot number the paths of `{}`: {e}", func.name))?;
        let weights = match &numbering {
            Some(numbering) => static_edge_weights(&fcfg.cfg, numbering.dag()),
            None => static_edge_weights(&fcfg.cfg, &Dag::new(&fcfg.cfg)),
        };
        functions.push(FunctionSpec {
            name: func.name.clone(),
            cfg_hash: hash,
            num_paths: numbering.as_ref().map_or(0, BallLarus::num_paths),
            num_nodes: fcfg.cfg.num_nodes(),
            entry: fcfg.cfg.entry().0,
            exit: fcfg.exit().0,
            edges: fcfg
                .edges
                .iter()
                .map(|&(b, s)| (node(b).0, s.map_or(fcfg.exit(), node).0))
                .collect(),
            node_lines: node_lines(func, &lines),
            node_line: node_line(func, &lines),
            interesting: Vec::new(),
            stops: Vec::new(),
            node_costs: match how.mode {
                Mode::Wpp => wpp::node_costs(func),
                _ => Vec::new(),
            },
            call_cuts,
            edge_counts: None,
        });
        let numbered = || numbering.as_ref().expect("numbered unless edge or block");
        let counter_table = match how.mode {
            Mode::Block => block::instrument_function(func, table),
            Mode::Edge => {
                // Activations may stop inside these blocks: the plan counts the ones that did
                // by flow conservation (pcc_profiler::edge_profile).
                let stops: Vec<bool> = func.blocks.iter().map(|b| may_stop(func, b)).collect();
                let plan = EdgeProfilePlan::with_stops(&fcfg.cfg, &weights, &stops);
                functions.last_mut().expect("pushed above").stops =
                    (0..stops.len()).filter(|&b| stops[b]).collect();
                if let Some(counter) = plan.entry_counter() {
                    let span = func.blocks[mir::ENTRY].term.span;
                    func.blocks[mir::ENTRY].stmts.insert(
                        0,
                        Statement {
                            kind: count_const(table, counter as u64),
                            span,
                        },
                    );
                }
                let mut inserter = Inserter::new(func, &fcfg, table);
                for e in 0..fcfg.edges.len() {
                    if let Some(counter) = plan.edge_counter(EdgeId(e)) {
                        inserter.on_edge(e, vec![count_const(table, counter as u64)]);
                    }
                }
                for b in 0..fcfg.exit().0 {
                    if let Some(counter) = plan.dead_end_counter(NodeId(b)) {
                        let code = vec![count_const(table, counter as u64)];
                        inserter.at_dead_end(block(NodeId(b)), code);
                    }
                }
                CounterTable {
                    len: plan.num_counters() as u64,
                    hashed: false,
                    slots: None,
                }
            }
            Mode::Ppp => {
                let spec = functions.last_mut().expect("pushed above");
                let ids = interesting_ids(
                    how.interesting.as_ref(),
                    (&spec.name, &spec.cfg_hash),
                    numbered(),
                    &fcfg,
                );
                let ppp = Ppp::from_bl_ids(numbered(), ids)
                    .map_err(|e| format!("cannot number the paths of `{}`: {e}", func.name))?;
                spec.interesting = ppp.paths().iter().map(|p| p.bl_id).collect();
                let mut may_stop: Vec<bool> =
                    func.blocks.iter().map(|b| may_stop(func, b)).collect();
                may_stop.push(false); // EXIT
                let plan = ppp.plan_with_stops(&weights, &may_stop);
                let registers = PppRegisters {
                    bl: func.new_temp(Type::Int),
                    ppp: func.new_temp(Type::Int),
                };
                let mut inserter = Inserter::new(func, &fcfg, table);
                for e in 0..fcfg.edges.len() {
                    let code = inserter.ppp_code(registers, plan.edge_ops(EdgeId(e)));
                    inserter.on_edge(e, code);
                }
                for b in 0..fcfg.exit().0 {
                    let code = inserter.ppp_code(registers, plan.dead_end_ops(NodeId(b)));
                    inserter.at_dead_end(block(NodeId(b)), code);
                }
                // [PPP] §5 "Hash table usage policy": past the array limit, interesting paths
                // count as residual and the profile builder moves them back.
                let len = ppp.range().min(array_limit);
                let mut slots = vec![EMPTY_SLOT; len as usize];
                for p in ppp.paths().iter().filter(|p| p.ppp_id < len) {
                    slots[p.ppp_id as usize] = p.bl_id;
                }
                CounterTable {
                    len,
                    hashed: false,
                    slots: Some(slots),
                }
            }
            Mode::Tpp => {
                let spec = functions.last_mut().expect("pushed above");
                let source = how
                    .edge_profile
                    .as_ref()
                    .ok_or("--profile=tpp needs an edge profile")?;
                match tpp::instrument_function(func, &fcfg, table, spec, source, array_limit) {
                    Some(table) => table,
                    // No usable edge profile for this function: profiled like `bl`.
                    None => ball_larus(
                        func,
                        &fcfg,
                        table,
                        numbered(),
                        &weights,
                        array_limit,
                        Mode::Bl,
                    ),
                }
            }
            mode => ball_larus(func, &fcfg, table, numbered(), &weights, array_limit, mode),
        };
        program.counter_tables.push(counter_table);
    }
    Ok(ProfileSpec {
        mode: how.mode,
        program: how.program_path.to_string(),
        source_hash: how.source_hash.clone(),
        output: how.output.clone(),
        array_limit,
        functions,
        k: how.k,
        tpp: how.edge_profile.as_ref().map(|source| source.config),
    })
}

/// `bl`, `kbl` and `wpp`: Ball-Larus path-register code on the chords of a spanning tree
/// weighted by `weights`, each path counted where it ends ([PPP] Fig. 1, §5), and for `kbl` and
/// `wpp` also streamed to the runtime.
fn ball_larus(
    func: &mut mir::Function,
    fcfg: &FunctionCfg,
    table: usize,
    numbering: &BallLarus,
    weights: &[u64],
    array_limit: u64,
    mode: Mode,
) -> CounterTable {
    let mut may_stop: Vec<bool> = func.blocks.iter().map(|b| may_stop(func, b)).collect();
    may_stop.push(false); // EXIT
    let plan = PathPlan::with_stops(numbering, weights, &may_stop);
    let register = func.new_temp(Type::Int);
    let mut inserter = Inserter::new(func, fcfg, table);
    for e in 0..fcfg.edges.len() {
        let code = inserter.path_code(register, plan.edge_ops(EdgeId(e)));
        inserter.on_edge(e, streamed(code, mode));
    }
    for b in 0..fcfg.exit().0 {
        let code = inserter.path_code(register, plan.dead_end_ops(NodeId(b)));
        inserter.at_dead_end(block(NodeId(b)), streamed(code, mode));
    }
    if matches!(mode, Mode::Kbl | Mode::Wpp) {
        stream_activations(func, table);
    }
    // `wpp` reports its paths instead of counting them.
    let len = match mode {
        Mode::Wpp => 0,
        _ => numbering.num_paths(),
    };
    CounterTable {
        len,
        hashed: len > array_limit,
        slots: None,
    }
}

/// `kbl`: after each path count, the same id reported to the runtime's k-slab forest of the
/// function, so the forest's first level equals the `bl` counts. `wpp`: each count replaced by
/// the path's `NewPath` event.
fn streamed(code: Vec<StatementKind>, mode: Mode) -> Vec<StatementKind> {
    if !matches!(mode, Mode::Kbl | Mode::Wpp) {
        return code;
    }
    let mut out = Vec::with_capacity(code.len() * 2);
    for kind in code {
        let event = match &kind {
            StatementKind::Count { table, index } => Some(StreamEvent::Path {
                table: *table,
                id: index.clone(),
            }),
            _ => None,
        };
        if mode == Mode::Kbl || event.is_none() {
            out.push(kind);
        }
        out.extend(event.map(StatementKind::Stream));
    }
    out
}

/// `kbl` and `wpp`: the `*` marker (EnterRoutine) where an activation starts (the entry block,
/// which lowering never makes a loop header), and the end of the activation (LeaveRoutine) at
/// every `return`, after the path counted there. A block ending in `exit()` needs no leave: the
/// program ends.
fn stream_activations(func: &mut mir::Function, table: usize) {
    let span = func.blocks[mir::ENTRY].term.span;
    func.blocks[mir::ENTRY].stmts.insert(
        0,
        Statement {
            kind: StatementKind::Stream(StreamEvent::Enter { table }),
            span,
        },
    );
    for block in &mut func.blocks {
        if matches!(block.term.kind, TerminatorKind::Return(_)) {
            block.stmts.push(Statement {
                kind: StatementKind::Stream(StreamEvent::Leave { table }),
                span: block.term.span,
            });
        }
    }
}

/// The Ball-Larus ids of the interesting paths of one function (`name`, whose code has
/// `cfg_hash`, numbered by `numbering`), warning on stderr when the profile is stale for it.
pub(crate) fn interesting_ids(
    source: Option<&InterestingSource>,
    (name, cfg_hash): (&str, &str),
    numbering: &BallLarus,
    fcfg: &FunctionCfg,
) -> Vec<u64> {
    match source {
        None => Vec::new(),
        Some(InterestingSource::Estimate { coverage }) => {
            estimated_hot_paths(numbering, &fcfg.cfg, *coverage, MAX_ESTIMATED_PATHS)
        }
        Some(InterestingSource::Profile {
            profile,
            name: file,
            share,
        }) => {
            let Some(function) = profile.function(name) else {
                return Vec::new();
            };
            if function.cfg_hash != cfg_hash {
                eprintln!(
                    "pcc: warning: the interesting-path profile `{file}` is stale for function \
                     `{name}` (its CFG hash differs from the current code's); no path of \
                     `{name}` is interesting"
                );
                return Vec::new();
            }
            let mut paths: Vec<(u64, u64)> = function
                .paths
                .iter()
                .chain(function.residual.iter().flatten())
                .filter(|p| p.count > 0 && p.id < numbering.num_paths())
                .map(|p| (p.id, p.count))
                .collect();
            hottest_covering(&mut paths, *share)
        }
    }
}

/// The ids of the hottest `(id, count)` paths that together cover `share` of all the counts
/// (ties: smaller ids first); all of them when `share` is 1.
fn hottest_covering(paths: &mut [(u64, u64)], share: f64) -> Vec<u64> {
    paths.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let total: u128 = paths.iter().map(|&(_, c)| u128::from(c)).sum();
    let needed = if share >= 1.0 {
        total
    } else {
        ((share.max(0.0) * total as f64).ceil() as u128).min(total)
    };
    let mut covered = 0u128;
    let mut ids = Vec::new();
    for &(id, count) in paths.iter() {
        if covered >= needed {
            break;
        }
        covered += u128::from(count);
        ids.push(id);
    }
    ids
}

/// The two path registers of `ppp` ([PPP] §5 "Register usage").
#[derive(Clone, Copy)]
struct PppRegisters {
    bl: mir::LocalId,
    ppp: mir::LocalId,
}

/// Whether the program may end inside `block` before it reaches its terminator: a check that
/// fails (bounds, null, division, allocation, a builtin's argument), or a call, which may end
/// the program itself (`exit()`, a runtime error, a stack overflow). The path in progress is
/// then lost, so it must not have been counted yet (`PathPlan::with_stops`). A dead end's own
/// final `exit()` is where its path ends, and is not such a place.
fn may_stop(func: &mir::Function, block: &BasicBlock) -> bool {
    let stmts = match block.stmts.split_last() {
        Some((last, rest)) if is_exit(&last.kind) => rest,
        _ => &block.stmts[..],
    };
    stmts.iter().any(|stmt| match &stmt.kind {
        StatementKind::Assign(_, rvalue) => match rvalue {
            Rvalue::Use(_) | Rvalue::Unary(..) | Rvalue::Global(_) => false,
            // Division checks for zero; on strings, `+` allocates.
            Rvalue::Binary(op, a, b) => {
                matches!(op, BinOp::Div | BinOp::Rem)
                    || [a, b].iter().any(|x| func.operand_type(x) == Type::Str)
            }
            Rvalue::Index { .. }
            | Rvalue::Field { .. }
            | Rvalue::ArrayLit(_)
            | Rvalue::ArrayRepeat { .. }
            | Rvalue::New { .. } => true,
        },
        StatementKind::SetGlobal(..)
        | StatementKind::Count { .. }
        | StatementKind::CountOrCold { .. }
        | StatementKind::CountPpp { .. }
        | StatementKind::Stream(_)
        | StatementKind::Trace(_) => false,
        StatementKind::SetIndex { .. }
        | StatementKind::SetField { .. }
        | StatementKind::Call { .. } => true,
    })
}

fn is_exit(kind: &StatementKind) -> bool {
    matches!(
        kind,
        StatementKind::Call {
            callee: Callee::Builtin(Builtin::Exit),
            ..
        }
    )
}

fn count_const(table: usize, index: u64) -> StatementKind {
    StatementKind::Count {
        table,
        index: Operand::Const(Const::Int(index as i64)),
    }
}

/// Inserts statements on the edges of one function's CFG, computed before any insertion.
struct Inserter<'f> {
    func: &'f mut mir::Function,
    edges: &'f [(BlockId, Option<BlockId>)],
    num_succs: IdVec<BlockId, usize>,
    num_preds: IdVec<BlockId, usize>,
    table: usize,
}

impl<'f> Inserter<'f> {
    fn new(func: &'f mut mir::Function, fcfg: &'f FunctionCfg, table: usize) -> Inserter<'f> {
        let num_succs = func
            .blocks
            .iter()
            .map(|b| b.term.kind.successors().len())
            .collect();
        let num_preds = func.predecessors().iter().map(Vec::len).collect();
        Inserter {
            func,
            edges: &fcfg.edges,
            num_succs,
            num_preds,
            table,
        }
    }

    /// MIR statements for the profiler's path-register operations (`r` is the register).
    fn path_code(&mut self, r: mir::LocalId, ops: &[PathOp]) -> Vec<StatementKind> {
        let reg = Operand::Local(r);
        let mut code = Vec::new();
        for &op in ops {
            match op {
                PathOp::Set(c) => code.push(StatementKind::Assign(
                    r,
                    Rvalue::Use(Operand::Const(Const::Int(c))),
                )),
                PathOp::Add(c) => code.push(StatementKind::Assign(
                    r,
                    Rvalue::Binary(BinOp::Add, reg.clone(), Operand::Const(Const::Int(c))),
                )),
                PathOp::CountAdd(0) => code.push(StatementKind::Count {
                    table: self.table,
                    index: reg.clone(),
                }),
                PathOp::CountAdd(c) => {
                    let id = self.func.new_temp(Type::Int);
                    code.push(StatementKind::Assign(
                        id,
                        Rvalue::Binary(BinOp::Add, reg.clone(), Operand::Const(Const::Int(c))),
                    ));
                    code.push(StatementKind::Count {
                        table: self.table,
                        index: Operand::Local(id),
                    });
                }
                PathOp::CountConst(id) => code.push(count_const(self.table, id)),
            }
        }
        code
    }

    /// MIR statements for the two-register code of `ppp`: each register's own operations, and
    /// one `CountPpp` where a path ends.
    fn ppp_code(&mut self, r: PppRegisters, ops: &[PppOp]) -> Vec<StatementKind> {
        let mut code = Vec::new();
        for &op in ops {
            match op {
                PppOp::Bl(op) => code.extend(self.path_code(r.bl, &[op])),
                PppOp::Ppp(op) => code.extend(self.path_code(r.ppp, &[op])),
                PppOp::End { bl, ppp } => {
                    let bl = self.path_id(r.bl, bl, &mut code);
                    let ppp = self.path_id(r.ppp, ppp, &mut code);
                    code.push(StatementKind::CountPpp {
                        table: self.table,
                        ppp,
                        bl,
                    });
                }
            }
        }
        code
    }

    /// The id a counting [`PathOp`] stands for (register `r` plus a constant, or a constant),
    /// as an operand; `code` gets the statement that computes it, if one is needed.
    fn path_id(&mut self, r: mir::LocalId, op: PathOp, code: &mut Vec<StatementKind>) -> Operand {
        match op {
            PathOp::CountAdd(0) => Operand::Local(r),
            PathOp::CountAdd(c) => {
                let id = self.func.new_temp(Type::Int);
                code.push(StatementKind::Assign(
                    id,
                    Rvalue::Binary(BinOp::Add, Operand::Local(r), Operand::Const(Const::Int(c))),
                ));
                Operand::Local(id)
            }
            PathOp::CountConst(id) => Operand::Const(Const::Int(id as i64)),
            PathOp::Set(_) | PathOp::Add(_) => unreachable!("a path end counts"),
        }
    }

    /// Puts `code` where it runs exactly when CFG edge `e` is taken.
    fn on_edge(&mut self, e: usize, code: Vec<StatementKind>) {
        if code.is_empty() {
            return;
        }
        let (from, to) = self.edges[e];
        let span = self.func.blocks[from].term.span;
        let stmts = code.into_iter().map(|kind| Statement { kind, span });
        match to {
            // The edge to EXIT is the `return` itself.
            None => self.func.blocks[from].stmts.extend(stmts),
            Some(_) if self.num_succs[from] == 1 => self.func.blocks[from].stmts.extend(stmts),
            Some(to) if self.num_preds[to] == 1 && to != mir::ENTRY => {
                self.func.blocks[to].stmts.splice(0..0, stmts);
            }
            Some(to) => {
                let split = self.func.blocks.push(BasicBlock::new(
                    stmts.collect(),
                    Terminator {
                        kind: TerminatorKind::Goto(to),
                        span,
                    },
                ));
                self.func.blocks[from].term.kind.retarget(to, split);
            }
        }
    }

    /// Puts `code` at the end of a block without successors: before its call to `exit()` if it
    /// has one (the call never returns), else before its `unreachable`.
    fn at_dead_end(&mut self, b: BlockId, code: Vec<StatementKind>) {
        if code.is_empty() {
            return;
        }
        let block = &mut self.func.blocks[b];
        let ends_in_exit = block.stmts.last().is_some_and(|s| is_exit(&s.kind));
        let at = block.stmts.len() - usize::from(ends_in_exit);
        let span: Span = block.term.span;
        block.stmts.splice(
            at..at,
            code.into_iter().map(|kind| Statement { kind, span }),
        );
    }
}
