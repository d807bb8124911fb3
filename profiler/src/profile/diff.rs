//! `pcc profile diff`: path spectra comparison (004 §5.3, after Reps et al.). Two runs of the
//! same program that differ in one input value (a date before and after 2000, in the paper's
//! Figure 8) are compared path by path: paths that ran in only one of them, and paths whose
//! counts changed, point at the code that depends on that value.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use super::{FunctionProfile, Mode, PathCount, Profile};

/// Why two profiles cannot be compared at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiffError {
    ModeMismatch { a: Mode, b: Mode },
}

impl fmt::Display for DiffError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiffError::ModeMismatch { a, b } => write!(
                f,
                "cannot compare a `{a}` profile with a `{b}` profile: path ids differ between modes"
            ),
        }
    }
}

impl std::error::Error for DiffError {}

/// A path that ran in both profiles with different counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CountChange {
    pub id: u64,
    pub lines: Vec<u32>,
    pub count_a: u64,
    pub count_b: u64,
}

/// The comparison of one function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum FunctionComparison {
    Compared {
        only_in_a: Vec<PathCount>,
        only_in_b: Vec<PathCount>,
        changed: Vec<CountChange>,
    },
    /// Refused: the two profiles were made from different code of this function.
    HashMismatch {
        hash_a: String,
        hash_b: String,
    },
    OnlyInA,
    OnlyInB,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FunctionDiff {
    pub name: String,
    #[serde(flatten)]
    pub comparison: FunctionComparison,
}

/// The path spectra comparison of two profiles, function by function (A's order, then B's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpectraDiff {
    pub functions: Vec<FunctionDiff>,
}

/// Compares the path spectra of `a` and `b`.
pub fn diff(a: &Profile, b: &Profile) -> Result<SpectraDiff, DiffError> {
    if a.mode != b.mode {
        return Err(DiffError::ModeMismatch {
            a: a.mode,
            b: b.mode,
        });
    }
    let mut functions: Vec<FunctionDiff> = a
        .functions
        .iter()
        .map(|fa| FunctionDiff {
            name: fa.name.clone(),
            comparison: match b.function(&fa.name) {
                Some(fb) => compare(fa, fb),
                None => FunctionComparison::OnlyInA,
            },
        })
        .collect();
    functions.extend(
        b.functions
            .iter()
            .filter(|fb| a.function(&fb.name).is_none())
            .map(|fb| FunctionDiff {
                name: fb.name.clone(),
                comparison: FunctionComparison::OnlyInB,
            }),
    );
    Ok(SpectraDiff { functions })
}

fn compare(a: &FunctionProfile, b: &FunctionProfile) -> FunctionComparison {
    if a.cfg_hash != b.cfg_hash {
        return FunctionComparison::HashMismatch {
            hash_a: a.cfg_hash.clone(),
            hash_b: b.cfg_hash.clone(),
        };
    }
    // A PPP profile's spectrum is its interesting and residual paths together.
    let executed = |f: &FunctionProfile| -> BTreeMap<u64, PathCount> {
        f.paths
            .iter()
            .chain(f.residual.iter().flatten())
            .filter(|p| p.count > 0)
            .map(|p| (p.id, p.clone()))
            .collect()
    };
    let (in_a, in_b) = (executed(a), executed(b));
    let only = |x: &BTreeMap<u64, PathCount>, y: &BTreeMap<u64, PathCount>| {
        x.values()
            .filter(|p| !y.contains_key(&p.id))
            .cloned()
            .collect()
    };
    let changed = in_a
        .values()
        .filter_map(|pa| {
            let pb = in_b.get(&pa.id)?;
            (pa.count != pb.count).then(|| CountChange {
                id: pa.id,
                lines: pa.lines.clone(),
                count_a: pa.count,
                count_b: pb.count,
            })
        })
        .collect();
    FunctionComparison::Compared {
        only_in_a: only(&in_a, &in_b),
        only_in_b: only(&in_b, &in_a),
        changed,
    }
}

impl SpectraDiff {
    /// Whether the spectra are the same (no path differences and nothing refused).
    pub fn is_empty(&self) -> bool {
        self.functions.iter().all(|f| {
            matches!(&f.comparison, FunctionComparison::Compared { only_in_a, only_in_b, changed }
                if only_in_a.is_empty() && only_in_b.is_empty() && changed.is_empty())
        })
    }
}

