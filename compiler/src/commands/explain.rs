//! `pcc paths --explain`: the path numbering of a function taught step by step, for students
//! of [BL96] and [PFP] (Sidebars 1 and 2): the DAG, NumPaths(v) in the order it is computed,
//! Val(e), the spanning tree and the chords' increments, one path regenerated from its id; and
//! for the profile-guided schemes, which paths [PPP] finds interesting and which edges [TPP]
//! finds cold, and the numbering that results.
//!
//! Nothing is recomputed here: every number is read from the structures the profiler builds
//! for `pcc run --profile` (`BallLarus`, `PathPlan`, `Ppp`, `Tpp`), on the same CFG, with the
//! same static edge weights and the same guiding profiles, so the explanation is of the code
//! that runs. The explanation itself works on any CFG with named nodes, so the tests also run
//! it on the papers' own graphs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use pcc_lang::LineIndex;
use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::cfg::{Cfg, EdgeId, NodeId};
use pcc_profiler::dag::{Dag, DagEdgeId, DagEdgeKind};
use pcc_profiler::estimate::static_edge_weights;
use pcc_profiler::instrument::{PathOp, PathPlan};
use pcc_profiler::ppp::Ppp;
use pcc_profiler::profile::Mode;
use pcc_profiler::tpp::{ColdBackEdge, Coldness, Tpp, TppConfig};

use crate::driver::{self, EXIT_COMPILE_ERROR};
use crate::lower;
use crate::mir;
use crate::notes::Notes;
use crate::profiling::{self, InterestingSource, function_cfg, node_lines};

/// The profile that guides the numbering being explained, if any.
pub enum Guide {
    None,
    /// `--interesting P`: a path profile whose executed paths PPP numbers first.
    Interesting(PathBuf),
    /// `--edge-profile P`: the edge profile TPP plans from.
    EdgeProfile(PathBuf),
}

pub fn run(file: &Path, function: Option<&str>, path: Option<u64>, guide: &Guide) -> i32 {
    let checked = match driver::front_end(file) {
        Ok(checked) => checked,
        Err(failure) => return failure.report(),
    };
    let program = lower::lower_program(&checked.program);
    let selected = match super::paths::select(&program, function, &checked.file_name) {
        Ok(selected) => selected,
        Err(status) => return status,
    };
    let (mode, interesting, edge_profile) = match guide {
        Guide::None => (None, None, None),
        Guide::Interesting(p) => (Some(Mode::Ppp), Some(p.clone()), None),
        Guide::EdgeProfile(p) => (Some(Mode::Tpp), None, Some(p.clone())),
    };
    // What the guiding profiles' passes say is printed as soon as it is said.
    let mut notes = Notes::default();
    let (interesting, edge_profile) = match mode {
        None => (None, None),
        Some(mode) => {
            let options = driver::ProfileOptions {
                mode,
                out: None,
                hash_threshold: driver::DEFAULT_HASH_THRESHOLD,
                interesting,
                interesting_share: 1.0,
                k: driver::DEFAULT_K,
                edge_profile,
                tpp: TppConfig::default(),
            };
            let sources = driver::guiding_profiles(&checked, &program, &options, &mut notes);
            driver::say(&mut notes);
            match sources {
                Ok(sources) => sources,
                Err(failure) => return failure.report(),
            }
        }
    };
    let index = LineIndex::new(&checked.source);
    let mut out = String::new();
    for func in selected {
        let fcfg = function_cfg(func);
        let graph = Graph::of_function(func, &fcfg.cfg, &checked.source, &index);
        let numbering = match BallLarus::new(&fcfg.cfg) {
            Ok(numbering) => numbering,
            Err(error) => {
                eprintln!("error: cannot number the paths of `{}`: {error}", func.name);
                return EXIT_COMPILE_ERROR;
            }
        };
        if let Some(id) = path
            && id >= numbering.num_paths()
        {
            eprintln!(
                "error: --path {id}: `{}` has {} paths, numbered 0 to {}",
                func.name,
                numbering.num_paths(),
                numbering.num_paths() - 1
            );
            return EXIT_COMPILE_ERROR;
        }
        let _ = writeln!(out, "fn {}:", func.name);
        out.push_str(&graph.blocks_table());
        out.push_str(&graph.explain_numbering(&numbering, path));
        let hash = profiling::cfg_hash(&program, func);
        let key = (func.name.as_str(), hash.as_str());
        if let Some(source) = &interesting {
            let ids = profiling::interesting_ids(Some(source), key, &numbering, &fcfg, &mut notes);
            driver::say(&mut notes);
            match Ppp::from_bl_ids(&numbering, ids) {
                Ok(ppp) => {
                    let counts = profile_counts(source, &func.name);
                    out.push_str(&graph.explain_ppp(&numbering, &ppp, counts.as_deref()));
                }
                Err(error) => {
                    eprintln!("error: cannot number the paths of `{}`: {error}", func.name);
                    return EXIT_COMPILE_ERROR;
                }
            }
        }
        if let Some(source) = &edge_profile {
            let counts = profiling::edge_counts(key, &fcfg, source, &mut notes);
            driver::say(&mut notes);
            match counts {
                Some(counts) => match Tpp::new(&fcfg.cfg, &counts, source.config) {
                    Ok(tpp) => out.push_str(&graph.explain_tpp(&tpp, &counts)),
                    Err(error) => {
                        let _ = writeln!(out, "\nTPP cannot plan `{}`: {error}", func.name);
                    }
                },
                None => {
                    let _ = writeln!(
                        out,
                        "\nTPP: no usable edge counts for `{}`: it is profiled like bl",
                        func.name
                    );
                }
            }
        }
        out.push('\n');
    }
    super::print_text(&out)
}

