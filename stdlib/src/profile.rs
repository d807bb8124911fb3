//! Profile counters of an instrumented program, and writing its profile when it ends.
//!
//! Each instrumented function has a counter table (docs/CONVENTIONS.md, profiling): either an
//! array the generated code increments in place (registered here by the program's entry with
//! `pcc_profile_table`), or, for functions with too many potential paths, entries of a hash
//! table kept here (`pcc_profile_count_hashed`). At every kind of exit the counters are turned
//! into a profile by the profiler crate, from the [`ProfileSpec`] the program carries.
//!
//! `kbl` (001) also streams each path id here (`pcc_kbl_path`): one k-slab forest per function,
//! and a shadow stack of cursors, one per activation (`pcc_kbl_enter` pushes the `*` state,
//! `pcc_kbl_leave` pops it), so that a call never breaks the caller's sequence. At exit each
//! forest becomes the function's k-IPF.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use pcc_profiler::kbl::{Cursor, KSlabForest};
use pcc_profiler::profile::Mode;
use pcc_profiler::spec::{Counters, ProfileSpec, build_profile};

/// Registered array tables: (table, address, length in counters).
static ARRAYS: Mutex<Vec<(usize, usize, usize)>> = Mutex::new(Vec::new());
/// Hashed tables: (table, key) → count.
static HASHED: Mutex<Option<HashMap<(u32, u64), u64>>> = Mutex::new(None);

/// Registers counter table `table`: `len` 64-bit counters at `counters`, which the generated code
/// increments and which stay valid until the process ends.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_profile_table(table: i64, counters: *mut u64, len: i64) {
    ARRAYS.lock().unwrap_or_else(PoisonError::into_inner).push((
        table as usize,
        counters as usize,
        len as usize,
    ));
}

/// Counts one execution of `key` (a path id or counter index) in hashed table `table`.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_profile_count_hashed(table: i64, key: i64) {
    let mut hashed = HASHED.lock().unwrap_or_else(PoisonError::into_inner);
    *hashed
        .get_or_insert_with(HashMap::new)
        .entry((table as u32, key as u64))
        .or_insert(0) += 1;
}

/// The k-slab forests of `kbl`, one per counter table, and the shadow stack of the cursors of
/// the activations in progress: (table, cursor), innermost last.
struct KblState {
    forests: Vec<KSlabForest>,
    stack: Vec<(usize, Cursor)>,
}

static KBL: Mutex<Option<KblState>> = Mutex::new(None);

/// `kbl`: an activation of the function of table `table` starts (`*`).
#[unsafe(no_mangle)]
pub extern "C" fn pcc_kbl_enter(table: i64) {
    let mut state = KBL.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(state) = state.as_mut() {
        state.stack.push((table as usize, Cursor::ROUTINE_ENTRY));
    }
}

/// `kbl`: the current activation, of the function of table `table`, ends a path with id `id`.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_kbl_path(table: i64, id: i64) {
    let mut state = KBL.lock().unwrap_or_else(PoisonError::into_inner);
    let Some(KblState { forests, stack }) = state.as_mut() else {
        return;
    };
    let table = table as usize;
    let Some(forest) = forests.get_mut(table) else {
        return;
    };
    match stack.last_mut() {
        Some((top, cursor)) if *top == table => forest.process_bl_path_id(cursor, id as u64),
        // Not instrumented as expected (no `enter`): a sequence of its own.
        _ => forest.process_bl_path_id(&mut Cursor::default(), id as u64),
    }
}

/// `kbl`: the current activation returns.
#[unsafe(no_mangle)]
pub extern "C" fn pcc_kbl_leave() {
    let mut state = KBL.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(state) = state.as_mut() {
        state.stack.pop();
    }
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

/// Writes the profile of the run so far, and says so in one line on stderr.
pub fn write_profile(spec: &ProfileSpec, args: &[String]) {
    let (mut profile, problems) = match spec.mode {
        Mode::Wpp => crate::wpp::finish(spec, args.to_vec()),
        _ => build_profile(spec, args.to_vec(), &snapshot(spec.num_counter_tables())),
    };
    if spec.mode == Mode::Kbl {
        let state = KBL.lock().unwrap_or_else(PoisonError::into_inner);
        let forests = state.as_ref().map_or(&[][..], |s| &s.forests[..]);
        for (function, forest) in spec.functions.iter().zip(forests) {
            if let Some(record) = profile
                .functions
                .iter_mut()
                .find(|f| f.name == function.name)
            {
                record.kipf = Some(forest.make_k_ipf());
            }
        }
    }
    for problem in problems {
        eprintln!("pcc: warning: {} profile: {problem}", spec.mode);
    }
    // A PPP profile's executed paths are its interesting and residual ones together.
    let executed = || {
        profile
            .functions
            .iter()
            .flat_map(|f| f.paths.iter().chain(f.residual.iter().flatten()))
    };
    let paths = executed().count();
    let runs: u64 = executed().map(|p| p.count).sum();
    let wpp = profile.wpp.as_ref().and_then(|w| {
        Some((
            w.get("trace_length")?.as_u64()?,
            w.get("symbols")?.as_array()?.len(),
        ))
    });
    match profile.write_atomic(Path::new(&spec.output)) {
        Ok(()) if spec.mode == Mode::Wpp => eprintln!(
            "pcc: wpp profile written to {}: a trace of {} paths ({} distinct) as a grammar; \
             {paths} distinct Ball-Larus paths, {runs} path executions",
            spec.output,
            wpp.map_or(0, |w| w.0),
            wpp.map_or(0, |w| w.1),
        ),
        Ok(()) if spec.mode == Mode::Edge => eprintln!(
            "pcc: edge profile of {} functions written to {}",
            profile.functions.len(),
            spec.output
        ),
        Ok(()) => eprintln!(
            "pcc: {} profile written to {}: {paths} distinct paths, {runs} path executions",
            spec.mode, spec.output
        ),
        Err(error) => eprintln!("pcc: error: cannot write the profile: {error}"),
    }
}

/// Arranges for the profile to be written at every kind of exit. The work runs on a thread of its
/// own: a runtime error (a stack overflow, say) may have left little stack on the program's.
pub fn install(spec: ProfileSpec, args: Vec<String>) {
    if spec.mode == Mode::Wpp {
        crate::wpp::start();
    }
    if spec.mode == Mode::Kbl {
        let k = spec.k.clamp(1, u32::MAX as usize);
        *KBL.lock().unwrap_or_else(PoisonError::into_inner) = Some(KblState {
            forests: (0..spec.functions.len())
                .map(|_| KSlabForest::new(k))
                .collect(),
            stack: Vec::new(),
        });
    }
    crate::register_exit_hook(Box::new(move || {
        let writer = std::thread::Builder::new()
            .name("pcc-profile".into())
            .stack_size(64 << 20)
            .spawn(move || write_profile(&spec, &args));
        match writer.map(|thread| thread.join()) {
            Ok(Ok(())) => {}
            _ => eprintln!("pcc: error: the profile could not be written"),
        }
    }));
}
