//! What the passes have to say besides their result: warnings (a stale profile, a function
//! profiled another way), notes and the lines that tell what a pass did (the `--use-profile`
//! report). Passes add them to a [`Notes`] they are given; the driver prints them, in order, in
//! one place (`driver::say`), so a pass's messages can be tested as values.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Something the user should know went wrong or was left out: `pcc: warning: …`.
    Warning,
    /// Something that may surprise but is fine: `pcc: note: …`.
    Note,
    /// What a pass did or used, its message naming the pass: `pcc: …`.
    Info,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub level: Level,
    pub message: String,
}

/// The line pcc prints for the note, on stderr.
impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.level {
            Level::Warning => write!(f, "pcc: warning: {}", self.message),
            Level::Note => write!(f, "pcc: note: {}", self.message),
            Level::Info => write!(f, "pcc: {}", self.message),
        }
    }
}

/// The notes of one compilation, in the order they were made.
#[derive(Debug, Default)]
pub struct Notes(Vec<Note>);

impl Notes {
    pub fn warn(&mut self, message: impl Into<String>) {
        self.push(Level::Warning, message);
    }

    pub fn note(&mut self, message: impl Into<String>) {
        self.push(Level::Note, message);
    }

    pub fn info(&mut self, message: impl Into<String>) {
        self.push(Level::Info, message);
    }

    fn push(&mut self, level: Level, message: impl Into<String>) {
        self.0.push(Note {
            level,
            message: message.into(),
        });
    }

    /// The notes so far, leaving none.
    pub fn take(&mut self) -> Vec<Note> {
        std::mem::take(&mut self.0)
    }
}
