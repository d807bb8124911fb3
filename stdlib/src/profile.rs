//! Profile counters of an instrumented program, and writing its profile when it ends.
//!
//! Each instrumented function has a counter table (docs/CONVENTIONS.md, profiling): either an
//! array the generated code increments in place (registered here by the program's entry with
//! `pcc_profile_table`), or, for functions with too many potential paths, entries of a hash
//! table kept here (`pcc_profile_count_hashed`). At every kind of exit the counters are turned
//! into a profile by the profiler crate, from the [`ProfileSpec`] the program carries.
//!
//! `kbl` ([KBLPP]) also streams each path id to its own runtime, `crate::kbl`, whose k-slab forests
//! become the functions' k-IPFs here.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use pcc_profiler::english::plural;
use pcc_profiler::mode::Counters;
use pcc_profiler::output_file::check_output;
use pcc_profiler::profile::{Mode, Profile};
use pcc_profiler::spec::{ProfileSpec, build_profile};

/// Registered array tables: (table, address, length in counters).
static ARRAYS: Mutex<Vec<(usize, usize, usize)>> = Mutex::new(Vec::new());
/// Hashed tables: (table, key) → count.
static HASHED: Mutex<Option<HashMap<(u32, u64), u64>>> = Mutex::new(None);
/// Registered keyed tables (`kbl`'s windows): (table, address, slots).
static KEYED: Mutex<Vec<(usize, usize, usize)>> = Mutex::new(Vec::new());
/// How many slots from its home a window is looked for, or put, in a keyed table; one that
/// finds neither is counted in [`HASHED`].
const KEYED_PROBES: usize = 8;

/// Registers counter table `table`: `len` 64-bit counters at `counters`, which the generated code
/// increments and which stay valid until the process ends.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_profile_table(table: i64, counters: *mut u64, len: i64) {
    crate::interrupt::section(|| {
        ARRAYS.lock().unwrap_or_else(PoisonError::into_inner).push((
            table as usize,
            counters as usize,
            len as usize,
        ));
    })
}

/// Counts one execution of `key` (a path id or counter index) in hashed table `table`.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_profile_count_hashed(table: i64, key: i64) {
    crate::interrupt::section(|| count_hashed(table, key as u64))
}

fn count_hashed(table: i64, key: u64) {
    let mut hashed = HASHED.lock().unwrap_or_else(PoisonError::into_inner);
    *hashed
        .get_or_insert_with(HashMap::new)
        .entry((table as u32, key))
        .or_insert(0) += 1;
}

/// Registers keyed table `table` (`mir::CounterTable::keyed` in the compiler): `words / 2` slots
/// of two words at `slots`, zeroed, which the generated code reads and increments.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_profile_keyed_table(table: i64, slots: *mut u64, words: i64) {
    crate::interrupt::section(|| {
        KEYED.lock().unwrap_or_else(PoisonError::into_inner).push((
            table as usize,
            slots as usize,
            words as usize / 2,
        ));
    })
}

/// Counts one execution of `window` in keyed table `table`, whose home slot does not hold it:
/// in the first slot from there that holds it or is empty (taking it), else in [`HASHED`]. A
/// window the probes once passed over stays where it was counted: slots are never emptied.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_profile_count_keyed(table: i64, window: i64) {
    crate::interrupt::section(|| {
        let window = window as u64;
        let keyed = KEYED.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(&(_, address, slots)) = keyed.iter().find(|&&(t, ..)| t == table as usize) {
            // SAFETY: the program registered `slots` slots at `address`, alive until exit.
            let table_slots =
                unsafe { std::slice::from_raw_parts_mut(address as *mut [u64; 2], slots) };
            let home = pcc_profiler::mode::kbl::keyed_home_slot(window) as usize;
            for probe in 0..KEYED_PROBES.min(slots) {
                let slot = &mut table_slots[(home + probe) % slots];
                if slot[0] == 0 {
                    slot[0] = window + 1;
                }
                if slot[0] == window + 1 {
                    slot[1] += 1;
                    return;
                }
            }
        }
        drop(keyed);
        count_hashed(table, window);
    })
}

/// The nonzero counters of every table, table `i` at index `i`.
fn snapshot(num_tables: usize) -> Vec<Counters> {
    let mut tables = vec![Counters::new(); num_tables];
    for &(table, address, len) in ARRAYS.lock().unwrap_or_else(PoisonError::into_inner).iter() {
        // SAFETY: the program registered `len` counters at `address`, alive until exit.
        let counters = unsafe { std::slice::from_raw_parts(address as *const u64, len) };
        if let Some(out) = tables.get_mut(table) {
            out.extend(
                (0u64..)
                    .zip(counters.iter().copied())
                    .filter(|&(_, count)| count > 0),
            );
        }
    }
    for &(table, address, slots) in KEYED.lock().unwrap_or_else(PoisonError::into_inner).iter() {
        // SAFETY: the program registered `slots` slots at `address`, alive until exit.
        let slots = unsafe { std::slice::from_raw_parts(address as *const [u64; 2], slots) };
        if let Some(out) = tables.get_mut(table) {
            out.extend(
                (slots.iter())
                    .filter(|s| s[0] != 0 && s[1] > 0)
                    .map(|s| (s[0] - 1, s[1])),
            );
        }
    }
    if let Some(hashed) = HASHED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
    {
        for (&(table, key), &count) in hashed {
            if let Some(out) = tables.get_mut(table as usize) {
                out.push((key, count));
            }
        }
    }
    for table in &mut tables {
        table.sort_unstable();
    }
    tables
}

