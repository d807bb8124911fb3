//! Compile errors as values, and their rendering as plain text (no color, ASCII drawing).

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Chars, Config};

use crate::span::Span;

/// At most this many errors are rendered; the rest are counted in a final line.
const MAX_RENDERED: usize = 100;

/// One compile error: a message, the offending span, and optional extra context.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub message: String,
    pub span: Span,
    /// Text under the caret; empty for none.
    pub label: String,
    /// Other places worth showing (e.g. a previous definition).
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

/// Every error found in one file, in source order.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Sorts by position so errors read top to bottom, whichever pass found them.
    pub(crate) fn new(mut items: Vec<Diagnostic>) -> Diagnostics {
        items.sort_by_key(|d| (d.span.lo, d.span.hi));
        Diagnostics { items }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter()
    }

    /// Renders every error as `pcc` prints it: message, `file:line:col`, the source line and
    /// a caret under the span. `source` must be the text that was checked; spans that do not
    /// fit it are clamped rather than trusted, so rendering never panics.
    pub fn render(&self, file_name: &str, source: &str) -> String {
        let file = SimpleFile::new(file_name, source);
        let config = Config {
            chars: Chars::ascii(),
            ..Config::default()
        };
        let mut out = String::new();
        for diagnostic in self.items.iter().take(MAX_RENDERED) {
            let label = |span: Span| {
                let (lo, hi) = clamp(source, span);
                lo..hi
            };
            let mut labels =
                vec![Label::primary((), label(diagnostic.span)).with_message(&diagnostic.label)];
            labels.extend(
                diagnostic
                    .secondary
                    .iter()
                    .map(|(span, text)| Label::secondary((), label(*span)).with_message(text)),
            );
            let report = Report::error()
                .with_message(&diagnostic.message)
                .with_labels(labels)
                .with_notes(diagnostic.notes.clone());
            match term::emit_into_string(&config, &file, &report) {
                Ok(text) => out.push_str(&text),
                // Unreachable with clamped spans; still, a message beats a panic.
                Err(_) => out.push_str(&format!("error: {}\n\n", diagnostic.message)),
            }
        }
        if self.items.len() > MAX_RENDERED {
            out.push_str(&format!(
                "error: too many errors; {} more not shown\n",
                self.items.len() - MAX_RENDERED
            ));
        }
        out
    }

    /// [`Diagnostics::render`] for the raw bytes given to [`crate::check_bytes`].
    pub fn render_bytes(&self, file_name: &str, bytes: &[u8]) -> String {
        self.render(file_name, &String::from_utf8_lossy(bytes))
    }
}

/// Clamps a span to the source and widens it to character boundaries.
fn clamp(source: &str, span: Span) -> (usize, usize) {
    let mut lo = (span.lo as usize).min(source.len());
    let mut hi = (span.hi as usize).clamp(lo, source.len());
    while !source.is_char_boundary(lo) {
        lo -= 1;
    }
    while !source.is_char_boundary(hi) {
        hi += 1;
    }
    (lo, hi)
}