/// Each path's count in the interesting-path profile, by Ball-Larus id (`None` for a static
/// estimate).
fn profile_counts(source: &InterestingSource, function: &str) -> Option<Vec<(u64, u64)>> {
    match source {
        InterestingSource::Estimate { .. } => None,
        InterestingSource::Profile { profile, .. } => Some(
            profile
                .function(function)
                .map(|f| f.executed_paths().map(|p| (p.id, p.count)).collect())
                .unwrap_or_default(),
        ),
    }
}

/// A CFG whose nodes have names (`bb3`, or a paper's letters), the exit being `EXIT`.
pub struct Graph<'a> {
    cfg: &'a Cfg,
    names: Vec<String>,
    /// Per node, a description for the table of blocks (its source lines); may be empty.
    about: Vec<String>,
}

impl<'a> Graph<'a> {
    /// A graph with the given node names (the exit's is replaced by `EXIT`).
    pub fn new(cfg: &'a Cfg, names: &[&str]) -> Graph<'a> {
        let mut names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        names.resize(cfg.num_nodes(), String::new());
        names[cfg.exit().0] = "EXIT".into();
        Graph {
            cfg,
            names,
            about: Vec::new(),
        }
    }

    /// The MIR blocks of `func` as `bb0`, `bb1`, ..., described by their source lines.
    fn of_function(
        func: &mir::Function,
        cfg: &'a Cfg,
        source: &str,
        index: &LineIndex,
    ) -> Graph<'a> {
        let names: Vec<String> = (0..cfg.num_nodes()).map(|b| format!("bb{b}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let mut graph = Graph::new(cfg, &names);
        graph.about = node_lines(func, source, index)
            .iter()
            .map(|lines| match lines.as_slice() {
                [] => "no statement (a jump)".into(),
                [line] => format!("line {line}"),
                lines => {
                    let lines: Vec<String> = lines.iter().map(u32::to_string).collect();
                    format!("lines {}", lines.join(", "))
                }
            })
            .collect();
        graph
    }

    fn name(&self, v: NodeId) -> &str {
        &self.names[v.0]
    }

    fn cfg_edge(&self, e: EdgeId) -> String {
        let edge = self.cfg.edge(e);
        format!("{} → {}", self.name(edge.from), self.name(edge.to))
    }

    /// A DAG edge; dummy edges are drawn `ENTRY ⇢ w` and `v ⇢ EXIT`.
    fn dag_edge(&self, dag: &Dag, d: DagEdgeId) -> String {
        let edge = dag.edge(d);
        match edge.kind {
            DagEdgeKind::Real(_) => format!("{} → {}", self.name(edge.from), self.name(edge.to)),
            DagEdgeKind::EntryDummy => format!("ENTRY ⇢ {}", self.name(edge.to)),
            _ => format!("{} ⇢ EXIT", self.name(edge.from)),
        }
    }

    /// What a dummy DAG edge stands for; empty for a real edge.
    fn dummy_note(&self, dag: &Dag, d: DagEdgeId) -> String {
        let edge = dag.edge(d);
        match edge.kind {
            DagEdgeKind::Real(_) => String::new(),
            DagEdgeKind::EntryDummy => {
                let closing: Vec<String> = self
                    .cfg
                    .preds(edge.to)
                    .iter()
                    .filter(|&&e| !matches!(dag.role(e), pcc_profiler::dag::EdgeRole::Dag(_)))
                    .map(|&e| self.cfg_edge(e))
                    .collect();
                format!(
                    "a path starts at {} after {}",
                    self.name(edge.to),
                    closing.join(" or ")
                )
            }
            DagEdgeKind::BackExit(e) => {
                format!("a path ends by taking back edge {}", self.cfg_edge(e))
            }
            DagEdgeKind::CutExit(e) => format!(
                "a path ends by taking {}, cut: the function has too many paths",
                self.cfg_edge(e)
            ),
            DagEdgeKind::DeadEnd => format!(
                "{} has no successor: the program stops in it",
                self.name(edge.from)
            ),
        }
    }

    fn blocks_table(&self) -> String {
        let mut out = String::from(
            "  blocks (MIR as lowered, numbered as `pcc run --profile` numbers them):\n",
        );
        for (v, about) in self.about.iter().enumerate() {
            if v != self.cfg.exit().0 {
                let _ = writeln!(out, "    {:<6} {about}", self.names[v]);
            }
        }
        out
    }

    /// Steps 1 to 5 of the Ball-Larus numbering; `path` is the id regenerated in step 5
    /// (default: the last one).
    pub fn explain_numbering(&self, bl: &BallLarus, path: Option<u64>) -> String {
        let mut out = String::new();
        self.dag_step(bl, &mut out);
        self.num_paths_step(bl, &mut out);
        self.val_step(bl, &mut out);
        let plan = self.instrumentation_step(bl, &mut out);
        if let Some(id) = path.or(bl.num_paths().checked_sub(1)) {
            self.regeneration_step(bl, &plan, id, &mut out);
        }
        wrap(&out)
    }

    /// 1. The DAG and its dummy edges ([BL96] §3.1).
    fn dag_step(&self, bl: &BallLarus, out: &mut String) {
        let dag = bl.dag();
        let entry = self.name(dag.entry()).to_string();
        let _ = writeln!(
            *out,
            "\n1. The DAG ([BL96] §3.1). A depth-first search from the entry {entry} finds the back \
             edges; each back edge v → w is replaced by two dummy edges (drawn ⇢): ENTRY ⇢ w (a \
             path may start at w) and v ⇢ EXIT (a path may end by taking v → w). Then every path from \
             ENTRY to EXIT is acyclic, and there are finitely many."
        );
        let back: Vec<String> = dag.back_edges().iter().map(|&e| self.cfg_edge(e)).collect();
        let _ = writeln!(
            *out,
            "   back edges: {}",
            if back.is_empty() {
                "none".into()
            } else {
                back.join(", ")
            }
        );
        if !dag.cut_edges().is_empty() {
            let cut: Vec<String> = dag.cut_edges().iter().map(|&e| self.cfg_edge(e)).collect();
            let _ = writeln!(
                *out,
                "   edges cut to keep the number of paths within 64 bits ([TPP] §2.1), made dummies \
                 the same way: {}",
                cut.join(", ")
            );
        }
        let _ = writeln!(*out, "   DAG edges, each node's out-edges in their order:");
        for (d, _) in dag.edges() {
            let note = self.dummy_note(dag, d);
            let _ = writeln!(*out, "     {:<16} {note}", self.dag_edge(dag, d));
        }
    }

    /// 2. NumPaths of every node, in reverse topological order.
    fn num_paths_step(&self, bl: &BallLarus, out: &mut String) {
        let dag = bl.dag();
        let entry = self.name(dag.entry()).to_string();
        let _ = writeln!(
            *out,
            "\n2. NumPaths(v), the number of paths from v to EXIT, in reverse topological order \
             (every successor before its predecessors): NumPaths(EXIT) = 1, and any other \
             node's is the sum of NumPaths over the targets of its out-edges."
        );
        for &v in dag.topological_order().iter().rev() {
            if !dag.contains(v) {
                continue;
            }
            let n = bl.paths_from(v);
            if v == dag.exit() {
                let _ = writeln!(*out, "     NumPaths(EXIT) = 1");
                continue;
            }
            let targets: Vec<NodeId> = dag.outs(v).iter().map(|&d| dag.edge(d).to).collect();
            let names: Vec<String> = targets
                .iter()
                .map(|&w| format!("NumPaths({})", self.name(w)))
                .collect();
            let values: Vec<String> = targets
                .iter()
                .map(|&w| bl.paths_from(w).to_string())
                .collect();
            let sum = if targets.len() > 1 {
                format!(" = {}", values.join(" + "))
            } else {
                String::new()
            };
            let _ = writeln!(
                *out,
                "     NumPaths({}) = {}{sum} = {n}",
                self.name(v),
                names.join(" + ")
            );
        }
        let _ = writeln!(
            *out,
            "   The function has NumPaths({entry}) = {} potential paths, ids 0 to {}.",
            bl.num_paths(),
            bl.num_paths().saturating_sub(1)
        );
    }

    /// 3. Val of every DAG edge ([BL96] Fig. 5).
    fn val_step(&self, bl: &BallLarus, out: &mut String) {
        let dag = bl.dag();
        let _ = writeln!(
            *out,
            "\n3. Val(e) ([BL96] Fig. 5): each node gives its out-edges, in order, consecutive \
             blocks of ids: Val of an out-edge is the sum of NumPaths over the targets of the \
             out-edges before it (0 for the first). A path's id is the sum of Val along it."
        );
        for &v in dag.topological_order() {
            let outs = dag.outs(v);
            for (i, &d) in outs.iter().enumerate() {
                let before: Vec<String> = outs[..i]
                    .iter()
                    .map(|&p| format!("NumPaths({})", self.name(dag.edge(p).to)))
                    .collect();
                let why = if before.is_empty() {
                    String::new()
                } else {
                    format!("  = {}", before.join(" + "))
                };
                let _ = writeln!(
                    *out,
                    "     Val({}) = {}{why}",
                    self.dag_edge(dag, d),
                    bl.increment(d)
                );
            }
        }
    }

    /// 4. The spanning tree, the chords and their increments ([BL96] §3.3); the plan.
    fn instrumentation_step(&self, bl: &BallLarus, out: &mut String) -> PathPlan {
        let dag = bl.dag();
        let weights = static_edge_weights(self.cfg, dag);
        let plan = PathPlan::new(bl, &weights);
        let _ = writeln!(
            *out,
            "\n4. Instrumentation ([BL96] §3.3, the event counting of [BL94]): a maximum spanning \
             tree of the DAG plus the edge EXIT → ENTRY, its edges weighted by their estimated \
             frequency (deeper loops weigh more). Tree edges get no code. Each chord c (an edge \
             not in the tree) gets Inc(c), the sum of Val around the cycle c closes in the tree \
             (Val taken backwards on edges crossed backwards), so the Incs along any path still \
             add up to its id, with fewer additions on the hot edges."
        );
        let tree: Vec<String> = dag
            .edges()
            .filter(|&(d, _)| plan.in_tree(d))
            .map(|(d, _)| self.dag_edge(dag, d))
            .collect();
        let _ = writeln!(*out, "   tree edges: {}", tree.join(", "));
        let _ = writeln!(*out, "   chords:");
        for (d, _) in dag.edges() {
            if let Some(inc) = plan.chord_increment(d) {
                let code = plan.dag_op(d).map_or("no code (Inc 0)".into(), op_text);
                let _ = writeln!(
                    *out,
                    "     {:<16} Val {:<4} Inc {:<4} code: {code}",
                    self.dag_edge(dag, d),
                    bl.increment(d),
                    inc
                );
            }
        }
        let tree_code: Vec<String> = dag
            .edges()
            .filter(|&(d, _)| plan.in_tree(d))
            .filter_map(|(d, _)| {
                plan.dag_op(d)
                    .map(|op| format!("{}: {}", self.dag_edge(dag, d), op_text(op)))
            })
            .collect();
        if !tree_code.is_empty() {
            let _ = writeln!(
                *out,
                "   tree edges where a path starts or is counted (r = 0 moved down from ENTRY, \
                 count[r] moved up from EXIT, as far as the tree allows): {}",
                tree_code.join("; ")
            );
        }
        plan
    }

    /// 5. Regenerating path `id` ([BL96] §3.5), and the check that its chords add up to it.
    fn regeneration_step(&self, bl: &BallLarus, plan: &PathPlan, id: u64, out: &mut String) {
        let dag = bl.dag();
        let edges = bl.regenerate(id).expect("the caller checked the id");
        let _ = writeln!(
            *out,
            "\n5. Regenerating path {id} ([BL96] §3.5): from ENTRY with R = {id}, at each node \
             take the out-edge with the largest Val not above R, and subtract its Val."
        );
        let mut r = id;
        for &d in &edges {
            let v = dag.edge(d).from;
            let choices: Vec<String> = dag
                .outs(v)
                .iter()
                .map(|&o| format!("→ {} (Val {})", self.name(dag.edge(o).to), bl.increment(o)))
                .collect();
            let val = bl.increment(d);
            let _ = writeln!(
                *out,
                "     at {}, R = {r}: {}  ⇒ take {}, R = {r} − {val} = {}",
                self.name(v),
                choices.join(", "),
                self.dag_edge(dag, d),
                r - val
            );
            r -= val;
        }
        let cfg_path = bl.path(id).expect("the caller checked the id");
        let nodes: Vec<&str> = cfg_path
            .nodes(self.cfg)
            .into_iter()
            .filter(|&v| v != self.cfg.exit())
            .map(|v| self.name(v))
            .collect();
        let end = match cfg_path.end {
            pcc_profiler::regenerate::PathEnd::Exit => "returns".to_string(),
            pcc_profiler::regenerate::PathEnd::BackEdge(e) => {
                format!("ends by taking back edge {}", self.cfg_edge(e))
            }
            pcc_profiler::regenerate::PathEnd::Truncated(e) => {
                format!("ends by taking cut edge {}", self.cfg_edge(e))
            }
            pcc_profiler::regenerate::PathEnd::DeadEnd(v) => format!("stops in {}", self.name(v)),
        };
        let _ = writeln!(*out, "   path {id}: {}, then {end}", nodes.join(" "));
        let incs: Vec<i64> = edges
            .iter()
            .filter_map(|&d| plan.chord_increment(d))
            .collect();
        let sum = incs.iter().fold(0i64, |a, &b| a.wrapping_add(b));
        let terms: Vec<String> = incs.iter().map(i64::to_string).collect();
        let _ = writeln!(
            *out,
            "   check: the chords on it add {} = {sum}, its id.",
            if terms.is_empty() {
                "nothing".into()
            } else {
                terms.join(" + ")
            }
        );
    }

    /// Which paths [PPP] finds interesting (`counts`: each path's count in the guiding profile,
    /// `None` for the static estimate) and the PPP numbering that results.
    pub fn explain_ppp(&self, bl: &BallLarus, ppp: &Ppp, counts: Option<&[(u64, u64)]>) -> String {
        let dag = bl.dag();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\nPreferential path profiling ([PPP] §3). The interesting paths are {}; they get \
             compact PPP ids 0..range counted in an array, every other path is residual, counted \
             by its Ball-Larus id in a hash table.",
            if counts.is_some() {
                "the ones the guiding profile saw run (`pcc run --interesting-share F` keeps only \
                 the hottest)"
            } else {
                "the ones a static estimate finds hot"
            }
        );
        let interesting = |id: u64| ppp.ppp_id_of(id).is_some();
        match counts {
            Some(counts) => {
                let mut ran: Vec<(u64, u64)> =
                    counts.iter().copied().filter(|&(_, c)| c > 0).collect();
                ran.sort();
                for &(id, count) in &ran {
                    let verdict = if interesting(id) {
                        "interesting"
                    } else {
                        "not interesting: outside the hottest share"
                    };
                    let times = if count == 1 { "time" } else { "times" };
                    let _ = writeln!(out, "     BL path {id:<4} ran {count} {times}: {verdict}");
                }
                let never = bl.num_paths() - ran.len() as u64;
                let _ = writeln!(
                    out,
                    "     the other {never} paths never ran in the profile: not interesting (cold)"
                );
            }
            None => {
                for p in ppp.paths() {
                    let _ = writeln!(out, "     BL path {}: estimated hot, interesting", p.bl_id);
                }
            }
        }
        let _ = writeln!(
            out,
            "   PPP weights ([PPP] Fig. 10), visiting the nodes in reverse topological order as \
             for NumPaths, but counting only interesting paths: W(e) puts the ids of the \
             interesting paths through e just above those through the out-edges before it; ⊥ \
             when no interesting path takes e (its increment is 0)."
        );
        for &v in dag.topological_order() {
            for &d in dag.outs(v) {
                let w = ppp.weight(d).map_or("⊥".to_string(), |w| w.to_string());
                let _ = writeln!(
                    out,
                    "     {:<16} Val {:<4} W {w}",
                    self.dag_edge(dag, d),
                    bl.increment(d)
                );
            }
        }
        let _ = writeln!(out, "   the interesting paths renumbered:");
        let mut paths: Vec<_> = ppp.paths().iter().collect();
        paths.sort_by_key(|p| p.ppp_id);
        for p in paths {
            let _ = writeln!(out, "     PPP id {:<4} = BL path {}", p.ppp_id, p.bl_id);
        }
        let _ = writeln!(
            out,
            "   range = {} for {} interesting paths (ρ = {}), against NumPaths = {}: the array \
             has {} counters; at a path's end, a PPP id below the range whose slot holds the \
             path's Ball-Larus id counts there, any other path is residual.",
            ppp.range(),
            ppp.num_interesting(),
            ppp.compactness()
                .map_or("-".into(), |rho| format!("{rho:.2}")),
            bl.num_paths(),
            ppp.range()
        );
        wrap(&out)
    }

    /// Which edges [TPP] finds cold and why, and the numbering of the hot paths that results.
    pub fn explain_tpp(&self, tpp: &Tpp, counts: &[u64]) -> String {
        let config = tpp.config();
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\nTargeted path profiling ([TPP] §4), TPP({}, {}) from the edge profile: an edge \
             is cold when it carries less than {}% of its block's flow (or lies on no hot path \
             once others are cold); paths through cold edges are not numbered but counted \
             together on one cold counter; a loop whose entries carry less than {}% of its \
             header's flow is cut off from the rest of the function.",
            config.cold_threshold,
            config.loop_threshold,
            config.cold_threshold,
            config.loop_threshold
        );
        for (e, edge) in self.cfg.edges() {
            let flow: u64 = self.cfg.succs(edge.from).iter().map(|&o| counts[o.0]).sum();
            let share = if flow == 0 {
                "no flow".to_string()
            } else {
                format!(
                    "{:.1}% of {}'s flow",
                    counts[e.0] as f64 * 100.0 / flow as f64,
                    self.name(edge.from)
                )
            };
            let verdict = match tpp.coldness(e) {
                None => "hot".to_string(),
                Some(Coldness::Local) => format!("cold: below {}%", config.cold_threshold),
                Some(Coldness::Transitive) => "cold transitively: on no hot path".to_string(),
            };
            let back = match tpp.cold_back_edge(e) {
                None => "",
                Some(ColdBackEdge::Poison) => {
                    "; a cold back edge: counts a cold path, poisons the register ([TPP] Fig. 6a)"
                }
                Some(ColdBackEdge::Reset) => {
                    "; a cold back edge: counts a cold path, restarts the register ([TPP] Fig. 6b)"
                }
                Some(ColdBackEdge::Unchanged) => {
                    "; a cold back edge in a cold loop ([TPP] Fig. 6c)"
                }
            };
            let _ = writeln!(
                out,
                "     {:<16} count {:<8} {share}: {verdict}{back}",
                self.cfg_edge(e),
                counts[e.0]
            );
        }
        for &h in tpp.disconnected_headers() {
            let _ = writeln!(
                out,
                "   the loop at {} is disconnected: its entries carry less than {}% of its flow",
                self.name(h),
                config.loop_threshold
            );
        }
        let _ = writeln!(
            out,
            "   the hot paths, numbered by Ball-Larus on the DAG of the hot edges: {} paths{}",
            tpp.num_paths(),
            if tpp.num_paths() > 0 { ":" } else { "" }
        );
        if (0..tpp.num_paths()).any(|id| tpp.is_obvious(id)) {
            let _ = writeln!(
                out,
                "   (a path marked obvious takes an edge no other hot path takes, so that edge's \
                 count in the edge profile is the path's: it gets no code, [TPP] §4.2.2)"
            );
        }
        for id in 0..tpp.num_paths().min(64) {
            let Some(path) = tpp.path_record(id) else {
                continue;
            };
            let nodes: Vec<&str> = path
                .nodes(self.cfg)
                .into_iter()
                .filter(|&v| v != self.cfg.exit())
                .map(|v| self.name(v))
                .collect();
            let obvious = if tpp.is_obvious(id) {
                "  (obvious)"
            } else {
                ""
            };
            let _ = writeln!(out, "     TPP path {id:<3} {}{obvious}", nodes.join(" "));
        }
        if tpp.num_paths() > 64 {
            let _ = writeln!(out, "     ... {} more", tpp.num_paths() - 64);
        }
        wrap(&out)
    }
}

