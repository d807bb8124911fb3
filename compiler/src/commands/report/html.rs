//! The report page: one self-contained HTML file (inline style, script and SVG; nothing loaded
//! from anywhere) with the summary, then per function its heat-coloured source, its executed
//! paths and its CFG. Choosing a path highlights its lines and its blocks and edges.

use std::fmt::Write as _;

use pcc_profiler::dag::DagEdgeKind;
use pcc_profiler::english::plural;
use pcc_profiler::profile::{Mode, ModeRecord};
use std::collections::BTreeMap;

use super::escape;
use super::svg::{ARROWHEAD, cfg_svg, graphviz_svg, heat_background};
use crate::commands::paths::compact_lines;
use crate::profile_view::{Cold, FunctionView, PathView, ProgramView};

/// Paths shown at first per function, shown more per click, and written into the page at most.
pub const PATHS_SHOWN: usize = 15;
pub const PATHS_PER_CLICK: usize = 50;
pub const PATHS_IN_PAGE: usize = 500;
/// Functions whose CFG is drawn open (the hottest); the others' are a click away.
const OPEN_CFGS: usize = 3;
/// Larger CFGs are laid out by Graphviz's `dot` when it is installed: layout-rs takes minutes
/// on a hundred blocks.
const MAX_CFG_NODES: usize = 80;
/// The work the page's layouts of CFGs with crossing minimization may take together, in units
/// of (blocks + edges)² per CFG (about 1.9 s for a CFG of 77 blocks): the hottest functions'
/// CFGs first; the others are drawn without it, which the page says. Counted, not timed, so
/// the page is the same on every machine (40 such functions took 75 s).
const LAYOUT_BUDGET: usize = 100_000;
/// Larger CFGs are not drawn at all: the page would be unreadable and `dot` slow.
const MAX_DOT_NODES: usize = 2000;
/// Wider layout-rs drawings (in pixels) are drawn by Graphviz instead when it packs them
/// narrower.
const WIDE_CFG: f64 = 2400.0;
/// A CFG is drawn beside the source when it fits there at this share of its size or more.
const CFG_MIN_SCALE: f64 = 0.75;

/// `part` of `whole` as a percentage with one decimal.
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        "0.0%".into()
    } else {
        format!("{:.1}%", part as f64 * 100.0 / whole as f64)
    }
}

/// The whole page; `sections` are the per-mode and comparison sections, already HTML.
pub fn page(view: &ProgramView, sections: &str) -> String {
    let profile = &view.profile;
    let total: u64 = view.functions.iter().map(|f| f.total).sum();
    let mut out = String::with_capacity(1 << 16);
    let title = format!("{} profile of {}", profile.mode, profile.program);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n{ARROWHEAD}\n",
        escape(&title)
    );
    let args = if profile.args.is_empty() {
        "none".to_string()
    } else {
        profile.args.join(" ")
    };
    let what = profile.mode.unit();
    let _ = writeln!(
        out,
        "<header><h1>{}</h1><p>program <code>{}</code> · mode <b>{}</b> · run arguments \
         <code>{}</code> · {total} {what} · profile <code>{}</code></p></header>",
        escape(&title),
        escape(&view.source_file.display().to_string()),
        profile.mode,
        escape(&args),
        escape(&view.profile_path.display().to_string())
    );
    for warning in &view.warnings {
        let _ = writeln!(out, "<p class=\"warning\">warning: {}</p>", escape(warning));
    }
    out.push_str("<section id=\"summary\"><h2>Hottest functions</h2><table class=\"summary\">");
    // Edge and block profiles count no paths: their path columns would say nothing.
    let paths = !matches!(profile.mode, Mode::Edge | Mode::Block);
    let _ = write!(
        out,
        "<tr><th>function</th><th>{what}</th><th>share</th><th></th>{}</tr>",
        if paths {
            "<th>executed paths</th><th>potential paths</th>"
        } else {
            ""
        }
    );
    let hottest = view.hottest_functions().first().map_or(0, |f| f.total);
    for f in view.hottest_functions() {
        let path_columns = if paths {
            format!(
                "<td class=\"n\">{}</td><td class=\"n\">{}</td>",
                f.paths.len(),
                view.record(f).num_paths
            )
        } else {
            String::new()
        };
        let _ = write!(
            out,
            "<tr><td><a href=\"#fn-{0}\">{0}</a></td><td class=\"n\">{1}</td><td class=\"n\">{2}</td>\
             <td><span class=\"bar\" style=\"width:{3:.0}px\"></span></td>{path_columns}</tr>",
            escape(&f.name),
            f.total,
            percent(f.total, total),
            80.0 * f.total as f64 / hottest.max(1) as f64,
        );
    }
    out.push_str("</table></section>\n");
    out.push_str(sections);
    let mut budget = LAYOUT_BUDGET;
    for (rank, f) in view.hottest_functions().into_iter().enumerate() {
        function_section(&mut out, view, f, rank < OPEN_CFGS, &mut budget);
    }
    let script = SCRIPT
        .replace("__PER_CLICK__", &PATHS_PER_CLICK.to_string())
        .replace("__MIN_SCALE__", &CFG_MIN_SCALE.to_string());
    let _ = writeln!(out, "<script>{script}</script></body></html>");
    out
}

