//! A function's CFG as inline SVG for the report: layout by the `layout-rs` crate (layered, as
//! Graphviz's `dot` draws CFGs; pure Rust, so no Graphviz is needed), drawing here, through a
//! layout-rs render backend that tags each block and edge with its id for the page's script.
//! CFGs too large for layout-rs are laid out by `dot` itself when it is installed
//! ([`graphviz_svg`]) and drawn by the same code.
//!
//! As [BL96] draws a path-profiled CFG: real edges solid, each labelled with its count and, for
//! path modes, its Ball-Larus increment `Val(e)`; back edges dashed; the dummy edges that
//! replace them in the DAG (ENTRY → loop header, loop latch → EXIT) dotted, with their `Val`.

use std::fmt::Write as _;

use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::shapes::{Arrow, Element, LineEndKind, ShapeKind};
use layout::topo::layout::VisualGraph;
use pcc_profiler::cfg::{EdgeId, NodeId};
use pcc_profiler::dag::{Dag, DagEdgeId, DagEdgeKind, EdgeRole};

use super::escape;
use crate::profile_view::CfgView;

/// At most this many source lines are shown in a block, each cut to `LINE_CHARS` characters.
const BLOCK_LINES: usize = 3;
const LINE_CHARS: usize = 34;
/// Monospace metrics of the block text, in pixels.
const FONT: f64 = 12.0;
const CHAR_WIDTH: f64 = 7.3;
const LINE_HEIGHT: f64 = 15.0;
/// The width of a character of an edge label (11 px monospace, the page's `text.elabel`).
const LABEL_CHAR_WIDTH: f64 = 6.7;

/// How long one layout of a CFG may take: a safety net behind the report's budget of counted
/// work (`html::LAYOUT_BUDGET`), for the one CFG whose crossing minimization runs for minutes.
const LAYOUT_TIME: std::time::Duration = std::time::Duration::from_secs(3);

/// The definitions the report's CFG drawings share, once per page: the arrowhead their edges
/// end in.
pub const ARROWHEAD: &str = "<svg width=\"0\" height=\"0\" style=\"position:absolute\" \
     aria-hidden=\"true\"><defs><marker id=\"arrowhead\" markerWidth=\"8\" markerHeight=\"6\" \
     refX=\"8\" refY=\"3\" orient=\"auto-start-reverse\" markerUnits=\"userSpaceOnUse\">\
     <polygon points=\"0 0, 8 3, 0 6\" fill=\"#555\"/></marker></defs></svg>";

/// The SVG of `cfg`; `line(n)` is source line `n`, `path_mode` adds `Val(e)` and the dummy
/// edges. When layout-rs fails on a graph or takes too long, the CFG is laid out again without
/// dummy edges and crossing minimization (the second value is false); `None`: it failed even so.
/// Without `optimize`, it is laid out that second way at once.
pub fn cfg_svg(
    cfg: &CfgView,
    line: &dyn Fn(u32) -> String,
    path_mode: bool,
    optimize: bool,
) -> Option<(Drawing, bool)> {
    if !optimize {
        return laid_out(cfg, line, path_mode, false, false).map(|svg| (svg, false));
    }
    match laid_out(cfg, line, path_mode, path_mode, true) {
        Some(svg) => Some((svg, path_mode)),
        None => laid_out(cfg, line, path_mode, false, false).map(|svg| (svg, false)),
    }
}

