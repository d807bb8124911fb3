//! Profiling instrumentation: MIR passes that make a program count its paths (`bl`) or edges
//! (`edge`), and the [`ProfileSpec`] the program carries so that it can write its profile.
//!
//! The profiler crate decides what code goes on which CFG edge (Ball-Larus numbering and chord
//! placement, 000 Fig. 1 and §5; or edge counters on the chords of a spanning tree); this module
//! puts that code into MIR: on an edge out of a block with one successor, at the block's end; on
//! an edge into a block with one predecessor, at its start; otherwise in a new block that splits
//! the edge. The path register is an ordinary MIR local.

mod cfg;
mod trace;

pub use cfg::{FunctionCfg, cfg_hash, function_cfg, node_lines};
pub use trace::trace_blocks;

use pcc_lang::{LineIndex, Span};
use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::cfg::{EdgeId, NodeId};
use pcc_profiler::edge_profile::EdgeProfilePlan;
use pcc_profiler::estimate::static_edge_weights;
use pcc_profiler::instrument::{PathOp, PathPlan};
use pcc_profiler::profile::Mode;
use pcc_profiler::spec::{FunctionSpec, ProfileSpec};

use crate::mir::{
    self, BasicBlock, BinOp, BlockId, Builtin, Callee, Const, CounterTable, Operand, Rvalue,
    Statement, StatementKind, Terminator, TerminatorKind, Type,
};

/// The most counters an array table may have (128 MiB): past that a function counts its paths in
/// the hash table whatever `--hash-threshold` says, so no threshold can exhaust memory.
const MAX_ARRAY_COUNTERS: u64 = 1 << 24;

/// What to instrument and where the profile goes.
pub struct Instrumentation<'a> {
    pub mode: Mode,
    pub program_path: &'a str,
    pub output: String,
    pub hash_threshold: u64,
}

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
    let init = program.init;
    // The global initializers run once, before `main`: they are not profiled.
    for func in program
        .functions
        .iter_mut()
        .enumerate()
        .filter(|&(id, _)| id != init)
        .map(|(_, func)| func)
    {
        let table = functions.len();
        let fcfg = function_cfg(func);
        let numbering = BallLarus::new(&fcfg.cfg)
            .map_err(|e| format!("cannot number the paths of `{}`: {e}", func.name))?;
        let weights = static_edge_weights(&fcfg.cfg, numbering.dag());
        functions.push(FunctionSpec {
            name: func.name.clone(),
            cfg_hash: cfg_hash(func),
            num_paths: numbering.num_paths(),
            num_nodes: fcfg.cfg.num_nodes(),
            entry: fcfg.cfg.entry().0,
            exit: fcfg.exit().0,
            edges: fcfg
                .edges
                .iter()
                .map(|&(b, s)| (b, s.unwrap_or(fcfg.exit().0)))
                .collect(),
            node_lines: node_lines(func, &lines),
        });
        let counter_table = match how.mode {
            Mode::Edge => {
                let plan = EdgeProfilePlan::new(&fcfg.cfg, &weights);
                let mut inserter = Inserter::new(func, &fcfg, table);
                for e in 0..fcfg.edges.len() {
                    if let Some(counter) = plan.edge_counter(EdgeId(e)) {
                        inserter.on_edge(e, vec![count_const(table, counter as u64)]);
                    }
                }
                for b in 0..fcfg.exit().0 {
                    if let Some(counter) = plan.dead_end_counter(NodeId(b)) {
                        inserter.at_dead_end(b, vec![count_const(table, counter as u64)]);
                    }
                }
                CounterTable {
                    len: plan.num_counters() as u64,
                    hashed: false,
                }
            }
            _ => {
                let plan = PathPlan::new(&numbering, &weights);
                let register = func.new_temp(Type::Int);
                let mut inserter = Inserter::new(func, &fcfg, table);
                for e in 0..fcfg.edges.len() {
                    let code = inserter.path_code(register, plan.edge_ops(EdgeId(e)));
                    inserter.on_edge(e, code);
                }
                for b in 0..fcfg.exit().0 {
                    let code = inserter.path_code(register, plan.dead_end_ops(NodeId(b)));
                    inserter.at_dead_end(b, code);
                }
                CounterTable {
                    len: numbering.num_paths(),
                    hashed: numbering.num_paths() > array_limit,
                }
            }
        };
        program.counter_tables.push(counter_table);
    }
    Ok(ProfileSpec {
        mode: how.mode,
        program: how.program_path.to_string(),
        output: how.output.clone(),
        array_limit,
        functions,
    })
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
    num_succs: Vec<usize>,
    num_preds: Vec<usize>,
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
                let split = self.func.blocks.len();
                self.func.blocks.push(BasicBlock {
                    stmts: stmts.collect(),
                    term: Terminator {
                        kind: TerminatorKind::Goto(to),
                        span,
                    },
                });
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
        let ends_in_exit = block.stmts.last().is_some_and(|s| {
            matches!(
                s.kind,
                StatementKind::Call {
                    callee: Callee::Builtin(Builtin::Exit),
                    ..
                }
            )
        });
        let at = block.stmts.len() - usize::from(ends_in_exit);
        let span: Span = block.term.span;
        block.stmts.splice(
            at..at,
            code.into_iter().map(|kind| Statement { kind, span }),
        );
    }
}
