//! `pcc profile diff`: path spectra comparison ([PFP] §5.3, after Reps et al.). Two runs of the
//! same program that differ in one input value (a date before and after 2000, in the paper's
//! Figure 8) are compared path by path: paths that ran in only one of them, and paths whose
//! counts changed, point at the code that depends on that value. Edge profiles, which have no
//! paths, are compared edge by edge.

use std::collections::BTreeMap;
use std::fmt::{self, Write};

use serde::Serialize;

use super::printable::printable;
use super::text::{SourceLines, Table, edge_lines, edge_name, line_list, write_source};
use super::{FunctionProfile, Kinship, Mode, ModeRecord, PathCount, Profile};

/// Why two profiles cannot be compared at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DiffError {
    #[error(
        "mode `{a}` in A and `{b}` in B; only profiles of the same mode can be compared, or two \
         of bl, ppp, kbl and wpp, which all list Ball-Larus paths"
    )]
    ModeMismatch { a: Mode, b: Mode },
    /// Profiles of two different programs ([`super::Kinship::Other`]).
    #[error(
        "A is a profile of program `{}` and B of `{}`, different programs (another source path \
         and other bytes, and no function with the same code); only profiles of the same \
         program can be compared",
        printable(.a),
        printable(.b)
    )]
    ProgramMismatch { a: String, b: String },
}

/// A path that ran in both profiles with different counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CountChange {
    pub id: u64,
    pub lines: Vec<u32>,
    pub count_a: u64,
    pub count_b: u64,
}

/// A CFG edge whose count differs (edge profiles).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EdgeChange {
    pub from_block: usize,
    pub to_block: usize,
    /// `to_block` is EXIT.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub to_exit: bool,
    pub from_line: u32,
    pub to_line: u32,
    pub count_a: u64,
    pub count_b: u64,
}

/// A basic block whose count differs (block profiles).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BlockChange {
    pub block: usize,
    pub lines: Vec<u32>,
    pub count_a: u64,
    pub count_b: u64,
}

/// How the spectra of one function differ.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Spectra {
    pub only_in_a: Vec<PathCount>,
    pub only_in_b: Vec<PathCount>,
    pub changed: Vec<CountChange>,
    /// Edge profiles: the edges whose counts differ, in CFG order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed_edges: Vec<EdgeChange>,
    /// Block profiles: the blocks whose counts differ, in id order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed_blocks: Vec<BlockChange>,
}

impl Spectra {
    pub fn is_empty(&self) -> bool {
        self.only_in_a.is_empty()
            && self.only_in_b.is_empty()
            && self.changed.is_empty()
            && self.changed_edges.is_empty()
            && self.changed_blocks.is_empty()
    }

    /// Every source line the differences name.
    pub fn lines(&self) -> impl Iterator<Item = u32> + '_ {
        let paths = self.only_in_a.iter().chain(&self.only_in_b);
        let paths = paths.flat_map(|p| p.lines.iter().copied());
        let changed = self.changed.iter().flat_map(|c| c.lines.iter().copied());
        let edges = self
            .changed_edges
            .iter()
            .flat_map(|e| [e.from_line, e.to_line]);
        let blocks = self
            .changed_blocks
            .iter()
            .flat_map(|b| b.lines.iter().copied());
        paths.chain(changed).chain(edges).chain(blocks)
    }
}

/// The comparison of one function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum FunctionComparison {
    Compared(Spectra),
    /// Refused: the two profiles were made from different code of this function.
    HashMismatch {
        hash_a: String,
        hash_b: String,
    },
    /// Refused: `tpp` numbered the paths from different edge profiles or thresholds.
    NumberingMismatch,
    OnlyInA,
    OnlyInB,
}

