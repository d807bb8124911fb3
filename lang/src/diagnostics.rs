//! Compile errors as values, and their rendering as plain text (no color, ASCII drawing) or as
//! JSON lines for graders and editors.

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Chars, Config};

use serde::Serialize;

use crate::span::Span;

/// At most this many errors are rendered; the rest are counted in a final line.
const MAX_RENDERED: usize = 100;

/// One compile error (or warning): a message, the offending span, and optional extra context.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// A warning does not stop the program from being compiled.
    pub warning: bool,
    pub message: String,
    pub span: Span,
    /// Text under the caret; empty for none.
    pub label: String,
    /// Other places worth showing (e.g. a previous definition).
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
    /// Suggested fixes, shown as `help:` notes.
    pub help: Vec<String>,
}

impl Diagnostic {
    pub fn new(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            warning: false,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
            help: Vec::new(),
        }
    }

    /// A warning: the program still compiles and runs.
    pub fn warning(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            warning: true,
            ..Diagnostic::new(message, span)
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

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help.push(help.into());
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
        self.render_styled(file_name, source, false)
    }

    /// [`Diagnostics::render`], in colour (ANSI escapes) when `colour` is true.
    pub fn render_styled(&self, file_name: &str, source: &str, colour: bool) -> String {
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
            let report = match diagnostic.warning {
                true => Report::warning(),
                false => Report::error(),
            };
            let report = report
                .with_message(&diagnostic.message)
                .with_labels(labels)
                .with_notes(
                    diagnostic
                        .notes
                        .iter()
                        .cloned()
                        .chain(diagnostic.help.iter().map(|help| format!("help: {help}")))
                        .collect(),
                );
            let rendered = if colour {
                let mut buffer = termcolor::Buffer::ansi();
                term::emit_to_write_style(&mut buffer, &config, &file, &report)
                    .map(|()| String::from_utf8_lossy(buffer.as_slice()).into_owned())
            } else {
                term::emit_into_string(&config, &file, &report)
            };
            match rendered {
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

    /// Renders every error as one line of JSON (docs/CLI.md, `--error-format json`): where it
    /// starts and ends (1-based lines; columns count characters, the end column is the one just
    /// after the span), the message, the label under the caret, the other places shown, notes
    /// and help. Unlike the text, every error is rendered.
    pub fn render_json(&self, file_name: &str, source: &str) -> String {
        let index = crate::span::LineIndex::new(source);
        let position = |offset: usize| {
            let (line, byte_column) = index.line_col(offset as u32);
            let line_start = offset + 1 - byte_column as usize;
            (line, source[line_start..offset].chars().count() as u32 + 1)
        };
        let place = |span: Span, label: &str| {
            let (lo, hi) = clamp(source, span);
            let ((line, column), (end_line, end_column)) = (position(lo), position(hi));
            Place {
                line,
                column,
                end_line,
                end_column,
                label: label.to_string(),
            }
        };
        let mut out = String::new();
        for diagnostic in &self.items {
            let record = Record {
                file: file_name,
                place: place(diagnostic.span, &diagnostic.label),
                severity: if diagnostic.warning {
                    "warning"
                } else {
                    "error"
                },
                message: &diagnostic.message,
                related: diagnostic
                    .secondary
                    .iter()
                    .map(|(span, label)| place(*span, label))
                    .collect(),
                notes: &diagnostic.notes,
                help: &diagnostic.help,
            };
            out.push_str(&serde_json::to_string(&record).expect("a diagnostic is JSON"));
            out.push('\n');
        }
        out
    }

    /// [`Diagnostics::render`] for the raw bytes given to [`crate::check_bytes`].
    pub fn render_bytes(&self, file_name: &str, bytes: &[u8]) -> String {
        self.render(file_name, &String::from_utf8_lossy(bytes))
    }
}

/// One diagnostic of [`Diagnostics::render_json`].
#[derive(Serialize)]
struct Record<'a> {
    file: &'a str,
    #[serde(flatten)]
    place: Place,
    severity: &'static str,
    message: &'a str,
    /// Other places worth showing, such as a previous definition.
    related: Vec<Place>,
    notes: &'a [String],
    help: &'a [String],
}

#[derive(Serialize)]
struct Place {
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    label: String,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_positions_count_characters_and_end_after_the_span() {
        // `é` is two bytes: the columns after it are one less than the byte offsets suggest.
        let source = "let é = 1;\nlet x = wrong;\n";
        let lo = source.find("wrong").unwrap();
        let diagnostics = Diagnostics::new(vec![
            Diagnostic::new("unknown `wrong`", Span::new(lo, lo + 5))
                .with_label("here")
                .with_secondary(Span::new(4, 6), "`é`")
                .with_note("a note")
                .with_help("a help"),
            // Past the end of the source: clamped.
            Diagnostic::new("at the end", Span::new(100, 120)),
        ]);
        let lines: Vec<serde_json::Value> = diagnostics
            .render_json("t.pl", source)
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(
            lines[0],
            serde_json::json!({
                "file": "t.pl", "line": 2, "column": 9, "end_line": 2, "end_column": 14,
                "label": "here", "severity": "error", "message": "unknown `wrong`",
                "related": [{ "line": 1, "column": 5, "end_line": 1, "end_column": 6, "label": "`é`" }],
                "notes": ["a note"], "help": ["a help"]
            })
        );
        assert_eq!(
            (lines[1]["line"].as_u64(), lines[1]["column"].as_u64()),
            (Some(3), Some(1))
        );
    }
}
