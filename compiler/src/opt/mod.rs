//! MIR optimizations run at `-O 2`, after instrumentation. Cranelift already does GVN, LICM and
//! constant folding on its own IR, but inlines nothing and cannot see that an index is in bounds;
//! these passes do what is easier on MIR: heap regions for activations whose objects die with
//! them, inlining small leaf functions and the fast sides of recursive ones, then removing branches on
//! constants, chains of empty blocks, values that are computed but never used, and bounds checks
//! that loop and branch conditions prove redundant; then loops, and blocks, whose remaining
//! checks one guard at their entry can prove are versioned. In a profiled program, last, loops
//! whose path register differs in their first iteration have it peeled, counts that run together
//! are merged, and innermost loops keep their counts in locals.

mod block_guard;
mod bounds;
mod const_fold;
mod counters;
mod dead_code;
mod fields;
mod globals;
pub(crate) mod guard;
mod hoist;
mod inline;
mod merge_counts;
mod peel;
mod simplify_cfg;
mod sink;
mod split;
mod stores;
mod version;

pub use inline::MAX_HOT_CALLEE_SIZE;

use crate::mir::{self, verify};

/// A pass that changes one function at a time.
type FunctionPass = fn(&mut mir::Function);

pub fn optimize(program: &mut mir::Program) {
    globals::fold_constant_globals(program);
    verify::after_pass(program, "constant-globals");
    inline::inline_small_functions(program, &[]);
    verify::after_pass(program, "inline");
    // After inlining, so that a head's size counts what it calls; then its callers inline it.
    let parts = split::split_recursive_functions(program);
    verify::after_pass(program, "split");
    inline::inline_small_functions(program, &parts);
    verify::after_pass(program, "inline");
    // The calls are those of the program from here on (versioning and guards copy them within
    // a function): the passes that keep lengths across calls may trust the steady callees.
    program.note_steady_callees();
    // Before the CFG simplification, whose tail duplication rotates a loop only when its header
    // holds little more than the test.
    run(program, [("hoist", hoist::hoist_header_arithmetic)]);
    // Twice: tail duplication copies a join's test (a `&&`'s result) into the blocks that
    // assign it a constant, where folding decides the branch.
    run(
        program,
        [
            ("const-fold", const_fold::fold_constants),
            ("simplify-cfg", simplify_cfg::simplify_cfg),
            ("const-fold", const_fold::fold_constants),
            ("simplify-cfg", simplify_cfg::simplify_cfg),
        ],
    );
    // On merged blocks, whose single-entry chains are longest.
    fields::reuse_field_loads(program);
    verify::after_pass(program, "fields");
    run(
        program,
        [
            ("dead-code", dead_code::remove_dead_assignments),
            ("bounds", bounds::remove_bounds_checks),
        ],
    );
    version::version_loops(program);
    verify::after_pass(program, "version");
    program
        .functions
        .iter_mut()
        .for_each(block_guard::guard_blocks);
    verify::after_pass(program, "block-guard");
    // After versioning, which copies loops; before merging and promotion, which it feeds.
    peel::peel_first_iterations(program);
    verify::after_pass(program, "peel");
    // After inlining and versioning, which bring and copy counts; before promotion, so that
    // a loop keeps fewer counts in locals.
    merge_counts::merge_counts(program);
    verify::after_pass(program, "merge-counts");
    // Last: the loops it promotes counters in are the versioned ones.
    counters::promote_loop_counters(program);
    verify::after_pass(program, "counters");
    run(
        program,
        [
            ("latches", simplify_cfg::duplicate_latches_into_branches),
            ("sink", sink::sink_into_successors),
        ],
    );
}

/// Runs each pass on every function, in order.
fn run<const N: usize>(program: &mut mir::Program, passes: [(&str, FunctionPass); N]) {
    for (name, pass) in passes {
        program.functions.iter_mut().for_each(pass);
        verify::after_pass(program, name);
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use pcc_lang::LineIndex;

    use crate::mir::{BlockId, Function, Program};

    /// The MIR of a PL program, as lowered.
    pub fn lower(source: &str) -> Program {
        let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
        crate::lower::lower_program(&typed)
    }

    /// Function `name` of `source` as lowered and after `pass` ran on every function, as
    /// `--emit mir` prints them (without comments): what the passes' `expect!` snapshots show.
    pub fn before_and_after(source: &str, name: &str, pass: fn(&mut Function)) -> String {
        program_before_and_after(source, name, |program| {
            program.functions.iter_mut().for_each(pass)
        })
    }

    /// [`before_and_after`] for a pass over the whole program.
    pub fn program_before_and_after(
        source: &str,
        name: &str,
        pass: impl FnOnce(&mut Program),
    ) -> String {
        snapshot(lower(source), name, pass)
    }

    /// [`program_before_and_after`] on the program instrumented for `mode`.
    pub fn instrumented_before_and_after(
        source: &str,
        mode: pcc_profiler::profile::Mode,
        name: &str,
        pass: impl FnOnce(&mut Program),
    ) -> String {
        snapshot(instrumented(source, mode), name, pass)
    }

    fn snapshot(mut program: Program, name: &str, pass: impl FnOnce(&mut Program)) -> String {
        let text = |program: &Program| {
            let func = (program.functions.iter())
                .find(|f| f.name == name)
                .expect("the function exists");
            program.canonical_text(func)
        };
        let before = text(&program);
        pass(&mut program);
        crate::mir::verify::after_pass(&program, "the tested pass");
        format!("before:\n{before}after:\n{}", text(&program))
    }

    /// The first block of `func` with a bounds-checked access.
    pub fn accessing_block(func: &Function) -> BlockId {
        (func.blocks.ids())
            .find(|&b| (func.blocks[b].stmts.iter()).any(|s| s.kind.checked_access().is_some()))
            .expect("a block with a checked access")
    }

    /// AWFY Sieve's loops: `f` clears the multiples of each `i` whose flag is still set.
    pub const SIEVE: &str = "\
fn f(flags: [bool], size: int) -> int {
    let count = 0;
    for i in 2..size + 1 {
        if flags[i - 1] {
            count += 1;
            let k = i + i;
            while k <= size { flags[k - 1] = false; k += i; }
        }
    }
    return count;
}
fn main() { println(f([true; 100], 100)); }
";

    /// The MIR of a PL program, as lowered and instrumented for `mode`.
    pub fn instrumented(source: &str, mode: pcc_profiler::profile::Mode) -> Program {
        let mut program = lower(source);
        let how = crate::profiling::Instrumentation {
            mode,
            program_path: "test.pl",
            source_hash: String::new(),
            output: String::new(),
            hash_threshold: crate::driver::DEFAULT_HASH_THRESHOLD,
            interesting: None,
            k: crate::driver::DEFAULT_K,
            edge_profile: None,
        };
        let mut notes = crate::notes::Notes::default();
        crate::profiling::instrument(&mut program, &how, source, &mut notes).expect("instrumented");
        program
    }

    /// The text of function `name` of `program`, compiled from `source`, as `--emit mir` prints it.
    pub fn text(program: &Program, source: &str, name: &str) -> String {
        let lines = LineIndex::new(source);
        let id = program
            .functions
            .position(|f| f.name == name)
            .expect("the function exists");
        program.function_text(id, &|span| lines.line(span.lo))
    }
}
