//! Correctness of path profiling, end to end (docs/TESTING.md).
//!
//! The oracle is independent of the instrumentation: `pcc run --trace-blocks PATH` records every
//! activation's entry, the MIR blocks it enters and its end. This test rebuilds each activation's
//! block sequence, turns it into the CFG edges it took (`pcc::profiling::function_cfg` on the MIR
//! as lowered, the graph `--profile=bl` numbers), splits those into Ball-Larus path ids with the
//! increments directly (`BallLarus::path_ids_of_execution`, not the chords and counters the
//! instrumentation uses), counts them, and compares ids, counts and source lines with the `bl`
//! profile of the same run. A run that ends in `exit()` or a runtime error loses the paths in
//! progress in the activations it cuts short, and nothing else.
//!
//! Every program of `programs/`, `tests/runtime/` and `tests/fixtures/profiling/`, and 16
//! generated ones (`generate`), goes through the oracle, and through the cross-checks: the same stdout, stderr (but for pcc's one summary
//! line) and exit status with and without `--profile=bl|edge|block`, at -O0 and -O2; the same profile
//! at every level; an `edge` profile equal to the edge counts the trace shows, also those of
//! the activations a run cut short (`exit()` below them, a runtime error), and for runs that end
//! normally to those implied by the `bl` profile's paths; a `block` profile equal to the block
//! entries of the trace and, for runs that end normally, to the block counts the `edge` profile
//! implies. Then come the specific cases:
//! AddEvenNumbers, `(a || b) && (c || d)`, functions with 2^70 and 2^20 paths, recursion.

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use common::{Run, Scratch, pl_files, root};
use libtest_mimic::{Failed, Trial};
use pcc_lang::LineIndex;
use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::cfg::{Cfg, EdgeId, NodeId};
use pcc_profiler::dag::{DagEdgeKind, EdgeRole};
use pcc_profiler::profile::{FunctionProfile, Mode, ModeRecord, Profile, Storage};
use pcc_profiler::regenerate::PathEnd;
use pcc_stdlib::trace::LEAVE;

/// This file's trials (`tests/main.rs` runs them).
pub fn trials() -> Vec<Trial> {
    let root = root();
    let mut trials = Vec::new();
    let mut dirs: Vec<String> = ["programs", "tests/fixtures/profiling", "tests/runtime"]
        .map(String::from)
        .to_vec();
    // More programs for the oracle, e.g. generated ones: PCC_PROFILING_DIRS=dir1:dir2.
    if let Some(extra) = std::env::var_os("PCC_PROFILING_DIRS") {
        dirs.extend(std::env::split_paths(&extra).map(|d| d.display().to_string()));
    }
    for dir in dirs {
        for path in pl_files(&root.join(&dir)) {
            let name = format!("{dir}/{}", path.file_name().unwrap().to_string_lossy());
            trials.push(Trial::test(name, move || {
                check_program(&Program::new(&path), &[0, 2])
            }));
        }
    }
    // Random programs of `pcc-fuzz`, the same ones every run: loops, `match`, short circuits,
    // `break`/`continue`, early returns, recursion, `exit()` and runtime errors anywhere.
    for seed in 0..GENERATED {
        trials.push(Trial::test(format!("generated/{seed}"), move || {
            let scratch = Scratch::new("trial");
            let path = Path::new(&scratch.file(&format!("generated{seed}.pl"))).to_path_buf();
            std::fs::write(&path, pcc_fuzz::generate::program(seed).text())?;
            let program = Program {
                stdin: pcc_fuzz::generate::STDIN.into(),
                ..Program::with_args(&path, &pcc_fuzz::generate::ARGS)
            };
            check_program(&program, &[0, 2])
        }));
    }
    let specific: [(&str, Test); 10] = [
        ("add_even_numbers_runs_three_of_six_paths", add_even_numbers),
        (
            "short_circuit_condition_runs_all_seven_paths",
            short_circuit,
        ),
        (
            "seventy_stacked_ifs_are_truncated_and_hashed",
            seventy_stacked_ifs,
        ),
        (
            "a_million_paths_count_alike_in_array_and_hash",
            array_and_hash_agree,
        ),
        ("recursion_counts_every_activation", recursion),
        (
            "exit_and_errors_lose_only_the_paths_in_progress",
            exits_and_errors,
        ),
        (
            "a_check_failing_in_a_promoted_loop_keeps_its_counts",
            promoted_loops_stop_at_checks,
        ),
        (
            "a_stop_between_merged_counts_keeps_them_apart",
            merged_counts_stop_between,
        ),
        (
            "a_return_from_a_promoted_loop_ends_the_path_it_began",
            promoted_loops_return_early,
        ),
        (
            "a_peeled_first_iteration_counts_its_own_paths",
            peeled_loops,
        ),
    ];
    trials.extend(
        specific
            .into_iter()
            .map(|(name, test)| Trial::test(name, test)),
    );
    trials
}

type Test = fn() -> Result<(), Failed>;

// ---------------------------------------------------------------------------------------------
// Running pcc

/// A program and how the golden tests run it (docs/CONVENTIONS.md): its `.args` and `.stdin`.
struct Program {
    path: PathBuf,
    args: Vec<String>,
    stdin: String,
}

impl Program {
    fn new(path: &Path) -> Program {
        Program {
            path: path.to_path_buf(),
            args: common::program_args(path),
            stdin: common::sidecar(path, "stdin").unwrap_or_default(),
        }
    }

