//! An open file: its text as the editor has it, and what the front end found in it.

use lsp_types::TextDocumentContentChangeEvent;
use pcc_lang::index::Index;
use pcc_lang::{Diagnostics, LineIndex, typed};

use super::position;

pub struct Document {
    pub uri: String,
    pub text: String,
    /// The editor's version of the text, which the diagnostics published for it carry.
    pub version: i32,
    pub lines: LineIndex,
    /// The checked program, or every error in it.
    pub checked: Result<typed::Program, Diagnostics>,
    pub index: Index,
}

impl Document {
    /// Checks `text`.
    pub fn new(uri: String, text: String, version: i32) -> Document {
        let (checked, index) = pcc_lang::analyze(&file_name(&uri), &text);
        Document {
            lines: LineIndex::new(&text),
            uri,
            text,
            version,
            checked,
            index,
        }
    }

    /// The offset of an LSP position.
    pub fn offset(&self, position: lsp_types::Position) -> u32 {
        position::offset(&self.lines, &self.text, position) as u32
    }

    /// The position at the end of 0-based line `line` (before its line break).
    pub fn line_end(&self, line: u32) -> lsp_types::Position {
        let next = lsp_types::Position::new(line + 1, 0);
        let end = position::offset(&self.lines, &self.text, next);
        let end = if end > 0 && self.text[..end].ends_with('\n') {
            end - 1
        } else {
            end
        };
        let end = if self.text[..end].ends_with('\r') {
            end - 1
        } else {
            end
        };
        position::position(&self.lines, &self.text, end)
    }

    pub fn range(&self, span: pcc_lang::Span) -> lsp_types::Range {
        position::range(&self.lines, &self.text, span)
    }
}

/// Applies the editor's changes to a text in order (a change without a range replaces it).
pub fn apply(text: &mut String, changes: Vec<TextDocumentContentChangeEvent>) {
    for change in changes {
        match change.range {
            None => *text = change.text,
            Some(range) => {
                let lines = LineIndex::new(text);
                let lo = position::offset(&lines, text, range.start);
                let hi = position::offset(&lines, text, range.end).max(lo);
                text.replace_range(lo..hi, &change.text);
            }
        }
    }
}

/// The path of a `file:` URI (percent-decoded), else the URI itself: the name diagnostics and
/// profiles go by.
pub fn file_name(uri: &str) -> String {
    let Some(path) = uri.strip_prefix("file://") else {
        return uri.to_string();
    };
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = || u8::from_str_radix(path.get(i + 1..i + 3)?, 16).ok();
        match (bytes[i], hex()) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(file_name("file:///tmp/a%20b.pl"), "/tmp/a b.pl");
        assert_eq!(file_name("untitled:1"), "untitled:1");
        assert_eq!(file_name("file:///x%2"), "/x%2");
    }
}