fn laid_out(
    cfg: &CfgView,
    line: &dyn Fn(u32) -> String,
    path_mode: bool,
    dummies: bool,
    optimize: bool,
) -> Option<Drawing> {
    let blocks = blocks_text(cfg, line);
    let mut vg = VisualGraph::new(Orientation::TopToBottom);
    let handles: Vec<_> = blocks
        .iter()
        .enumerate()
        .map(|(v, text)| {
            let size = block_size(text);
            let look = StyleAttr::new(Color::fast("black"), 1, None, 4, FONT as usize);
            vg.add_node(Element::create_with_properties(
                ShapeKind::Box(String::new()),
                look,
                Orientation::TopToBottom,
                size,
                format!("n{v}"),
            ))
        })
        .collect();
    for arrow_drawn in arrows(cfg, path_mode, dummies) {
        vg.add_edge(
            arrow(
                &arrow_drawn.label,
                arrow_drawn.style,
                arrow_drawn.properties,
            ),
            handles[arrow_drawn.from],
            handles[arrow_drawn.to],
        );
    }
    let mut canvas = Canvas::new(cfg, blocks);
    // layout-rs's crossing minimization can run for minutes on a CFG of a hundred blocks, and
    // it asserts on some graphs: it runs on a thread of its own, given `LAYOUT_TIME` (then
    // abandoned: it ends with the process), and its panic message is kept off stderr.
    let (send, receive) = std::sync::mpsc::channel();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    std::thread::spawn(move || {
        vg.do_it(false, !optimize, false, &mut canvas);
        let _ = send.send(canvas.finish());
    });
    let svg = receive.recv_timeout(LAYOUT_TIME).ok();
    std::panic::set_hook(hook);
    svg
}

/// Every node's text ([`block_text`]).
fn blocks_text(cfg: &CfgView, line: &dyn Fn(u32) -> String) -> Vec<Vec<String>> {
    (0..cfg.fcfg.cfg.num_nodes())
        .map(|v| block_text(cfg, NodeId(v), line))
        .collect()
}

/// The size of a block's box holding `text`, in pixels.
fn block_size(text: &[String]) -> Point {
    let width = text.iter().map(|l| l.chars().count()).max().unwrap_or(1) as f64;
    Point::new(
        width * CHAR_WIDTH + 14.0,
        text.len() as f64 * LINE_HEIGHT + 10.0,
    )
}

/// How wide an edge label is drawn, in pixels.
fn label_width(text: &str) -> f64 {
    text.chars().count() as f64 * LABEL_CHAR_WIDTH
}

/// The SVG of `cfg` laid out by Graphviz's `dot`, for CFGs too large for layout-rs, drawn as
/// [`cfg_svg`] draws (so the page's script works the same) but without the dummy edges. `None`
/// when `dot` is not installed, fails, or takes longer than [`DOT_TIME`].
pub fn graphviz_svg(
    cfg: &CfgView,
    line: &dyn Fn(u32) -> String,
    path_mode: bool,
) -> Option<Drawing> {
    let blocks = blocks_text(cfg, line);
    let arrows = arrows(cfg, path_mode, false);
    let mut dot = String::from(
        "digraph cfg {\n  graph [nodesep=0.25, ranksep=0.35];\n  \
         node [shape=box, fixedsize=true, label=\"\"];\n  edge [fontsize=11];\n",
    );
    for (v, text) in blocks.iter().enumerate() {
        let size = block_size(text);
        let _ = writeln!(
            dot,
            "  n{v} [width={:.3}, height={:.3}];",
            size.x / POINTS,
            size.y / POINTS
        );
    }
    for (i, a) in arrows.iter().enumerate() {
        // The label only reserves room; the drawing writes its own text.
        let label = a.label.replace(['"', '\\'], "");
        let _ = writeln!(
            dot,
            "  n{} -> n{} [id=\"a{i}\", label=\"{label}\"];",
            a.from, a.to
        );
    }
    dot.push_str("}\n");
    let layout: serde_json::Value = serde_json::from_slice(&run_dot(&dot)?).ok()?;
    // Graphviz measures in points from the bottom left; SVG in pixels from the top left.
    let height = layout["bb"]
        .as_str()?
        .split(',')
        .nth(3)?
        .parse::<f64>()
        .ok()?;
    let point = |x: f64, y: f64| Point::new(x, height - y);
    let pair = |text: &str| -> Option<Point> {
        let (x, y) = text.split_once(',')?;
        Some(point(x.parse().ok()?, y.parse().ok()?))
    };
    let mut canvas = Canvas::new(cfg, blocks);
    let look = StyleAttr::new(Color::fast("black"), 1, None, 0, 11);
    for node in layout["objects"].as_array()? {
        let v: usize = node["name"].as_str()?.strip_prefix('n')?.parse().ok()?;
        let centre = pair(node["pos"].as_str()?)?;
        let size = block_size(&canvas.blocks[v]);
        let corner = Point::new(centre.x - size.x / 2.0, centre.y - size.y / 2.0);
        canvas.draw_rect(corner, size, &look, Some(format!("n{v}")), None);
    }
    for edge in layout["edges"].as_array()? {
        let i: usize = edge["id"].as_str()?.strip_prefix('a')?.parse().ok()?;
        let a = &arrows[i];
        // `e,x,y` is where the arrowhead ends, then the spline: a start point and three points
        // per cubic Bézier segment.
        let mut end = None;
        let mut spline = Vec::new();
        for item in edge["pos"].as_str()?.split_whitespace() {
            match item.strip_prefix("e,") {
                Some(tip) => end = pair(tip),
                None if item.starts_with("s,") => {}
                None => spline.push(pair(item)?),
            }
        }
        let (first, rest) = spline.split_first()?;
        let mut d = format!("M {:.1} {:.1}", first.x, first.y);
        for c in rest.chunks(3) {
            let _ = write!(d, " C");
            for p in c {
                let _ = write!(d, " {:.1} {:.1}", p.x, p.y);
            }
        }
        if let Some(tip) = end {
            let _ = write!(d, " L {:.1} {:.1}", tip.x, tip.y);
        }
        let dashed = matches!(a.style, LineStyleKind::Dashed);
        canvas.path(d, &spline, dashed, false, &a.properties);
        // `lp` is the centre of the room dot left for the label; the drawing starts it there.
        if let Some(centre) = edge["lp"].as_str().and_then(pair) {
            let start = Point::new(centre.x - label_width(&a.label) / 2.0, centre.y);
            canvas.draw_text(start, &a.label, &look);
        }
    }
    Some(canvas.finish())
}

