//! The profile of a `--profile=wpp` run, built from the whole program path when the program ends.
//!
//! Each function gets the record `--profile=bl` would write for the same run: its Ball-Larus
//! paths (numbered on its CFG as lowered), counted by rejoining the pieces of each activation
//! that the trace holds ([`Rejoin`]). The top-level `"wpp"` field holds the grammar and the
//! symbol table, each symbol named by function and piece id, with its source lines and cost.

use std::collections::BTreeMap;

use super::pieces::{CallSplit, Rejoin};
use super::section::PathSymbol;
use super::trace::WppTrace;
use crate::cfg::NodeId;
use crate::collect::{executed_paths, function_profile};
use crate::profile::Profile;
use crate::spec::{FunctionSpec, ProfileSpec};

/// A function's split CFG, its numberings, and the source lines of its original blocks.
struct Function<'s> {
    spec: &'s FunctionSpec,
    split: CallSplit,
    original_lines: Vec<Vec<u32>>,
}

impl<'s> Function<'s> {
    fn new(spec: &'s FunctionSpec) -> Result<Function<'s>, String> {
        let cfg = spec.cfg().map_err(|e| e.to_string())?;
        let split = CallSplit::new(cfg, &spec.call_cuts).map_err(|e| e.to_string())?;
        if split.pieces.num_paths() != spec.num_paths {
            return Err(format!(
                "numbered {} paths, but the program was instrumented for {}",
                split.pieces.num_paths(),
                spec.num_paths
            ));
        }
        // A split block's lines follow those of the block it was split from.
        let mut original_lines = vec![Vec::new(); split.original.num_nodes()];
        for (v, lines) in spec.node_lines.iter().enumerate() {
            original_lines[split.original_node(NodeId(v)).0].extend(lines);
        }
        original_lines.iter_mut().for_each(|l| l.dedup());
        Ok(Function {
            spec,
            split,
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
        if let Some(piece) = self.split.pieces.path(id) {
            let nodes = piece.nodes(&self.split.split);
            symbol.lines = nodes
                .iter()
                .flat_map(|v| self.spec.node_lines.get(v.0).into_iter().flatten())
                .copied()
                .collect();
            symbol.lines.dedup();
            let costs = &self.spec.node_costs;
            symbol.cost = Some(nodes.iter().filter_map(|v| costs.get(v.0)).sum());
        }
        symbol
    }
}

/// The profile of a `wpp` run whose trace is `trace` (terminal `t` is path `trace.symbols[t]`,
/// its function being an index into `spec.functions`), with the problems found on the way.
pub fn wpp_profile(
    spec: &ProfileSpec,
    args: Vec<String>,
    trace: &WppTrace,
) -> (Profile, Vec<String>) {
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
        function(f).map(|f| &f.split)
    });
    let mut counts: Vec<BTreeMap<u64, u64>> = vec![BTreeMap::new(); functions.len()];
    match trace.grammar.iter().try_for_each(|t| rejoin.push(t)) {
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
        let paths = &f.split.paths;
        let mut record = function_profile(&f.spec.name, &f.spec.cfg_hash, paths, spec.array_limit);
        let lines = |v: NodeId| f.original_lines[v.0].clone();
        match executed_paths(paths, &f.split.original, counts, lines) {
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
        Ok(section) => profile.wpp = Some(section.to_value()),
        Err(e) => problems.push(e.to_string()),
    }
    (profile, problems)
}
