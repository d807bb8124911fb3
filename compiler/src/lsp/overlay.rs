//! Profile overlays: for a document `DIR/STEM.pl`, each profile `DIR/STEM.MODE.profile.json`
//! gives code lenses with each function's and each loop's execution counts and hottest path,
//! and a warning when it was taken from other bytes than the open buffer's (docs/PROFILE-FORMAT.md,
//! "Source identity"). A profile is read again whenever its modification time changes.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use lsp_types::{
    CodeLens, Command, Diagnostic, DiagnosticSeverity, InlayHint, InlayHintLabel, InlayHintTooltip,
    Range,
};
use pcc_lang::index::SymbolKind;
use pcc_lang::typed::{Block, StmtKind};
use pcc_profiler::english::plural;
use pcc_profiler::profile::content_hash;

use super::document::{Document, file_name};
use crate::profile_view::ProgramView;

/// What the lenses show of one profile.
pub struct Overlay {
    pub path: PathBuf,
    /// When the profile was written.
    modified: SystemTime,
    mode: String,
    unit: &'static str,
    source_hash: String,
    functions: Vec<FunctionCounts>,
}

struct FunctionCounts {
    name: String,
    /// How many times it was entered, when its CFG is known.
    calls: Option<u64>,
    total: u64,
    /// Hottest first: (count, lines).
    paths: Vec<(u64, Vec<u32>)>,
    line_counts: BTreeMap<u32, u64>,
}

impl Overlay {
    fn load(path: &Path, modified: SystemTime) -> Option<Overlay> {
        let view = ProgramView::load(path)?;
        let functions = view
            .functions
            .iter()
            .map(|f| FunctionCounts {
                name: f.name.clone(),
                calls: f.cfg.as_ref().map(|cfg| cfg.activations()),
                total: f.total,
                paths: f.paths.iter().map(|p| (p.count, p.lines.clone())).collect(),
                line_counts: f.line_counts.clone(),
            })
            .collect();
        Some(Overlay {
            path: path.to_path_buf(),
            modified,
            mode: view.profile.mode.to_string(),
            unit: view.profile.mode.unit(),
            source_hash: view.profile.source.hash.clone(),
            functions,
        })
    }
}

/// Profiles read so far, by path, with the modification time they were read at.
#[derive(Default)]
pub struct Overlays {
    cache: HashMap<PathBuf, (SystemTime, Option<Overlay>)>,
}

impl Overlays {
    /// The profiles next to the document, each read again if it changed on disk.
    pub fn for_document(&mut self, doc: &Document) -> Vec<&Overlay> {
        let paths = profiles_beside(Path::new(&file_name(&doc.uri)));
        for path in &paths {
            let Ok(mtime) = std::fs::metadata(path).and_then(|m| m.modified()) else {
                continue;
            };
            if self.cache.get(path).is_none_or(|(seen, _)| *seen != mtime) {
                self.cache
                    .insert(path.clone(), (mtime, Overlay::load(path, mtime)));
            }
        }
        paths
            .iter()
            .filter_map(|path| self.cache.get(path)?.1.as_ref())
            .collect()
    }
}

/// `DIR/STEM.*.profile.json` for `DIR/STEM.pl`, sorted.
fn profiles_beside(source: &Path) -> Vec<PathBuf> {
    let (Some(stem), Some(dir)) = (source.file_stem(), source.parent()) else {
        return Vec::new();
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let prefix = format!("{}.", stem.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().to_string_lossy().into_owned();
            let mode = name.strip_prefix(&prefix)?.strip_suffix(".profile.json")?;
            (!mode.is_empty() && !mode.contains('.')).then(|| dir.join(name))
        })
        .collect();
    paths.sort();
    paths
}

/// A warning for each profile taken from other bytes than the buffer's.
pub fn stale_warnings(doc: &Document, overlays: &[&Overlay]) -> Vec<Diagnostic> {
    let hash = content_hash(doc.text.as_bytes());
    overlays
        .iter()
        .filter(|o| o.source_hash != hash)
        .map(|o| Diagnostic {
            range: Range::default(),
            severity: Some(DiagnosticSeverity::WARNING),
            source: Some("pcc profile".to_string()),
            message: format!(
                "the profile {} is stale: it was taken from other source text (hash {}, the \
                 buffer's is {hash}), so its counts may be on the wrong lines; run the program \
                 with `--profile {}` again",
                o.path.display(),
                o.source_hash,
                o.mode
            ),
            ..Diagnostic::default()
        })
        .collect()
}

/// `lines 3→4→7` (consecutive repeats already removed by the profile).
fn route(lines: &[u32]) -> String {
    let lines: Vec<String> = lines.iter().map(u32::to_string).collect();
    format!("lines {}", lines.join("→"))
}

fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0%".to_string();
    }
    format!("{:.0}%", part as f64 * 100.0 / whole as f64)
}

/// The command a lens runs: [`SHOW_PATH`] on the document's URI and the lines of a path.
pub const SHOW_PATH: &str = "pcc.showPath";

/// A lens titled `title` that, clicked, selects the source of `lines` (a hottest path).
fn lens(doc: &Document, range: Range, title: String, lines: &[u32]) -> CodeLens {
    let arguments = vec![serde_json::json!(doc.uri), serde_json::json!(lines)];
    CodeLens {
        range,
        command: Some(Command::new(title, SHOW_PATH.to_string(), Some(arguments))),
        data: None,
    }
}

