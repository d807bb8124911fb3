//! Profile-guided recompilation (`--use-profile P`, see docs/CLI.md): a `bl`, `kbl`, `ppp`, `wpp` or
//! `edge` profile of an earlier run, mapped onto the MIR as lowered
//! (the code it was taken on, `frequencies.rs`), drives MIR passes that run before `-O 2`'s
//! clean-ups: cold blocks out of line and hot call sites for inlining (`cold.rs`), from a
//! `kbl` profile selective unrolling of the hot innermost loops whose iterations take the same
//! path many times in a row (`unroll.rs`), each chain of copies guarded once for all its bounds
//! checks (`guard.rs`), then superblocks: the other hot paths made single-entry by tail
//! duplication (`superblock.rs`). They copy blocks with `mir/clone.rs`.

mod cold;
mod frequencies;
/// Also the guard of `opt/block_guard.rs`.
mod superblock;
mod unroll;

pub use frequencies::Frequencies;
use superblock::form_superblocks;
use unroll::{Unrolled, unroll_hot_loops};

use pcc_lang::Span;
use pcc_profiler::english::plural;
use pcc_profiler::profile::{Mode, Profile};

use crate::notes::Notes;
use crate::profiling::cfg_hash;
use crate::{mir, opt};

/// The profile modes `--use-profile` takes: those whose path ids are Ball-Larus ids of the MIR
/// as lowered, and `edge`, whose block ids are its blocks (block frequencies only: no path to
/// unroll or make a superblock of, so that edge- and path-guided recompilation can be compared).
pub const MODES: [Mode; 5] = [Mode::Bl, Mode::Kbl, Mode::Ppp, Mode::Wpp, Mode::Edge];

/// Code is copied (unrolled, made superblocks) only where it does at least this share of the
/// program's work (executed statements): elsewhere the copies cost code size and compile time
/// for nothing.
pub const MIN_SHARE: f64 = 0.01;

