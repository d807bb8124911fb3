//! A MIR function as the profiler sees it: an abstract CFG whose nodes are the basic blocks plus
//! one EXIT node that every `return` has an edge to, the source lines of each node, and the hash
//! that identifies the function's code in a profile.

use pcc_lang::{LineIndex, Span};
use pcc_profiler::cfg::{Cfg, NodeId};

use pcc_profiler::profile::content_hash;

use crate::mir::{BlockId, ENTRY, Function, Program, TerminatorKind};

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

/// The CFG node of block `b`: nodes `0..blocks.len()` are the blocks, by the same numbers.
pub fn node(b: BlockId) -> NodeId {
    NodeId(b.index())
}

/// The block of CFG node `n`, which is not EXIT.
pub fn block(n: NodeId) -> BlockId {
    BlockId::new(n.0)
}

/// Nodes `0..blocks.len()` are the blocks (same ids), node `blocks.len()` is EXIT. Blocks that
/// end in `unreachable` (after `exit()`) have no successors: the profiler treats them as dead ends.
pub fn function_cfg(func: &Function) -> FunctionCfg {
    let exit = func.blocks.len();
    let mut edges = Vec::new();
    for (b, block) in func.blocks.iter_enumerated() {
        match &block.term.kind {
            TerminatorKind::Return(_) => edges.push((b, None)),
            kind => edges.extend(kind.successors().into_iter().map(|s| (b, Some(s)))),
        }
    }
    let pairs: Vec<(usize, usize)> = edges
        .iter()
        .map(|&(b, s)| (node(b).0, s.map_or(exit, |s| node(s).0)))
        .collect();
    let cfg = Cfg::from_edges(exit + 1, node(ENTRY).0, exit, &pairs)
        .expect("MIR blocks form a valid CFG: one entry, EXIT without successors");
    FunctionCfg { cfg, edges }
}

/// The source lines of each CFG node in execution order (EXIT has none): its statements' and
/// its terminator's, a `goto`'s only where it is code ([`jump_is_code`]). `lines` indexes
/// `source`.
pub fn node_lines(func: &Function, source: &str, lines: &LineIndex) -> Vec<Vec<u32>> {
    let mut nodes: Vec<Vec<u32>> = func
        .blocks
        .iter()
        .map(|block| {
            let mut block_lines: Vec<u32> =
                block.stmts.iter().map(|s| lines.line(s.span.lo)).collect();
            if !matches!(block.term.kind, TerminatorKind::Goto(_))
                || jump_is_code(block.term.span, source, lines)
            {
                block_lines.push(lines.line(block.term.span.lo));
            }
            block_lines.dedup();
            block_lines
        })
        .collect();
    nodes.push(Vec::new());
    nodes
}

/// Whether a `goto` is code on its line: `break`, `continue`, `while true`'s jump into its body,
/// the jump out of a block opened and closed on one line (`0 => { }`, `if c { x = 1; }`).
/// Lowering also ends blocks with jumps that only mark where a construct ends: a block falling
/// through its closing brace (a one-character span) on a line of its own or of `} else {`,
/// and a loop's jumps into its header and back, which carry the whole loop statement's span
/// (the header's condition is its code).
fn jump_is_code(span: Span, source: &str, lines: &LineIndex) -> bool {
    let (line, col) = lines.line_col(span.lo);
    if line != lines.line(span.hi.saturating_sub(1)) {
        return false;
    }
    if span.hi - span.lo > 1 {
        return true;
    }
    // The closing brace's `{` on the same line, braces between them balanced.
    let before = lines.line_text(source, line).as_bytes();
    let before = &before[..(col as usize - 1).min(before.len())];
    let mut depth = 0;
    for &c in before.iter().rev() {
        match c {
            b'}' => depth += 1,
            b'{' if depth == 0 => return true,
            b'{' => depth -= 1,
            _ => {}
        }
    }
    false
}

/// Each CFG node's own line (never 0; see `FunctionSpec::node_line`): a block's first
/// statement's line, or its terminator's when it has none (lowering places a join's or latch's
/// `goto` on the construct it belongs to, e.g. the closing brace of a loop body); EXIT's is the
/// function's closing brace, where every activation ends.
pub fn node_line(func: &Function, lines: &LineIndex) -> Vec<u32> {
    let mut nodes: Vec<u32> = func
        .blocks
        .iter()
        .map(|block| {
            let first = block.stmts.first().map_or(block.term.span, |s| s.span);
            lines.line(first.lo)
        })
        .collect();
    nodes.push(lines.line(func.span.hi.saturating_sub(1)));
    nodes
}

/// A stable hash of the function's code as lowered (types, statements, control flow), not of
/// its source positions: moving a function or editing a comment keeps its profile valid. The
/// FNV-1a hash (64 bits) of [`Program::canonical_text`] (docs/PROFILE-FORMAT.md).
pub fn cfg_hash(program: &Program, func: &Function) -> String {
    content_hash(program.canonical_text(func).as_bytes())
}