/// The text report: one block per function that differs or was refused.
impl fmt::Display for SpectraDiff {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return writeln!(out, "no differences in path spectra");
        }
        let lines = |lines: &[u32]| {
            lines
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        };
        for f in &self.functions {
            let name = &f.name;
            match &f.comparison {
                FunctionComparison::HashMismatch { hash_a, hash_b } => writeln!(
                    out,
                    "function `{name}`: not compared, the profiles come from different code \
                     (cfg_hash {hash_a} vs {hash_b})"
                )?,
                FunctionComparison::OnlyInA => writeln!(out, "function `{name}`: only in A")?,
                FunctionComparison::OnlyInB => writeln!(out, "function `{name}`: only in B")?,
                FunctionComparison::Compared {
                    only_in_a,
                    only_in_b,
                    changed,
                } => {
                    if only_in_a.is_empty() && only_in_b.is_empty() && changed.is_empty() {
                        continue;
                    }
                    writeln!(
                        out,
                        "function `{name}`: {} paths only in A, {} only in B, {} with changed counts",
                        only_in_a.len(),
                        only_in_b.len(),
                        changed.len()
                    )?;
                    for (side, paths) in [("A", only_in_a), ("B", only_in_b)] {
                        for p in paths {
                            writeln!(
                                out,
                                "  only in {side}: path {} ran {} times, lines {}",
                                p.id,
                                p.count,
                                lines(&p.lines)
                            )?;
                        }
                    }
                    for c in changed {
                        writeln!(
                            out,
                            "  changed: path {} ran {} → {} times, lines {}",
                            c.id,
                            c.count_a,
                            c.count_b,
                            lines(&c.lines)
                        )?;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::Storage;
    use super::*;
    use crate::ball_larus::BallLarus;
    use crate::cfg::Cfg;

    /// 004 Fig. 8: `if (age < 15) B else C; if (college) D else E; if (items > 3) F else G`.
    /// Node ids: 0 test age, 1 B, 2 C, 3 test college, 4 D, 5 E, 6 test items, 7 F, 8 G, 9 exit.
    fn year_2000_example() -> (Cfg, BallLarus) {
        let cfg = Cfg::from_edges(
            10,
            0,
            9,
            &[
                (0, 1),
                (0, 2),
                (1, 3),
                (2, 3),
                (3, 4),
                (3, 5),
                (4, 6),
                (5, 6),
                (6, 7),
                (6, 8),
                (7, 9),
                (8, 9),
            ],
        )
        .unwrap();
        let bl = BallLarus::new(&cfg).unwrap();
        (cfg, bl)
    }

    /// The paths named by their actions, e.g. "BDF", with their ids.
    fn named_paths(cfg: &Cfg, bl: &BallLarus) -> BTreeMap<String, u64> {
        let action = |v: usize| "_BC_DE_FG_".chars().nth(v).filter(|&c| c != '_');
        bl.enumerate_paths(100)
            .paths
            .iter()
            .map(|p| {
                let name = p.nodes(cfg).iter().filter_map(|v| action(v.0)).collect();
                (name, p.id)
            })
            .collect()
    }

    fn spectrum(names: &[&str], ids: &BTreeMap<String, u64>) -> Profile {
        let mut profile = Profile::new(Mode::Bl, "people.pl", vec![]);
        let mut f = FunctionProfile::new("main", "h", 8, Storage::Array);
        f.paths = names
            .iter()
            .map(|n| PathCount {
                id: ids[*n],
                count: 10,
                lines: vec![],
            })
            .collect();
        profile.functions.push(f);
        profile
    }

    #[test]
    fn year_2000_path_spectra() {
        let (cfg, bl) = year_2000_example();
        assert_eq!(bl.num_paths(), 8);
        let ids = named_paths(&cfg, &bl);
        // Before 2000 nobody under 15 went to college; after, every age is negative (< 15),
        // so block C never runs and BDF, BDG appear.
        let pre = spectrum(&["BEF", "BEG", "CDF", "CDG", "CEF", "CEG"], &ids);
        let post = spectrum(&["BDF", "BDG", "BEF", "BEG"], &ids);
        let result = diff(&pre, &post).unwrap();
        let FunctionComparison::Compared {
            only_in_a,
            only_in_b,
            changed,
        } = &result.functions[0].comparison
        else {
            panic!("same code must be compared")
        };
        let names = |paths: &[PathCount]| -> Vec<&str> {
            paths
                .iter()
                .map(|p| ids.iter().find(|(_, id)| **id == p.id).unwrap().0.as_str())
                .collect()
        };
        let mut only_pre = names(only_in_a);
        only_pre.sort();
        let mut only_post = names(only_in_b);
        only_post.sort();
        assert_eq!(only_pre, vec!["CDF", "CDG", "CEF", "CEG"]);
        assert_eq!(only_post, vec!["BDF", "BDG"]);
        assert!(changed.is_empty());
        assert!(
            result
                .to_string()
                .contains("4 paths only in A, 2 only in B")
        );
        assert!(!result.is_empty());
    }

    #[test]
    fn refuses_functions_with_different_code_and_other_modes() {
        let ids = BTreeMap::from([("X".to_string(), 1)]);
        let a = spectrum(&["X"], &ids);
        let mut b = a.clone();
        b.functions[0].cfg_hash = "other".into();
        let result = diff(&a, &b).unwrap();
        assert!(matches!(
            result.functions[0].comparison,
            FunctionComparison::HashMismatch { .. }
        ));
        assert!(result.to_string().contains("different code"));
        b.mode = Mode::Edge;
        assert!(diff(&a, &b).is_err());
        assert!(diff(&a, &a).unwrap().is_empty());
    }
}
