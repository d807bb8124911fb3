//! `pcc profile merge`: sums the counts of several runs of the same code.
//!
//! Profiles are only comparable when they come from the same program ([`super::kinship`]), the
//! same mode and the same code of every function (equal `cfg_hash`); anything else is refused,
//! never guessed.

use std::collections::{BTreeMap, HashMap};

use super::printable::printable;
use super::{FunctionProfile, Kinship, KipfNode, Mode, ModeRecord, PathCount, Profile, kinship};

/// Why a profile cannot be merged with an earlier one. The messages speak of "this" profile (the
/// one refused) and "the earlier" one (that it conflicts with).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("no profiles to merge")]
    NoProfiles,
    #[error(
        "mode `{other}` here and `{first}` in the earlier profile; only profiles of the same mode \
         can be merged"
    )]
    ModeMismatch { first: Mode, other: Mode },
    #[error(
        "a profile of program `{}` here and of `{}` in the earlier profile, different programs \
         (another source path and other bytes, and no function with the same code); only \
         profiles of the same program can be merged",
        printable(.other),
        printable(.first)
    )]
    ProgramMismatch { first: String, other: String },
    /// The same function was profiled in different code.
    #[error(
        "function `{name}` was profiled in different code (cfg_hash {other_hash} here, \
         {first_hash} in the earlier profile), so one of them is stale"
    )]
    StaleFunction {
        name: String,
        first_hash: String,
        other_hash: String,
    },
    /// The same code was instrumented differently (e.g. PPP with other interesting paths).
    #[error(
        "function `{name}` was instrumented differently here and in the earlier profile ({what})"
    )]
    Incompatible { name: String, what: &'static str },
    #[error("{}", not_mergeable(*.0))]
    NotMergeable(Mode),
    /// `tpp` profiles made with other cold or loop thresholds number their paths differently.
    #[error(
        "tpp thresholds (--cold-threshold, --loop-threshold) differ from the earlier profile's, \
         so the path ids do not name the same paths"
    )]
    TppThresholds,
}

/// Why profiles of `mode` cannot be merged: for `wpp`, what to merge instead.
fn not_mergeable(mode: Mode) -> String {
    match mode {
        Mode::Wpp => "`wpp` profiles cannot be merged: each holds the whole path of one run, and \
                      two runs' paths do not add up to a path (merge `bl` profiles of the runs \
                      instead)"
            .to_string(),
        mode => format!("`{mode}` profiles cannot be merged"),
    }
}

/// `merge` refused `profiles[index]` because it conflicts with `profiles[earlier]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("profile {index} (earlier: profile {earlier}): {error}")]
pub struct MergeRefusal {
    pub index: usize,
    pub earlier: usize,
    pub error: MergeError,
}

/// Sums `profiles` into one. `args` are kept if all runs had the same, else left empty.
/// A count past 2^64 − 1 stays at 2^64 − 1 ([`merge_saturating`] says which functions).
pub fn merge(profiles: &[Profile]) -> Result<Profile, MergeRefusal> {
    merge_saturating(profiles).map(|merged| merged.profile)
}

/// A merged profile, and the functions in which some count saturated: the sum of their counts
/// is past 2^64 − 1, which the count holds instead (the callers warn).
#[derive(Clone, Debug)]
pub struct Merged {
    pub profile: Profile,
    /// Names of the functions with a saturated count, in the order they were merged.
    pub saturated: Vec<String>,
}

/// [`merge`], saying where counts saturated.
pub fn merge_saturating(profiles: &[Profile]) -> Result<Merged, MergeRefusal> {
    let (first, rest) = profiles.split_first().ok_or(MergeRefusal {
        index: 0,
        earlier: 0,
        error: MergeError::NoProfiles,
    })?;
    let mut merger = Merger::new(first.clone())?;
    for other in rest {
        merger.add(other)?;
    }
    Ok(merger.finish())
}

/// A sum of profiles built one profile at a time, so that merging thousands of them holds only
/// the sum and the profile being added, never all of them.
pub struct Merger {
    merged: Profile,
    /// The first profile's functions (name, `cfg_hash`): what decides that a later profile is
    /// of the same program ([`super::kinship`]).
    first_functions: Vec<(String, String)>,
    /// Where each function is in `merged.functions`, and which profile it came from first (to
    /// name it in a refusal).
    functions: HashMap<String, (usize, usize)>,
    saturated: Vec<String>,
    /// Profiles added so far, the first included.
    count: usize,
}

