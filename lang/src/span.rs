//! Source positions: byte spans, and their line/column numbers.

use line_index::{WideEncoding, WideLineCol};

/// A half-open byte range `lo..hi` in the source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    pub fn new(lo: usize, hi: usize) -> Span {
        Span {
            lo: lo as u32,
            hi: hi as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }
}

/// Maps byte offsets to 1-based line and column numbers (diagnostics, profiles' lines), and to
/// the 0-based lines and UTF-16 columns of the Language Server Protocol, on rust-analyzer's
/// `line-index`.
#[derive(Clone, Debug)]
pub struct LineIndex(line_index::LineIndex);

impl LineIndex {
    pub fn new(source: &str) -> LineIndex {
        LineIndex(line_index::LineIndex::new(source))
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: u32) -> u32 {
        self.line_col(offset).0
    }

    /// The text of 1-based line `line` of `source` (the source this index was made of),
    /// without its line break; empty past the end.
    pub fn line_text<'a>(&self, source: &'a str, line: u32) -> &'a str {
        let Some(range) = line.checked_sub(1).and_then(|l| self.0.line(l)) else {
            return "";
        };
        (source.get(usize::from(range.start())..usize::from(range.end())))
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }

    /// 1-based (line, column); the column counts bytes. An offset past the end is on the last
    /// line.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let clamped = offset.min(u32::from(self.0.len()));
        // Inside a character the index knows no column; the character's start (at most 3
        // bytes before) is on the same line.
        let line = (0..4)
            .find_map(|back| (self.0).try_line_col(clamped.saturating_sub(back).into()))
            .map_or(0, |at| at.line);
        let start = self
            .0
            .line(line)
            .map_or(0, |range| u32::from(range.start()));
        (line + 1, offset - start + 1)
    }

    /// The 0-based line and UTF-16 column of byte `offset` of `source`, clamped to it and
    /// rounded down to a character.
    pub fn utf16_of_offset(&self, source: &str, offset: usize) -> (u32, u32) {
        let mut offset = offset.min(source.len());
        while !source.is_char_boundary(offset) {
            offset -= 1;
        }
        let wide = (self.0.try_line_col((offset as u32).into()))
            .and_then(|at| self.0.to_wide(WideEncoding::Utf16, at));
        wide.map_or((0, 0), |wide| (wide.line, wide.col))
    }

    /// The byte offset in `source` of 0-based `line` and UTF-16 column `col`: the end of the
    /// source past its last line, the end of the line past its last character, and a
    /// character's start inside it.
    pub fn offset_of_utf16(&self, source: &str, line: u32, col: u32) -> usize {
        let Some(range) = self.0.line(line) else {
            return source.len();
        };
        let start = usize::from(range.start());
        let text = &source[start..usize::from(range.end())];
        let end = start + text.trim_end_matches('\n').len();
        let bytes = (self
            .0
            .to_utf8(WideEncoding::Utf16, WideLineCol { line, col }))
        .map_or(usize::MAX, |at| at.col as usize);
        let mut offset = start.saturating_add(bytes).min(end);
        while !source.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column() {
        let index = LineIndex::new("ab\ncd\n\nx");
        assert_eq!(index.line_col(0), (1, 1));
        assert_eq!(index.line_col(1), (1, 2));
        assert_eq!(index.line_col(3), (2, 1));
        assert_eq!(index.line_col(6), (3, 1));
        assert_eq!(index.line_col(7), (4, 1));
    }

    #[test]
    fn line_text() {
        let source = "ab\r\ncd\n\nx";
        let index = LineIndex::new(source);
        let lines: Vec<&str> = (0..=5).map(|n| index.line_text(source, n)).collect();
        assert_eq!(lines, ["", "ab", "cd", "", "x", ""]);
    }
}
