//! Source positions: byte spans, and their line/column numbers.

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

/// Maps byte offsets to 1-based line and column numbers.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(source: &str) -> LineIndex {
        let mut line_starts = vec![0];
        line_starts.extend(
            source
                .bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        LineIndex { line_starts }
    }

    /// 1-based line of a byte offset.
    pub fn line(&self, offset: u32) -> u32 {
        self.line_starts.partition_point(|&start| start <= offset) as u32
    }

    /// The text of 1-based line `line` of `source` (the source this index was made of),
    /// without its line break; empty past the end.
    pub fn line_text<'a>(&self, source: &'a str, line: u32) -> &'a str {
        let Some(&start) = (line as usize)
            .checked_sub(1)
            .and_then(|i| self.line_starts.get(i))
        else {
            return "";
        };
        let end = self
            .line_starts
            .get(line as usize)
            .map_or(source.len(), |&e| e as usize);
        source
            .get(start as usize..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }

    /// 1-based (line, column); the column counts bytes.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let line = self.line(offset);
        let col = offset - self.line_starts[line as usize - 1] + 1;
        (line, col)
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
