//! Dominators: the immediate dominators by the iterative algorithm of Cooper, Harvey and
//! Kennedy ("A Simple, Fast Dominance Algorithm", 2001), and a tree that answers whether one block
//! dominates another in constant time.

use super::{BlockId, ENTRY, Function, IdVec};

/// A function's dominator tree: each block's immediate dominator, and the interval of the tree's
/// depth-first preorder numbers its subtree covers, so that whether one block dominates another
/// is one comparison of numbers rather than a walk up the tree (which made the passes that ask
/// per edge or per block quadratic in a long chain of `if`s). Computed once per function
/// ([`Function::dominators`]) and valid as long as no edge between its blocks changes.
#[derive(Clone, Debug)]
pub struct Dominators {
    idom: IdVec<BlockId, Option<BlockId>>,
    /// Per block, its preorder number in the tree (`u32::MAX` when unreachable) and the last
    /// number in its subtree.
    pre: IdVec<BlockId, u32>,
    last: IdVec<BlockId, u32>,
}

impl Dominators {
    /// The tree whose immediate dominators are `idom` (`None` for the entry and for
    /// unreachable blocks).
    pub fn new(idom: IdVec<BlockId, Option<BlockId>>) -> Self {
        let n = idom.len();
        let mut children: IdVec<BlockId, Vec<BlockId>> = IdVec::from_elem(Vec::new(), n);
        for (b, d) in idom.iter_enumerated() {
            if let Some(d) = *d {
                children[d].push(b);
            }
        }
        let mut pre = IdVec::from_elem(u32::MAX, n);
        let mut last = IdVec::from_elem(u32::MAX, n);
        if n > 0 {
            // Iterative depth-first walk: (block, whether its subtree is done).
            let mut next = 0u32;
            let mut stack = vec![(ENTRY, false)];
            while let Some((b, done)) = stack.pop() {
                if done {
                    last[b] = next - 1;
                    continue;
                }
                pre[b] = next;
                next += 1;
                stack.push((b, true));
                stack.extend(children[b].iter().rev().map(|&c| (c, false)));
            }
        }
        Dominators { idom, pre, last }
    }

    /// Whether block `a` dominates block `b` (every block dominates itself, an unreachable
    /// one only itself).
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        a == b
            || (self.pre[a] != u32::MAX
                && self.pre[b] != u32::MAX
                && self.pre[a] <= self.pre[b]
                && self.pre[b] <= self.last[a])
    }

    /// Whether `b` is reachable from the entry.
    pub fn reachable(&self, b: BlockId) -> bool {
        self.pre[b] != u32::MAX
    }

    /// The immediate dominators (`None` for the entry and for unreachable blocks).
    pub fn idom(&self) -> &IdVec<BlockId, Option<BlockId>> {
        &self.idom
    }
}

impl std::ops::Index<BlockId> for Dominators {
    type Output = Option<BlockId>;

    /// The immediate dominator of `b` (`None` for the entry and for unreachable blocks).
    fn index(&self, b: BlockId) -> &Option<BlockId> {
        &self.idom[b]
    }
}

impl Function {
    /// The immediate dominator of each block reachable from `ENTRY` (`None` for the entry and
    /// for unreachable blocks), by the iterative algorithm of Cooper, Harvey and Kennedy.
    pub fn immediate_dominators(&self) -> IdVec<BlockId, Option<BlockId>> {
        let rpo = self.reverse_postorder();
        let mut order = IdVec::from_elem(usize::MAX, self.blocks.len());
        for (i, &b) in rpo.iter().enumerate() {
            order[b] = i;
        }
        let predecessors = self.predecessors();
        let mut idom = IdVec::from_elem(None, self.blocks.len());
        idom[ENTRY] = Some(ENTRY);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().filter(|&&b| b != ENTRY) {
                let mut new_idom: Option<BlockId> = None;
                for &p in &predecessors[b] {
                    if idom[p].is_none() {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(mut d) => {
                            let mut p = p;
                            while p != d {
                                while order[p] > order[d] {
                                    p = idom[p].expect("processed");
                                }
                                while order[d] > order[p] {
                                    d = idom[d].expect("processed");
                                }
                            }
                            d
                        }
                    });
                }
                if new_idom.is_some() && idom[b] != new_idom {
                    idom[b] = new_idom;
                    changed = true;
                }
            }
        }
        idom[ENTRY] = None;
        idom
    }

    /// The dominator tree of the blocks reachable from `ENTRY`, for constant-time dominance
    /// queries.
    pub fn dominators(&self) -> Dominators {
        Dominators::new(self.immediate_dominators())
    }
}
