//! Byte offsets of the source against LSP positions: a line and a column counted in UTF-16
//! code units, as the protocol's default position encoding says.

use lsp_types::{Position, Range};
use pcc_lang::Span;

/// Where each line of a text starts.
pub struct LineMap {
    line_starts: Vec<usize>,
}

impl LineMap {
    pub fn new(text: &str) -> LineMap {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineMap { line_starts }
    }

    /// The position of a byte offset (clamped to the text, rounded down to a character).
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        let start = self.line_starts[line];
        let character = text[start..offset].encode_utf16().count();
        Position::new(line as u32, character as u32)
    }

    pub fn range(&self, text: &str, span: Span) -> Range {
        Range::new(
            self.position(text, span.lo as usize),
            self.position(text, span.hi as usize),
        )
    }

    /// The byte offset of a position. A line past the end is the end of the text; a column
    /// past the end of its line is the line's end; one inside a character is that character.
    pub fn offset(&self, text: &str, position: Position) -> usize {
        let Some(&start) = self.line_starts.get(position.line as usize) else {
            return text.len();
        };
        let end = self
            .line_starts
            .get(position.line as usize + 1)
            .map_or(text.len(), |&next| next - 1);
        let mut units = 0;
        for (i, c) in text[start..end].char_indices() {
            units += c.len_utf16();
            if units > position.character as usize {
                return start + i;
            }
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns() {
        // `é` is 2 bytes and 1 UTF-16 unit; `𝄞` is 4 bytes and 2 units.
        let text = "ab\né𝄞x\n";
        let map = LineMap::new(text);
        assert_eq!(map.position(text, 3), Position::new(1, 0));
        assert_eq!(map.position(text, 5), Position::new(1, 1));
        assert_eq!(map.position(text, 9), Position::new(1, 3));
        assert_eq!(map.offset(text, Position::new(1, 3)), 9);
        assert_eq!(map.offset(text, Position::new(1, 1)), 5);
        // Inside the surrogate pair: the character's start.
        assert_eq!(map.offset(text, Position::new(1, 2)), 5);
        assert_eq!(map.offset(text, Position::new(1, 99)), 10);
        assert_eq!(map.offset(text, Position::new(9, 0)), text.len());
        // Inside a character's bytes: rounded down.
        assert_eq!(map.position(text, 4), Position::new(1, 0));
    }
}
