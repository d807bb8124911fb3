//! What an instrumented program carries so that it can write its own profile when it ends: each
//! function's CFG (with the source lines of its nodes) and where its counters are. The numbering
//! and counter placement are deterministic functions of the CFG, so the program's runtime
//! recomputes them instead of shipping them; the compiler and the runtime therefore agree on ids
//! and counters by construction, in the JIT and in a native executable alike.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::ball_larus::BallLarus;
use crate::cfg::{Cfg, CfgError, NodeId};
use crate::collect::{executed_paths, executed_paths_of, function_profile};
use crate::dag::Dag;
use crate::edge_profile::EdgeProfilePlan;
use crate::estimate::static_edge_weights;
use crate::ppp::Ppp;
use crate::profile::{BlockCount, EdgeCount, Mode, Profile, SourceFile, Storage};
use crate::tpp::{Tpp, TppConfig, TppCounters};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfileSpec {
    pub mode: Mode,
    /// The program's source path, as the profile names it.
    pub program: String,
    /// [`crate::profile::content_hash`] of the source file's bytes.
    pub source_hash: String,
    /// Where the profile is written.
    pub output: String,
    /// Functions with more potential paths count them in a hash table (README, `--hash-threshold`).
    pub array_limit: u64,
    /// One per instrumented function; function `i` uses counter table `i`.
    pub functions: Vec<FunctionSpec>,
    /// `kbl`: the longest sequences of path ids counted ([KBLPP]'s `k`).
    #[serde(default)]
    pub k: usize,
    /// `tpp`: the thresholds of the plan (with each function's `edge_counts`, all that
    /// [`Tpp::new`] needs to recompute it).
    #[serde(default)]
    pub tpp: Option<TppConfig>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionSpec {
    pub name: String,
    pub cfg_hash: String,
    /// Potential paths, as numbered when the program was instrumented.
    pub num_paths: u64,
    pub num_nodes: usize,
    pub entry: usize,
    pub exit: usize,
    /// CFG edges in id order, as (from, to).
    pub edges: Vec<(usize, usize)>,
    /// Source lines of each node's statements, in execution order (EXIT has none).
    pub node_lines: Vec<Vec<u32>>,
    /// Each node's own line, never 0: its first statement's, or for a block with none (made by
    /// lowering: a join, a latch) its terminator's, which lowering places on the construct the
    /// block belongs to; EXIT's is the function's closing brace.
    pub node_line: Vec<u32>,
    /// `ppp`: the Ball-Larus ids of the interesting paths, which the PPP numbering
    /// ([`crate::ppp::Ppp::from_bl_ids`]) is recomputed from.
    #[serde(default)]
    pub interesting: Vec<u64>,
    /// `edge`: the nodes where an activation may stop before its block's end (a call, a check),
    /// where the edge plan counts the activations still running ([`EdgeProfilePlan::with_stops`]).
    #[serde(default)]
    pub stops: Vec<usize>,
    /// `wpp`: the edges cut before calls ([WPP] §2); the CFG above is the one split before calls,
    /// see [`crate::wpp::CallSplit`].
    #[serde(default)]
    pub call_cuts: Vec<usize>,
    /// `wpp`: the cost of each node, its number of MIR instructions (statements and
    /// terminator), which prices paths for `pcc wpp hot` ([WPP] §5.2 uses instruction counts).
    #[serde(default)]
    pub node_costs: Vec<u64>,
    /// `tpp`: the edge profile's count of each CFG edge, which the plan is made from; `None`
    /// when the edge profile has no usable record of the function, which is then profiled like
    /// `bl` (its counter table holds Ball-Larus ids).
    #[serde(default)]
    pub edge_counts: Option<Vec<u64>>,
}

impl ProfileSpec {
    /// An empty profile of the program's run with `args`.
    pub fn new_profile(&self, args: Vec<String>) -> Profile {
        let source = SourceFile {
            path: self.program.clone(),
            hash: self.source_hash.clone(),
        };
        Profile::new(self.mode, source, args)
    }

    /// How many counter tables the program has: one per function, and for `ppp` a second one
    /// per function after those (table `n + i` for function `i` of `n`), the hashed residual
    /// paths keyed by Ball-Larus id.
    pub fn num_counter_tables(&self) -> usize {
        match self.mode {
            Mode::Ppp => 2 * self.functions.len(),
            _ => self.functions.len(),
        }
    }
}

impl FunctionSpec {
    pub fn cfg(&self) -> Result<Cfg, CfgError> {
        Cfg::from_edges(self.num_nodes, self.entry, self.exit, &self.edges)
    }

    /// A node's lines as a block record shows them: its statements' lines, or its own line
    /// when it has no statement.
    fn block_lines(&self, node: NodeId) -> Vec<u32> {
        match &self.node_lines[node.0] {
            lines if lines.is_empty() => vec![self.node_line[node.0]],
            lines => lines.clone(),
        }
    }
}

/// The counters one function's table held when the program ended, as (index, count) pairs with
/// nonzero counts.
pub type Counters = Vec<(u64, u64)>;

/// Builds the profile of a run from each function's counters (`counters[i]` for function `i`;
/// for `ppp`, `counters[i]` is indexed by PPP id and `counters[n + i]` holds the residual paths
/// by Ball-Larus id, see [`ProfileSpec::num_counter_tables`]). Functions whose counters cannot be explained (corrupted memory, or edge counts broken by a run
/// that stopped inside the function elsewhere than at a stop node) are reported in the error
/// list and left out.
pub fn build_profile(
    spec: &ProfileSpec,
    args: Vec<String>,
    counters: &[Counters],
) -> (Profile, Vec<String>) {
    let mut profile = spec.new_profile(args);
    profile.tpp = spec.tpp;
    let mut problems = Vec::new();
    let n = spec.functions.len();
    let empty = Counters::new();
    for (i, (function, counts)) in spec.functions.iter().zip(counters).enumerate() {
        let residual = counters.get(n + i).unwrap_or(&empty);
        match function_record(spec, function, counts, residual) {
            Ok(record) => profile.functions.push(record),
            Err(problem) => problems.push(format!("function `{}`: {problem}", function.name)),
        }
    }
    (profile, problems)
}

fn function_record(
    spec: &ProfileSpec,
    function: &FunctionSpec,
    counts: &Counters,
    residual: &Counters,
) -> Result<crate::profile::FunctionProfile, String> {
    let cfg = function.cfg().map_err(|e| e.to_string())?;
    // Edge and block counts need no path numbering (a function of any size has them).
    match spec.mode {
        Mode::Edge => return edge_record(function, &cfg, counts),
        Mode::Block => return block_record(function, counts),
        _ => {}
    }
    let numbering = BallLarus::new(&cfg).map_err(|e| e.to_string())?;
    if numbering.num_paths() != function.num_paths {
        return Err(format!(
            "numbered {} paths, but the program was instrumented for {}",
            numbering.num_paths(),
            function.num_paths
        ));
    }
    let mut record = function_profile(
        &function.name,
        &function.cfg_hash,
        &numbering,
        spec.array_limit,
    );
    match spec.mode {
        Mode::Ppp => {
            let ppp = Ppp::from_bl_ids(&numbering, function.interesting.iter().copied())
                .map_err(|e| e.to_string())?;
            // Interesting paths: dense counters by PPP id, plus any interesting path the
            // runtime counted as residual (a PPP id past the array it was given, [PPP] §5 "Hash
            // table usage policy"), weeded out here.
            let mut interesting: BTreeMap<u64, u64> = BTreeMap::new();
            for &(slot, count) in counts {
                let bl = ppp
                    .expected_bl_id(slot)
                    .ok_or_else(|| format!("PPP counter {slot} is not an interesting path"))?;
                *interesting.entry(bl).or_default() += count;
            }
            let mut others: BTreeMap<u64, u64> = BTreeMap::new();
            for &(bl, count) in residual {
                let into = if ppp.ppp_id_of(bl).is_some() {
                    &mut interesting
                } else {
                    &mut others
                };
                *into.entry(bl).or_default() += count;
            }
            let lines = |node: NodeId| function.node_lines[node.0].clone();
            record.paths =
                executed_paths(&numbering, &cfg, interesting, lines).map_err(|e| e.to_string())?;
            record.residual =
                Some(executed_paths(&numbering, &cfg, others, lines).map_err(|e| e.to_string())?);
            record.interesting = Some(ppp.paths().iter().map(|p| p.bl_id).collect());
            record.range = Some(ppp.range());
            record.storage = crate::profile::Storage::choose(ppp.range(), spec.array_limit);
            record.rho = ppp.compactness();
        }
        Mode::Tpp => match (&function.edge_counts, spec.tpp) {
            (Some(edge_counts), Some(config)) => {
                let tpp = Tpp::new(&cfg, edge_counts, config).map_err(|e| e.to_string())?;
                let n = tpp.num_paths();
                let mut counters = TppCounters::default();
                for &(index, count) in counts {
                    counters.add(n, index, count)?;
                }
                // [TPP] §4.2.2: measured paths, and obvious ones from their defining edges.
                let rebuilt = tpp.rebuild(&counters, edge_counts);
                let lines = |node: NodeId| function.node_lines[node.0].clone();
                let paths = |counts: BTreeMap<u64, u64>| {
                    executed_paths_of(|id| tpp.path_record(id), n, &cfg, counts, lines)
                        .map_err(|e| e.to_string())
                };
                record.num_paths = n;
                record.truncated = false;
                record.storage = if tpp.needs_instrumentation() {
                    Storage::choose(n, spec.array_limit)
                } else {
                    Storage::None
                };
                record.paths = paths(rebuilt.paths)?;
                record.obvious = Some(paths(rebuilt.obvious)?);
                record.cold_count = Some(rebuilt.cold);
                record.edge_counts = Some(edge_counts.clone());
            }
            _ => {
                record.paths = bl_paths(&numbering, &cfg, function, counts)?;
                record.cold_count = Some(0);
                record.obvious = Some(Vec::new());
                record.bl_fallback = true;
            }
        },
        _ => record.paths = bl_paths(&numbering, &cfg, function, counts)?,
    }
    Ok(record)
}

/// An edge profile's record: edge counts rebuilt from the chords' counters. Paths are not
/// numbered (`num_paths` is 0), so a function of any size has one.
fn edge_record(
    function: &FunctionSpec,
    cfg: &Cfg,
    counts: &Counters,
) -> Result<crate::profile::FunctionProfile, String> {
    let mut may_stop = vec![false; cfg.num_nodes()];
    for &v in &function.stops {
        *may_stop
            .get_mut(v)
            .ok_or_else(|| format!("stop node {v} out of range"))? = true;
    }
    let weights = static_edge_weights(cfg, &Dag::new(cfg));
    let plan = EdgeProfilePlan::with_stops(cfg, &weights, &may_stop);
    let table = counter_table(plan.num_counters(), counts, "edge")?;
    let (edge_counts, unfinished) = plan.reconstruct_with_stops(&table).map_err(|e| {
        format!(
            "{e}: an activation was still running where the run could not stop it at a \
             call or a check (a signal in a loop without calls); its edge counts are \
             left out"
        )
    })?;
    let mut record = unnumbered_record(function);
    record.unfinished = unfinished;
    record.edges = Some(
        cfg.edges()
            .zip(edge_counts)
            .map(|((_, edge), count)| EdgeCount {
                from_block: edge.from.0,
                to_block: edge.to.0,
                from_line: *function.block_lines(edge.from).last().expect("one line"),
                to_line: function.block_lines(edge.to)[0],
                count,
            })
            .collect(),
    );
    Ok(record)
}

/// `block`: one counter per block of the MIR as lowered, by block id (nodes `0..exit`).
fn block_record(
    function: &FunctionSpec,
    counts: &Counters,
) -> Result<crate::profile::FunctionProfile, String> {
    let table = counter_table(function.exit, counts, "block")?;
    let mut record = unnumbered_record(function);
    record.blocks = Some(
        table
            .into_iter()
            .enumerate()
            .map(|(block, count)| BlockCount {
                block,
                lines: function.block_lines(NodeId(block)),
                count,
            })
            .collect(),
    );
    Ok(record)
}

/// The record of a function whose paths were not numbered (`edge`, `block`): array counters,
/// its blocks named by id (EXIT is `num_blocks`).
fn unnumbered_record(function: &FunctionSpec) -> crate::profile::FunctionProfile {
    let mut record =
        crate::profile::FunctionProfile::new(&function.name, &function.cfg_hash, 0, Storage::Array);
    record.num_blocks = Some(function.exit);
    record
}

/// A dense table of `len` counters from the (index, count) pairs a run left.
fn counter_table(len: usize, counts: &Counters, what: &str) -> Result<Vec<u64>, String> {
    let mut table = vec![0u64; len];
    for &(index, count) in counts {
        let slot = usize::try_from(index)
            .ok()
            .and_then(|i| table.get_mut(i))
            .ok_or_else(|| format!("{what} counter {index} out of range"))?;
        *slot = count;
    }
    Ok(table)
}

/// The executed paths of counters indexed by Ball-Larus id.
fn bl_paths(
    numbering: &BallLarus,
    cfg: &Cfg,
    function: &FunctionSpec,
    counts: &Counters,
) -> Result<Vec<crate::profile::PathCount>, String> {
    let lines = |node: NodeId| function.node_lines[node.0].clone();
    executed_paths(numbering, cfg, counts.iter().copied(), lines).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::year_2000;

    fn ppp_spec(interesting: Vec<u64>, array_limit: u64) -> ProfileSpec {
        let cfg = year_2000();
        ProfileSpec {
            mode: Mode::Ppp,
            program: "y2k.pl".into(),
            source_hash: "h".into(),
            output: "y2k.ppp.profile.json".into(),
            array_limit,
            functions: vec![FunctionSpec {
                name: "classify".into(),
                cfg_hash: "h".into(),
                num_paths: 8,
                num_nodes: cfg.num_nodes(),
                entry: cfg.entry().0,
                exit: cfg.exit().0,
                edges: cfg.edges().map(|(_, e)| (e.from.0, e.to.0)).collect(),
                node_lines: (0..cfg.num_nodes()).map(|v| vec![v as u32 + 1]).collect(),
                node_line: (0..cfg.num_nodes()).map(|v| v as u32 + 1).collect(),
                interesting,
                stops: Vec::new(),
                call_cuts: Vec::new(),
                node_costs: Vec::new(),
                edge_counts: None,
            }],
            k: 0,
            tpp: None,
        }
    }

    /// `tpp`: the runtime replans from the recorded edge counts; counters are hot path ids plus
    /// the cold counter at `num_paths`; the profile has the measured and obvious paths, the
    /// cold count, and the edge counts. Without edge counts the function is profiled like bl.
    #[test]
    fn tpp_profile_from_counters_and_edge_counts() {
        let mut spec = ppp_spec(Vec::new(), 1 << 16);
        spec.mode = Mode::Tpp;
        spec.tpp = Some(TppConfig::default());
        let cfg = spec.functions[0].cfg().unwrap();
        // Every execution takes the same way but one, through a rare edge.
        let bl = BallLarus::new(&cfg).unwrap();
        let path = bl.path(5).unwrap().edges;
        let mut counts = vec![0u64; cfg.num_edges()];
        for e in &path {
            counts[e.0] = 100;
        }
        spec.functions[0].edge_counts = Some(counts.clone());
        let tpp = Tpp::new(&cfg, &counts, TppConfig::default()).unwrap();
        assert_eq!(tpp.num_paths(), 1);
        let (profile, problems) = build_profile(&spec, vec![], &[vec![(1, 7)]]);
        assert!(problems.is_empty(), "{problems:?}");
        let f = &profile.functions[0];
        assert_eq!(profile.tpp, Some(TppConfig::default()));
        assert_eq!(
            (f.num_paths, f.storage, f.cold_count),
            (1, Storage::None, Some(7))
        );
        assert_eq!(f.paths.len(), 1);
        assert_eq!(f.paths[0].count, 100);
        assert_eq!(f.obvious.as_ref(), Some(&f.paths));
        assert_eq!(f.edge_counts, Some(counts));
        // An index past the cold counter is corruption, reported.
        let (_, problems) = build_profile(&spec, vec![], &[vec![(2, 1)]]);
        assert_eq!(problems.len(), 1);
        // No edge counts: Ball-Larus ids.
        spec.functions[0].edge_counts = None;
        let (profile, _) = build_profile(&spec, vec![], &[vec![(5, 3)]]);
        let f = &profile.functions[0];
        assert!(f.bl_fallback);
        assert_eq!((f.num_paths, f.paths[0].id, f.cold_count), (8, 5, Some(0)));
    }

    /// Dense counters by PPP id become interesting paths by Ball-Larus id; the residual table
    /// holds the rest, and an interesting path counted as residual (its PPP id was past the
    /// array) moves back to `paths`.
    #[test]
    fn ppp_profile_from_dense_and_residual_counters() {
        let spec = ppp_spec(vec![1, 4, 6], 2);
        assert_eq!(spec.num_counter_tables(), 2);
        let bl = BallLarus::new(&spec.functions[0].cfg().unwrap()).unwrap();
        let ppp = Ppp::from_bl_ids(&bl, [1, 4, 6]).unwrap();
        let slot = |bl_id| ppp.ppp_id_of(bl_id).unwrap();
        let beyond = [1, 4, 6].into_iter().find(|&id| slot(id) >= 2);
        let mut dense: Counters = [1, 4, 6]
            .into_iter()
            .filter(|&id| slot(id) < 2)
            .map(|id| (slot(id), 10 + id))
            .collect();
        dense.sort_unstable();
        let mut residual: Counters = vec![(0, 3), (7, 2)];
        residual.extend(beyond.map(|id| (id, 10 + id)));
        let (profile, problems) = build_profile(&spec, vec![], &[dense, residual]);
        assert!(problems.is_empty(), "{problems:?}");
        let f = &profile.functions[0];
        let counts = |paths: &[crate::profile::PathCount]| {
            paths.iter().map(|p| (p.id, p.count)).collect::<Vec<_>>()
        };
        assert_eq!(counts(&f.paths), vec![(1, 11), (4, 14), (6, 16)]);
        assert_eq!(counts(f.residual.as_ref().unwrap()), vec![(0, 3), (7, 2)]);
        assert_eq!(f.interesting, Some(vec![1, 4, 6]));
        assert_eq!(f.range, Some(ppp.range()));
        assert_eq!(f.rho, ppp.compactness());
    }
}
