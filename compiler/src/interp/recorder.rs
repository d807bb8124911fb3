//! The profiles of an interpreted run (`--profile bl|edge|block`), counted from the blocks and
//! edges the interpreter takes: an oracle for the instrumentation, sharing none of its code.
//! Only the names come from the profiler crate: the CFG of a function as lowered, its
//! Ball-Larus numbering (a path id is the sum of its edges' increments, [BL96]), the
//! regeneration of an id to its blocks, and the profile format.
//!
//! The conventions are those of compiled code (docs/TESTING.md): a path counts once it has run
//! to its end (a `return`, a back edge, or the `exit()` ending a dead-end block); a run that ends
//! in `exit()` or a runtime error loses the paths in progress; a block counts when control
//! enters it; the globals' initializer is not profiled.

use std::collections::{BTreeMap, HashMap};

use pcc_lang::LineIndex;
use pcc_profiler::ball_larus::{BallLarus, NumberingError, PathRegister};
use pcc_profiler::cfg::{EdgeId, NodeId};
use pcc_profiler::collect::{executed_paths, function_profile};
use pcc_profiler::profile::{
    BlockCount, BlockRecord, EdgeCount, EdgeRecord, FunctionProfile, Mode, ModeRecord, Profile,
    Storage,
};

use crate::mir::{BlockId, ENTRY, FnId, IdVec, Program};
use crate::profiling::{FunctionCfg, cfg_hash, function_cfg, node, node_line, node_lines};

/// What one function did during the run.
struct Counts {
    cfg: FunctionCfg,
    /// The CFG edge of each MIR edge; `None` is EXIT.
    edge_ids: HashMap<(BlockId, Option<BlockId>), EdgeId>,
    numbering: Result<BallLarus, NumberingError>,
    /// Ball-Larus path id → executions.
    paths: BTreeMap<u64, u64>,
    /// By CFG edge id.
    edges: Vec<u64>,
    /// By block id.
    blocks: IdVec<BlockId, u64>,
    /// Activations started, and finished (at a `return` or a dead end's `exit()`): the others
    /// were still running when the run ended, which an `edge` profile records as `unfinished`.
    started: u64,
    finished: u64,
}

/// An activation in progress: where it is and its path so far.
struct Activation {
    function: FnId,
    block: BlockId,
    register: PathRegister,
}

pub struct Recorder<'p> {
    program: &'p Program,
    /// By function id; `None` for functions not profiled (the globals' initializer), or for all
    /// when the run is not profiled.
    functions: IdVec<FnId, Option<Counts>>,
    stack: Vec<Activation>,
}

