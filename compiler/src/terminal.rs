//! How pcc's own output meets a terminal: whether to colour it (`--color auto|always|never`,
//! `NO_COLOR`, `TERM=dumb`) and how wide its tables may be (`COLUMNS`, or the terminal's width).

use std::io::IsTerminal;
use std::sync::OnceLock;

/// `--color`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum ColorChoice {
    /// Colour a stream that is a terminal, unless `NO_COLOR` is set to a non-empty value
    /// (no-color.org) or `TERM` is `dumb`.
    #[default]
    Auto,
    Always,
    Never,
}

/// Which of pcc's streams the output goes to.
#[derive(Copy, Clone, Debug)]
pub enum Stream {
    Stdout,
    Stderr,
}

static CHOICE: OnceLock<ColorChoice> = OnceLock::new();

/// Sets the command line's choice, once, before anything is printed.
pub fn set_color(choice: ColorChoice) {
    let _ = CHOICE.set(choice);
}

/// Whether output to `stream` is coloured.
pub fn colour(stream: Stream) -> bool {
    let terminal = match stream {
        Stream::Stdout => std::io::stdout().is_terminal(),
        Stream::Stderr => std::io::stderr().is_terminal(),
    };
    decide(
        CHOICE.get().copied().unwrap_or_default(),
        terminal,
        std::env::var_os("NO_COLOR").as_deref(),
        std::env::var_os("TERM").as_deref(),
    )
}

fn decide(
    choice: ColorChoice,
    terminal: bool,
    no_color: Option<&std::ffi::OsStr>,
    term: Option<&std::ffi::OsStr>,
) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            terminal && no_color.is_none_or(|v| v.is_empty()) && term.is_none_or(|t| t != "dumb")
        }
    }
}

/// The width tables keep within: `COLUMNS` when it is a number, else stdout's terminal's; no
/// bound for a pipe or a file, whose readers (scripts, `grep`) want a row on one line.
pub fn width() -> usize {
    let columns = std::env::var("COLUMNS").ok();
    columns
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0)
        .or_else(|| terminal_size::terminal_size().map(|(w, _)| usize::from(w.0)))
        .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn no_color_counts_only_when_not_empty_and_dumb_terminals_get_none() {
        let auto = |terminal, no_color: Option<&str>, term: Option<&str>| {
            decide(
                ColorChoice::Auto,
                terminal,
                no_color.map(OsStr::new),
                term.map(OsStr::new),
            )
        };
        assert!(auto(true, None, Some("xterm-256color")));
        assert!(
            auto(true, Some(""), None),
            "NO_COLOR= (empty) does not disable colour"
        );
        assert!(!auto(true, Some("1"), None));
        assert!(!auto(true, None, Some("dumb")));
        assert!(!auto(false, None, None), "a pipe gets no colour");
        assert!(decide(
            ColorChoice::Always,
            false,
            Some(OsStr::new("1")),
            None
        ));
        assert!(!decide(ColorChoice::Never, true, None, None));
    }
}
