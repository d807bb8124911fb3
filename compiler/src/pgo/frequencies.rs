//! A path profile mapped back onto the MIR as lowered (the code it was taken on): block and
//! edge frequencies, and each executed path's blocks and how it ends, by regenerating every
//! executed Ball-Larus path id into its CFG edges ([PPP] Fig. 1 run backwards); or an edge
//! profile's block frequencies alone, to compare edge-guided with path-guided recompilation. The numbering is the one `--profile=bl|kbl` instrumented with, so ids agree
//! by construction.

use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::profile::{EdgeRecord, FunctionProfile, KipfNode, ModeRecord};
use pcc_profiler::regenerate::{CfgPath, PathEnd};

use crate::mir::{BlockId, Function, IdVec};
use crate::profiling::{block, function_cfg};

/// An executed path of the profile, in MIR terms.
pub struct ExecutedPath {
    pub id: u64,
    pub count: u64,
    /// Its blocks in execution order (EXIT left out).
    pub blocks: Vec<BlockId>,
    /// The loop header it ends by jumping back to, if it ends at a back edge.
    pub back_to: Option<BlockId>,
}

/// What the profile says about one function.
pub struct Frequencies<'a> {
    /// Executions of each block (by lowered block id).
    pub block: IdVec<BlockId, u64>,
    pub paths: Vec<ExecutedPath>,
    /// `kbl`: the k-iteration path forest of the function ([KBLPP]), if the profile has one.
    pub kipf: Option<&'a [KipfNode]>,
    /// The forest's depth (its k, if some sequence was that long); 0 without one.
    pub depth: usize,
}

impl<'a> Frequencies<'a> {
    /// Maps `profile` (already checked to be of this code: same `cfg_hash`) onto `func`, or says
    /// why it does not fit.
    pub fn new(func: &Function, profile: &'a FunctionProfile) -> Result<Frequencies<'a>, String> {
        if let ModeRecord::Edge(edges) = &profile.record {
            return Self::of_edges(func, edges);
        }
        let fcfg = function_cfg(func);
        // The numbering of `profiling::instrument` for `bl` and `kbl`: no cut edges, no limit.
        let numbering = BallLarus::with_cuts(&fcfg.cfg, &[], u64::MAX)
            .map_err(|e| format!("cannot number its paths: {e}"))?;
        if numbering.num_paths() != profile.num_paths {
            return Err(format!(
                "the profile has {} potential paths, the code {}",
                profile.num_paths,
                numbering.num_paths()
            ));
        }
        let exit = fcfg.exit();
        let mut counts = IdVec::from_elem(0u64, func.blocks.len());
        let mut paths = Vec::new();
        // `ppp`'s residual paths too: every executed path by its Ball-Larus id.
        for record in profile.executed_paths().filter(|p| p.count > 0) {
            let path: CfgPath = numbering
                .path(record.id)
                .ok_or_else(|| format!("path id {} out of range", record.id))?;
            let blocks: Vec<BlockId> = path
                .nodes(&fcfg.cfg)
                .into_iter()
                .filter(|&v| v != exit)
                .map(block)
                .collect();
            for &b in &blocks {
                counts[b] += record.count;
            }
            let back_to = match path.end {
                PathEnd::BackEdge(e) => Some(block(fcfg.cfg.edge(e).to)),
                _ => None,
            };
            paths.push(ExecutedPath {
                id: record.id,
                count: record.count,
                blocks,
                back_to,
            });
        }
        fn depth(nodes: &[KipfNode]) -> usize {
            nodes
                .iter()
                .map(|n| 1 + depth(&n.children))
                .max()
                .unwrap_or(0)
        }
        let kipf = match &profile.record {
            ModeRecord::Kbl(kbl) => Some(kbl.kipf.as_slice()),
            _ => None,
        };
        Ok(Frequencies {
            block: counts,
            paths,
            depth: kipf.map_or(0, depth),
            kipf,
        })
    }

    /// What an edge profile says: each block's executions (the larger of its edges' counts in
    /// and out, so that the entry block and a block that stopped the program are counted), and
    /// no paths: cold blocks and hot call sites, but nothing to unroll or make a superblock of.
    fn of_edges(func: &Function, record: &EdgeRecord) -> Result<Frequencies<'a>, String> {
        if record.num_blocks != func.blocks.len() {
            return Err(format!(
                "the profile has {} blocks, the code {}",
                record.num_blocks,
                func.blocks.len()
            ));
        }
        let (mut into, mut out) = (
            IdVec::from_elem(0u64, func.blocks.len()),
            IdVec::from_elem(0u64, func.blocks.len()),
        );
        for e in &record.edges {
            let from = BlockId::new(e.from_block);
            out[from] = out[from].saturating_add(e.count);
            if e.to_block < record.num_blocks {
                let to = BlockId::new(e.to_block);
                into[to] = into[to].saturating_add(e.count);
            }
        }
        let block = into
            .iter()
            .zip(out.iter())
            .map(|(&i, &o)| i.max(o))
            .collect();
        Ok(Frequencies {
            block,
            paths: Vec::new(),
            kipf: None,
            depth: 0,
        })
    }

    /// Statements (terminators included) the function executed, as the profile counts them.
    pub fn weight(&self, func: &Function) -> u64 {
        self.block
            .iter()
            .zip(&func.blocks)
            .map(|(&count, b)| count.saturating_mul(b.stmts.len() as u64 + 1))
            .sum()
    }

    /// How many times in a row path `id` ran at most, as far as the k-IPF shows, counting only
    /// the run lengths that at least `share` of its executions start: the longest chain
    /// `id, id, …, id` of the forest whose count is at least `share` × the path's count ([KBLPP]
    /// §"Selective loop unrolling": the copy and blur paths of the masked convolution run ≥ 10
    /// times in a row in 95–99% of the cases). 0 without a k-IPF; [`Frequencies::depth`] when
    /// the runs are at least as long as the forest can show.
    pub fn run_length(&self, id: u64, share: f64) -> usize {
        let Some(forest) = self.kipf else {
            return 0;
        };
        let Some(root) = forest.iter().find(|n| n.id == id) else {
            return 0;
        };
        let needed = share * root.count as f64;
        let mut length = 1;
        let mut node = root;
        while let Some(next) = node.children.iter().find(|n| n.id == id) {
            if (next.count as f64) < needed {
                break;
            }
            length += 1;
            node = next;
        }
        length
    }
}
