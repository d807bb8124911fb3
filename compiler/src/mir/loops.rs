//! Natural loops: the blocks that reach a back edge's source without passing its target, the
//! loop's header.

use std::collections::BTreeMap;

use super::{BlockId, Dominators, ENTRY, Function, IdVec};

/// A natural loop of a function ([`Function::natural_loops`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// Its blocks in reverse postorder: the header first.
    pub body: Vec<BlockId>,
    /// Whether it holds no other loop's header.
    pub innermost: bool,
}

impl Loop {
    pub fn header(&self) -> BlockId {
        self.body[0]
    }
}

/// The natural loop of `header` with back edges from `latches`: the reachable blocks (those
/// with an immediate dominator in `idom`) that reach a latch without passing the header.
pub fn natural_loop(
    header: BlockId,
    latches: &[BlockId],
    predecessors: &IdVec<BlockId, Vec<BlockId>>,
    idom: &Dominators,
) -> IdVec<BlockId, bool> {
    let mut in_loop = IdVec::from_elem(false, predecessors.len());
    in_loop[header] = true;
    let mut stack = latches.to_vec();
    while let Some(b) = stack.pop() {
        if idom[b].is_some() && !in_loop[b] {
            in_loop[b] = true;
            stack.extend(&predecessors[b]);
        }
    }
    in_loop
}

impl Function {
    /// The natural loops, by header; except a loop headed by the entry block, which has no
    /// entry edge to put code on.
    pub fn natural_loops(&self) -> Vec<Loop> {
        let idom = self.dominators();
        let rpo = self.reverse_postorder();
        let mut latches: BTreeMap<BlockId, Vec<BlockId>> = BTreeMap::new();
        for &b in &rpo {
            for s in self.blocks[b].term.kind.successors() {
                if idom.dominates(s, b) {
                    latches.entry(s).or_default().push(b);
                }
            }
        }
        let predecessors = self.predecessors();
        let mut order = IdVec::from_elem(usize::MAX, self.blocks.len());
        for (i, &b) in rpo.iter().enumerate() {
            order[b] = i;
        }
        // Per block, the header of the last loop found to hold it: one marking for all loops,
        // and each body sorted by itself, so the cost is that of the bodies, not loops × blocks.
        let mut marked: IdVec<BlockId, Option<BlockId>> = IdVec::from_elem(None, self.blocks.len());
        let mut loops = Vec::new();
        for (&header, ends) in &latches {
            if header == ENTRY {
                continue;
            }
            marked[header] = Some(header);
            let mut body = vec![header];
            let mut stack = ends.clone();
            while let Some(b) = stack.pop() {
                if idom.reachable(b) && b != ENTRY && marked[b] != Some(header) {
                    marked[b] = Some(header);
                    body.push(b);
                    stack.extend(&predecessors[b]);
                }
            }
            body.sort_unstable_by_key(|&b| order[b]);
            let innermost = body[1..].iter().all(|b| !latches.contains_key(b));
            loops.push(Loop { body, innermost });
        }
        loops
    }

    /// The bodies of the innermost natural loops, which share no block.
    pub fn innermost_loops(&self) -> Vec<Vec<BlockId>> {
        (self.natural_loops().into_iter())
            .filter(|l| l.innermost)
            .map(|l| l.body)
            .collect()
    }
}