/// Points (Graphviz's unit) per inch, and pixels per point in the drawing.
const POINTS: f64 = 72.0;
/// How long `dot` may take on one CFG.
const DOT_TIME: std::time::Duration = std::time::Duration::from_secs(20);

/// `dot -Tjson` of `graph`: its output, or `None` when it is missing, fails or runs too long.
fn run_dot(graph: &str) -> Option<Vec<u8>> {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let mut child = Command::new("dot")
        .arg("-Tjson")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let graph = graph.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(graph.as_bytes()));
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).map(|_| out)
    });
    let Some(status) = wait_timeout::ChildExt::wait_timeout(&mut child, DOT_TIME).ok()? else {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    };
    let _ = writer.join();
    let out = reader.join().ok()?.ok()?;
    status.success().then_some(out)
}

/// One arrow of a CFG drawing: its ends (node ids), its label, its line style, and the SVG
/// attributes the page's script finds it by.
struct Arrowed {
    from: usize,
    to: usize,
    label: String,
    style: LineStyleKind,
    properties: String,
}

/// The arrows of `cfg`'s drawing: real edges (parallel ones as one arrow), labelled with their
/// counts and, in `path_mode`, their `Val(e)`; with `dummies`, the DAG's dummy edges too.
fn arrows(cfg: &CfgView, path_mode: bool, dummies: bool) -> Vec<Arrowed> {
    let graph = &cfg.fcfg.cfg;
    let max_count = cfg.edge_counts.iter().copied().max().unwrap_or(0).max(1);
    let mut drawn = Vec::new();
    let back_edges = cfg.numbering.dag().back_edges();
    // Parallel edges (a branch whose arms meet at once) are drawn as one arrow: layout-rs
    // cannot route two curves between the same boxes.
    let mut groups: Vec<((usize, usize), Vec<EdgeId>)> = Vec::new();
    for (e, edge) in graph.edges() {
        let ends = (edge.from.0, edge.to.0);
        match groups.iter_mut().find(|(g, _)| *g == ends) {
            Some((_, edges)) => edges.push(e),
            None => groups.push((ends, vec![e])),
        }
    }
    for ((from, to), edges) in groups {
        let count: u64 = edges.iter().map(|e| cfg.edge_counts[e.0]).sum();
        let increments: Vec<Option<String>> = edges
            .iter()
            .map(|&e| path_mode.then(|| increment(cfg, e)).flatten())
            .collect();
        let labels: Vec<String> = edges
            .iter()
            .zip(&increments)
            .map(|(&e, increment)| {
                let mut label = if cfg.edges_known {
                    cfg.edge_counts[e.0].to_string()
                } else {
                    String::new()
                };
                if let Some(increment) = increment {
                    let _ = write!(label, " {increment}");
                }
                label
            })
            .collect();
        let back = back_edges.contains(&edges[0]);
        let (style, class) = if back {
            (LineStyleKind::Dashed, "back")
        } else {
            (LineStyleKind::Normal, "real")
        };
        let ids: Vec<String> = edges.iter().map(|e| e.0.to_string()).collect();
        let (width, colour) = if cfg.edges_known {
            let width = 1.0 + 5.0 * (count as f64 / max_count as f64).sqrt();
            (width, heat_colour(count, max_count))
        } else {
            (1.2, "#666".to_string())
        };
        // The page's self-check sums a path's increments: `data-val` holds each edge's, as a
        // number ("-" for none, or cold).
        let vals = if path_mode {
            let val = |i: &Option<String>| match i.as_deref().and_then(|i| i.strip_prefix('+')) {
                Some(v) => v.to_string(),
                None => "-".to_string(),
            };
            let vals: Vec<String> = increments.iter().map(val).collect();
            format!(" data-val=\"{}\"", vals.join(" "))
        } else {
            String::new()
        };
        let properties = format!(
            "class=\"edge {class}\" data-e=\"{}\"{vals} stroke-width=\"{width:.1}\" stroke=\"{colour}\"",
            ids.join(" "),
        );
        drawn.push(Arrowed {
            from,
            to,
            label: labels.join(" | ").trim().to_string(),
            style,
            properties,
        });
    }
    if dummies {
        // Those of the DAG the profile's path ids number: TPP's hot DAG for a `tpp` profile.
        let (dag, increment): (&Dag, &dyn Fn(DagEdgeId) -> u64) = match &cfg.tpp {
            Some(tpp) => (tpp.dag(), &|d| tpp.increment(d)),
            None => (cfg.numbering.dag(), &|d| cfg.numbering.increment(d)),
        };
        for (d, edge) in dag.edges() {
            let what = match edge.kind {
                DagEdgeKind::EntryDummy => "dummy: a path starts at the loop header",
                DagEdgeKind::BackExit(_) => "dummy: a path ends at the back edge",
                DagEdgeKind::CutExit(_) => "dummy: a path ends at the cut edge",
                _ => continue,
            };
            let properties = format!(
                "class=\"edge dummy\" data-d=\"{}\" data-val=\"{}\" data-what=\"{what}\" stroke-width=\"1\" stroke=\"#888\"",
                d.0,
                increment(d)
            );
            drawn.push(Arrowed {
                from: edge.from.0,
                to: edge.to.0,
                label: format!("+{}", increment(d)),
                style: LineStyleKind::Dotted,
                properties,
            });
        }
    }
    drawn
}

