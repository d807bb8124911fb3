//! What an instrumented program carries so that it can write its own profile when it ends: each
//! function's CFG as lowered (with the source lines of its nodes) and its mode's [`Plan`], which
//! the compiler made once and which holds everything decoding needs ([`crate::mode`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::cfg::{Cfg, CfgError, NodeId};
use crate::mode::{Counters, FunctionCounters, Plan};
use crate::profile::{Mode, Profile, SourceFile};
use crate::tpp::TppConfig;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProfileSpec {
    pub mode: Mode,
    /// The program's source path, as the profile names it.
    pub program: String,
    /// [`crate::profile::content_hash`] of the source file's bytes.
    pub source_hash: String,
    /// Where the profile is written.
    pub output: String,
    /// Functions with more potential paths count them in a hash table (docs/CLI.md, `--hash-threshold`).
    pub array_limit: u64,
    /// One per instrumented function; function `i` uses counter table `i`.
    pub functions: Vec<FunctionSpec>,
    /// `kbl`: the longest sequences of path ids counted ([KBLPP]'s `k`).
    #[serde(default)]
    pub k: usize,
    /// `tpp`: the thresholds the plans were made with, which the profile records.
    #[serde(default)]
    pub tpp: Option<TppConfig>,
    /// Counters that `-O 2` made of several counts that always run together.
    #[serde(default)]
    pub merged: Vec<MergedCounter>,
}

/// A counter that stands for several constant counts made at one place with nothing between
/// them that could stop the program (the compiler's `opt/merge_counts.rs`): each of its counts
/// is `times` counts of each member. It is counted in a table's array past the counters its
/// function's plan uses, and [`build_profile`] hands its counts to its members.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MergedCounter {
    pub table: usize,
    pub index: u64,
    /// (table, index, times).
    pub members: Vec<(usize, u64, u64)>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FunctionSpec {
    pub name: String,
    pub cfg_hash: String,
    pub num_nodes: usize,
    pub entry: usize,
    pub exit: usize,
    /// CFG edges in id order, as (from, to). For `wpp`, the CFG split before calls.
    pub edges: Vec<(usize, usize)>,
    /// Source lines of each node's statements, in execution order (EXIT has none).
    pub node_lines: Vec<Vec<u32>>,
    /// Each node's own line, never 0: its first statement's, or for a block with none (made by
    /// lowering: a join, a latch) its terminator's, which lowering places on the construct the
    /// block belongs to; EXIT's is the function's closing brace.
    pub node_line: Vec<u32>,
    pub plan: Plan,
}