fn function_section(
    out: &mut String,
    view: &ProgramView,
    f: &FunctionView,
    open: bool,
    budget: &mut usize,
) {
    let mode = view.profile.mode;
    let unfinished = match &view.record(f).record {
        ModeRecord::Edge(edge) if edge.unfinished > 0 => format!(
            " · {} still running when the run ended",
            plural(edge.unfinished, "activation")
        ),
        _ => String::new(),
    };
    let _ = write!(
        out,
        "<section class=\"function\" id=\"fn-{0}\"><h2>fn {0} <small>{1} {2}{unfinished}\
         </small></h2><div class=\"cols\">",
        escape(&f.name),
        f.total,
        mode.unit()
    );
    // Source and paths on the left, the CFG beside them, or below them where it would have to
    // shrink to less than `CFG_MIN_SCALE` of its size beside them (its text stays readable).
    out.push_str("<div class=\"left\">");
    source_table(out, view, f);
    paths_table(out, view, f);
    let Some(cfg) = &f.cfg else {
        out.push_str(
            "</div><div class=\"right\"><p class=\"note\">No CFG: the function's code is not \
             the profiled code.</p></div></div></section>\n",
        );
        return;
    };
    let path_mode = !matches!(mode, Mode::Edge | Mode::Block);
    let line = |n: u32| view.line(n).to_string();
    let nodes = cfg.fcfg.cfg.num_nodes();
    // layout-rs for small CFGs, Graphviz for large ones and where layout-rs fails.
    let work = (nodes + cfg.fcfg.cfg.num_edges()).pow(2);
    let optimize = nodes > MAX_CFG_NODES || work <= *budget;
    if nodes <= MAX_CFG_NODES && optimize {
        *budget -= work;
    }
    let small = (nodes <= MAX_CFG_NODES)
        .then(|| cfg_svg(cfg, &line, path_mode, optimize))
        .flatten()
        .map(|(drawing, dummies)| {
            // A wide fan-out (a `match` of many arms) comes out of layout-rs too wide to read
            // once shrunk; Graphviz, where installed, packs it narrower.
            let narrower = (drawing.width > WIDE_CFG)
                .then(|| graphviz_svg(cfg, &line, path_mode))
                .flatten()
                .filter(|dot| dot.width < drawing.width * 0.8);
            match narrower {
                Some(dot) => (dot, false),
                None => (drawing, dummies),
            }
        });
    let drawn = small.or_else(|| {
        (nodes <= MAX_DOT_NODES)
            .then(|| graphviz_svg(cfg, &line, path_mode))
            .flatten()
            .map(|drawing| (drawing, false))
    });
    let Some((drawing, dummies)) = drawn else {
        let _ = writeln!(
            out,
            "</div><div class=\"right\"><p class=\"note\">The CFG ({} blocks) is not drawn: {}. \
             `pcc paths --format dot --profile P` writes it for Graphviz.</p></div></div>\
             </section>",
            nodes - 1,
            if nodes > MAX_DOT_NODES {
                format!("the report draws at most {MAX_DOT_NODES} blocks")
            } else if nodes > MAX_CFG_NODES {
                format!(
                    "above {MAX_CFG_NODES} blocks it needs Graphviz's `dot` (apt-get install \
                     graphviz)"
                )
            } else {
                "the layout library could not lay it out".to_string()
            }
        );
        return;
    };
    let _ = write!(
        out,
        "</div><div class=\"right\" style=\"min-width: min(100%, {:.0}px)\">\
         <details class=\"cfg\"{}><summary>control-flow graph ({} blocks; edge labels: \
         count{})</summary><div class=\"svgbox\">{}</div></details></div>",
        // Rounded up (and a pixel more for the box's rounding): rounded to the nearest, the
        // column came out narrower than the scale it promises (0.7495 of the CFG's width).
        (drawing.width * CFG_MIN_SCALE).ceil() + 1.0,
        if open { " open" } else { "" },
        nodes - 1,
        cfg_caption(mode, dummies, cfg.tpp.is_some())
            + if optimize {
                ""
            } else {
                "; drawn without crossing minimization: the page's layout budget went to \
                 hotter functions"
            },
        drawing.svg,
    );
    out.push_str("</div></section>\n");
}