/// Writes the profile of the run so far, and says so in one line on stderr; returns whether it
/// was written.
pub fn write_profile(spec: &ProfileSpec, args: &[String]) -> bool {
    let (mut profile, mut problems) = match spec.mode {
        Mode::Wpp => crate::wpp::finish(spec, args.to_vec()),
        _ => build_profile(spec, args.to_vec(), &snapshot(spec.num_counter_tables())),
    };
    if spec.mode == Mode::Kbl {
        problems.extend(crate::kbl::add_k_ipfs(spec, &mut profile));
    }
    for problem in problems {
        eprintln!("pcc: warning: {} profile: {problem}", spec.mode);
    }
    write_profile_file(&profile, &spec.output)
}

/// Writes `profile` atomically to `output` and says so in one line on stderr (the reference
/// interpreter writes its profiles through this too); returns whether it was written.
pub fn write_profile_file(profile: &Profile, output: &str) -> bool {
    // A PPP profile's executed paths are its interesting and residual ones together.
    let executed = || profile.functions.iter().flat_map(|f| f.executed_paths());
    let paths = executed().count();
    let runs: u64 = executed().map(|p| p.count).sum();
    let wpp = profile
        .wpp
        .as_ref()
        .map(|w| (w.trace_length, w.symbols.len()));
    let written = profile.write_atomic(Path::new(output));
    match &written {
        Ok(()) if profile.mode == Mode::Wpp => eprintln!(
            "pcc: wpp profile written to {}: a trace of {} paths ({} distinct) as a grammar; \
             {paths} distinct Ball-Larus paths, {runs} path executions",
            output,
            wpp.map_or(0, |w| w.0),
            wpp.map_or(0, |w| w.1),
        ),
        Ok(()) if matches!(profile.mode, Mode::Edge | Mode::Block) => eprintln!(
            "pcc: {} profile of {} written to {}",
            profile.mode,
            plural(profile.functions.len() as u64, "function"),
            output
        ),
        Ok(()) => eprintln!(
            "pcc: {} profile written to {}: {}, {}",
            profile.mode,
            output,
            plural(paths as u64, "distinct path"),
            plural(runs, "path execution")
        ),
        Err(error) => eprintln!("pcc: error: cannot write the profile: {error}"),
    }
    written.is_ok()
}

/// Arranges for the profile to be written at every kind of exit, also by SIGINT, SIGTERM or
/// SIGHUP (`crate::interrupt`), after checking that it can be written where the spec says (the
/// error says why not). The work runs on a thread of its own: a runtime error (a stack overflow,
/// say) may have left little stack on the program's.
pub fn install(spec: ProfileSpec, args: Vec<String>) -> Result<(), String> {
    check_output(Path::new(&spec.output))
        .map_err(|problem| format!("cannot write the profile: {problem}"))?;
    crate::interrupt::catch()
        .map_err(|error| format!("cannot catch the signals that end a run: {error}"))?;
    if spec.mode == Mode::Wpp {
        crate::wpp::start();
    }
    if spec.mode == Mode::Kbl {
        crate::kbl::install(&spec);
    }
    let spec = std::sync::Arc::new(spec);
    let args = std::sync::Arc::new(args);
    crate::register_exit_hook(Box::new(move || {
        let (thread_spec, thread_args) = (spec.clone(), args.clone());
        let writer = std::thread::Builder::new()
            .name("pcc-profile".into())
            .stack_size(64 << 20)
            .spawn(move || write_profile(&thread_spec, &thread_args));
        match writer.map(|thread| thread.join()) {
            Ok(Ok(written)) => written,
            // No memory left for the thread's stack (the program ran out of memory): on this
            // thread, then, rather than no profile.
            Err(_) => write_profile(&spec, &args),
            Ok(Err(_)) => {
                eprintln!("pcc: error: the profile could not be written");
                false
            }
        }
    }));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A keyed table of 4 slots: windows whose home slot holds another are found or put in the
    /// next slots, and once those are full counted in the hash table; the snapshot gives every
    /// window its count, each once.
    #[test]
    fn keyed_windows_past_their_home_slot_are_all_counted() {
        const TABLE: usize = 7;
        let slots: &'static mut [u64] = Box::leak(vec![0u64; 8].into_boxed_slice());
        pcc_profile_keyed_table(TABLE as i64, slots.as_mut_ptr(), 8);
        // Windows 0..12, each counted w + 1 times: 4 find slots, the other 8 overflow.
        for window in 0..12u64 {
            for _ in 0..=window {
                pcc_profile_count_keyed(TABLE as i64, window as i64);
            }
        }
        let counted = &snapshot(TABLE + 1)[TABLE];
        let expected: Vec<(u64, u64)> = (0..12).map(|w| (w, w + 1)).collect();
        assert_eq!(counted, &expected);
    }
}