impl FunctionComparison {
    /// Why the function was not compared, if it was refused.
    pub fn refusal(&self) -> Option<String> {
        match self {
            FunctionComparison::HashMismatch { hash_a, hash_b } => Some(format!(
                "not compared: the profiles come from different code of this function \
                 (cfg_hash {hash_a} in A, {hash_b} in B), so one of them is stale"
            )),
            FunctionComparison::NumberingMismatch => Some(
                "not compared: tpp numbered its paths from different edge profiles or \
                 thresholds in A and B, so the same id names different paths"
                    .to_string(),
            ),
            _ => None,
        }
    }
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
    /// A's mode.
    pub mode: Mode,
    /// B's mode, when it is another scheme that lists Ball-Larus paths (`bl` against `ppp`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode_b: Option<Mode>,
    pub functions: Vec<FunctionDiff>,
    /// Differences left out by [`SpectraDiff::keep_largest`] (`--top`, `--min-count`).
    #[serde(skip_serializing_if = "is_zero")]
    pub omitted: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Compares the path spectra of `a` and `b`: profiles of one mode, or of two modes that both
/// list Ball-Larus paths ([`Mode::lists_ball_larus_paths`]), whose ids then name the same paths.
pub fn diff(a: &Profile, b: &Profile) -> Result<SpectraDiff, DiffError> {
    let same_numbering =
        a.mode == b.mode || (a.mode.lists_ball_larus_paths() && b.mode.lists_ball_larus_paths());
    if !same_numbering {
        return Err(DiffError::ModeMismatch {
            a: a.mode,
            b: b.mode,
        });
    }
    if a.kinship(b) == Kinship::Other {
        return Err(DiffError::ProgramMismatch {
            a: a.program.clone(),
            b: b.program.clone(),
        });
    }
    let mut functions: Vec<FunctionDiff> = a
        .functions
        .iter()
        .map(|fa| FunctionDiff {
            name: fa.name.clone(),
            comparison: match b.function(&fa.name) {
                Some(fb) if a.tpp != b.tpp => {
                    FunctionComparison::NumberingMismatch.unless_stale(fa, fb)
                }
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
    Ok(SpectraDiff {
        mode: a.mode,
        mode_b: (b.mode != a.mode).then_some(b.mode),
        functions,
        omitted: 0,
    })
}

impl FunctionComparison {
    /// `self`, unless the function's code differs between the profiles (reported first).
    fn unless_stale(self, a: &FunctionProfile, b: &FunctionProfile) -> FunctionComparison {
        if a.cfg_hash != b.cfg_hash {
            FunctionComparison::HashMismatch {
                hash_a: a.cfg_hash.clone(),
                hash_b: b.cfg_hash.clone(),
            }
        } else {
            self
        }
    }
}

fn compare(a: &FunctionProfile, b: &FunctionProfile) -> FunctionComparison {
    let tpp_numbering = |f: &FunctionProfile| match &f.record {
        ModeRecord::Tpp(t) => t.edge_counts.clone(),
        _ => None,
    };
    if a.cfg_hash != b.cfg_hash || tpp_numbering(a) != tpp_numbering(b) {
        return FunctionComparison::NumberingMismatch.unless_stale(a, b);
    }
    // A PPP profile's spectrum is its interesting and residual paths together.
    let executed = |f: &FunctionProfile| -> BTreeMap<u64, PathCount> {
        f.executed_paths()
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
    // The same code has the same edges in the same order.
    let changed_edges = match (a.edges(), b.edges()) {
        (Some(ea), Some(eb)) => ea
            .iter()
            .zip(eb)
            .filter(|(x, y)| x.count != y.count)
            .map(|(x, y)| EdgeChange {
                from_block: x.from_block,
                to_block: x.to_block,
                to_exit: Some(x.to_block) == a.num_blocks(),
                from_line: x.from_line,
                to_line: x.to_line,
                count_a: x.count,
                count_b: y.count,
            })
            .collect(),
        _ => Vec::new(),
    };
    // And the same blocks.
    let changed_blocks = match (a.blocks(), b.blocks()) {
        (Some(ba), Some(bb)) => ba
            .iter()
            .zip(bb)
            .filter(|(x, y)| x.count != y.count)
            .map(|(x, y)| BlockChange {
                block: x.block,
                lines: x.lines.clone(),
                count_a: x.count,
                count_b: y.count,
            })
            .collect(),
        _ => Vec::new(),
    };
    FunctionComparison::Compared(Spectra {
        only_in_a: only(&in_a, &in_b),
        only_in_b: only(&in_b, &in_a),
        changed,
        changed_edges,
        changed_blocks,
    })
}

/// One difference's place in a [`SpectraDiff`], to keep or leave out: which function's spectra,
/// which list of them and where in it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Place {
    function: usize,
    list: usize,
    index: usize,
}

impl Spectra {
    /// The size of each difference, list by list in the field order (only in A, only in B,
    /// changed, edges, blocks): the count of a path that ran in one profile only, else how far
    /// the counts moved.
    fn sizes(&self) -> [Vec<u64>; 5] {
        let moved = |a: u64, b: u64| a.abs_diff(b);
        [
            self.only_in_a.iter().map(|p| p.count).collect(),
            self.only_in_b.iter().map(|p| p.count).collect(),
            self.changed
                .iter()
                .map(|c| moved(c.count_a, c.count_b))
                .collect(),
            (self.changed_edges.iter())
                .map(|e| moved(e.count_a, e.count_b))
                .collect(),
            (self.changed_blocks.iter())
                .map(|b| moved(b.count_a, b.count_b))
                .collect(),
        ]
    }

    /// Keeps the differences whose list and index `keep` accepts.
    fn retain(&mut self, keep: impl Fn(usize, usize) -> bool) {
        fn retain_indexed<T>(items: &mut Vec<T>, keep: impl Fn(usize) -> bool) {
            let mut index = 0;
            items.retain(|_| {
                index += 1;
                keep(index - 1)
            });
        }
        retain_indexed(&mut self.only_in_a, |i| keep(0, i));
        retain_indexed(&mut self.only_in_b, |i| keep(1, i));
        retain_indexed(&mut self.changed, |i| keep(2, i));
        retain_indexed(&mut self.changed_edges, |i| keep(3, i));
        retain_indexed(&mut self.changed_blocks, |i| keep(4, i));
    }
}

impl SpectraDiff {
    /// Leaves out every difference smaller than `min_count` and, of the others, all but the
    /// `top` largest (ties kept in report order); [`SpectraDiff::omitted`] counts what went.
    /// Two profiles of a long run can differ in millions of paths: this is what makes their
    /// diff readable.
    pub fn keep_largest(&mut self, top: Option<usize>, min_count: u64) {
        let mut sized: Vec<(u64, Place)> = Vec::new();
        for (function, f) in self.functions.iter().enumerate() {
            if let FunctionComparison::Compared(spectra) = &f.comparison {
                for (list, sizes) in spectra.sizes().into_iter().enumerate() {
                    let places = sizes.into_iter().enumerate().map(|(index, size)| {
                        let place = Place {
                            function,
                            list,
                            index,
                        };
                        (size, place)
                    });
                    sized.extend(places);
                }
            }
        }
        let all = sized.len();
        sized.retain(|&(size, _)| size >= min_count);
        if let Some(top) = top {
            // A stable sort keeps equal sizes in report order.
            sized.sort_by_key(|&(size, _)| std::cmp::Reverse(size));
            sized.truncate(top);
        }
        let kept: std::collections::HashSet<Place> = sized.iter().map(|&(_, p)| p).collect();
        self.omitted += all - kept.len();
        for (function, f) in self.functions.iter_mut().enumerate() {
            if let FunctionComparison::Compared(spectra) = &mut f.comparison {
                spectra.retain(|list, index| {
                    kept.contains(&Place {
                        function,
                        list,
                        index,
                    })
                });
            }
        }
    }

    /// Whether the spectra are the same (no differences and nothing refused).
    pub fn is_empty(&self) -> bool {
        self.functions
            .iter()
            .all(|f| matches!(&f.comparison, FunctionComparison::Compared(s) if s.is_empty()))
    }

    /// The text report: one block per function that differs or was refused, each path with its
    /// counts in A and B and its source lines; `source_line(n)` gives the text of line `n`
    /// (`None` shows line numbers only).
    pub fn render_text(&self, source_line: SourceLines) -> String {
        let mut out = String::new();
        self.write_text(&mut out, source_line)
            .expect("writing to a String cannot fail");
        out
    }

    fn write_text(&self, out: &mut String, source_line: SourceLines) -> fmt::Result {
        if self.is_empty() && self.omitted == 0 {
            return writeln!(out, "no differences in path spectra");
        }
        let width = self
            .functions
            .iter()
            .filter_map(|f| match &f.comparison {
                FunctionComparison::Compared(s) => s.lines().max(),
                _ => None,
            })
            .max()
            .unwrap_or(0)
            .to_string()
            .len();
        for f in &self.functions {
            let name = &f.name;
            let spectra = match &f.comparison {
                FunctionComparison::Compared(s) if s.is_empty() => continue,
                FunctionComparison::Compared(s) => s,
                FunctionComparison::HashMismatch { .. } | FunctionComparison::NumberingMismatch => {
                    let refusal = f.comparison.refusal().unwrap_or_default();
                    writeln!(out, "\nfunction `{name}`: {refusal}")?;
                    continue;
                }
                FunctionComparison::OnlyInA => {
                    writeln!(out, "\nfunction `{name}`: only in A")?;
                    continue;
                }
                FunctionComparison::OnlyInB => {
                    writeln!(out, "\nfunction `{name}`: only in B")?;
                    continue;
                }
            };
            if self.mode == Mode::Edge {
                writeln!(
                    out,
                    "\nfunction `{name}`: {} edges with changed counts",
                    spectra.changed_edges.len()
                )?;
            } else if self.mode == Mode::Block {
                writeln!(
                    out,
                    "\nfunction `{name}`: {} blocks with changed counts",
                    spectra.changed_blocks.len()
                )?;
            } else {
                writeln!(
                    out,
                    "\nfunction `{name}`: {} paths only in A, {} only in B, {} with changed counts",
                    spectra.only_in_a.len(),
                    spectra.only_in_b.len(),
                    spectra.changed.len()
                )?;
            }
            write_spectra(out, spectra, width, source_line)?;
        }
        if self.omitted > 0 {
            writeln!(
                out,
                "\n{} smaller differences left out (--top, --min-count)",
                self.omitted
            )?;
        }
        Ok(())
    }
}

/// One function's differences as a table, each row followed by its source excerpt.
fn write_spectra(
    out: &mut String,
    spectra: &Spectra,
    width: usize,
    source_line: SourceLines,
) -> fmt::Result {
    // (what, path or edge, count in A, count in B, lines listed, lines shown)
    let paths = spectra
        .only_in_a
        .iter()
        .map(|p| ("only in A", p.id.to_string(), p.count, 0, &p.lines))
        .chain(
            spectra
                .only_in_b
                .iter()
                .map(|p| ("only in B", p.id.to_string(), 0, p.count, &p.lines)),
        )
        .chain(
            spectra
                .changed
                .iter()
                .map(|c| ("changed", c.id.to_string(), c.count_a, c.count_b, &c.lines)),
        )
        .map(|(what, id, a, b, lines)| (what, id, a, b, line_list(lines), lines.clone()));
    let edges = spectra.changed_edges.iter().map(|e| {
        let edge = edge_name(
            (e.from_block, e.from_line),
            (e.to_block, e.to_line),
            e.to_exit,
        );
        let lines = edge_lines(e.from_line, e.to_line);
        ("changed", edge, e.count_a, e.count_b, String::new(), lines)
    });
    let blocks = spectra.changed_blocks.iter().map(|b| {
        let block = format!("bb{}", b.block);
        let listed = line_list(&b.lines);
        (
            "changed",
            block,
            b.count_a,
            b.count_b,
            listed,
            b.lines.clone(),
        )
    });
    let rows: Vec<_> = paths.chain(edges).chain(blocks).collect();
    let item = if !spectra.changed_edges.is_empty() {
        ("edge", false)
    } else if !spectra.changed_blocks.is_empty() {
        ("block", false)
    } else {
        ("path", true)
    };
    let mut table = Table::new(&[
        ("", false),
        item,
        ("count in A", true),
        ("count in B", true),
        ("lines", false),
    ]);
    for (what, item, a, b, listed, _) in &rows {
        table.push(vec![
            what.to_string(),
            item.clone(),
            a.to_string(),
            b.to_string(),
            listed.clone(),
        ]);
    }
    let formatted = table.rows(2);
    writeln!(out, "{}", formatted[0])?;
    for (row, (.., shown)) in formatted[1..].iter().zip(&rows) {
        writeln!(out, "{row}")?;
        write_source(out, 6, width, shown, source_line)?;
    }
    Ok(())
}

/// The text report without source text.
impl fmt::Display for SpectraDiff {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str(&self.render_text(&|_| None))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{EdgeCount, EdgeRecord, SourceFile, Storage};
    use super::*;
    use crate::ball_larus::BallLarus;
    use crate::cfg::Cfg;
    use crate::examples::year_2000;

    /// [PFP] Fig. 8: `if (age < 15) B else C; if (college) D else E; if (items > 3) F else G`.
    /// Node ids: 0 test age, 1 B, 2 C, 3 test college, 4 D, 5 E, 6 test items, 7 F, 8 G, 9 exit.
    fn year_2000_example() -> (Cfg, BallLarus) {
        let cfg = year_2000();
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
        let mut profile = Profile::new(Mode::Bl, SourceFile::new("people.pl", b""), vec![]);
        let mut f = FunctionProfile::new("main", "h", 8, Storage::Array, ModeRecord::Bl);
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

    /// bl, ppp, kbl and wpp all list Ball-Larus paths, so any two of them compare; a tpp or
    /// edge profile does not compare with them.
    #[test]
    fn schemes_that_list_ball_larus_paths_compare_with_each_other() {
        let (cfg, bl) = year_2000_example();
        let ids = named_paths(&cfg, &bl);
        let a = spectrum(&["BEF", "BEG"], &ids);
        let mut b = spectrum(&["BEF", "CEG"], &ids);
        for mode in [Mode::Ppp, Mode::Kbl, Mode::Wpp] {
            b.mode = mode;
            let result = diff(&a, &b).unwrap();
            assert_eq!((result.mode, result.mode_b), (Mode::Bl, Some(mode)));
            let FunctionComparison::Compared(s) = &result.functions[0].comparison else {
                panic!("the same code must be compared")
            };
            assert_eq!((s.only_in_a.len(), s.only_in_b.len()), (1, 1));
        }
        assert_eq!(diff(&a, &a).unwrap().mode_b, None);
        for mode in [Mode::Tpp, Mode::Edge] {
            b.mode = mode;
            assert!(matches!(diff(&a, &b), Err(DiffError::ModeMismatch { .. })));
        }
    }

    /// `--min-count` drops the small differences, `--top` keeps the largest (a path's count if
    /// it ran in one profile only, else how far it moved), and what went is counted.
    #[test]
    fn keep_largest_keeps_the_largest_differences() {
        let (cfg, bl) = year_2000_example();
        let ids = named_paths(&cfg, &bl);
        let mut a = spectrum(&["BEF", "BEG", "CDF"], &ids);
        let mut b = spectrum(&["BEF", "BEG", "CDG"], &ids);
        a.functions[0].paths[0].count = 100; // BEF moves by 90
        b.functions[0].paths[1].count = 13; // BEG moves by 3
        let sizes = |d: &SpectraDiff| -> Vec<u64> {
            let FunctionComparison::Compared(s) = &d.functions[0].comparison else {
                panic!("compared")
            };
            s.sizes().concat()
        };
        let all = diff(&a, &b).unwrap();
        assert_eq!(sizes(&all), vec![10, 10, 90, 3]);
        let mut top = all.clone();
        top.keep_largest(Some(2), 0);
        assert_eq!((sizes(&top), top.omitted), (vec![10, 90], 2));
        let mut big = all.clone();
        big.keep_largest(None, 11);
        assert_eq!((sizes(&big), big.omitted), (vec![90], 3));
        assert!(
            big.render_text(&|_| None)
                .contains("3 smaller differences left out")
        );
        let mut none = all;
        none.keep_largest(None, 1000);
        assert!(none.is_empty());
        assert_eq!(none.omitted, 4);
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
        let FunctionComparison::Compared(Spectra {
            only_in_a,
            only_in_b,
            changed,
            ..
        }) = &result.functions[0].comparison
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
        let text = result.to_string();
        assert!(
            text.contains("function `main`: 4 paths only in A, 2 only in B, 0 with changed counts")
        );
        let only_b = format!("  only in B  {:>4}  {:>10}  {:>10}\n", ids["BDF"], 0, 10);
        assert!(text.contains(&only_b), "{text}");
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

    #[test]
    fn edge_profiles_compare_edge_counts() {
        let mut a = Profile::new(Mode::Edge, SourceFile::new("p.pl", b""), vec![]);
        let edges = |edges| {
            ModeRecord::Edge(EdgeRecord {
                num_blocks: 3,
                edges,
                unfinished: 0,
            })
        };
        // bb0 (line 1) → bb1 (line 2) → EXIT (line 3), and bb0 → bb2 (line 1), both lines 1.
        let edge = |from_block, to_block, count| EdgeCount {
            from_block,
            to_block,
            from_line: [1, 2, 1, 3][from_block],
            to_line: [1, 2, 1, 3][to_block],
            count,
        };
        let f = FunctionProfile::new(
            "main",
            "h",
            2,
            Storage::Array,
            edges(vec![edge(0, 1, 5), edge(1, 3, 5), edge(0, 2, 0)]),
        );
        a.functions.push(f);
        let mut b = a.clone();
        b.functions[0].record = edges(vec![edge(0, 1, 5), edge(1, 3, 4), edge(0, 2, 1)]);
        let result = diff(&a, &b).unwrap();
        let FunctionComparison::Compared(spectra) = &result.functions[0].comparison else {
            panic!("same code must be compared")
        };
        assert_eq!(
            spectra.changed_edges,
            vec![
                EdgeChange {
                    from_block: 1,
                    to_block: 3,
                    to_exit: true,
                    from_line: 2,
                    to_line: 3,
                    count_a: 5,
                    count_b: 4
                },
                EdgeChange {
                    from_block: 0,
                    to_block: 2,
                    to_exit: false,
                    from_line: 1,
                    to_line: 1,
                    count_a: 0,
                    count_b: 1
                },
            ]
        );
        let text = result.to_string();
        assert!(text.contains("function `main`: 2 edges with changed counts"));
        assert!(
            text.contains("  changed  bb1 (line 2) → exit (line 3)           5           4"),
            "{text}"
        );
    }

    #[test]
    fn json_names_each_function_status() {
        let ids = BTreeMap::from([("X".to_string(), 1), ("Y".to_string(), 2)]);
        let result = diff(&spectrum(&["X"], &ids), &spectrum(&["Y"], &ids)).unwrap();
        let json = serde_json::to_value(&result).unwrap();
        assert_eq!(json["mode"], "bl");
        let f = &json["functions"][0];
        assert_eq!(f["name"], "main");
        assert_eq!(f["status"], "compared");
        assert_eq!(f["only_in_a"][0]["id"], 1);
        assert_eq!(f["only_in_b"][0]["id"], 2);
        assert!(f.get("changed_edges").is_none());
    }
}