/// What a CFG's edge labels and line styles mean, after "edge labels: count": a path mode's
/// increments (TPP's own for a `tpp` profile), and whether the DAG's dummy edges are drawn.
fn cfg_caption(mode: Mode, dummies: bool, tpp: bool) -> String {
    let increments = if tpp {
        " +Val(e), TPP's increment on its hot DAG ([TPP] §4), or `cold`: paths through the edge \
         are not numbered"
    } else {
        " +Val(e), the Ball-Larus increment"
    };
    let lines = match (dummies, tpp) {
        (true, true) => "; dashed: back edges; dotted: the hot DAG's dummy edges",
        (true, false) => {
            "; dashed: back edges; dotted: the dummy edges that replace them in the DAG"
        }
        (false, _) => {
            "; dashed: back edges (dummy edges left out: the graph is too large to lay out with \
             them)"
        }
    };
    match mode {
        Mode::Edge => "; dashed: back edges".to_string(),
        Mode::Block => {
            " (none: a block profile counts blocks only); dashed: back edges".to_string()
        }
        _ => format!("{increments}{lines}"),
    }
}

/// The function's source lines with their counts, coloured by heat; a line of a block where
/// activations stopped is marked, since its count includes entries that stopped before it.
fn source_table(out: &mut String, view: &ProgramView, f: &FunctionView) {
    let max = f.line_counts.values().copied().max().unwrap_or(0);
    let mut stopped: BTreeMap<u32, u64> = BTreeMap::new();
    if let Some(cfg) = &f.cfg {
        let blocks = cfg.node_lines.iter().zip(&cfg.stopped);
        for (lines, &n) in blocks.filter(|&(_, &n)| n > 0) {
            for &line in lines {
                *stopped.entry(line).or_default() += n;
            }
        }
    }
    out.push_str("<table class=\"src\"><tr><th>line</th><th>count</th><th>source</th></tr>");
    for n in f.span.0..=f.span.1 {
        if n == 0 {
            continue;
        }
        let count = f.line_counts.get(&n).copied();
        let (mut cell, style) = match count {
            Some(0) => (
                "#####".to_string(),
                " style=\"color:#a33\" title=\"code that never ran\"".to_string(),
            ),
            Some(c) => (
                c.to_string(),
                format!(" style=\"background:{}\"", heat_background(c, max)),
            ),
            None => (String::new(), String::new()),
        };
        if let Some(n) = stopped.get(&n) {
            let _ = write!(
                cell,
                "<sup class=\"stop\" title=\"{n} stopped in this block\">†</sup>"
            );
        }
        let _ = write!(
            out,
            "<tr data-line=\"{n}\"><td class=\"ln\">{n}</td><td class=\"n\"{style}>{cell}</td>\
             <td><pre>{}</pre></td></tr>",
            escape(view.line(n))
        );
    }
    out.push_str("</table>");
    if !stopped.is_empty() {
        out.push_str(
            "<p class=\"note\">† Activations stopped in this line's block (<code>exit()</code>, \
             a runtime error, or a call that never returned; the CFG says how many). The count \
             includes them, though they may have stopped before this line.</p>",
        );
    }
}