/// Applies the passes to every function the profile `name` fits (same `cfg_hash`; a stale one
/// gets a warning in `notes` and is compiled as without a profile). Returns what changed, one
/// line per function, for the report; `line_of` gives a span's source line. `versioning`: `-O 2`
/// will version loops (`opt/version.rs`), which the unroller takes into account.
pub fn optimize(
    program: &mut mir::Program,
    profile: &Profile,
    name: &str,
    versioning: bool,
    line_of: &dyn Fn(Span) -> u32,
    notes: &mut Notes,
) -> Vec<String> {
    // The unroller's guards trust the calls of functions that resize no array (`guard::cover`).
    program.note_steady_callees();
    let init = program.init;
    let frequencies: Vec<Option<Frequencies>> = program
        .functions
        .iter_enumerated()
        .map(|(id, func)| {
            if id == init {
                None
            } else {
                fit(program, func, profile, name, notes)
            }
        })
        .collect();
    let program_weight: u64 = frequencies
        .iter()
        .zip(&program.functions)
        .filter_map(|(freq, func)| Some(freq.as_ref()?.weight(func)))
        .sum();
    let min_weight = (program_weight as f64 * MIN_SHARE) as u64;
    // A function does little per call if it calls no PL function (whose work its own profile
    // does not count) and executes at most twice its size per activation.
    let short: mir::IdVec<mir::FnId, bool> = frequencies
        .iter()
        .zip(&program.functions)
        .map(|(freq, func)| {
            !func.calls_functions()
                && freq.as_ref().is_none_or(|freq| {
                    let size = mir::clone::size(func, func.blocks.ids(), &func.profiling_locals());
                    let size = size as u64;
                    freq.weight(func) <= 2 * size * freq.block[mir::ENTRY].max(1)
                })
        })
        .collect();
    let mut report = Vec::new();
    for (func, freq) in program.functions.iter_mut().zip(&frequencies) {
        let Some(freq) = freq else { continue };
        let mut changes = Vec::new();
        let cold = cold::mark_cold_blocks(func, freq);
        if cold > 0 {
            changes.push(format!("{} out of line", plural(cold as u64, "cold block")));
        }
        let hot = cold::mark_hot_call_sites(func, freq, &|f| short[f]);
        if hot > 0 {
            changes.push(format!(
                "{} with hot call sites (at -O2, leaf callees of up to {} statements \
                 inlined there)",
                plural(hot as u64, "block"),
                opt::MAX_HOT_CALLEE_SIZE
            ));
        }
        let mut left = Vec::new();
        let mut unrolled_blocks = Vec::new();
        let unrolling = unroll_hot_loops(func, freq, min_weight, versioning);
        let loop_line = |func: &mir::Function, header: mir::BlockId| {
            let header = &func.blocks[header];
            line_of(header.stmts.first().map_or(header.term.span, |s| s.span))
        };
        for u in unrolling.unrolled {
            changes.push(format!(
                "loop at line {} (bb{}) unrolled: {}",
                loop_line(func, u.header),
                u.header,
                describe(&u)
            ));
            unrolled_blocks.extend(u.body);
        }
        // One entry per loop (its reasons are consecutive): the loop, or each of its paths.
        for reasons in unrolling.left.chunk_by(|a, b| a.0 == b.0) {
            let header = reasons[0].0;
            let why: Vec<String> = reasons.iter().map(|(_, why)| why.to_string()).collect();
            left.push(format!(
                "loop at line {} (bb{header}) not unrolled: {}",
                loop_line(func, header),
                why.join(", ")
            ));
        }
        // After the unroller, which needs its loops as lowered and whose chains already are
        // superblocks: the paths through those loops are left as it made them.
        let s = form_superblocks(func, freq, &unrolled_blocks, min_weight);
        if !s.paths.is_empty() {
            let paths: Vec<String> = s
                .paths
                .iter()
                .map(|(id, share)| format!("path {id}, {:.0}%", share * 100.0))
                .collect();
            changes.push(format!(
                "superblocks: {} ({}), {} / {} duplicated",
                plural(s.paths.len() as u64, "hot path"),
                paths.join("; "),
                plural(s.blocks as u64, "block"),
                plural(s.statements as u64, "statement")
            ));
        }
        for (id, share, why) in s.left {
            left.push(format!(
                "path {id} ({:.0}%) not made a superblock: {why}",
                share * 100.0
            ));
        }
        if !changes.is_empty() {
            report.push(format!("`{}`: {}", func.name, changes.join("; ")));
        }
        if !left.is_empty() {
            report.push(format!("`{}`: left alone: {}", func.name, left.join("; ")));
        }
    }
    report
}

/// The profile of `func`, if `profile` has one that fits its code; a warning in `notes` if it
/// has one that does not.
fn fit<'a>(
    program: &mir::Program,
    func: &mir::Function,
    profile: &'a Profile,
    name: &str,
    notes: &mut Notes,
) -> Option<Frequencies<'a>> {
    let record = profile.function(&func.name)?;
    if record.cfg_hash != cfg_hash(program, func) {
        notes.warn(format!(
            "the profile `{name}` is stale for function `{}` (its CFG hash differs from the \
             current code's); `{}` is compiled without it",
            func.name, func.name
        ));
        return None;
    }
    Frequencies::new(func, record)
        .map_err(|error| {
            notes.warn(format!(
                "the profile `{name}` does not fit function `{}` ({error}); it is compiled \
                 without it",
                func.name
            ))
        })
        .ok()
}

/// What the unroller did to a loop and why: per path, its runs in the profile, its share of
/// the loop's iterations, the copies, and the bounds checks and branches one guard per chain
/// replaced.
fn describe(u: &Unrolled) -> String {
    let chains: Vec<String> = u
        .chains
        .iter()
        .map(|c| {
            // A chain is only built when its guard pays, so there are checks to report.
            let guard = format!(
                ", its {} and {} replaced by one guard of {} and {}",
                plural(c.checks_removed as u64, "bounds check"),
                plural(c.branches_removed as u64, "branch"),
                plural(c.guard_ranges as u64, "index range"),
                plural(c.guard_comparisons as u64, "comparison")
            );
            format!(
                "path {} (runs of {}{} in the profile, {:.0}% of the iterations) {}×{guard}",
                c.path,
                if c.open { "≥ " } else { "" },
                c.run,
                c.share * 100.0,
                c.copies
            )
        })
        .collect();
    chains.join(", ")
}
