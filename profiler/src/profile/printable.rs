//! Text from a profile made safe to print. A profile file is untrusted input: its arguments,
//! program path and the source it names may hold terminal escapes (`ESC ] 0 ; … BEL` sets a
//! terminal's title, others move the cursor or rewrite the screen), and a newline in one would
//! split a report's line. Every free-text string of a profile goes through [`printable`] before
//! a text report or a message shows it (JSON output is escaped by serde). Function names need
//! not: a reader refuses a profile whose names are not identifiers.

use std::borrow::Cow;
use std::path::Path;

/// Whether `c` must not reach a terminal as it is: C0 controls (tab and newline too: they would
/// break a report's columns and lines), DEL, C1 controls (`U+009B` is a CSI to some terminals),
/// and the Unicode marks that reorder how the text around them is displayed (bidirectional
/// embeddings, overrides and isolates).
fn unprintable(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` with every character of [`unprintable`] written as an escape: `\t`, `\n`, `\r`, `\e`
/// (ESC), `\xNN` for the other C0 controls and DEL, `\u{NNNN}` for the rest. Borrowed when
/// there is nothing to escape. A backslash stays as it is.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unprintable) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            c if unprintable(c) && u32::from(c) <= 0x7f => {
                out.push_str(&format!("\\x{:02x}", u32::from(c)));
            }
            c if unprintable(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A line of source text for a report: each tab as four spaces (reports align the lines they
/// show), then [`printable`].
pub fn printable_line(line: &str) -> Cow<'_, str> {
    if line.contains('\t') {
        Cow::Owned(printable(&line.replace('\t', "    ")).into_owned())
    } else {
        printable(line)
    }
}

/// `text` cut to at most `max` characters (at least 1), the last one `…` when it is cut: a
/// column of a table, or a name quoted in a message, stays readable whatever a profile holds.
pub fn clipped(text: &str, max: usize) -> Cow<'_, str> {
    let max = max.max(1);
    match text.char_indices().nth(max - 1) {
        Some((end, _)) if text[end..].chars().nth(1).is_some() => {
            Cow::Owned(format!("{}…", &text[..end]))
        }
        _ => Cow::Borrowed(text),
    }
}

/// [`printable`] of a path as [`Path::display`] shows it.
pub fn printable_path(path: &Path) -> String {
    printable(&path.display().to_string()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_the_rest_kept() {
        assert!(matches!(printable("main.pl: é → ü\\"), Cow::Borrowed(_)));
        assert_eq!(printable("\u{1b}]0;PWNED\u{7}3"), "\\e]0;PWNED\\x073");
        assert_eq!(printable("a\nb\tc\rd\0\u{7f}"), "a\\nb\\tc\\rd\\x00\\x7f");
        assert_eq!(printable("\u{9b}2J"), "\\u{9b}2J");
        assert_eq!(printable("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(
            printable_path(Path::new("dir/\u{1b}[2J.pl")),
            "dir/\\e[2J.pl"
        );
    }

    #[test]
    fn source_lines_keep_their_indentation() {
        assert_eq!(printable_line("\tx = 1;\u{1b}[A"), "    x = 1;\\e[A");
        assert!(matches!(printable_line("    x = 1;"), Cow::Borrowed(_)));
    }

    #[test]
    fn clipping_keeps_short_text_and_marks_a_cut() {
        assert_eq!(clipped("main", 4), "main");
        assert_eq!(clipped("main", 80), "main");
        assert_eq!(clipped("mains", 4), "mai…");
        assert_eq!(clipped("éééé", 2), "é…");
        assert_eq!(clipped("ab", 0), "…");
        let long = "a".repeat(70_000);
        assert_eq!(clipped(&long, 80).chars().count(), 80);
    }
}
