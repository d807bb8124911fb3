//! Byte offsets of the source against LSP positions: a line and a column counted in UTF-16
//! code units, as the protocol's default position encoding says.

use lsp_types::{Position, Range};
use pcc_lang::{LineIndex, Span};

/// The position of a byte offset (clamped to the text, rounded down to a character).
pub fn position(lines: &LineIndex, text: &str, offset: usize) -> Position {
    let (line, character) = lines.utf16_of_offset(text, offset);
    Position::new(line, character)
}

pub fn range(lines: &LineIndex, text: &str, span: Span) -> Range {
    Range::new(
        position(lines, text, span.lo as usize),
        position(lines, text, span.hi as usize),
    )
}

/// The byte offset of a position. A line past the end is the end of the text; a column past
/// the end of its line is the line's end; one inside a character is that character.
pub fn offset(lines: &LineIndex, text: &str, position: Position) -> usize {
    lines.offset_of_utf16(text, position.line, position.character)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns() {
        // `é` is 2 bytes and 1 UTF-16 unit; `𝄞` is 4 bytes and 2 units.
        let text = "ab\né𝄞x\n";
        let map = LineIndex::new(text);
        assert_eq!(position(&map, text, 3), Position::new(1, 0));
        assert_eq!(position(&map, text, 5), Position::new(1, 1));
        assert_eq!(position(&map, text, 9), Position::new(1, 3));
        assert_eq!(offset(&map, text, Position::new(1, 3)), 9);
        assert_eq!(offset(&map, text, Position::new(1, 1)), 5);
        // Inside the surrogate pair: the character's start.
        assert_eq!(offset(&map, text, Position::new(1, 2)), 5);
        assert_eq!(offset(&map, text, Position::new(1, 99)), 10);
        assert_eq!(offset(&map, text, Position::new(9, 0)), text.len());
        // Inside a character's bytes: rounded down.
        assert_eq!(position(&map, text, 4), Position::new(1, 0));
        // Past the end: the end.
        assert_eq!(position(&map, text, 99), Position::new(2, 0));
    }
}
