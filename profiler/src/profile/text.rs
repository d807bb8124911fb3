//! Pieces shared by the text reports of `show` and `diff`: line lists, source excerpts and
//! aligned tables.

use std::borrow::Cow;
use std::fmt::{self, Write};

use super::printable::{clipped, printable_line};

/// Gives the text of a source line, or `None` to show line numbers only.
pub type SourceLines<'a> = &'a dyn Fn(u32) -> Option<String>;

/// `4 5 6 8`.
pub(super) fn line_list(lines: &[u32]) -> String {
    let lines: Vec<String> = lines.iter().map(u32::to_string).collect();
    lines.join(" ")
}

/// An edge for display, `bb3 (line 5) → bb4 (line 5)`, or `bb6 (line 8) → exit (line 9)` for an
/// edge into EXIT: block ids tell apart edges whose lines coincide.
pub(super) fn edge_name(
    (from_block, from_line): (usize, u32),
    (to_block, to_line): (usize, u32),
    to_exit: bool,
) -> String {
    let to = if to_exit {
        "exit".to_string()
    } else {
        format!("bb{to_block}")
    };
    format!("bb{from_block} (line {from_line}) → {to} (line {to_line})")
}

/// The lines an edge's source excerpt shows: its two ends, once if they coincide.
pub(super) fn edge_lines(from_line: u32, to_line: u32) -> Vec<u32> {
    let mut lines = vec![from_line];
    if to_line != from_line {
        lines.push(to_line);
    }
    lines
}

/// A percentage with two decimals, `12.50%`.
pub(super) fn percent(share: f64) -> String {
    format!("{:.2}%", 100.0 * share)
}

/// Writes `lines` (numbers at most `number_width` wide) with their source text, one per line as
/// `indent` + `  12 | text`. The indentation common to the excerpt is removed, so deeply nested
/// code stays compact while its nesting still shows. Writes nothing when no text is known.
pub(super) fn write_source(
    out: &mut String,
    indent: usize,
    number_width: usize,
    lines: &[u32],
    source_line: SourceLines,
) -> fmt::Result {
    let texts: Vec<Option<String>> = lines
        .iter()
        .map(|&n| source_line(n).map(|t| printable_line(t.trim_end()).into_owned()))
        .collect();
    if texts.iter().all(Option::is_none) {
        return Ok(());
    }
    let common = texts
        .iter()
        .flatten()
        .filter(|t| !t.is_empty())
        .map(|t| t.len() - t.trim_start().len())
        .min()
        .unwrap_or(0);
    for (line, text) in lines.iter().zip(&texts) {
        let text = text
            .as_deref()
            .map_or("", |t| t.get(common..).unwrap_or(""));
        writeln!(out, "{:indent$}{line:>number_width$} | {text}", "")?;
    }
    Ok(())
}

/// The widest a column of a [`Table`] but the last may be, in characters: a longer cell (a
/// function name can have any length) is cut, ending in `…`. Also keeps every width within
/// what `format!` takes (at most `u16::MAX`).
pub const MAX_COLUMN: usize = 80;

/// A table whose columns are padded to their widest cell, at most [`MAX_COLUMN`] characters;
/// the last column is never padded nor cut (it holds free text), but wrapped at spaces onto
/// lines of their own to keep rows within a width ([`Table::within`]).
pub(super) struct Table {
    right: Vec<bool>,
    rows: Vec<Vec<String>>,
    width: usize,
}

impl Table {
    /// Columns as (header, whether right-aligned).
    pub(super) fn new(columns: &[(&str, bool)]) -> Table {
        Table {
            right: columns.iter().map(|&(_, right)| right).collect(),
            rows: vec![columns.iter().map(|(name, _)| name.to_string()).collect()],
            width: usize::MAX,
        }
    }

    /// Rows at most `width` characters wide where the last column can be wrapped to fit (it
    /// keeps at least [`MIN_WRAPPED`] characters a line).
    pub(super) fn within(mut self, width: usize) -> Table {
        self.width = width;
        self
    }

