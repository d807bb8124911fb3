//! CFG simplification: a branch with both arms alike becomes a jump, jumps through empty blocks
//! go straight to their target, and a block with a single predecessor that jumps to it is
//! merged into that predecessor.

use crate::lower::remove_unreachable_blocks;
use crate::mir::{ENTRY, Function, TerminatorKind};

pub fn simplify_cfg(func: &mut Function) {
    loop {
        let changed =
            fold_same_target_branches(func) | bypass_empty_blocks(func) | merge_chains(func);
        remove_unreachable_blocks(func);
        if !changed {
            break;
        }
    }
}

fn fold_same_target_branches(func: &mut Function) -> bool {
    let mut changed = false;
    for block in &mut func.blocks {
        let succs = block.term.kind.successors();
        if succs.len() == 1 && !matches!(block.term.kind, TerminatorKind::Goto(_)) {
            block.term.kind = TerminatorKind::Goto(succs[0]);
            changed = true;
        }
    }
    changed
}

/// Retargets edges into a block that holds nothing but a jump elsewhere.
fn bypass_empty_blocks(func: &mut Function) -> bool {
    let mut changed = false;
    for b in 0..func.blocks.len() {
        let TerminatorKind::Goto(target) = func.blocks[b].term.kind else {
            continue;
        };
        if b == ENTRY || target == b || !func.blocks[b].stmts.is_empty() {
            continue;
        }
        for block in &mut func.blocks {
            for t in block.term.kind.targets_mut() {
                if *t == b {
                    *t = target;
                    changed = true;
                }
            }
        }
    }
    changed
}

/// Appends a block to its only predecessor when that predecessor jumps straight to it.
fn merge_chains(func: &mut Function) -> bool {
    let mut changed = false;
    let mut preds = func.predecessors();
    for b in 0..func.blocks.len() {
        while let TerminatorKind::Goto(s) = func.blocks[b].term.kind {
            if s == b || s == ENTRY || preds[s].len() != 1 {
                break;
            }
            let absorbed = std::mem::replace(
                &mut func.blocks[s],
                crate::mir::BasicBlock::new(
                    Vec::new(),
                    crate::mir::Terminator {
                        kind: TerminatorKind::Unreachable,
                        span: Default::default(),
                    },
                ),
            );
            let block = &mut func.blocks[b];
            block.stmts.extend(absorbed.stmts);
            block.term = absorbed.term;
            preds[s].clear();
            for succ in block.term.kind.successors() {
                for p in &mut preds[succ] {
                    if *p == s {
                        *p = b;
                    }
                }
            }
            changed = true;
        }
    }
    changed
}
