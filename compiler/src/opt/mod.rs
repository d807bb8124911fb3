//! MIR clean-ups run at `-O 2`, after instrumentation. Cranelift already does GVN, LICM and
//! constant folding on its own IR; these passes remove what is easier to see on MIR: branches
//! on constants, chains of empty blocks, and values that are computed but never used.

mod const_fold;
mod dead_code;
mod simplify_cfg;

use crate::mir;

pub fn optimize(program: &mut mir::Program) {
    for func in &mut program.functions {
        const_fold::fold_constants(func);
        simplify_cfg::simplify_cfg(func);
        dead_code::remove_dead_assignments(func);
    }
}
