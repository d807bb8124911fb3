//! From the runtime's path counters to profile records: each executed id is regenerated to its
//! blocks, which give its source lines.

use crate::ball_larus::BallLarus;
use crate::cfg::{Cfg, NodeId};
use crate::profile::{FunctionProfile, ModeRecord, PathCount, Storage};
use crate::regenerate::CfgPath;

/// A counted id that is not a path of the function (corrupted counters).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("path id {id} is out of range (the function has {num_paths} paths)")]
pub struct UnknownPath {
    pub id: u64,
    pub num_paths: u64,
}

/// A function record with no paths yet, whose ids are `numbering`'s (`num_paths`,
/// `truncated`), counted in `storage`.
pub fn function_profile(
    name: &str,
    cfg_hash: &str,
    numbering: &BallLarus,
    storage: Storage,
    record: ModeRecord,
) -> FunctionProfile {
    let mut function = FunctionProfile::new(name, cfg_hash, numbering.num_paths(), storage, record);
    function.truncated = numbering.is_truncated();
    function
}

/// The executed paths from `(id, count)` pairs, in id order, zero counts left out. Each path's
/// lines are those of its blocks (`node_lines`) in execution order, consecutive duplicates
/// removed.
pub fn executed_paths<I: IntoIterator<Item = u32>>(
    numbering: &BallLarus,
    cfg: &Cfg,
    counts: impl IntoIterator<Item = (u64, u64)>,
    node_lines: impl FnMut(NodeId) -> I,
) -> Result<Vec<PathCount>, UnknownPath> {
    let num_paths = numbering.num_paths();
    executed_paths_of(|id| numbering.path(id), num_paths, cfg, counts, node_lines)
}

/// [`executed_paths`] for any numbering: `path` regenerates ids below `num_paths` (TPP's hot
/// paths, say).
pub fn executed_paths_of<I: IntoIterator<Item = u32>>(
    path: impl Fn(u64) -> Option<CfgPath>,
    num_paths: u64,
    cfg: &Cfg,
    counts: impl IntoIterator<Item = (u64, u64)>,
    mut node_lines: impl FnMut(NodeId) -> I,
) -> Result<Vec<PathCount>, UnknownPath> {
    let mut paths = Vec::new();
    for (id, count) in counts.into_iter().filter(|&(_, count)| count > 0) {
        let path = path(id).ok_or(UnknownPath { id, num_paths })?;
        let mut lines: Vec<u32> = path
            .nodes(cfg)
            .into_iter()
            .flat_map(&mut node_lines)
            .collect();
        lines.dedup();
        paths.push(PathCount { id, count, lines });
    }
    paths.sort_by_key(|p| p.id);
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples::add_even_numbers;

    #[test]
    fn add_even_numbers_profile_record() {
        // [PFP] Fig. 10 with one source line per block (block k on line k + 1; the exit has none).
        let cfg = add_even_numbers();
        let bl = BallLarus::new(&cfg).unwrap();
        let mut function = function_profile("add_even", "h", &bl, Storage::Hash, ModeRecord::Bl);
        assert_eq!(function.num_paths, 6);
        let lines = |v: NodeId| (v != cfg.exit()).then_some(v.0 as u32 + 2);
        function.paths =
            executed_paths(&bl, &cfg, [(4, 1), (0, 1), (2, 1), (5, 0)], lines).unwrap();
        let summary: Vec<(u64, Vec<u32>)> = function
            .paths
            .iter()
            .map(|p| (p.id, p.lines.clone()))
            .collect();
        assert_eq!(
            summary,
            vec![
                (0, vec![4, 5, 6, 7]),
                (2, vec![4, 8]),
                (4, vec![2, 3, 4, 5, 7])
            ]
        );
        assert_eq!(
            executed_paths(&bl, &cfg, [(6, 1)], lines),
            Err(UnknownPath {
                id: 6,
                num_paths: 6
            })
        );
    }
}