/// What `window/showDocument` needs to show the lines `arguments` name (as a lens gives them):
/// the document, and the lines from the first to the last selected.
pub fn show_path(arguments: &serde_json::Value) -> Option<serde_json::Value> {
    let uri = arguments.get(0)?.as_str()?;
    let lines: Vec<u64> = (arguments.get(1)?.as_array()?.iter())
        .filter_map(serde_json::Value::as_u64)
        .filter(|&l| l > 0)
        .collect();
    let (first, last) = (lines.iter().min()?, lines.iter().max()?);
    Some(serde_json::json!({
        "uri": uri,
        "takeFocus": true,
        "selection": {
            "start": { "line": first - 1, "character": 0 },
            "end": { "line": *last, "character": 0 }
        }
    }))
}

/// The profile the lenses and hints show: of those beside the document taken from the buffer's
/// bytes, the one written last (the run the user just made). Others are stale: their lines may
/// be anywhere now ([`stale_warnings`] says so).
pub fn shown<'a>(doc: &Document, overlays: &[&'a Overlay]) -> Option<&'a Overlay> {
    let hash = content_hash(doc.text.as_bytes());
    (overlays.iter().copied())
        .filter(|o| o.source_hash == hash)
        .max_by_key(|o| o.modified)
}

/// A lens on each function's name and on each loop of the document, from the profile shown.
pub fn code_lenses(doc: &Document, overlay: Option<&Overlay>) -> Vec<CodeLens> {
    let mut lenses = Vec::new();
    let Some(overlay) = overlay else {
        return lenses;
    };
    for symbol in &doc.index.symbols {
        if symbol.kind != SymbolKind::Function {
            continue;
        }
        let Some(f) = overlay.functions.iter().find(|f| f.name == symbol.name) else {
            continue;
        };
        let calls = f
            .calls
            .map_or(String::new(), |n| format!("{}, ", plural(n, "call")));
        let hottest = match f.paths.first() {
            Some((count, lines)) => format!(
                "; hottest path {count}× ({}): {}",
                share(*count, f.total),
                route(lines)
            ),
            None => String::new(),
        };
        let title = format!(
            "{}: {calls}{}{hottest}",
            overlay.mode,
            plural(f.total, overlay.unit.trim_end_matches('s'))
        );
        let lines = f
            .paths
            .first()
            .map_or(&[][..], |(_, lines)| lines.as_slice());
        lenses.push(lens(doc, doc.range(symbol.span), title, lines));
    }
    if let Ok(program) = &doc.checked {
        for func in &program.functions {
            let Some(f) = overlay.functions.iter().find(|f| f.name == func.name) else {
                continue;
            };
            let mut loops = Vec::new();
            collect_loops(&func.body, &mut loops);
            for span in loops {
                let range = doc.range(span);
                let line = range.start.line + 1;
                let count = f.line_counts.get(&line).copied().unwrap_or(0);
                let through = f.paths.iter().find(|(_, lines)| lines.contains(&line));
                let hottest = through.map_or(String::new(), |(n, lines)| {
                    format!("; hottest path through it {n}×: {}", route(lines))
                });
                let title = format!(
                    "{}: loop header (line {line}) entered {}{hottest}",
                    overlay.mode,
                    plural(count, "time")
                );
                let lines = through.map_or(&[][..], |(_, lines)| lines.as_slice());
                lenses.push(lens(
                    doc,
                    Range::new(range.start, range.start),
                    title,
                    lines,
                ));
            }
        }
    }
    lenses
}

/// Each line's count (the one of `pcc profile annotate`: the times control entered it;
/// `#####` for code that never ran) at the end of each line of `range`, from the profile shown.
pub fn inlay_hints(doc: &Document, overlay: Option<&Overlay>, range: Range) -> Vec<InlayHint> {
    let Some(overlay) = overlay else {
        return Vec::new();
    };
    let counts = overlay.functions.iter().flat_map(|f| &f.line_counts);
    let mut hints: Vec<InlayHint> = counts
        .filter(|&(&line, _)| (range.start.line..=range.end.line).contains(&(line - 1)))
        .map(|(&line, &count)| {
            let end = doc.line_end(line - 1);
            let label = match count {
                0 => "  #####".to_string(),
                n => format!("  ×{n}"),
            };
            InlayHint {
                position: end,
                label: InlayHintLabel::String(label),
                kind: None,
                text_edits: None,
                tooltip: Some(InlayHintTooltip::String(format!(
                    "{}: control entered this line {}",
                    overlay.mode,
                    plural(count, "time")
                ))),
                padding_left: Some(true),
                padding_right: None,
                data: None,
            }
        })
        .collect();
    hints.sort_by_key(|h| h.position.line);
    hints
}

/// The spans of every `while` and `for` in a block, outermost first.
fn collect_loops(block: &Block, loops: &mut Vec<pcc_lang::Span>) {
    for stmt in &block.stmts {
        match &stmt.kind {
            StmtKind::While { body, .. } | StmtKind::For { body, .. } => {
                loops.push(stmt.span);
                collect_loops(body, loops);
            }
            StmtKind::If {
                then_block,
                else_block,
                ..
            } => {
                collect_loops(then_block, loops);
                if let Some(block) = else_block {
                    collect_loops(block, loops);
                }
            }
            StmtKind::Match { arms, default, .. } => {
                for arm in arms {
                    collect_loops(&arm.body, loops);
                }
                collect_loops(default, loops);
            }
            StmtKind::Block(block) => collect_loops(block, loops),
            _ => {}
        }
    }
}
