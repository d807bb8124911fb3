//! A MIR function as the profiler sees it: an abstract CFG whose nodes are the basic blocks plus
//! one EXIT node that every `return` has an edge to, the source lines of each node, and the hash
//! that identifies the function's code in a profile.

use pcc_lang::LineIndex;
use pcc_profiler::cfg::{Cfg, NodeId};

use crate::mir::{BlockId, ENTRY, Function, TerminatorKind};

pub struct FunctionCfg {
    pub cfg: Cfg,
    /// The MIR edge behind each CFG edge, by edge id: (from, to), `to == None` for EXIT.
    pub edges: Vec<(BlockId, Option<BlockId>)>,
}

impl FunctionCfg {
    pub fn exit(&self) -> NodeId {
        self.cfg.exit()
    }
}

/// Nodes `0..blocks.len()` are the blocks (same ids), node `blocks.len()` is EXIT. Blocks that
/// end in `unreachable` (after `exit()`) have no successors: the profiler treats them as dead ends.
pub fn function_cfg(func: &Function) -> FunctionCfg {
    let exit = func.blocks.len();
    let mut edges = Vec::new();
    for (b, block) in func.blocks.iter().enumerate() {
        match &block.term.kind {
            TerminatorKind::Return(_) => edges.push((b, None)),
            kind => edges.extend(kind.successors().into_iter().map(|s| (b, Some(s)))),
        }
    }
    let pairs: Vec<(usize, usize)> = edges.iter().map(|&(b, s)| (b, s.unwrap_or(exit))).collect();
    let cfg = Cfg::from_edges(exit + 1, ENTRY, exit, &pairs)
        .expect("MIR blocks form a valid CFG: one entry, EXIT without successors");
    FunctionCfg { cfg, edges }
}

/// The source lines of each CFG node in execution order (EXIT has none). A `goto` adds no line:
/// it is where a construct ends (a closing brace, a loop's back edge), not a statement.
pub fn node_lines(func: &Function, lines: &LineIndex) -> Vec<Vec<u32>> {
    let mut nodes: Vec<Vec<u32>> = func
        .blocks
        .iter()
        .map(|block| {
            let mut block_lines: Vec<u32> =
                block.stmts.iter().map(|s| lines.line(s.span.lo)).collect();
            if !matches!(block.term.kind, TerminatorKind::Goto(_)) {
                block_lines.push(lines.line(block.term.span.lo));
            }
            block_lines.dedup();
            block_lines
        })
        .collect();
    nodes.push(Vec::new());
    nodes
}

/// A stable hash of the function's code (types, statements, control flow), not of its source
/// positions: moving a function or editing a comment keeps its profile valid. FNV-1a, 64 bits.
pub fn cfg_hash(func: &Function) -> String {
    let signature: Vec<_> = func.locals.iter().map(|l| &l.ty).collect();
    let mut text = format!("{:?}|{:?}|{:?}", func.params, func.ret, signature);
    for block in &func.blocks {
        let stmts: Vec<_> = block.stmts.iter().map(|s| &s.kind).collect();
        text.push_str(&format!("|{stmts:?}->{:?}", block.term.kind));
    }
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, byte| {
        (h ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{hash:016x}")
}