/// The label of CFG edge `e`'s increment, `+Val(e)`, where it is a DAG edge of the numbering
/// the profile's path ids are in (a back edge is not: its dummies carry its increments); for a
/// `tpp` profile, TPP's on its hot DAG, and `cold` for an edge paths through which it does not
/// number ([TPP] §4.1).
fn increment(cfg: &CfgView, e: EdgeId) -> Option<String> {
    match &cfg.tpp {
        Some(tpp) => match tpp.hot_role(e) {
            None => Some("cold".to_string()),
            Some(EdgeRole::Dag(d)) => Some(format!("+{}", tpp.increment(d))),
            Some(EdgeRole::Closing { .. } | EdgeRole::Unreachable) => None,
        },
        None => {
            let dag = cfg.numbering.dag();
            let (d, _) = dag.edges().find(|(_, d)| d.kind == DagEdgeKind::Real(e))?;
            Some(format!("+{}", cfg.numbering.increment(d)))
        }
    }
}

fn arrow(label: &str, style: LineStyleKind, properties: String) -> Arrow {
    let look = StyleAttr::new(Color::fast("black"), 1, None, 0, 11);
    Arrow::with_properties(
        LineEndKind::None,
        LineEndKind::Arrow,
        style,
        label,
        &look,
        properties,
        &None,
        &None,
    )
}