impl ProfileSpec {
    /// An empty profile of the program's run with `args`.
    pub fn new_profile(&self, args: Vec<String>) -> Profile {
        let source = SourceFile {
            path: self.program.clone(),
            hash: self.source_hash.clone(),
        };
        let mut profile = Profile::new(self.mode, source, args);
        profile.tpp = self.tpp;
        profile
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
    pub(crate) fn block_lines(&self, node: NodeId) -> Vec<u32> {
        match &self.node_lines[node.0] {
            lines if lines.is_empty() => vec![self.node_line[node.0]],
            lines => lines.clone(),
        }
    }

    /// A node's statement lines, as a path record lists them.
    pub(crate) fn statement_lines(&self, node: NodeId) -> Vec<u32> {
        self.node_lines[node.0].clone()
    }
}

/// Builds the profile of a run from each function's counters (`counters[i]` for function `i`;
/// for `ppp`, `counters[n + i]` holds the residual paths by Ball-Larus id, see
/// [`ProfileSpec::num_counter_tables`]). Functions whose counters cannot be explained
/// (corrupted memory, or edge counts broken by a run that stopped inside the function elsewhere
/// than at a stop node) are reported in the error list and left out.
pub fn build_profile(
    spec: &ProfileSpec,
    args: Vec<String>,
    counters: &[Counters],
) -> (Profile, Vec<String>) {
    let unmerged;
    let counters = if spec.merged.is_empty() {
        counters
    } else {
        unmerged = unmerge(&spec.merged, counters);
        &unmerged[..]
    };
    let mut profile = spec.new_profile(args);
    let mut problems = Vec::new();
    let n = spec.functions.len();
    let empty = Counters::new();
    for (i, function) in spec.functions.iter().enumerate() {
        let tables = FunctionCounters {
            counts: counters.get(i).unwrap_or(&empty),
            residual: counters.get(n + i).unwrap_or(&empty),
        };
        match function.plan.decode(function, tables) {
            Ok(record) => profile.functions.push(record),
            Err(problem) => problems.push(format!("function `{}`: {problem}", function.name)),
        }
    }
    (profile, problems)
}

/// The counters of every table with each merged counter's counts handed to its members (and
/// the merged counter itself gone). Counters wrap as the program's do.
fn unmerge(merged: &[MergedCounter], counters: &[Counters]) -> Vec<Counters> {
    let mut tables: Vec<BTreeMap<u64, u64>> = (counters.iter())
        .map(|table| table.iter().copied().collect())
        .collect();
    let counts: Vec<u64> = (merged.iter())
        .map(|m| (tables.get_mut(m.table)).map_or(0, |t| t.remove(&m.index).unwrap_or(0)))
        .collect();
    for (m, count) in merged.iter().zip(counts).filter(|&(_, count)| count > 0) {
        for &(table, index, times) in &m.members {
            if let Some(t) = tables.get_mut(table) {
                let counter = t.entry(index).or_insert(0);
                *counter = counter.wrapping_add(count.wrapping_mul(times));
            }
        }
    }
    tables
        .into_iter()
        .map(|t| t.into_iter().collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ball_larus::BallLarus;
    use crate::examples::year_2000;
    use crate::mode::kbl::Sequences;
    use crate::mode::{self, bl, tpp};
    use crate::ppp::Ppp;
    use crate::profile::{ModeRecord, PathCount, PppRecord, Storage, TppRecord};

    /// A program of one function, [PFP]'s y2k example with node `v` on line `v + 1`, planned
    /// by `plan`.
    fn y2k_spec(mode: Mode, plan: impl Fn(&Cfg) -> Plan) -> ProfileSpec {
        let cfg = year_2000();
        ProfileSpec {
            mode,
            program: "y2k.pl".into(),
            source_hash: "h".into(),
            output: "y2k.profile.json".into(),
            array_limit: 1 << 16,
            functions: vec![FunctionSpec {
                name: "classify".into(),
                cfg_hash: "h".into(),
                num_nodes: cfg.num_nodes(),
                entry: cfg.entry().0,
                exit: cfg.exit().0,
                edges: cfg.edges().map(|(_, e)| (e.from.0, e.to.0)).collect(),
                node_lines: (0..cfg.num_nodes()).map(|v| vec![v as u32 + 1]).collect(),
                node_line: (0..cfg.num_nodes()).map(|v| v as u32 + 1).collect(),
                plan: plan(&cfg),
            }],
            k: 0,
            tpp: None,
            merged: Vec::new(),
        }
    }

    /// `tpp`: counters are hot path ids plus the cold counter at `num_paths`; the profile has
    /// the measured and obvious paths, the cold count, and the edge counts. Without edge counts
    /// the function is profiled like bl.
    #[test]
    fn tpp_profile_from_counters_and_edge_counts() {
        let cfg = year_2000();
        // Every execution takes the same way but one, through a rare edge.
        let bl = BallLarus::new(&cfg).unwrap();
        let path = bl.path(5).unwrap().edges;
        let mut counts = vec![0u64; cfg.num_edges()];
        for e in &path {
            counts[e.0] = 100;
        }
        let config = TppConfig::default();
        let mut spec = y2k_spec(Mode::Tpp, |cfg| {
            Plan::Tpp(tpp::plan(cfg, counts.clone(), config, 1 << 16).unwrap())
        });
        spec.tpp = Some(config);
        assert_eq!(spec.functions[0].plan.num_paths(), 1);
        let (profile, problems) = build_profile(&spec, vec![], &[vec![(1, 7)]]);
        assert!(problems.is_empty(), "{problems:?}");
        let f = &profile.functions[0];
        assert_eq!(profile.tpp, Some(config));
        assert_eq!((f.num_paths, f.storage), (1, Storage::None));
        assert_eq!(f.paths.len(), 1);
        assert_eq!(f.paths[0].count, 100);
        let ModeRecord::Tpp(TppRecord {
            cold_count,
            obvious,
            edge_counts,
        }) = &f.record
        else {
            panic!("a tpp record")
        };
        assert_eq!((*cold_count, obvious), (7, &f.paths));
        assert_eq!(edge_counts.as_ref(), Some(&counts));
        // An index past the cold counter is corruption, reported.
        let (_, problems) = build_profile(&spec, vec![], &[vec![(2, 1)]]);
        assert_eq!(problems.len(), 1);
        // No edge counts: Ball-Larus ids.
        let spec = y2k_spec(Mode::Tpp, |cfg| {
            Plan::Tpp(tpp::Plan::Fallback(
                bl::plan(cfg, &[], &[], 1 << 16).unwrap(),
            ))
        });
        let (profile, _) = build_profile(&spec, vec![], &[vec![(5, 3)]]);
        let f = &profile.functions[0];
        assert!(matches!(&f.record, ModeRecord::Tpp(t) if t.bl_fallback() && t.cold_count == 0));
        assert_eq!((f.num_paths, f.paths[0].id), (8, 5));
    }

    /// Dense counters by PPP id become interesting paths by Ball-Larus id; the residual table
    /// holds the rest, and an interesting path counted as residual (its PPP id was past the
    /// array) moves back to `paths`.
    #[test]
    fn ppp_profile_from_dense_and_residual_counters() {
        let spec = y2k_spec(Mode::Ppp, |cfg| {
            let bl = BallLarus::new(cfg).unwrap();
            Plan::Ppp(mode::ppp::plan(&bl, cfg, [1, 4, 6], &[], 2).unwrap())
        });
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
        let counts =
            |paths: &[PathCount]| paths.iter().map(|p| (p.id, p.count)).collect::<Vec<_>>();
        assert_eq!(counts(&f.paths), vec![(1, 11), (4, 14), (6, 16)]);
        let ModeRecord::Ppp(PppRecord {
            interesting,
            range,
            rho,
            residual,
        }) = &f.record
        else {
            panic!("a ppp record")
        };
        assert_eq!(counts(residual), vec![(0, 3), (7, 2)]);
        assert_eq!(interesting, &vec![1, 4, 6]);
        assert_eq!((*range, *rho), (ppp.range(), ppp.compactness()));
    }

    /// A merged counter's counts go to each of its members, `times` each, next to the counts
    /// the members got on their own; the merged counter is not a path.
    #[test]
    fn merged_counters_are_handed_to_their_members() {
        let mut spec = y2k_spec(Mode::Bl, |cfg| {
            Plan::Bl(bl::plan(cfg, &[], &[], 1 << 16).unwrap())
        });
        spec.merged = vec![
            MergedCounter {
                table: 0,
                index: 100,
                members: vec![(0, 6, 1), (0, 1, 2)],
            },
            MergedCounter {
                table: 0,
                index: 101,
                members: vec![(0, 3, 1)],
            },
        ];
        let (profile, problems) =
            build_profile(&spec, vec![], &[vec![(1, 5), (6, 2), (100, 3), (101, 0)]]);
        assert!(problems.is_empty(), "{problems:?}");
        let f = &profile.functions[0];
        let counts: Vec<(u64, u64)> = f.paths.iter().map(|p| (p.id, p.count)).collect();
        assert_eq!(counts, vec![(1, 11), (6, 5)]);
    }

    /// A `kbl` function without back edges streams nothing: its k-IPF is a root per executed
    /// path with the path's count. A function with a loop counts windows of its paths in a table
    /// indexed by window, or keyed by window when they are too many, or streams its ids when a
    /// window does not fit a word.
    #[test]
    fn kbl_profile_of_a_function_without_loops_from_its_counters() {
        let spec = y2k_spec(Mode::Kbl, |cfg| {
            let paths = bl::plan(cfg, &[], &[], 1 << 16).unwrap();
            let mut budget = mode::kbl::MAX_PROGRAM_WINDOWS;
            let plan = mode::kbl::plan(paths, 4, &mut budget);
            assert_eq!(plan.sequences, Sequences::Single);
            Plan::Kbl(plan)
        });
        let (profile, problems) = build_profile(&spec, vec![], &[vec![(6, 2), (1, 5)]]);
        assert!(problems.is_empty(), "{problems:?}");
        let ModeRecord::Kbl(record) = &profile.functions[0].record else {
            panic!("a kbl record")
        };
        let roots: Vec<_> = record
            .kipf
            .iter()
            .map(|n| (n.id, n.count, n.children.len()))
            .collect();
        assert_eq!(roots, vec![(1, 5, 0), (6, 2, 0)]);
        let with_loop = || bl::plan(&crate::examples::add_even_numbers(), &[], &[], 1 << 16);
        let paths = with_loop().unwrap().numbering.num_paths();
        let bits = u64::BITS - paths.leading_zeros();
        let mut budget = 1 << (4 * bits);
        let plan = mode::kbl::plan(with_loop().unwrap(), 4, &mut budget);
        assert_eq!(plan.sequences, Sequences::Windows { bits, k: 4 });
        assert_eq!((plan.layout().len, budget), (1 << (4 * bits), 0));
        // Over the program's budget, or the largest table: the function streams.
        assert!(mode::kbl::plan(with_loop().unwrap(), 4, &mut budget).streams());
        // Windows too many for a table indexed by them go to a keyed one; k · bits > 62 streams.
        let k = mode::kbl::MAX_WINDOW_BITS / bits + 1;
        let mut unlimited = u64::MAX;
        let plan = mode::kbl::plan(with_loop().unwrap(), k as usize, &mut unlimited);
        assert_eq!(plan.sequences, Sequences::KeyedWindows { bits, k });
        assert!(mode::kbl::plan(with_loop().unwrap(), 64, &mut unlimited).streams());
    }

    /// A function whose Ball-Larus paths fit the array counts every path by Ball-Larus id, as
    /// `bl` does, with no residual table of its own: the same profile as the two registers give.
    #[test]
    fn ppp_profile_of_a_function_counted_by_ball_larus_id() {
        let spec = y2k_spec(Mode::Ppp, |cfg| {
            let bl = BallLarus::new(cfg).unwrap();
            let plan = mode::ppp::plan(&bl, cfg, [1, 4, 6], &[], 1 << 16).unwrap();
            assert!(matches!(plan.code, mode::ppp::Code::BallLarus(_)));
            assert_eq!(plan.layout.len, bl.num_paths());
            Plan::Ppp(plan)
        });
        let counters = vec![(0, 3), (1, 11), (4, 14), (6, 16), (7, 2)];
        let (profile, problems) = build_profile(&spec, vec![], &[counters, vec![]]);
        assert!(problems.is_empty(), "{problems:?}");
        let f = &profile.functions[0];
        let counts =
            |paths: &[PathCount]| paths.iter().map(|p| (p.id, p.count)).collect::<Vec<_>>();
        assert_eq!(counts(&f.paths), vec![(1, 11), (4, 14), (6, 16)]);
        let ModeRecord::Ppp(PppRecord { residual, .. }) = &f.record else {
            panic!("a ppp record")
        };
        assert_eq!(counts(residual), vec![(0, 3), (7, 2)]);
    }
}
