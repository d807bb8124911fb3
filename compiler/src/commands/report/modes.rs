//! The report's per-mode sections: ppp's interesting and residual paths and ρ, tpp's obvious
//! paths and cold count, kbl's k-iteration path forest, wpp's grammar and hot subpaths, edge's
//! hottest edges.

use std::fmt::Write as _;

use pcc_profiler::english::plural;
use pcc_profiler::profile::{KipfNode, Mode, ModeRecord};
use pcc_profiler::wpp::{HotParams, hot_subpaths};

use super::escape;
use super::html::percent;
use crate::commands::paths::compact_lines;
use crate::profile_view::{Cold, PathKind, ProgramView};

/// k-IPF nodes drawn per function, children per node, and functions with a forest drawn.
const KIPF_NODES: usize = 300;
const KIPF_CHILDREN: usize = 8;
const KIPF_FUNCTIONS: usize = 6;
/// Hot subpaths listed; the search's longest subpath and least cost (a share of the trace's).
const HOT_SUBPATHS: usize = 25;
const HOT_MAX_LEN: usize = 12;
const HOT_MIN_SHARE: u64 = 50;

/// The section of the profile's mode (empty for `bl`, which the function sections show fully).
pub fn mode_section(view: &ProgramView) -> String {
    match view.profile.mode {
        Mode::Ppp => ppp(view),
        Mode::Tpp => tpp(view),
        Mode::Kbl => kbl(view),
        Mode::Wpp => wpp(view),
        Mode::Edge => edge(view),
        Mode::Block => block(view),
        Mode::Bl => String::new(),
    }
}

fn ppp(view: &ProgramView) -> String {
    let mut out = String::from(
        "<section id=\"mode\"><h2>Preferential path profiling</h2><p>Interesting paths get \
         compact ids and dense counters; the others are counted as residual paths in a hash \
         table. ρ is the compactness of the numbering: the id range over the number of \
         interesting paths ([PPP] Problem A).</p><table class=\"modes\"><tr><th>function</th>\
         <th>interesting</th><th>id range</th><th>ρ</th><th>executed interesting</th>\
         <th>residual paths</th><th>residual executions</th></tr>",
    );
    for f in view.hottest_functions() {
        let ModeRecord::Ppp(record) = &view.record(f).record else {
            continue;
        };
        let residual = || f.paths.iter().filter(|p| p.kind == PathKind::Residual);
        let _ = write!(
            out,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            escape(&f.name),
            record.interesting.len(),
            record.range,
            record.rho.map_or("–".into(), |r| format!("{r:.2}")),
            view.record(f).paths.len(),
            residual().count(),
            residual().map(|p| p.count).sum::<u64>()
        );
    }
    out + "</table></section>\n"
}

fn tpp(view: &ProgramView) -> String {
    let config = view.profile.tpp.unwrap_or_default();
    let mut out = format!(
        "<section id=\"mode\"><h2>Targeted path profiling</h2><p>Paths were numbered from an \
         edge profile (cold edge below {}% of its block's flow, cold loop entry below {}%). \
         Obvious paths are counted from their defining edge's count, not measured; cold paths \
         are only counted in total ([TPP] §4).</p><table class=\"modes\"><tr><th>function</th>\
         <th>hot paths numbered</th><th>executed</th><th>obvious</th><th>obvious executions</th>\
         <th>cold executions</th></tr>",
        config.cold_threshold, config.loop_threshold
    );
    for f in view.hottest_functions() {
        let record = view.record(f);
        let ModeRecord::Tpp(tpp) = &record.record else {
            continue;
        };
        let obvious = || f.paths.iter().filter(|p| p.kind == PathKind::Obvious);
        let fallback = if tpp.bl_fallback() {
            " <span class=\"badge\">no edge profile: profiled like bl</span>"
        } else {
            ""
        };
        let _ = write!(
            out,
            "<tr><td>{}{fallback}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            escape(&f.name),
            record.num_paths,
            f.paths.len(),
            obvious().count(),
            obvious().map(|p| p.count).sum::<u64>(),
            match f.cold {
                Some(Cold::FromEdgeProfile(n)) => format!(
                    "{n} <span class=\"badge\" title=\"no counter: every hot path is obvious; \
                     the edge profile's executions of cold edges out of hot blocks\">from the \
                     edge profile</span>"
                ),
                _ => tpp.cold_count.to_string(),
            }
        );
    }
    out + "</table></section>\n"
}

fn kbl(view: &ProgramView) -> String {
    let mut out = String::from(
        "<section id=\"mode\" class=\"kipf\"><h2>k-iteration path forests</h2><p>Each root is a \
         Ball-Larus path; below it, the paths that ran right after it in the same activation, \
         up to k in a row, with how often each sequence ran ([KBLPP]). Hottest first.</p>",
    );
    for f in view.hottest_functions().into_iter().take(KIPF_FUNCTIONS) {
        let forest = match &view.record(f).record {
            ModeRecord::Kbl(kbl) if !kbl.kipf.is_empty() => &kbl.kipf,
            _ => continue,
        };
        let lines = |id: u64| {
            f.paths
                .iter()
                .find(|p| p.id == id)
                .map_or(String::new(), |p| compact_lines(&p.lines))
        };
        let _ = write!(out, "<h3>fn {}</h3>", escape(&f.name));
        let drawn = kipf_nodes(&mut out, forest, &lines, KIPF_NODES, true);
        let _ = write!(
            out,
            "<p class=\"note\">{} drawn (at most the {KIPF_CHILDREN} hottest after each, \
             {KIPF_NODES} in all).</p>",
            plural(drawn as u64, "sequence")
        );
    }
    out + "</section>\n"
}