    fn with_args(path: &Path, args: &[&str]) -> Program {
        Program {
            args: args.iter().map(|a| a.to_string()).collect(),
            ..Program::new(path)
        }
    }

    /// `pcc run NAME.pl FLAGS -- ARGS` in the program's folder, with its standard input.
    fn run(&self, flags: &[&str]) -> Result<Run, Failed> {
        let source = Path::new(self.path.file_name().unwrap());
        let args = common::run_args(source, flags, &self.args);
        common::try_pcc_in(self.path.parent().unwrap(), &args, &self.stdin).map_err(Failed::from)
    }

    /// Runs with `--profile=MODE --profile-out FILE` and reads the profile, which must be valid.
    fn profile(&self, flags: &[&str], mode: &str, file: &str) -> Result<(Run, Profile), Failed> {
        let out = format!("--profile-out={file}");
        let mode_flag = format!("--profile={mode}");
        let flags: Vec<&str> = flags.iter().copied().chain([&*mode_flag, &*out]).collect();
        let output = self.run(&flags)?;
        let profile = Profile::read(Path::new(file))
            .map_err(|e| format!("pcc {flags:?}: no valid profile: {e}\n{}", output.stderr))?;
        Ok((output, profile))
    }

    /// A `bl` run at -O0 with the block trace: its profile, and the paths the trace shows.
    fn traced(&self, scratch: &Scratch, flags: &[&str]) -> Result<Traced, Failed> {
        let trace_file = scratch.file("trace.json");
        let trace_flag = format!("--trace-blocks={trace_file}");
        let flags: Vec<&str> = ["-O0", &trace_flag]
            .into_iter()
            .chain(flags.iter().copied())
            .collect();
        let (output, profile) = self.profile(&flags, "bl", &scratch.file("traced.bl.json"))?;
        let text = std::fs::read_to_string(&trace_file)
            .map_err(|e| format!("no block trace: {e}\n{}", output.stderr))?;
        let trace = read_trace(&text).map_err(|e| format!("bad block trace: {e}"))?;
        let lowered = Lowered::new(&self.path);
        let observed = observe(&lowered, &trace)?;
        Ok(Traced {
            output,
            profile,
            lowered,
            observed,
        })
    }
}