/// The executed paths, hottest first; the first [`PATHS_SHOWN`] visible.
fn paths_table(out: &mut String, view: &ProgramView, f: &FunctionView) {
    let cold = f.cold.map_or(0, Cold::count);
    let total = f.paths.iter().map(|p| p.count).sum::<u64>() + cold;
    out.push_str("<div class=\"paths\">");
    if f.paths.is_empty() {
        let text = if matches!(view.profile.mode, Mode::Edge | Mode::Block) {
            "This profile counts edges or blocks, not paths: the source and the CFG show its \
             counts."
        } else {
            "No path of this function ran."
        };
        let _ = write!(out, "<p class=\"note\">{text}</p></div>");
        return;
    }
    let _ = write!(
        out,
        "<table class=\"pathlist\"><tr><th>path id</th><th>count</th><th>share</th><th>lines</th></tr>"
    );
    for (i, path) in f.paths.iter().take(PATHS_IN_PAGE).enumerate() {
        let hidden = if i >= PATHS_SHOWN { " hidden" } else { "" };
        let kind = path.kind.name();
        let badge = if kind.is_empty() {
            String::new()
        } else {
            format!(" <span class=\"badge\">{kind}</span>")
        };
        let _ = write!(
            out,
            "<tr class=\"path{hidden}\" tabindex=\"0\" {}><td>{}{badge}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td><td>{}</td></tr>",
            path_data(f, path),
            path.id,
            path.count,
            percent(path.count, total),
            escape(&compact_lines(&path.lines)) + &decisions_note(path)
        );
    }
    if cold > 0 {
        let _ = write!(
            out,
            "<tr class=\"cold\"><td><span class=\"badge\">cold</span></td><td class=\"n\">{cold}\
             </td><td class=\"n\">{}</td><td>paths through a cold edge, counted only in total \
             ([TPP] §4)</td></tr>",
            percent(cold, total)
        );
    }
    out.push_str("</table>");
    let in_page = f.paths.len().min(PATHS_IN_PAGE);
    if in_page > PATHS_SHOWN {
        out.push_str(&more_button(in_page - PATHS_SHOWN));
    }
    if f.paths.len() > PATHS_IN_PAGE {
        let _ = write!(
            out,
            "<p class=\"note\">{} more paths are not in this report (`pcc profile show` lists \
             them all).</p>",
            f.paths.len() - PATHS_IN_PAGE
        );
    }
    out.push_str("</div>");
}

/// A path's branch decisions, under its lines where another path has the same lines.
fn decisions_note(path: &PathView) -> String {
    if path.decisions.is_empty() {
        return String::new();
    }
    format!(
        "<div class=\"decisions\" title=\"another path has the same lines: its branch \
         decisions tell them apart\">{}</div>",
        escape(&path.decisions.join(", "))
    )
}

/// The button that shows the next rows of a table, `hidden` of them hidden (the script
/// words it the same way after each click).
pub fn more_button(hidden: usize) -> String {
    if hidden <= PATHS_PER_CLICK {
        format!("<button class=\"more\">show {hidden} more</button>")
    } else {
        format!("<button class=\"more\">show {PATHS_PER_CLICK} more ({hidden} hidden)</button>")
    }
}

/// The `data-` attributes the script highlights a path by: lines, blocks, CFG edges and the DAG's
/// dummy edges it starts or ends with.
fn path_data(f: &FunctionView, path: &PathView) -> String {
    let join = |items: &mut dyn Iterator<Item = usize>| {
        items.map(|i| i.to_string()).collect::<Vec<_>>().join(" ")
    };
    let lines = join(&mut path.lines.iter().map(|&l| l as usize));
    let (Some(cfg), Some(route)) = (&f.cfg, &path.route) else {
        return format!("data-lines=\"{lines}\"");
    };
    let blocks = join(&mut route.nodes(&cfg.fcfg.cfg).into_iter().map(|v| v.0));
    let edges = join(&mut path.edges().into_iter().map(|e| e.0));
    // The dummies drawn are those of the DAG the path ids number (`svg::arrows`).
    let (dag, dag_edges) = match &cfg.tpp {
        Some(tpp) => (tpp.dag(), tpp.path(path.id).unwrap_or_default()),
        None => (cfg.numbering.dag(), path.dag_edges(cfg)),
    };
    let dummies =
        (dag_edges.into_iter()).filter(|&d| !matches!(dag.edge(d).kind, DagEdgeKind::Real(_)));
    let dummies = join(&mut dummies.map(|d| d.0));
    format!(
        "data-id=\"{}\" data-lines=\"{lines}\" data-blocks=\"{blocks}\" data-edges=\"{edges}\" \
         data-dummies=\"{dummies}\"",
        path.id
    )
}

/// The page's style sheet.
const STYLE: &str = include_str!("report.css");

/// Path highlighting, "show more", and a self-check that the browser test reads from the DOM.
const SCRIPT: &str = include_str!("report.js");
