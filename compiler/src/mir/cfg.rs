//! The control-flow graph's orders and edges: reverse postorder, predecessors, and which locals
//! are live into each block.

use std::collections::BTreeSet;

use super::{BlockId, ENTRY, Function, IdVec, LocalId};

impl Function {
    /// The blocks reachable from `ENTRY`, in reverse postorder: a block comes after its
    /// predecessors but along back edges.
    pub fn reverse_postorder(&self) -> Vec<BlockId> {
        let mut postorder = Vec::with_capacity(self.blocks.len());
        let mut visited = IdVec::from_elem(false, self.blocks.len());
        let mut stack = vec![(ENTRY, self.blocks[ENTRY].term.kind.successors(), 0)];
        visited[ENTRY] = true;
        while let Some((b, succs, next)) = stack.last_mut() {
            match succs.get(*next) {
                Some(&s) => {
                    *next += 1;
                    if !visited[s] {
                        visited[s] = true;
                        stack.push((s, self.blocks[s].term.kind.successors(), 0));
                    }
                }
                None => {
                    postorder.push(*b);
                    stack.pop();
                }
            }
        }
        postorder.reverse();
        postorder
    }

    /// Whether a reachable block has an edge back to itself or to a block before it in reverse
    /// postorder: a loop.
    pub fn has_loop(&self) -> bool {
        let rpo = self.reverse_postorder();
        let mut order = IdVec::from_elem(usize::MAX, self.blocks.len());
        for (i, &b) in rpo.iter().enumerate() {
            order[b] = i;
        }
        rpo.iter()
            .any(|&b| (self.blocks[b].term.kind.successors().iter()).any(|&s| order[s] <= order[b]))
    }

    /// The blocks that jump to `target`, in order: one list of [`Function::predecessors`],
    /// without building the others (a pass that works loop by loop in a function of a thousand
    /// loops would build them a thousand times).
    pub fn predecessors_of(&self, target: BlockId) -> Vec<BlockId> {
        (self.blocks.iter_enumerated())
            .filter(|(_, block)| block.term.kind.jumps_to(target))
            .map(|(b, _)| b)
            .collect()
    }

    /// Predecessor lists, one per block (a predecessor appears once per distinct edge).
    pub fn predecessors(&self) -> IdVec<BlockId, Vec<BlockId>> {
        let mut preds = IdVec::from_elem(Vec::new(), self.blocks.len());
        for (b, block) in self.blocks.iter_enumerated() {
            for s in block.term.kind.successors() {
                preds[s].push(b);
            }
        }
        preds
    }

    /// The locals live at the start of each block: read, on some path from there, before they
    /// are assigned (the classic backward dataflow).
    pub fn live_in(&self) -> IdVec<BlockId, BTreeSet<LocalId>> {
        // Per block: the locals it reads before assigning them, and those it assigns.
        let mut reads = IdVec::from_elem(BTreeSet::new(), self.blocks.len());
        let mut writes = IdVec::from_elem(BTreeSet::new(), self.blocks.len());
        for (b, block) in self.blocks.iter_enumerated() {
            for (i, operands) in block.reads().enumerate() {
                for l in operands.into_iter().filter_map(|op| op.local()) {
                    if !writes[b].contains(&l) {
                        reads[b].insert(l);
                    }
                }
                writes[b].extend(block.stmts.get(i).and_then(|s| s.kind.dest()));
            }
        }
        let mut live_in = reads.clone();
        let order: Vec<BlockId> = self.reverse_postorder().into_iter().rev().collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &order {
                let succs = self.blocks[b].term.kind.successors();
                let through: Vec<LocalId> = (succs.iter())
                    .flat_map(|&s| live_in[s].iter().copied())
                    .filter(|l| !writes[b].contains(l) && !live_in[b].contains(l))
                    .collect();
                changed |= !through.is_empty();
                live_in[b].extend(through);
            }
        }
        live_in
    }
}