impl Merger {
    /// A sum of `first` alone; refused if `first` is a kind of profile that cannot be summed.
    pub fn new(first: Profile) -> Result<Merger, MergeRefusal> {
        if first.mode == Mode::Wpp {
            // A whole-program-path grammar compresses one trace; traces do not add up.
            return Err(MergeRefusal {
                index: 0,
                earlier: 0,
                error: MergeError::NotMergeable(Mode::Wpp),
            });
        }
        let first_functions = (first.function_hashes())
            .map(|(name, hash)| (name.to_string(), hash.to_string()))
            .collect();
        let functions = (first.functions.iter().enumerate())
            .map(|(at, f)| (f.name.clone(), (at, 0)))
            .collect();
        Ok(Merger {
            merged: first,
            first_functions,
            functions,
            saturated: Vec::new(),
            count: 1,
        })
    }

    /// Adds `other`'s counts, or refuses it, naming it as the next profile; a refused profile
    /// may have been partly added, so a refusal ends the merge.
    pub fn add(&mut self, other: &Profile) -> Result<(), MergeRefusal> {
        let index = self.count;
        self.count += 1;
        let refuse = |earlier, error| MergeRefusal {
            index,
            earlier,
            error,
        };
        if other.mode != self.merged.mode {
            let error = MergeError::ModeMismatch {
                first: self.merged.mode,
                other: other.mode,
            };
            return Err(refuse(0, error));
        }
        if self.kinship(other) == Kinship::Other {
            let error = MergeError::ProgramMismatch {
                first: self.merged.program.clone(),
                other: other.program.clone(),
            };
            return Err(refuse(0, error));
        }
        let merged = &mut self.merged;
        if other.tpp != merged.tpp {
            return Err(refuse(0, MergeError::TppThresholds));
        }
        if other.args != merged.args {
            merged.args.clear();
        }
        for function in &other.functions {
            match self.functions.get(&function.name) {
                Some(&(at, origin)) => {
                    let mut overflowed = false;
                    merge_function(&mut merged.functions[at], function, &mut overflowed)
                        .map_err(|error| refuse(origin, error))?;
                    if overflowed && !self.saturated.contains(&function.name) {
                        self.saturated.push(function.name.clone());
                    }
                }
                None => {
                    let at = merged.functions.len();
                    self.functions.insert(function.name.clone(), (at, index));
                    merged.functions.push(function.clone());
                }
            }
        }
        Ok(())
    }

    /// How `other`'s program relates to the first profile's.
    pub fn kinship(&self, other: &Profile) -> Kinship {
        let first = (self.first_functions.iter()).map(|(n, h)| (n.as_str(), h.as_str()));
        kinship(
            &other.source,
            other.function_hashes(),
            &self.merged.source,
            first,
        )
    }

    /// The sum, and where its counts saturated.
    pub fn finish(self) -> Merged {
        Merged {
            profile: self.merged,
            saturated: self.saturated,
        }
    }
}

/// `*x += y`, saturating at 2^64 − 1; sets `overflowed` if it did.
fn add(x: &mut u64, y: u64, overflowed: &mut bool) {
    match x.checked_add(y) {
        Some(sum) => *x = sum,
        None => {
            *x = u64::MAX;
            *overflowed = true;
        }
    }
}

