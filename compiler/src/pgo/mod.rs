//! Profile-guided recompilation (`--use-profile P`, DESIGN.md "Profile-guided
//! recompilation"): a `bl` or `kbl` profile of an earlier run, mapped onto the MIR as lowered
//! (the code it was taken on, `frequencies.rs`), drives MIR passes that run before `-O 2`'s
//! clean-ups: cold blocks out of line and hot call sites for inlining (`cold.rs`), from a `kbl`
//! profile selective unrolling of the innermost loop whose iterations take the same path many
//! times in a row (`unroll.rs`), then superblocks: the other hot paths made single-entry by tail
//! duplication (`superblock.rs`). Both copy blocks with `clone.rs`.

mod clone;
mod cold;
mod frequencies;
mod superblock;
mod unroll;

pub use frequencies::Frequencies;
pub use superblock::{Superblocks, form_superblocks};
pub use unroll::{Unrolled, unroll, unroll_hot_loop};

use pcc_lang::Span;
use pcc_profiler::profile::{Mode, Profile};

use crate::profiling::cfg_hash;
use crate::{mir, opt};

/// The profile modes `--use-profile` takes: their path ids are Ball-Larus ids of the MIR as
/// lowered.
pub const MODES: [Mode; 2] = [Mode::Bl, Mode::Kbl];

/// Applies the passes to every function the profile `name` fits (same `cfg_hash`; a stale one
/// gets a warning on stderr and is compiled as without a profile). Returns what changed, one
/// line per function, for the report on stderr; `line_of` gives a span's source line.
pub fn optimize(
    program: &mut mir::Program,
    profile: &Profile,
    name: &str,
    line_of: &dyn Fn(Span) -> u32,
) -> Vec<String> {
    let mut report = Vec::new();
    let init = program.init;
    for (_, func) in program
        .functions
        .iter_mut()
        .enumerate()
        .filter(|&(id, _)| id != init)
    {
        let Some(record) = profile.function(&func.name) else {
            continue;
        };
        if record.cfg_hash != cfg_hash(func) {
            eprintln!(
                "pcc: warning: the profile `{name}` is stale for function `{}` (its CFG hash \
                 differs from the current code's); `{}` is compiled without it",
                func.name, func.name
            );
            continue;
        }
        let freq = match Frequencies::new(func, record) {
            Ok(freq) => freq,
            Err(error) => {
                eprintln!(
                    "pcc: warning: the profile `{name}` does not fit function `{}` ({error}); \
                     it is compiled without it",
                    func.name
                );
                continue;
            }
        };
        let mut changes = Vec::new();
        let cold = cold::mark_cold_blocks(func, &freq);
        if cold > 0 {
            changes.push(format!("{cold} cold blocks out of line"));
        }
        let hot = cold::mark_hot_call_sites(func, &freq);
        if hot > 0 {
            changes.push(format!(
                "{hot} blocks with hot call sites (at -O2, leaf callees of up to {} statements \
                 inlined there)",
                opt::MAX_HOT_CALLEE_SIZE
            ));
        }
        let header_line = |func: &mir::Function, header: usize| {
            let block = &func.blocks[header];
            line_of(block.stmts.first().map_or(block.term.span, |s| s.span))
        };
        let unrolled = unroll_hot_loop(func, &freq);
        if let Some(u) = &unrolled {
            let paths: Vec<String> = u
                .paths
                .iter()
                .map(|(id, run)| format!("path {id} (runs of {run})"))
                .collect();
            changes.push(format!(
                "loop at line {} (bb{}) unrolled {}× along {}, {:.0}% of its iterations",
                header_line(func, u.header),
                u.header,
                u.copies,
                paths.join(", "),
                u.iterations_share * 100.0
            ));
        }
        // After the unroller, which needs its loop as lowered and whose copies already are
        // superblocks: the paths through that loop are left as it made them.
        let keep = unrolled.map_or(Vec::new(), |u| u.body);
        if let Some(s) = form_superblocks(func, &freq, &keep) {
            let paths: Vec<String> = s
                .paths
                .iter()
                .map(|(id, share)| format!("path {id}, {:.0}%", share * 100.0))
                .collect();
            changes.push(format!(
                "superblocks: {} hot path{} ({}), {} blocks / {} statements duplicated",
                s.paths.len(),
                if s.paths.len() == 1 { "" } else { "s" },
                paths.join("; "),
                s.blocks,
                s.statements
            ));
        }
        if !changes.is_empty() {
            report.push(format!("`{}`: {}", func.name, changes.join("; ")));
        }
    }
    report
}