    pub(super) fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// Every row, the header first, each indented by `indent` and without a trailing newline.
    pub(super) fn rows(&self, indent: usize) -> Vec<String> {
        let last = self.right.len() - 1;
        let rows: Vec<Vec<Cow<str>>> = self
            .rows
            .iter()
            .map(|row| {
                row.iter()
                    .enumerate()
                    .map(|(c, cell)| {
                        if c == last {
                            Cow::Borrowed(cell.as_str())
                        } else {
                            clipped(cell, MAX_COLUMN)
                        }
                    })
                    .collect()
            })
            .collect();
        let widths: Vec<usize> = (0..self.right.len())
            .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
            .collect();
        // Where the last column starts, and how much of it fits on a line.
        let start = indent + widths[..last].iter().map(|w| w + 2).sum::<usize>();
        let room = self.width.saturating_sub(start).max(MIN_WRAPPED);
        rows.iter()
            .map(|row| {
                let cells: Vec<String> = row
                    .iter()
                    .enumerate()
                    .map(|(c, cell)| match (self.right[c], c == last) {
                        (true, _) => format!("{cell:>w$}", w = widths[c]),
                        (false, true) => wrapped(cell, room).join(&format!("\n{:start$}", "")),
                        (false, false) => format!("{cell:<w$}", w = widths[c]),
                    })
                    .collect();
                format!("{:indent$}{}", "", cells.join("  ").trim_end())
            })
            .collect()
    }
}

/// The narrowest a wrapped last column of a [`Table`] gets: past that, rows run wider.
const MIN_WRAPPED: usize = 20;

/// `text` in lines of at most `room` characters, broken at spaces (a longer word keeps its line).
fn wrapped(text: &str, room: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= room => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_excerpts_drop_common_indentation() {
        let source = |n: u32| match n {
            3 => Some("        if x {".to_string()),
            4 => Some("            y += 1;   ".to_string()),
            _ => None,
        };
        let mut out = String::new();
        write_source(&mut out, 2, 3, &[3, 4, 9], &source).unwrap();
        assert_eq!(out, "    3 | if x {\n    4 |     y += 1;\n    9 | \n");
        let mut none = String::new();
        write_source(&mut none, 2, 3, &[9], &source).unwrap();
        assert!(none.is_empty());
    }

    #[test]
    fn tables_align_columns() {
        let mut table = Table::new(&[("#", true), ("name", false), ("text", false)]);
        table.push(vec!["1".into(), "main".into(), "a b".into()]);
        table.push(vec!["10".into(), "f".into(), "c".into()]);
        assert_eq!(
            table.rows(1),
            vec!["  #  name  text", "  1  main  a b", " 10  f     c"]
        );
    }

    /// A function name may have any length (the compiler takes one of 70,000 characters); a
    /// column is cut at `MAX_COLUMN`, as a width beyond `u16::MAX` would make `format!` panic.
    #[test]
    fn long_cells_are_cut_but_the_last_column_is_not() {
        let long = "f".repeat(70_000);
        let mut table = Table::new(&[("name", false), ("count", true), ("text", false)]);
        table.push(vec![long.clone(), "1".repeat(90), long.clone()]);
        table.push(vec!["main".into(), "2".into(), "x".into()]);
        let rows = table.rows(0);
        let cut = format!("{}…", "f".repeat(MAX_COLUMN - 1));
        let count = format!("{}…", "1".repeat(MAX_COLUMN - 1));
        assert_eq!(rows[1], format!("{cut}  {count}  {long}"));
        let padding = " ".repeat(MAX_COLUMN - 4);
        assert_eq!(rows[2], format!("main{padding}  {:>80}  x", "2"));
    }

    #[test]
    fn source_excerpts_escape_control_characters() {
        let source = |_: u32| Some("\tprintln(\"\u{1b}]0;PWNED\u{7}\r\");".to_string());
        let mut out = String::new();
        write_source(&mut out, 0, 1, &[1], &source).unwrap();
        assert_eq!(out, "1 | println(\"\\e]0;PWNED\\x07\\r\");\n");
    }
}