impl<'p> Recorder<'p> {
    /// A recorder that counts nothing.
    pub fn off(program: &'p Program) -> Recorder<'p> {
        Recorder {
            program,
            functions: IdVec::new(),
            stack: Vec::new(),
        }
    }

    /// A recorder of every function but the globals' initializer.
    pub fn on(program: &'p Program) -> Recorder<'p> {
        let functions = (program.functions.iter_enumerated())
            .map(|(id, func)| {
                if id == program.init {
                    return None;
                }
                let cfg = function_cfg(func);
                let edge_ids = (0..).map(EdgeId).zip(&cfg.edges);
                let edge_ids = edge_ids.map(|(id, &edge)| (edge, id)).collect();
                Some(Counts {
                    numbering: BallLarus::new(&cfg.cfg),
                    edge_ids,
                    paths: BTreeMap::new(),
                    edges: vec![0; cfg.edges.len()],
                    blocks: IdVec::from_elem(0, func.blocks.len()),
                    started: 0,
                    finished: 0,
                    cfg,
                })
            })
            .collect();
        Recorder {
            program,
            functions,
            stack: Vec::new(),
        }
    }

    /// The innermost activation and its function's counts, if it is profiled.
    fn current(&mut self) -> Option<(&mut Activation, &mut Counts)> {
        let activation = self.stack.last_mut()?;
        let counts = self.functions.get_mut(activation.function)?.as_mut()?;
        Some((activation, counts))
    }

    /// An activation of `function` starts in its entry block.
    pub fn enter(&mut self, function: FnId) {
        if self.functions.is_empty() {
            return;
        }
        self.stack.push(Activation {
            function,
            block: ENTRY,
            register: PathRegister::default(),
        });
        if let Some((_, counts)) = self.current() {
            counts.started += 1;
            counts.blocks[ENTRY] += 1;
        }
    }

    /// The innermost activation takes the edge to `to` (`None`: EXIT).
    fn take(&mut self, to: Option<BlockId>) {
        let Some((activation, counts)) = self.current() else {
            return;
        };
        let edge = counts.edge_ids[&(activation.block, to)];
        counts.edges[edge.0] += 1;
        if let Ok(numbering) = &counts.numbering
            && let Some(id) = activation.register.take(numbering, edge)
        {
            *counts.paths.entry(id).or_default() += 1;
        }
        if let Some(to) = to {
            activation.block = to;
            counts.blocks[to] += 1;
        }
    }

    /// The innermost activation goes to block `to`.
    pub fn goto(&mut self, to: BlockId) {
        self.take(Some(to));
    }

    /// The innermost activation returns: its last path ends at EXIT.
    pub fn leave(&mut self) {
        self.take(None);
        self.finish(|counts| counts.cfg.exit());
        self.stack.pop();
    }

    /// The innermost activation calls `exit()` at the end of a dead-end block, which ends its
    /// last path there.
    pub fn exit_in_dead_end(&mut self) {
        let block = self.stack.last().map(|a| a.block);
        if let Some(block) = block {
            self.finish(|_| node(block));
        }
    }

    /// The innermost activation stops at node `at(counts)`: the path ending there counts.
    fn finish(&mut self, at: impl FnOnce(&Counts) -> NodeId) {
        let Some((activation, counts)) = self.current() else {
            return;
        };
        counts.finished += 1;
        let at = at(counts);
        if let Ok(numbering) = &counts.numbering
            && let Some(id) = activation.register.stop_at(numbering, at)
        {
            *counts.paths.entry(id).or_default() += 1;
        }
    }

    /// The profile of the run so far, and the problems with functions left out of it (as the
    /// runtime's profile writer reports them).
    pub fn profile(
        &self,
        mut profile: Profile,
        source: &str,
        array_limit: u64,
    ) -> (Profile, Vec<String>) {
        let lines = LineIndex::new(source);
        let mut problems = Vec::new();
        for (func, counts) in self.program.functions.iter().zip(&self.functions) {
            let Some(counts) = counts else { continue };
            let hash = cfg_hash(self.program, func);
            let node_lines = node_lines(func, source, &lines);
            let node_line = node_line(func, &lines);
            // A block record shows its statements' lines, or its own line if it has none.
            let block_lines = |b: usize| match &node_lines[b] {
                none if none.is_empty() => vec![node_line[b]],
                some => some.clone(),
            };
            let record = match profile.mode {
                Mode::Bl => {
                    let numbering = match &counts.numbering {
                        Ok(numbering) => numbering,
                        Err(error) => {
                            problems.push(format!("function `{}`: {error}", func.name));
                            continue;
                        }
                    };
                    let storage = Storage::choose(numbering.num_paths(), array_limit);
                    let mut record =
                        function_profile(&func.name, &hash, numbering, storage, ModeRecord::Bl);
                    let paths = counts.paths.iter().map(|(&id, &count)| (id, count));
                    let lines = |v: NodeId| node_lines[v.0].clone();
                    record.paths = executed_paths(numbering, &counts.cfg.cfg, paths, lines)
                        .expect("ids come from the numbering");
                    record
                }
                Mode::Block => {
                    let blocks = counts.blocks.iter().enumerate();
                    let blocks = blocks.map(|(block, &count)| BlockCount {
                        block,
                        lines: block_lines(block),
                        count,
                    });
                    let record = ModeRecord::Block(BlockRecord {
                        num_blocks: func.blocks.len(),
                        blocks: blocks.collect(),
                    });
                    unnumbered_record(&func.name, &hash, record)
                }
                Mode::Edge => {
                    let exit = func.blocks.len();
                    let edges = counts.cfg.edges.iter().zip(&counts.edges);
                    let edges = edges.map(|(&(from, to), &count)| {
                        let from = node(from).0;
                        let to = to.map_or(exit, |to| node(to).0);
                        EdgeCount {
                            from_block: from,
                            to_block: to,
                            from_line: *block_lines(from).last().expect("one line"),
                            to_line: block_lines(to)[0],
                            count,
                        }
                    });
                    let record = ModeRecord::Edge(EdgeRecord {
                        num_blocks: func.blocks.len(),
                        edges: edges.collect(),
                        unfinished: counts.started - counts.finished,
                    });
                    unnumbered_record(&func.name, &hash, record)
                }
                other => unreachable!("the interpreter does not profile {other}"),
            };
            profile.functions.push(record);
        }
        (profile, problems)
    }
}

/// `edge` and `block` records: no path numbering, counts of every block in an array (as the
/// runtime's `pcc_profiler::mode` writes them).
fn unnumbered_record(name: &str, hash: &str, record: ModeRecord) -> FunctionProfile {
    FunctionProfile::new(name, hash, 0, Storage::Array, record)
}