/// The widest line of an explanation; longer lines (the prose) are wrapped at spaces.
const WIDTH: usize = 100;

/// `text` with every line longer than [`WIDTH`] wrapped, the continuation lines indented like
/// the first (plus 3 for a numbered step).
fn wrap(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines().map(str::trim_end) {
        if line.chars().count() <= WIDTH {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let numbered = line.trim_start().starts_with(|c: char| c.is_ascii_digit());
        let mut current = " ".repeat(indent);
        let mut fresh = true;
        for word in line.split_whitespace() {
            if !fresh && current.chars().count() + 1 + word.chars().count() > WIDTH {
                out.push_str(&current);
                out.push('\n');
                current = " ".repeat(indent + if numbered { 3 } else { 2 });
                fresh = true;
            }
            if !fresh {
                current.push(' ');
            }
            current.push_str(word);
            fresh = false;
        }
        out.push_str(&current);
        out.push('\n');
    }
    out
}

/// The code of a DAG edge as the instrumented program runs it.
fn op_text(op: PathOp) -> String {
    match op {
        PathOp::Set(c) => format!("r = {c}"),
        PathOp::Add(c) => format!("r += {c}"),
        PathOp::CountAdd(0) => "count[r]++".into(),
        PathOp::CountAdd(c) => format!("count[r + {c}]++"),
        PathOp::CountConst(id) => format!("count[{id}]++"),
    }
}

#[cfg(test)]
mod tests {
    use pcc_profiler::examples;

    use super::*;

    /// [PFP] Sidebar 2, Fig. 11: AddEvenNumbers, blocks 1 to 7 (node k is block k + 1).
    #[test]
    fn add_even_numbers_as_in_the_paper() {
        let cfg = examples::add_even_numbers();
        let graph = Graph::new(&cfg, &["1", "2", "3", "4", "5", "6", "7"]);
        let bl = BallLarus::new(&cfg).unwrap();
        let text = graph.explain_numbering(&bl, Some(4));
        for line in [
            "   back edges: 6 → 3",
            "     ENTRY ⇢ 3        a path starts at 3 after 6 → 3",
            "     6 ⇢ EXIT         a path ends by taking back edge 6 → 3",
            // In the order computed: every node after its successors.
            "     NumPaths(EXIT) = 1\n     NumPaths(6) = NumPaths(EXIT) = 1\n",
            "     NumPaths(4) = NumPaths(5) + NumPaths(6) = 1 + 1 = 2",
            "     NumPaths(3) = NumPaths(4) + NumPaths(7) = 2 + 1 = 3",
            "     NumPaths(1) = NumPaths(3) + NumPaths(2) = 3 + 3 = 6",
            "   The function has NumPaths(1) = 6 potential paths, ids 0 to 5.",
            "     Val(1 → 2) = 3  = NumPaths(3)",
            "     Val(3 → 7) = 2  = NumPaths(4)",
            "     Val(4 → 6) = 1  = NumPaths(5)",
            "     at 1, R = 4: → 3 (Val 0), → 2 (Val 3)  ⇒ take 1 → 2, R = 4 − 3 = 1",
            "     at 4, R = 1: → 5 (Val 0), → 6 (Val 1)  ⇒ take 4 → 6, R = 1 − 1 = 0",
            "   path 4: 1 2 3 4 6, then ends by taking back edge 6 → 3",
        ] {
            assert!(text.contains(line), "no {line:?} in\n{text}");
        }
        // Fig. 11's table: every id regenerates to the paper's path, and the chord increments
        // along it add up to the id.
        for (id, path) in [
            "3 4 5 6, then ends by taking back edge 6 → 3",
            "3 4 6, then ends by taking back edge 6 → 3",
            "3 7, then returns",
            "1 2 3 4 5 6, then ends by taking back edge 6 → 3",
            "1 2 3 4 6, then ends by taking back edge 6 → 3",
            "1 2 3 7, then returns",
        ]
        .iter()
        .enumerate()
        {
            let text = graph.explain_numbering(&bl, Some(id as u64));
            assert!(text.contains(&format!("   path {id}: {path}\n")), "{text}");
            assert!(text.contains(&format!(" = {id}, its id.\n")), "{text}");
        }
    }

    /// [PPP] Fig. 3 and the walk-through of §3.2: sacdt, sact and sbct (Ball-Larus 0, 1, 5) are
    /// interesting and get PPP ids 0, 1, 2; a → b carries none of them (⊥).
    #[test]
    fn ppp_figure_3_walk_through() {
        let cfg = examples::ppp_figure_3();
        let graph = Graph::new(&cfg, &["s", "a", "b", "c", "d", "t"]);
        let bl = BallLarus::new(&cfg).unwrap();
        let ppp = Ppp::from_bl_ids(&bl, [5, 0, 1]).unwrap();
        let counts = [(0, 10), (1, 7), (5, 3)];
        let text = graph.explain_ppp(&bl, &ppp, Some(&counts));
        for line in [
            "     BL path 0    ran 10 times: interesting",
            "     BL path 5    ran 3 times: interesting",
            "     the other 3 paths never ran in the profile: not interesting (cold)",
            "     s → b            Val 4    W 2",
            "     a → b            Val 2    W ⊥",
            "     b → c            Val 0    W -1",
            "     c → EXIT         Val 1    W 1",
            "     PPP id 0    = BL path 0",
            "     PPP id 2    = BL path 5",
            "   range = 3 for 3 interesting paths (ρ = 1.00), against NumPaths = 6",
        ] {
            assert!(text.contains(line), "no {line:?} in\n{text}");
        }
    }

    /// The year-2000 graph of [PFP] Fig. 8 with few people under 15: the edge into B is cold
    /// (below TPP's 5%), the edge out of B cold because no hot path reaches it, and the 4 paths
    /// through C are the hot ones.
    #[test]
    fn tpp_cold_edges_of_the_year_2000_example() {
        let cfg = examples::year_2000();
        let graph = Graph::new(
            &cfg,
            &["age", "B", "C", "college", "D", "E", "items", "F", "G"],
        );
        let counts = [2, 98, 2, 98, 50, 50, 50, 50, 60, 40, 60, 40];
        let tpp = Tpp::new(&cfg, &counts, TppConfig::default()).unwrap();
        let text = graph.explain_tpp(&tpp, &counts);
        for line in [
            "     age → B          count 2        2.0% of age's flow: cold: below 5%",
            "     B → college      count 2        100.0% of B's flow: cold transitively: on no hot path",
            "     age → C          count 98       98.0% of age's flow: hot",
            "the DAG of the hot edges: 4 paths:",
            "     TPP path 0   age C college D items F",
            "     TPP path 3   age C college E items G",
        ] {
            assert!(text.contains(line), "no {line:?} in\n{text}");
        }
    }

    #[test]
    fn long_lines_wrap_at_spaces_with_their_indentation() {
        let long = format!("   {}", "word ".repeat(30));
        let wrapped = wrap(&format!("{long}\nshort  line  \n"));
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(lines.iter().all(|l| l.chars().count() <= WIDTH));
        assert_eq!(lines[1], format!("     {}", "word ".repeat(11).trim_end()));
        assert_eq!(lines[2], "short  line");
    }
}