/// What a profiled run must share with the plain one: stdout, exit status, and stderr once pcc's
/// one summary line is taken out.
fn same_behaviour(what: &str, plain: &Run, profiled: &Run) -> Result<(), String> {
    let (plain_stderr, plain_lines) = plain.program_stderr();
    let (stderr, pcc_lines) = profiled.program_stderr();
    if !plain_lines.is_empty() || pcc_lines.len() != 1 {
        return Err(format!(
            "{what}: expected one `pcc: ` line on stderr, got:\n{}",
            profiled.stderr
        ));
    }
    if profiled.stdout != plain.stdout {
        return Err(format!(
            "{what}: stdout differs\n--- plain\n{}\n--- profiled\n{}",
            plain.stdout, profiled.stdout
        ));
    }
    if stderr != plain_stderr {
        return Err(format!(
            "{what}: stderr differs\n--- plain\n{plain_stderr}\n--- profiled\n{stderr}"
        ));
    }
    if profiled.status != plain.status {
        return Err(format!(
            "{what}: exit status {}, plain {}",
            profiled.status, plain.status
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The oracle

/// One function of the MIR as lowered, as `--profile=bl` numbers it.
struct Function {
    name: String,
    cfg: Cfg,
    bl: BallLarus,
    /// The CFG edge of each MIR edge (from, to), `to == None` for a `return`.
    edge_of: HashMap<(usize, Option<usize>), EdgeId>,
    /// Source lines of each CFG node.
    lines: Vec<Vec<u32>>,
}

impl Function {
    fn returns(&self, block: usize) -> bool {
        self.edge_of.contains_key(&(block, None))
    }

    /// A block without successors: it ends in `exit()` (or can never end).
    fn dead_end(&self, block: usize) -> bool {
        self.cfg.succs(NodeId(block)).is_empty()
    }
}

struct Lowered {
    functions: Vec<Function>,
    /// The global initializers, which are not profiled.
    init: usize,
}

impl Lowered {
    fn new(path: &Path) -> Lowered {
        let checked = pcc::driver::front_end(path).expect("the program compiles");
        let mir = pcc::lower::lower_program(&checked.program);
        let index = LineIndex::new(&checked.source);
        let functions = mir
            .functions
            .iter()
            .map(|func| {
                let fcfg = pcc::profiling::function_cfg(func);
                let edge_of = fcfg
                    .edges
                    .iter()
                    .enumerate()
                    .map(|(e, &(from, to))| ((from.index(), to.map(|to| to.index())), EdgeId(e)))
                    .collect();
                Function {
                    name: func.name.clone(),
                    bl: BallLarus::new(&fcfg.cfg).expect("numbering"),
                    cfg: fcfg.cfg,
                    edge_of,
                    lines: pcc::profiling::node_lines(func, &checked.source, &index),
                }
            })
            .collect();
        Lowered {
            functions,
            init: mir.init.index(),
        }
    }

    fn profiled(&self) -> impl Iterator<Item = (usize, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .filter(|&(f, _)| f != self.init)
    }

    fn id(&self, name: &str) -> usize {
        self.functions.iter().position(|f| f.name == name).unwrap()
    }
}

/// What the trace shows.
struct Observed {
    /// Per function: path id → (count, source lines of the blocks the path went through).
    paths: Vec<BTreeMap<u64, (u64, Vec<u32>)>>,
    /// Per function: how often each CFG edge was taken.
    edges: Vec<Vec<u64>>,
    /// Per function: how often control entered each block.
    blocks: Vec<Vec<u64>>,
    /// Per function: activations the end of the program cut short.
    unfinished: Vec<u64>,
}

/// A block trace (stdlib/src/trace.rs, docs/TESTING.md).
#[derive(serde::Deserialize)]
struct BlockTrace {
    format: String,
    version: u32,
    /// Function names by MIR function id.
    functions: Vec<String>,
    #[serde(skip)]
    events: Vec<i64>,
}

/// Reads a trace: the header with serde, the events, which come last and may be millions, by
/// hand.
fn read_trace(text: &str) -> Result<BlockTrace, String> {
    const EVENTS: &str = ",\"events\":[";
    let at = text.find(EVENTS).ok_or("no events")?;
    let mut trace: BlockTrace =
        serde_json::from_str(&format!("{}}}", &text[..at])).map_err(|e| e.to_string())?;
    let (mut value, mut negative, mut digits) = (0i64, false, false);
    for &byte in &text.as_bytes()[at + EVENTS.len()..] {
        match byte {
            b'0'..=b'9' => {
                value = value * 10 + i64::from(byte - b'0');
                digits = true;
            }
            b'-' if !digits => negative = true,
            b',' | b']' if digits => {
                trace.events.push(if negative { -value } else { value });
                (value, negative, digits) = (0, false, false);
                if byte == b']' {
                    break;
                }
            }
            b']' if trace.events.is_empty() => break,
            other => return Err(format!("unexpected `{}` in the events", other as char)),
        }
    }
    Ok(trace)
}

/// Rebuilds the activations of the trace with a call stack and counts their paths.
fn observe(lowered: &Lowered, trace: &BlockTrace) -> Result<Observed, String> {
    let names: Vec<&str> = lowered.functions.iter().map(|f| f.name.as_str()).collect();
    if (trace.format.as_str(), trace.version) != ("pcc-block-trace", 1) || trace.functions != names
    {
        return Err(format!(
            "the trace is {:?} version {} of {:?}, not of the functions {names:?}",
            trace.format, trace.version, trace.functions
        ));
    }
    let mut observed = Observed {
        paths: vec![BTreeMap::new(); names.len()],
        edges: lowered
            .functions
            .iter()
            .map(|f| vec![0; f.cfg.num_edges()])
            .collect(),
        blocks: lowered
            .functions
            .iter()
            .map(|f| vec![0; f.cfg.num_nodes() - 1])
            .collect(),
        unfinished: vec![0; names.len()],
    };
    // Activations that went the same way take the same paths: each is counted once, with the
    // number of times it ran (deep recursion makes millions of activations, alike).
    let mut activations: HashMap<(usize, Vec<usize>, bool), u64> = HashMap::new();
    let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
    for &event in &trace.events {
        match event {
            LEAVE => {
                let (f, blocks) = stack.pop().ok_or("a function ends that never started")?;
                *activations.entry((f, blocks, true)).or_default() += 1;
            }
            e if e < LEAVE => {
                let f = usize::try_from(-2 - e).unwrap();
                if f >= names.len() {
                    return Err(format!(
                        "an activation of function {f}, which does not exist"
                    ));
                }
                stack.push((f, Vec::new()));
            }
            block => {
                let (_, blocks) = stack.last_mut().ok_or("a block outside any activation")?;
                blocks.push(usize::try_from(block).unwrap());
            }
        }
    }
    for (f, _) in &stack {
        observed.unfinished[*f] += 1;
    }
    // Deep recursion cut short: runs of alike activations, merged before hashing.
    let mut unfinished = stack.into_iter().peekable();
    while let Some((f, blocks)) = unfinished.next() {
        let mut times = 1;
        while unfinished
            .next_if(|(g, b)| *g == f && *b == blocks)
            .is_some()
        {
            times += 1;
        }
        *activations.entry((f, blocks, false)).or_default() += times;
    }
    for ((f, blocks, ended), times) in activations {
        activation(lowered, &mut observed, f, &blocks, ended, times)?;
    }
    Ok(observed)
}

/// Counts the paths of `times` activations of function `f` that entered `blocks`; `ended` = they
/// returned or called `exit()`, rather than being cut short by a callee's `exit()` or an error.
fn activation(
    lowered: &Lowered,
    observed: &mut Observed,
    f: usize,
    blocks: &[usize],
    ended: bool,
    times: u64,
) -> Result<(), String> {
    let func = &lowered.functions[f];
    let context = || format!("`{}`, blocks {blocks:?}", func.name);
    if blocks.first() != Some(&0) {
        return Err(format!(
            "{}: an activation starts elsewhere than bb0",
            context()
        ));
    }
    let mut edges = Vec::new();
    for pair in blocks.windows(2) {
        let edge = func.edge_of.get(&(pair[0], Some(pair[1]))).ok_or_else(|| {
            format!(
                "{}: bb{} → bb{} is no MIR edge",
                context(),
                pair[0],
                pair[1]
            )
        })?;
        edges.push(*edge);
    }
    let last = *blocks.last().unwrap();
    if ended {
        if func.returns(last) {
            edges.push(func.edge_of[&(last, None)]);
        } else if !func.dead_end(last) {
            return Err(format!(
                "{}: ends in a block that neither returns nor exits",
                context()
            ));
        }
    }
    for &e in &edges {
        observed.edges[f][e.0] += times;
    }
    for &b in blocks {
        observed.blocks[f][b] += times;
    }

    let mut ids = func.bl.path_ids_of_execution(&func.cfg, &edges);
    if edges.is_empty() && ended {
        // `exit()` in the entry block: the path is that block alone, which
        // `path_ids_of_execution` (given no edge) does not see.
        let dag = func.bl.dag();
        let dead_end = dag
            .outs(dag.entry())
            .iter()
            .find(|&&d| dag.edge(d).kind == DagEdgeKind::DeadEnd)
            .ok_or_else(|| format!("{}: the entry is no dead end", context()))?;
        ids.push(func.bl.increment(*dead_end));
    } else if !ended && func.dead_end(last) && !edges.is_empty() {
        // Cut short in a block that calls `exit()` before it got there: the path never ended.
        ids.pop();
    }

    // The blocks of each path, split where `path_ids_of_execution` splits: at back and cut edges.
    let mut segments = Vec::new();
    let mut current = vec![0];
    for &e in &edges {
        let to = func.cfg.edge(e).to;
        match func.bl.dag().role(e) {
            EdgeRole::Closing { .. } => segments.push(std::mem::replace(&mut current, vec![to.0])),
            _ if to == func.cfg.exit() => {}
            _ => current.push(to.0),
        }
    }
    if ended {
        segments.push(current);
    }
    if segments.len() != ids.len() {
        return Err(format!(
            "{}: {} path ids for {} paths",
            context(),
            ids.len(),
            segments.len()
        ));
    }
    for (id, segment) in ids.into_iter().zip(segments) {
        let mut lines: Vec<u32> = segment
            .iter()
            .flat_map(|&b| func.lines[b].iter().copied())
            .collect();
        lines.dedup();
        let entry = observed.paths[f].entry(id).or_insert((0, lines.clone()));
        if entry.1 != lines {
            return Err(format!(
                "{}: path {id} covers lines {:?} once and {lines:?} once",
                context(),
                entry.1
            ));
        }
        entry.0 += times;
    }
    Ok(())
}

/// The `bl` profile must list exactly the paths the trace shows, with their counts and lines,
/// for every function but the global initializers, numbered as the MIR as lowered is.
fn check_against_oracle(traced: &Traced, hash_threshold: u64) -> Result<(), String> {
    let (lowered, observed, profile) = (&traced.lowered, &traced.observed, &traced.profile);
    if profile.mode != Mode::Bl {
        return Err(format!("a {} profile, not bl", profile.mode));
    }
    let expected: Vec<&str> = lowered.profiled().map(|(_, f)| f.name.as_str()).collect();
    let actual: Vec<&str> = profile.functions.iter().map(|f| f.name.as_str()).collect();
    if actual != expected {
        return Err(format!(
            "profiled functions {actual:?}, expected {expected:?}"
        ));
    }
    for ((f, func), record) in lowered.profiled().zip(&profile.functions) {
        let num_paths = func.bl.num_paths();
        let storage = Storage::choose(num_paths, hash_threshold);
        if (record.num_paths, record.truncated, record.storage)
            != (num_paths, func.bl.is_truncated(), storage)
        {
            return Err(format!(
                "`{}`: num_paths {}, truncated {}, storage {:?}; expected {num_paths}, {}, {storage:?}",
                func.name,
                record.num_paths,
                record.truncated,
                record.storage,
                func.bl.is_truncated()
            ));
        }
        let counted: BTreeMap<u64, (u64, Vec<u32>)> = record
            .paths
            .iter()
            .map(|p| (p.id, (p.count, p.lines.clone())))
            .collect();
        if counted.len() != record.paths.len() {
            return Err(format!("`{}`: a path id is listed twice", func.name));
        }
        if counted != observed.paths[f] {
            let show = |paths: &BTreeMap<u64, (u64, Vec<u32>)>| {
                paths
                    .iter()
                    .map(|(id, (count, lines))| format!("  id {id} ×{count} lines {lines:?}\n"))
                    .collect::<String>()
            };
            return Err(format!(
                "`{}`: the profile and the trace disagree\n--- profile\n{}--- trace\n{}",
                func.name,
                show(&counted),
                show(&observed.paths[f])
            ));
        }
    }
    Ok(())
}

/// Edge counts implied by a `bl` profile: each path adds its count to the edges it takes,
/// including the back or cut edge that ends it (regenerated with `BallLarus::path`).
fn implied_edge_counts(func: &Function, record: &FunctionProfile) -> Result<Vec<u64>, String> {
    let mut counts = vec![0; func.cfg.num_edges()];
    for path in &record.paths {
        let regenerated = func
            .bl
            .path(path.id)
            .ok_or_else(|| format!("`{}`: no path {}", func.name, path.id))?;
        let closing = match regenerated.end {
            PathEnd::BackEdge(e) | PathEnd::Truncated(e) => Some(e),
            PathEnd::Exit | PathEnd::DeadEnd(_) => None,
        };
        for e in regenerated.edges.iter().chain(&closing) {
            counts[e.0] += path.count;
        }
    }
    Ok(counts)
}

/// The `edge` profile (edge counts, activations still running) against the trace, and for a
/// run that ended normally against the `bl` paths too (a run cut short by `exit()` or a runtime error drops the paths in progress, while
/// the edge profile keeps the edges the unfinished activations took).
fn check_edges(traced: &Traced, edge: &Profile, ended_normally: bool) -> Result<(), String> {
    let bl = &traced.profile;
    if edge.functions.len() != bl.functions.len() {
        return Err("the edge and bl profiles have different functions".into());
    }
    for (((f, func), paths), edges) in traced
        .lowered
        .profiled()
        .zip(&bl.functions)
        .zip(&edge.functions)
    {
        let ModeRecord::Edge(edges) = &edges.record else {
            return Err(format!("`{}`: no edges in the edge profile", func.name));
        };
        let measured: Vec<u64> = edges.edges.iter().map(|e| e.count).collect();
        // How deep a recursion gets before the stack overflows depends on the frames' sizes,
        // which the trace's instrumentation changes: the traced run stops at another depth.
        let overflowed = traced.output.stderr.contains("stack overflow");
        if edges.unfinished != traced.observed.unfinished[f] && !overflowed {
            return Err(format!(
                "`{}`: {} unfinished activations in the edge profile, {} in the trace",
                func.name, edges.unfinished, traced.observed.unfinished[f]
            ));
        }
        let implied = implied_edge_counts(func, paths)?;
        if (ended_normally && measured != implied) || measured != traced.observed.edges[f] {
            return Err(format!(
                "`{}`: edge counts\n  edge profile {measured:?}\n  from bl paths {implied:?}\n  from the trace {:?}",
                func.name, traced.observed.edges[f]
            ));
        }
    }
    Ok(())
}

/// The `block` profile against the trace, and, for a run that ended normally, against the block
/// counts the `edge` profile implies: a block's count is the sum of its in-edges' counts, the
/// entry block's the number of activations (the sum of its out-edges': lowering never makes the
/// entry a loop header).
fn check_blocks(traced: &Traced, block: &Profile, edge: Option<&Profile>) -> Result<(), String> {
    if block.functions.len() != traced.profile.functions.len() {
        return Err("the block and bl profiles have different functions".into());
    }
    for ((f, func), counted) in traced.lowered.profiled().zip(&block.functions) {
        let blocks = counted
            .blocks()
            .ok_or_else(|| format!("`{}`: no blocks in the block profile", func.name))?;
        let measured: Vec<u64> = blocks.iter().map(|b| b.count).collect();
        let ids: Vec<usize> = blocks.iter().map(|b| b.block).collect();
        if ids != (0..measured.len()).collect::<Vec<_>>()
            || blocks.iter().any(|b| b.lines.is_empty())
        {
            return Err(format!("`{}`: block records {blocks:?}", func.name));
        }
        if measured != traced.observed.blocks[f] {
            return Err(format!(
                "`{}`: block counts\n  block profile {measured:?}\n  from the trace {:?}",
                func.name, traced.observed.blocks[f]
            ));
        }
        let Some(edge) = edge else { continue };
        let edges = record(edge, &func.name)?
            .edges()
            .ok_or_else(|| format!("`{}`: no edges in the edge profile", func.name))?;
        let mut implied = vec![0u64; measured.len()];
        for e in edges {
            if e.to_block != 0 && e.to_block < implied.len() {
                implied[e.to_block] += e.count;
            }
            if e.from_block == 0 {
                implied[0] += e.count;
            }
        }
        if measured != implied {
            return Err(format!(
                "`{}`: block counts\n  block profile {measured:?}\n  from the edge profile {implied:?}",
                func.name
            ));
        }
    }
    Ok(())
}

struct Traced {
    output: Run,
    profile: Profile,
    lowered: Lowered,
    observed: Observed,
}

// ---------------------------------------------------------------------------------------------
// Every program

/// The oracle and the cross-checks on one program, at each of `levels`.
fn check_program(program: &Program, levels: &[u8]) -> Result<(), Failed> {
    let scratch = Scratch::new("trial");
    let traced = program.traced(&scratch, &[])?;
    check_against_oracle(&traced, pcc::driver::DEFAULT_HASH_THRESHOLD)?;
    let ended_normally = traced.observed.unfinished.iter().all(|&n| n == 0);
    for &level in levels {
        let opt = format!("-O{level}");
        let plain = program.run(&[&opt])?;
        if level == 0 {
            same_behaviour("--trace-blocks", &plain, &traced.output)?;
        }
        let file = scratch.file(&format!("O{level}.bl.json"));
        let (output, bl) = program.profile(&[&opt], "bl", &file)?;
        same_behaviour(&format!("{opt} --profile=bl"), &plain, &output)?;
        if bl != traced.profile {
            return Err(format!("{opt}: the bl profile differs from the traced run's").into());
        }
        let file = scratch.file(&format!("O{level}.edge.json"));
        let (output, edge) = program.profile(&[&opt], "edge", &file)?;
        same_behaviour(&format!("{opt} --profile=edge"), &plain, &output)?;
        check_edges(&traced, &edge, ended_normally).map_err(|e| format!("{opt}: {e}"))?;
        let file = scratch.file(&format!("O{level}.block.json"));
        let (output, block) = program.profile(&[&opt], "block", &file)?;
        same_behaviour(&format!("{opt} --profile=block"), &plain, &output)?;
        // How deep a recursion gets before the stack overflows depends on the frame sizes,
        // which instrumentation changes: such a run's blocks are not the traced run's.
        if !plain.stderr.contains("runtime error: stack overflow") {
            check_blocks(&traced, &block, ended_normally.then_some(&edge))
                .map_err(|e| format!("{opt}: {e}"))?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Specific cases

fn fixture(name: &str) -> PathBuf {
    root().join("tests/fixtures/profiling").join(name)
}

/// The function's record in a profile.
fn record<'p>(profile: &'p Profile, name: &str) -> Result<&'p FunctionProfile, String> {
    profile
        .function(name)
        .ok_or_else(|| format!("no function `{name}` in the profile"))
}

/// Path id → count.
fn counts(record: &FunctionProfile) -> BTreeMap<u64, u64> {
    record.paths.iter().map(|p| (p.id, p.count)).collect()
}

fn expect_eq<T: PartialEq + std::fmt::Debug>(
    what: &str,
    actual: T,
    expected: T,
) -> Result<(), String> {
    if actual == expected {
        Ok(())
    } else {
        Err(format!("{what}: {actual:?}, expected {expected:?}"))
    }
}

/// Programs Follow Paths, Sidebar 1: AddEvenNumbers(2) runs blocks 1 2 3 4 6 3 4 5 6 3 7, that
/// is paths 4, 0 and 2 of its 6, once each.
fn add_even_numbers() -> Result<(), Failed> {
    let scratch = Scratch::new("trial");
    let program = Program::with_args(&root().join("programs/add_even.pl"), &["2"]);
    let traced = program.traced(&scratch, &[])?;
    check_against_oracle(&traced, pcc::driver::DEFAULT_HASH_THRESHOLD)?;
    expect_eq("stdout", traced.output.stdout.as_str(), "2\n")?;
    let add_even = record(&traced.profile, "add_even")?;
    expect_eq("num_paths", add_even.num_paths, 6)?;
    let paths: Vec<(u64, u64, &[u32])> = add_even
        .paths
        .iter()
        .map(|p| (p.id, p.count, &p.lines[..]))
        .collect();
    let expected: [(u64, u64, &[u32]); 3] = [
        (0, 1, &[5, 6, 7, 9]),
        (2, 1, &[5, 11]),
        (4, 1, &[3, 4, 5, 6, 9]),
    ];
    expect_eq("paths (id, count, lines)", paths, expected.to_vec())?;
    Ok(())
}

/// `if (a || b) && (c || d)`: 7 paths, and the 16 combinations of the operands run each as often
/// as short-circuit evaluation says. Paths are told apart by their lines: one operand a line.
fn short_circuit() -> Result<(), Failed> {
    let scratch = Scratch::new("trial");
    let path = fixture("short_circuit16.pl");
    let source = std::fs::read_to_string(&path)?;
    let line = |text: &str| -> u32 {
        1 + source
            .lines()
            .position(|l| l.trim_start().starts_with(text))
            .unwrap() as u32
    };
    let (a, b, c, d) = (line("if (a"), line("|| b)"), line("&& (c"), line("|| d)"));
    let (yes, no) = (line("return 1;"), line("return 0;"));
    let mut expected: BTreeMap<Vec<u32>, u64> = BTreeMap::new();
    for i in 0..16 {
        let bit = |k: u32| i >> k & 1 == 1;
        let mut lines = vec![a];
        let left = bit(0) || {
            lines.push(b);
            bit(1)
        };
        let taken = left && {
            lines.push(c);
            bit(2) || {
                lines.push(d);
                bit(3)
            }
        };
        lines.push(if taken { yes } else { no });
        *expected.entry(lines).or_default() += 1;
    }
    assert_eq!(expected.len(), 7);

    let traced = Program::new(&path).traced(&scratch, &[])?;
    check_against_oracle(&traced, pcc::driver::DEFAULT_HASH_THRESHOLD)?;
    let decide = record(&traced.profile, "decide")?;
    expect_eq("num_paths", decide.num_paths, 7)?;
    let actual: BTreeMap<Vec<u32>, u64> = decide
        .paths
        .iter()
        .map(|p| (p.lines.clone(), p.count))
        .collect();
    expect_eq("paths (lines → count)", actual, expected)?;
    Ok(())
}

/// 2^70 paths do not fit 64-bit ids: the numbering is truncated and says so, the function counts
/// in a hash table whatever `--hash-threshold` asks, and its ids are unique and in range.
fn seventy_stacked_ifs() -> Result<(), Failed> {
    let scratch = Scratch::new("trial");
    let program = Program::new(&fixture("many_paths.pl"));
    let traced = program.traced(&scratch, &[])?;
    check_against_oracle(&traced, pcc::driver::DEFAULT_HASH_THRESHOLD)?;
    let max = u64::MAX.to_string();
    let (_, huge) = program.profile(
        &["--hash-threshold", &max],
        "bl",
        &scratch.file("max.bl.json"),
    )?;
    for profile in [&traced.profile, &huge] {
        let f70 = record(profile, "f70")?;
        expect_eq("f70 truncated", f70.truncated, true)?;
        expect_eq("f70 storage", f70.storage, Storage::Hash)?;
        let numbering = &traced.lowered.functions[traced.lowered.id("f70")].bl;
        expect_eq("f70 num_paths", f70.num_paths, numbering.num_paths())?;
        if f70.num_paths <= pcc::driver::DEFAULT_HASH_THRESHOLD {
            return Err(format!("f70 has only {} paths", f70.num_paths).into());
        }
        let ids = counts(f70);
        expect_eq("f70 distinct ids", ids.len(), f70.paths.len())?;
        if let Some(id) = ids.keys().find(|&&id| id >= f70.num_paths) {
            return Err(format!("f70 path id {id} ≥ num_paths {}", f70.num_paths).into());
        }
        // 100 calls, each cut once by the truncation: two paths a call.
        expect_eq("f70 path executions", ids.values().sum::<u64>(), 200)?;
    }
    if record(&huge, "f70")?.paths != record(&traced.profile, "f70")?.paths {
        return Err("f70: the paths differ with the largest threshold".into());
    }
    Ok(())
}

/// 2^20 paths: counted in a hash table by default and in an array with a threshold above, with
/// the same result, which is the trace's.
fn array_and_hash_agree() -> Result<(), Failed> {
    let scratch = Scratch::new("trial");
    let program = Program::new(&fixture("many_paths.pl"));
    let traced = program.traced(&scratch, &[])?;
    check_against_oracle(&traced, pcc::driver::DEFAULT_HASH_THRESHOLD)?;
    let (_, array) = program.profile(
        &["--hash-threshold", "2000000"],
        "bl",
        &scratch.file("array.bl.json"),
    )?;
    let hashed = record(&traced.profile, "f20")?;
    let arrayed = record(&array, "f20")?;
    expect_eq("f20 num_paths", hashed.num_paths, 1 << 20)?;
    expect_eq("f20 truncated", hashed.truncated, false)?;
    expect_eq("default storage", hashed.storage, Storage::Hash)?;
    expect_eq(
        "storage with --hash-threshold 2000000",
        arrayed.storage,
        Storage::Array,
    )?;
    if arrayed.paths != hashed.paths {
        return Err("f20: the paths counted in an array and in a hash table differ".into());
    }
    // 450 calls, 400 different seeds.
    expect_eq(
        "f20 path executions",
        counts(arrayed).values().sum::<u64>(),
        450,
    )?;
    Ok(())
}

/// programs/recursion.pl: each recursive function has a base-case path and a recursive one;
/// their counts are those of a model of the calls `main` makes.
fn recursion() -> Result<(), Failed> {
    let scratch = Scratch::new("trial");
    let path = root().join("programs/recursion.pl");
    let source = std::fs::read_to_string(&path)?;
    let traced = Program::new(&path).traced(&scratch, &[])?;
    check_against_oracle(&traced, pcc::driver::DEFAULT_HASH_THRESHOLD)?;

    #[derive(Default)]
    struct Calls(HashMap<&'static str, (u64, u64)>);
    impl Calls {
        fn count(&mut self, f: &'static str, base: bool) {
            let entry = self.0.entry(f).or_default();
            if base { entry.0 += 1 } else { entry.1 += 1 }
        }
        fn fib(&mut self, n: i64) -> i64 {
            self.count("fib", n < 2);
            if n < 2 {
                n
            } else {
                self.fib(n - 1) + self.fib(n - 2)
            }
        }
        fn is_even(&mut self, n: i64) -> bool {
            self.count("is_even", n == 0);
            n == 0 || self.is_odd(n - 1)
        }
        fn is_odd(&mut self, n: i64) -> bool {
            self.count("is_odd", n == 0);
            n != 0 && self.is_even(n - 1)
        }
        fn hf(&mut self, n: i64) -> i64 {
            self.count("hf", n == 0);
            if n == 0 {
                1
            } else {
                let x = self.hf(n - 1);
                n - self.hm(x)
            }
        }
        fn hm(&mut self, n: i64) -> i64 {
            self.count("hm", n == 0);
            if n == 0 {
                0
            } else {
                let x = self.hm(n - 1);
                n - self.hf(x)
            }
        }
        fn depth_sum(&mut self, n: i64) -> i64 {
            self.count("depth_sum", n == 0);
            if n == 0 { 0 } else { n + self.depth_sum(n - 1) }
        }
    }
    let mut model = Calls::default();
    for i in 0..21 {
        model.fib(i);
    }
    for (f, n) in [
        ("even", 10),
        ("odd", 10),
        ("even", 7),
        ("odd", 7),
        ("even", 0),
    ] {
        if f == "even" {
            model.is_even(n);
        } else {
            model.is_odd(n);
        }
    }
    for i in 0..15 {
        model.hf(i);
        model.hm(i);
    }
    model.depth_sum(10000);

    let lines: Vec<&str> = source.lines().collect();
    for (name, &(base, recursive)) in &model.0 {
        // The base case's `return` is the first one after the function's header.
        let header = lines
            .iter()
            .position(|l| l.starts_with(&format!("fn {name}(")))
            .unwrap();
        let base_line = (header
            + lines[header..]
                .iter()
                .position(|l| l.contains("return"))
                .unwrap()
            + 1) as u32;
        let function = record(&traced.profile, name)?;
        let (mut base_count, mut recursive_count) = (0, 0);
        for p in &function.paths {
            if p.lines.contains(&base_line) {
                base_count += p.count;
            } else {
                recursive_count += p.count;
            }
        }
        expect_eq(
            &format!("`{name}`: (base case, recursive) path executions"),
            (base_count, recursive_count),
            (base, recursive),
        )?;
    }
    Ok(())
}

/// `exit()` in a function's entry block counts that one-block path; a runtime error in a block
/// that would `exit()` counts nothing there; the callers' paths in progress are lost.
fn exits_and_errors() -> Result<(), Failed> {
    let scratch = Scratch::new("trial");
    let traced = Program::new(&fixture("exit_in_entry.pl")).traced(&scratch, &[])?;
    check_against_oracle(&traced, pcc::driver::DEFAULT_HASH_THRESHOLD)?;
    expect_eq("exit status", traced.output.status, 7)?;
    expect_eq(
        "`die`",
        counts(record(&traced.profile, "die")?),
        BTreeMap::from([(0, 1)]),
    )?;
    // i = 0, 1, 2 go round the loop; i = 3 is cut short.
    let main = counts(record(&traced.profile, "main")?);
    expect_eq("`main` path executions", main.values().sum::<u64>(), 3)?;

    let scratch = Scratch::new("trial");
    let traced = Program::new(&fixture("error_before_exit.pl")).traced(&scratch, &[])?;
    check_against_oracle(&traced, pcc::driver::DEFAULT_HASH_THRESHOLD)?;
    expect_eq("exit status", traced.output.status, 101)?;
    expect_eq(
        "`finish` paths",
        record(&traced.profile, "finish")?.paths.len(),
        0,
    )?;
    let main = counts(record(&traced.profile, "main")?);
    expect_eq("`main` path executions", main.values().sum::<u64>(), 3)?;
    Ok(())
}

/// The MIR of the program at `path` instrumented for `mode` and optimized at -O 2.
fn optimized_mir(path: &Path, mode: &str) -> String {
    let file = path.file_name().unwrap().to_string_lossy();
    let mode = format!("--profile={mode}");
    let args = ["run", "-O2", &mode, "--emit", "mir", &file];
    common::pcc_in(path.parent().unwrap(), &args, "").stdout
}

/// Each loop of the fixture keeps its counts in locals at -O 2 and fails at a check in its last
/// iteration when the argument picks it: the profile written at the error holds every path that
/// ended before it, as the traced run does.
fn promoted_loops_stop_at_checks() -> Result<(), Failed> {
    let path = fixture("promoted_loops_stop_at_a_check.pl");
    let blocks = optimized_mir(&path, "bl").matches("at a stop:").count();
    if blocks < 3 {
        return Err(format!("only {blocks} blocks flush their loop's counts at a stop").into());
    }
    let arguments = ["1", "2", "3", "4", "5"];
    check_each_argument(&path, &arguments, &[2])?;
    for which in arguments {
        let plain = Program::with_args(&path, &[which]).run(&["-O2"])?;
        expect_eq("exit status", plain.status, 101)?;
    }
    Ok(())
}

/// [`check_program`] at `levels` on the program at `path` run with each of `arguments`.
fn check_each_argument(path: &Path, arguments: &[&str], levels: &[u8]) -> Result<(), Failed> {
    for which in arguments {
        check_program(&Program::with_args(path, &[which]), levels)
            .map_err(|e| format!("argument {which}: {}", e.message().unwrap_or_default()))?;
    }
    Ok(())
}

/// Loops whose counts -O 2 keeps in locals and which `return` from inside, in their first
/// iteration, a later one or not at all: the exits set the path register that the latch no longer
/// resets, and the profile is -O 0's.
fn promoted_loops_return_early() -> Result<(), Failed> {
    let path = fixture("promoted_loops_return_early.pl");
    let mir = optimized_mir(&path, "bl");
    let shorter = mir.split("\nfn ").find(|f| f.starts_with("shorter"));
    let latch = (shorter.unwrap_or_default().split("\n  bb")).find(|b| b.contains(".next"));
    if latch.is_none_or(|latch| latch.contains(" = 0 ")) {
        return Err(format!("the latch of `shorter` resets the path register:\n{mir}").into());
    }
    check_each_argument(&path, &["0", "1", "2", "3", "4"], &[0, 2])
}

/// Loops whose first iteration -O 2 peels, stopped nowhere, at a failing check in the first
/// iteration or a later one, or at `exit()` in a callee: the profile is -O 0's.
fn peeled_loops() -> Result<(), Failed> {
    let path = fixture("peeled_loops.pl");
    let mir = optimized_mir(&path, "bl");
    let calls = mir.split("\nfn ").find(|f| f.starts_with("calls"));
    // Only the path that leaves the function after the loop counts at the register's index.
    let computed = calls.unwrap_or_default().matches("count table1[_").count();
    if computed != 1 {
        return Err(format!("{computed} counts of `calls` at computed indices:\n{mir}").into());
    }
    check_each_argument(&path, &["0", "1", "2", "3", "4"], &[0, 2])
}

/// Inlined callees whose counts -O 2 merges into one counter per run of counts with nothing
/// between them that could stop the program: a null field read, an index, a division or an
/// `exit()` that stops the program between two of them must leave the profile of -O 0.
fn merged_counts_stop_between() -> Result<(), Failed> {
    let path = fixture("merged_counts_stop_between.pl");
    let merged = optimized_mir(&path, "edge").matches("(merged:").count();
    if merged < 3 {
        return Err(format!("only {merged} counts merged").into());
    }
    check_each_argument(&path, &["0", "1", "2", "3", "4"], &[0, 2])
}

// ---------------------------------------------------------------------------------------------
// Generated programs

/// How many generated programs (`pcc_fuzz::generate`) go through the oracle and the
/// cross-checks.
const GENERATED: u64 = 16;