/// The text of a block: `bb3 ×120`, `stopped ×N` where N activations stopped in it, then its
/// first source lines.
fn block_text(cfg: &CfgView, v: NodeId, line: &dyn Fn(u32) -> String) -> Vec<String> {
    let count = cfg.node_counts[v.0];
    if v == cfg.fcfg.exit() {
        return vec![
            format!("EXIT ×{count}"),
            format!("line {}", cfg.node_line[v.0]),
        ];
    }
    let entry = if v == cfg.fcfg.cfg.entry() {
        "ENTRY "
    } else {
        ""
    };
    let mut text = vec![format!("{entry}bb{} ×{count}", v.0)];
    if cfg.stopped[v.0] > 0 {
        text.push(format!("stopped ×{}", cfg.stopped[v.0]));
    }
    // A block without statements (a loop header, a join) shows its construct's line.
    let own = [cfg.node_line[v.0]];
    let lines = match cfg.node_lines[v.0].as_slice() {
        [] => &own[..],
        lines => lines,
    };
    for &n in lines.iter().take(BLOCK_LINES) {
        let source = line(n);
        let source = source.trim();
        let mut shown: String = format!("{n}: {source}");
        if shown.chars().count() > LINE_CHARS {
            shown = shown.chars().take(LINE_CHARS - 1).collect::<String>() + "…";
        }
        text.push(shown);
    }
    if lines.len() > BLOCK_LINES {
        text.push(format!("… {} more lines", lines.len() - BLOCK_LINES));
    }
    text
}

/// An edge's colour: grey for a count of 0, then from amber to dark red as the count nears `max`.
pub fn heat_colour(count: u64, max: u64) -> String {
    if count == 0 {
        return "#c8c8c8".to_string();
    }
    let heat = (count as f64 / max.max(1) as f64).sqrt();
    format!(
        "hsl({:.0}, 85%, {:.0}%)",
        40.0 * (1.0 - heat),
        48.0 - 10.0 * heat
    )
}

/// A background behind dark text: white for 0, then from pale yellow to salmon.
pub fn heat_background(count: u64, max: u64) -> String {
    if count == 0 {
        return "#f4f4f4".to_string();
    }
    let heat = (count as f64 / max.max(1) as f64).sqrt().min(1.0);
    format!(
        "hsl({:.0}, 100%, {:.0}%)",
        50.0 * (1.0 - heat),
        92.0 - 20.0 * heat
    )
}

/// A CFG drawn: its SVG, and its width in pixels at full size.
pub struct Drawing {
    pub svg: String,
    pub width: f64,
}

/// The layout-rs render backend: collects the blocks' boxes and the edges' curves as SVG.
#[derive(Default)]
struct Canvas {
    blocks: Vec<Vec<String>>,
    counts: Vec<u64>,
    /// Activations that stopped in each block (their line is drawn in red).
    stopped: Vec<u64>,
    exit: usize,
    max_count: u64,
    body: String,
    labels: String,
    max: (f64, f64),
    min: (f64, f64),
}

impl Canvas {
    fn new(cfg: &CfgView, blocks: Vec<Vec<String>>) -> Canvas {
        Canvas {
            blocks,
            counts: cfg.node_counts.clone(),
            stopped: cfg.stopped.clone(),
            exit: cfg.fcfg.exit().0,
            max_count: cfg.node_counts.iter().copied().max().unwrap_or(0),
            min: (f64::INFINITY, f64::INFINITY),
            ..Canvas::default()
        }
    }

    /// An edge's curve `d` through `points`, dashed (a back edge) or dotted (a dummy edge,
    /// by its `properties`), with its arrowhead (the page's one [`ARROWHEAD`]: an id must be
    /// unique in a document) at the start or at the end.
    fn path(
        &mut self,
        d: String,
        points: &[Point],
        dashed: bool,
        head_at_start: bool,
        properties: &str,
    ) {
        for &p in points {
            self.grow(p);
        }
        let dash = match (dashed, properties.contains("dummy")) {
            (_, true) => " stroke-dasharray=\"2,3\"",
            (true, false) => " stroke-dasharray=\"6,4\"",
            (false, false) => "",
        };
        let head = if head_at_start {
            "marker-start"
        } else {
            "marker-end"
        };
        let _ = write!(
            self.body,
            "<path d=\"{d}\" fill=\"none\" {head}=\"url(#arrowhead)\"{dash} {properties}/>"
        );
    }

