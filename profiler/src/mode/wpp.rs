//! `wpp`: whole program paths ([WPP]). The function's blocks are split before each call of a
//! PL function, so that paths also end there (call cuts, [WPP] §2; [`CallSplit`]); the pieces
//! are numbered and their register code placed as in `bl`, and each piece is streamed to the
//! runtime, which builds the trace's grammar (SEQUITUR, [WPP] §3).
//!
//! Decoding gives each function the record `--profile=bl` would write for the same run: its
//! Ball-Larus paths, numbered on its CFG as lowered and counted by rejoining the pieces of each
//! activation ([`Rejoin`]). The profile's `wpp` section holds the grammar and the symbol table,
//! each symbol named by function and piece id, with its source lines and cost.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::cfg::{Cfg, NodeId};
use crate::collect::{executed_paths, function_profile};
use crate::estimate::static_edge_weights;
use crate::instrument::PathPlan;
use crate::profile::{ModeRecord, Profile, Storage};
use crate::spec::{FunctionSpec, ProfileSpec};
use crate::wpp::{CallSplit, PathSymbol, Rejoin, SplitError, WppTrace};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// The split CFG with its pieces' numbering, and the CFG as lowered with its paths'.
    pub split: CallSplit,
    /// The path register's code on each edge of the split CFG.
    pub code: PathPlan,
    /// The cost of each node of the split CFG, its number of MIR instructions, which prices
    /// paths for `pcc wpp hot` ([WPP] §5.2 uses instruction counts).
    pub node_costs: Vec<u64>,
}

/// The plan of a function whose CFG, split before calls, is `split` with call cuts `cuts`;
/// `may_stop` and the costs are by node of the split CFG.
pub fn plan(
    split: Cfg,
    cuts: &[usize],
    may_stop: &[bool],
    node_costs: Vec<u64>,
) -> Result<Plan, SplitError> {
    let split = CallSplit::new(split, cuts)?;
    let weights = static_edge_weights(&split.split, split.pieces.dag());
    let code = PathPlan::with_stops(&split.pieces, &weights, may_stop);
    Ok(Plan {
        split,
        code,
        node_costs,
    })
}

/// A function's plan, and the source lines of its original blocks.
struct Function<'s> {
    spec: &'s FunctionSpec,
    plan: &'s Plan,
    original_lines: Vec<Vec<u32>>,
}

impl<'s> Function<'s> {
    fn new(spec: &'s FunctionSpec) -> Result<Function<'s>, String> {
        let super::Plan::Wpp(plan) = &spec.plan else {
            return Err(format!("a {} plan in a wpp program", spec.plan.mode()));
        };
        let split = &plan.split;
        // A split block's lines follow those of the block it was split from.
        let mut original_lines = vec![Vec::new(); split.original.num_nodes()];
        for (v, lines) in spec.node_lines.iter().enumerate() {
            original_lines[split.original_node(NodeId(v)).0].extend(lines);
        }
        original_lines.iter_mut().for_each(|l| l.dedup());
        Ok(Function {
            spec,
            plan,
            original_lines,
        })
    }

    /// The table entry of piece `id`: its lines and its cost.
    fn symbol(&self, id: u64) -> PathSymbol {
        let mut symbol = PathSymbol {
            function: self.spec.name.clone(),
            path: id,
            cost: None,
            lines: Vec::new(),
        };
        if let Some(piece) = self.plan.split.pieces.path(id) {
            let nodes = piece.nodes(&self.plan.split.split);
            symbol.lines = nodes
                .iter()
                .flat_map(|v| self.spec.node_lines.get(v.0).into_iter().flatten())
                .copied()
                .collect();
            symbol.lines.dedup();
            let costs = &self.plan.node_costs;
            symbol.cost = Some(nodes.iter().filter_map(|v| costs.get(v.0)).sum());
        }
        symbol
    }
}

/// The profile of a `wpp` run whose trace is `trace` (terminal `t` is path `trace.symbols[t]`,
/// its function being an index into `spec.functions`), with the problems found on the way.
pub fn decode(spec: &ProfileSpec, args: Vec<String>, trace: &WppTrace) -> (Profile, Vec<String>) {
    let mut profile = spec.new_profile(args);
    let mut problems = Vec::new();
    let functions: Vec<Option<Function>> = spec
        .functions
        .iter()
        .map(|f| {
            Function::new(f)
                .map_err(|e| problems.push(format!("function `{}`: {e}", f.name)))
                .ok()
        })
        .collect();
    let function = |f: u32| functions.get(f as usize).and_then(Option::as_ref);

    let mut rejoin = Rejoin::new(trace.symbols.iter().map(|k| (k.function, k.path)), |f| {
        function(f).map(|f| &f.plan.split)
    });
    let mut counts: Vec<BTreeMap<u64, u64>> = vec![BTreeMap::new(); functions.len()];
    match rejoin.push_trace(&trace.grammar) {
        Ok(()) => {
            for ((f, id), count) in rejoin.finish() {
                if let Some(c) = counts.get_mut(f as usize) {
                    *c.entry(id).or_default() += count;
                }
            }
        }
        Err(e) => problems.push(format!("the trace does not rejoin into paths: {e}")),
    }

    for (f, counts) in functions.iter().zip(counts) {
        let Some(f) = f else { continue };
        let paths = &f.plan.split.paths;
        let storage = Storage::choose(paths.num_paths(), spec.array_limit);
        let mut record = function_profile(
            &f.spec.name,
            &f.spec.cfg_hash,
            paths,
            storage,
            ModeRecord::Wpp,
        );
        let lines = |v: NodeId| f.original_lines[v.0].clone();
        match executed_paths(paths, &f.plan.split.original, counts, lines) {
            Ok(executed) => record.paths = executed,
            Err(e) => problems.push(format!("function `{}`: {e}", f.spec.name)),
        }
        profile.functions.push(record);
    }

    let symbols = trace
        .symbols
        .iter()
        .map(|k| match function(k.function) {
            Some(f) => f.symbol(k.path),
            None => PathSymbol {
                function: format!("#{}", k.function),
                path: k.path,
                cost: None,
                lines: Vec::new(),
            },
        })
        .collect();
    match trace.section(symbols) {
        Ok(section) => profile.wpp = Some(section),
        Err(e) => problems.push(e.to_string()),
    }
    (profile, problems)
}