fn merge_function(
    into: &mut FunctionProfile,
    from: &FunctionProfile,
    overflowed: &mut bool,
) -> Result<(), MergeError> {
    let incompatible = |what| MergeError::Incompatible {
        name: from.name.clone(),
        what,
    };
    if into.cfg_hash != from.cfg_hash {
        return Err(MergeError::StaleFunction {
            name: from.name.clone(),
            first_hash: into.cfg_hash.clone(),
            other_hash: from.cfg_hash.clone(),
        });
    }
    match (&mut into.record, &from.record) {
        (ModeRecord::Block(a), ModeRecord::Block(b)) => {
            // The same code (cfg_hash) has the same blocks, listed in id order.
            if (a.num_blocks, a.blocks.len()) != (b.num_blocks, b.blocks.len()) {
                return Err(incompatible("blocks"));
            }
            for (x, y) in a.blocks.iter_mut().zip(&b.blocks) {
                add(&mut x.count, y.count, overflowed);
            }
        }
        (ModeRecord::Edge(a), ModeRecord::Edge(b)) => {
            let same_edges = a.num_blocks == b.num_blocks
                && a.edges.len() == b.edges.len()
                && a.edges
                    .iter()
                    .zip(&b.edges)
                    .all(|(x, y)| (x.from_block, x.to_block) == (y.from_block, y.to_block));
            if !same_edges {
                return Err(incompatible("edges"));
            }
            for (x, y) in a.edges.iter_mut().zip(&b.edges) {
                add(&mut x.count, y.count, overflowed);
            }
            add(&mut a.unfinished, b.unfinished, overflowed);
        }
        (ModeRecord::Ppp(a), ModeRecord::Ppp(b)) => {
            if (&a.interesting, a.range) != (&b.interesting, b.range) {
                return Err(incompatible("interesting paths"));
            }
            a.residual = sum_paths(&a.residual, &b.residual, overflowed);
        }
        (ModeRecord::Tpp(a), ModeRecord::Tpp(b)) => {
            // TPP numbers the hot paths of the edge profile it was given ([TPP] §4.1).
            if a.edge_counts != b.edge_counts {
                return Err(incompatible(
                    "tpp paths numbered from different edge profiles",
                ));
            }
            a.obvious = sum_paths(&a.obvious, &b.obvious, overflowed);
            add(&mut a.cold_count, b.cold_count, overflowed);
        }
        (ModeRecord::Kbl(a), ModeRecord::Kbl(b)) => {
            a.kipf = sum_forests(&a.kipf, &b.kipf, overflowed)
        }
        (ModeRecord::Bl, ModeRecord::Bl) | (ModeRecord::Wpp, ModeRecord::Wpp) => {}
        _ => return Err(incompatible("profiling mode")),
    }
    if (into.num_paths, into.truncated) != (from.num_paths, from.truncated) {
        return Err(incompatible("path numbering"));
    }
    into.paths = sum_paths(&into.paths, &from.paths, overflowed);
    Ok(())
}

/// Paths of both lists with counts of equal ids added, in id order.
fn sum_paths(a: &[PathCount], b: &[PathCount], overflowed: &mut bool) -> Vec<PathCount> {
    let mut by_id: BTreeMap<u64, PathCount> = BTreeMap::new();
    for path in a.iter().chain(b) {
        by_id
            .entry(path.id)
            .and_modify(|p| add(&mut p.count, path.count, overflowed))
            .or_insert_with(|| path.clone());
    }
    by_id.into_values().collect()
}