/// Draws the hottest `KIPF_CHILDREN` of `nodes`, sharing `budget` nodes out evenly among them so
/// that every root gets its share, not only the first one's descendants.
fn kipf_nodes(
    out: &mut String,
    nodes: &[KipfNode],
    lines: &dyn Fn(u64) -> String,
    budget: usize,
    open: bool,
) -> usize {
    let mut nodes: Vec<&KipfNode> = nodes.iter().collect();
    nodes.sort_by_key(|n| std::cmp::Reverse(n.count));
    let shown = nodes.len().min(KIPF_CHILDREN).min(budget);
    let mut drawn = 0;
    for node in nodes.into_iter().take(shown) {
        let label = format!(
            "path {} ×{} <span class=\"note\">lines {}</span>",
            node.id,
            node.count,
            escape(&lines(node.id))
        );
        drawn += 1;
        // A sequence that nothing followed is a line of its own, with nothing to open.
        if node.children.is_empty() {
            let _ = write!(out, "<div class=\"leaf\">{label}</div>");
            continue;
        }
        let _ = write!(
            out,
            "<details{}><summary>{label}</summary>",
            if open { " open" } else { "" }
        );
        let share = (budget - shown) / shown;
        let below = kipf_nodes(out, &node.children, lines, share, false);
        if below == 0 {
            let _ = write!(
                out,
                "<div class=\"leaf note\">{} after it, not drawn</div>",
                plural(node.children.len() as u64, "path")
            );
        }
        drawn += below;
        out.push_str("</details>");
    }
    drawn
}

fn wpp(view: &ProgramView) -> String {
    let Some(section) = crate::commands::wpp::section(&view.profile, &view.profile_path) else {
        return "<p class=\"warning\">The whole program path cannot be read.</p>".into();
    };
    let cost = |t: u32| section.symbols[t as usize].cost.unwrap_or(1);
    let trace_cost: u64 = section.rules.iter().map(cost).sum();
    let params = HotParams::new((trace_cost / HOT_MIN_SHARE).max(1), HOT_MAX_LEN);
    // Each distinct subpath once, with its frequency in the whole trace.
    let Ok(mut hot) = hot_subpaths(&section.rules, cost, &params) else {
        return "<p class=\"warning\">The grammar is too large to price its subpaths.</p>".into();
    };
    hot.sort_by_key(|h| std::cmp::Reverse(h.cost));
    let mut out = format!(
        "<section id=\"mode\"><h2>Whole program path</h2><p>The run as a trace of {} acyclic \
         paths ({} distinct), compressed into a grammar of {} symbols in {} rules: \
         compression {:.1} ([WPP] §3).</p><h3>Hot subpaths</h3><p>Minimal runs of at most \
         {HOT_MAX_LEN} consecutive acyclic paths costing at least {} (2% of the trace's cost; \
         cost = frequency × the paths' MIR instructions, [WPP] Fig. 7). {} found, the \
         costliest first. The trace's pieces are the function's paths cut at calls, numbered \
         apart from the Ball-Larus paths this page lists elsewhere: a piece is written \
         <code>f piece N (lines)</code>, a path <code>path N</code>.</p>\
         <table class=\"modes\"><tr><th>cost</th><th>share</th><th>frequency</th>\
         <th>subpath (function, piece, lines)</th></tr>",
        section.trace_length,
        section.symbols.len(),
        section.rules.size(),
        section.rules.num_rules(),
        section.rules.compression_ratio(),
        params.min_cost,
        hot.len()
    );
    for h in hot.iter().take(HOT_SUBPATHS) {
        let steps: Vec<String> = h
            .path
            .iter()
            .map(|&t| {
                let s = &section.symbols[t as usize];
                let lines = if s.lines.is_empty() {
                    "no source line".to_string()
                } else {
                    compact_lines(&s.lines)
                };
                format!("{} piece {} ({lines})", s.function, s.path)
            })
            .collect();
        let _ = write!(
            out,
            "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td><code>{}</code></td></tr>",
            h.cost,
            percent(h.cost, trace_cost),
            h.frequency,
            escape(&steps.join(" → "))
        );
    }
    out + "</table></section>\n"
}

fn edge(view: &ProgramView) -> String {
    let report = pcc_profiler::profile::show(&view.profile, Some(20));
    let mut out = String::from(
        "<section id=\"mode\"><h2>Hottest edges</h2><table class=\"modes\"><tr><th>function</th>\
         <th>edge</th><th>count</th><th>share</th></tr>",
    );
    for e in &report.edges {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1}%</td></tr>",
            escape(&e.function),
            escape(&e.name()),
            e.count,
            e.share * 100.0
        );
    }
    out + "</table></section>\n"
}

fn block(view: &ProgramView) -> String {
    let report = pcc_profiler::profile::show(&view.profile, Some(20));
    let mut out = String::from(
        "<section id=\"mode\"><h2>Hottest blocks</h2><p>A counter on every block: the naive \
         placement that edge profiling's spanning-tree placement improves on ([BL94]).</p>\
         <table class=\"modes\"><tr><th>function</th><th>block</th><th>lines</th><th>count</th>\
         <th>share</th></tr>",
    );
    for b in &report.blocks {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>bb{}</td><td>{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{:.1}%</td></tr>",
            escape(&b.function),
            b.block,
            compact_lines(&b.lines),
            b.count,
            b.share * 100.0
        );
    }
    out + "</table></section>\n"
}