    fn grow(&mut self, p: Point) {
        self.max = (self.max.0.max(p.x), self.max.1.max(p.y));
        self.min = (self.min.0.min(p.x), self.min.1.min(p.y));
    }

    /// The SVG, its view box the drawing's bounds (layout-rs may leave space on any side).
    fn finish(self) -> Drawing {
        let (x, y) = (self.min.0 - 8.0, self.min.1 - 8.0);
        let (w, h) = (self.max.0 + 8.0 - x, self.max.1 + 8.0 - y);
        let svg = format!(
            "<svg class=\"cfg\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"{x:.0} {y:.0} {w:.0} {h:.0}\">{}{}</svg>",
            self.body, self.labels
        );
        Drawing { svg, width: w }
    }
}

impl RenderBackend for Canvas {
    fn draw_rect(
        &mut self,
        xy: Point,
        size: Point,
        _look: &StyleAttr,
        properties: Option<String>,
        _clip: Option<ClipHandle>,
    ) {
        let Some(v) = properties
            .as_deref()
            .and_then(|p| p.strip_prefix('n'))
            .and_then(|v| v.parse::<usize>().ok())
        else {
            return;
        };
        self.grow(xy);
        self.grow(Point::new(xy.x + size.x, xy.y + size.y));
        let count = self.counts[v];
        let fill = heat_background(count, self.max_count);
        let id = if v == self.exit {
            "EXIT".to_string()
        } else {
            format!("bb{v}")
        };
        let _ = write!(
            self.body,
            "<g class=\"block\" data-b=\"{v}\"><title>{id}: {count} executions</title>\
             <rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"4\" fill=\"{fill}\"/>",
            xy.x, xy.y, size.x, size.y
        );
        for (i, text) in self.blocks[v].iter().enumerate() {
            let class = match i {
                0 => " class=\"bid\"",
                1 if self.stopped[v] > 0 => " class=\"stopped\"",
                _ => "",
            };
            let _ = write!(
                self.body,
                "<text x=\"{:.1}\" y=\"{:.1}\"{class}>{}</text>",
                xy.x + 7.0,
                xy.y + 5.0 + LINE_HEIGHT * (i as f64 + 0.8),
                escape(text)
            );
        }
        self.body.push_str("</g>");
    }

    fn draw_line(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}

    fn draw_circle(&mut self, _: Point, _: Point, _: &StyleAttr, _: Option<String>) {}

    /// Edge labels (the text of layout-rs's label connectors), starting at `xy`: beside the
    /// edge's line rather than across it.
    fn draw_text(&mut self, xy: Point, text: &str, _look: &StyleAttr) {
        if text.is_empty() {
            return;
        }
        self.grow(Point::new(xy.x - 4.0, xy.y - 8.0));
        self.grow(Point::new(xy.x + label_width(text) + 4.0, xy.y + 8.0));
        let _ = write!(
            self.labels,
            "<text class=\"elabel\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            xy.x,
            xy.y + 4.0,
            escape(text)
        );
    }

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        dashed: bool,
        head: (bool, bool),
        _look: &StyleAttr,
        properties: Option<String>,
        _text: &str,
    ) {
        let (Some(first), Some(second)) = (path.first(), path.get(1)) else {
            return;
        };
        // The curve as layout-rs's own SVG backend writes it: `M C` then `S` per point.
        let mut d = format!(
            "M {:.1} {:.1} C {:.1} {:.1}, {:.1} {:.1}, {:.1} {:.1}",
            first.0.x,
            first.0.y,
            first.1.x,
            first.1.y,
            second.0.x,
            second.0.y,
            second.1.x,
            second.1.y
        );
        for p in &path[2..] {
            let _ = write!(d, " S {:.1} {:.1}, {:.1} {:.1}", p.0.x, p.0.y, p.1.x, p.1.y);
        }
        let points: Vec<Point> = path.iter().flat_map(|p| [p.0, p.1]).collect();
        // A back edge is laid out reversed, with its head at the start.
        self.path(d, &points, dashed, head.0, &properties.unwrap_or_default());
    }

    fn create_clip(&mut self, _: Point, _: Point, _: usize) -> ClipHandle {
        0
    }
}