/// Prefix forests added node by node: equal ids at the same place are one node.
fn sum_forests(a: &[KipfNode], b: &[KipfNode], overflowed: &mut bool) -> Vec<KipfNode> {
    let mut merged = a.to_vec();
    for node in b {
        match merged.iter_mut().find(|m| m.id == node.id) {
            Some(m) => {
                add(&mut m.count, node.count, overflowed);
                m.children = sum_forests(&m.children, &node.children, overflowed);
            }
            None => merged.push(node.clone()),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::super::{EdgeRecord, KblRecord, SourceFile, Storage, TppRecord};
    use super::*;

    fn run(counts: &[(u64, u64)], args: &[&str]) -> Profile {
        let mut profile = Profile::new(
            Mode::Bl,
            SourceFile::new("p.pl", b""),
            args.iter().map(|s| s.to_string()).collect(),
        );
        let mut f = FunctionProfile::new("main", "h1", 8, Storage::Array, ModeRecord::Bl);
        f.paths = counts
            .iter()
            .map(|&(id, count)| PathCount {
                id,
                count,
                lines: vec![1, 2],
            })
            .collect();
        profile.functions.push(f);
        profile
    }

    #[test]
    fn sums_counts_by_path_id() {
        let merged = merge(&[
            run(&[(1, 5), (3, 1)], &["a"]),
            run(&[(3, 2), (0, 4)], &["b"]),
        ])
        .unwrap();
        let counts: Vec<(u64, u64)> = merged.functions[0]
            .paths
            .iter()
            .map(|p| (p.id, p.count))
            .collect();
        assert_eq!(counts, vec![(0, 4), (1, 5), (3, 3)]);
        assert!(merged.args.is_empty());
        let same_args = merge(&[run(&[], &["a"]), run(&[], &["a"])]).unwrap();
        assert_eq!(same_args.args, vec!["a".to_string()]);
    }

    /// A sum past 2^64 − 1 stays there and is said to have saturated (issue 52); a count
    /// already at 2^64 − 1 that nothing is added to has not.
    #[test]
    fn saturated_counts_are_reported() {
        let max = u64::MAX;
        let merged = merge_saturating(&[run(&[(1, max - 1)], &[]), run(&[(1, 2)], &[])]).unwrap();
        assert_eq!(merged.profile.functions[0].paths[0].count, max);
        assert_eq!(merged.saturated, vec!["main".to_string()]);
        let merged = merge_saturating(&[run(&[(1, max)], &[]), run(&[(2, 1)], &[])]).unwrap();
        assert!(merged.saturated.is_empty());
    }

    #[test]
    fn refuses_different_code_modes_and_programs_naming_the_culprit() {
        let a = run(&[(1, 1)], &[]);
        let mut stale = a.clone();
        stale.functions[0].cfg_hash = "h2".into();
        let refusal = merge(&[a.clone(), a.clone(), stale]).unwrap_err();
        assert_eq!((refusal.index, refusal.earlier), (2, 0));
        assert_eq!(
            refusal.error.to_string(),
            "function `main` was profiled in different code (cfg_hash h2 here, h1 in the \
             earlier profile), so one of them is stale"
        );
        let mut edge = a.clone();
        edge.mode = Mode::Edge;
        let refusal = merge(&[a.clone(), edge]).unwrap_err();
        assert_eq!(refusal.index, 1);
        assert!(
            refusal
                .to_string()
                .contains("mode `edge` here and `bl` in the earlier profile")
        );
        // Another path and other bytes, but the same code: the program was moved.
        let mut moved = a.clone();
        moved.source = SourceFile::new("elsewhere/p.pl", b"p");
        assert!(merge(&[a.clone(), moved]).is_ok());
        // Another path, other bytes, and no function with the same code.
        let mut other = a.clone();
        other.source = SourceFile::new("q.pl", b"q");
        other.functions[0].cfg_hash = "h3".into();
        assert!(matches!(
            merge(&[a.clone(), other]),
            Err(MergeRefusal {
                index: 1,
                error: MergeError::ProgramMismatch { .. },
                ..
            })
        ));
        assert_eq!(merge(&[]).unwrap_err().error, MergeError::NoProfiles);
    }

    #[test]
    fn unfinished_activations_add_up() {
        let edge = |unfinished| {
            let mut p = run(&[], &[]);
            p.mode = Mode::Edge;
            p.functions[0].record = ModeRecord::Edge(EdgeRecord {
                num_blocks: 1,
                edges: Vec::new(),
                unfinished,
            });
            p
        };
        let merged = merge(&[edge(1), edge(2)]).unwrap();
        assert!(matches!(
            &merged.functions[0].record,
            ModeRecord::Edge(EdgeRecord { unfinished: 3, .. })
        ));
    }

    #[test]
    fn a_function_first_seen_later_is_checked_against_that_profile() {
        let a = run(&[(1, 1)], &[]);
        let mut b = a.clone();
        b.functions[0].name = "helper".into();
        let mut c = b.clone();
        c.functions[0].cfg_hash = "h9".into();
        let refusal = merge(&[a, b, c]).unwrap_err();
        assert_eq!((refusal.index, refusal.earlier), (2, 1));
    }

    #[test]
    fn merges_forests() {
        let leaf = |id, count| KipfNode {
            id,
            count,
            children: vec![],
        };
        let kbl = |kipf| {
            let mut p = run(&[], &[]);
            p.mode = Mode::Kbl;
            p.functions[0].record = ModeRecord::Kbl(KblRecord { kipf });
            p
        };
        let a = kbl(vec![KipfNode {
            id: 0,
            count: 3,
            children: vec![leaf(2, 1)],
        }]);
        let b = kbl(vec![
            KipfNode {
                id: 0,
                count: 1,
                children: vec![leaf(1, 1)],
            },
            leaf(5, 1),
        ]);
        let merged = merge(&[a, b]).unwrap();
        let ModeRecord::Kbl(KblRecord { kipf }) = &merged.functions[0].record else {
            panic!("a kbl record")
        };
        assert_eq!(kipf[0].count, 4);
        assert_eq!(kipf[0].children.len(), 2);
        assert_eq!(kipf[1], leaf(5, 1));
    }

    #[test]
    fn merges_cold_counts() {
        let tpp = |cold_count| {
            let mut p = run(&[], &[]);
            p.mode = Mode::Tpp;
            p.functions[0].record = ModeRecord::Tpp(TppRecord {
                cold_count,
                obvious: Vec::new(),
                edge_counts: Some(vec![1, 2]),
            });
            p
        };
        let merged = merge(&[tpp(2), tpp(2)]).unwrap();
        assert!(matches!(
            &merged.functions[0].record,
            ModeRecord::Tpp(TppRecord { cold_count: 4, .. })
        ));
    }
}
