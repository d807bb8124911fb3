//! Which source a profile was taken from (docs/PROFILE-FORMAT.md, "Source identity"): the
//! program's path as given to pcc and a hash of the file's bytes. Lines in a profile are only
//! right for those bytes, so every reader compares the hash with the file as it is now, and two
//! profiles (or a profile and the code being compiled) are only combined when they are of the
//! same program.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Profile;

/// The `source` field of a profile.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// The program's path as it was given to `pcc run` or `pcc build`.
    pub path: String,
    /// [`content_hash`] of the file's bytes when the program was compiled.
    pub hash: String,
}

/// FNV-1a with 64 bits (offset basis 0xcbf29ce484222325, prime 0x100000001b3) of `bytes`, as 16
/// lowercase hex digits. Also the hash of `cfg_hash`'s canonical text.
pub fn content_hash(bytes: &[u8]) -> String {
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &byte| {
        (h ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{hash:016x}")
}

/// The source file as it is now, against the profile's record of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceState {
    /// The file at this path has the recorded bytes.
    Unchanged(PathBuf),
    /// The file at this path has other bytes: the profile's lines may be wrong.
    Changed(PathBuf),
    /// No file at any of these paths.
    Missing(Vec<PathBuf>),
    /// The file at this path cannot be read, for this reason.
    Unreadable(PathBuf, String),
}

impl SourceFile {
    pub fn new(path: impl Into<String>, bytes: &[u8]) -> SourceFile {
        SourceFile {
            path: path.into(),
            hash: content_hash(bytes),
        }
    }

    /// Where the file may be: its path as recorded (relative to the current directory unless
    /// absolute), then relative to the folder of the profile that names it.
    pub fn candidates(&self, profile_path: &Path) -> Vec<PathBuf> {
        let path = Path::new(&self.path);
        let beside = profile_path
            .parent()
            .map(|dir| dir.join(path))
            .filter(|p| p != path);
        std::iter::once(path.to_path_buf()).chain(beside).collect()
    }

    /// Finds the file (see [`SourceFile::candidates`]) and compares its bytes with the hash.
    pub fn state(&self, profile_path: &Path) -> SourceState {
        let candidates = self.candidates(profile_path);
        for candidate in &candidates {
            match std::fs::read(candidate) {
                Ok(bytes) if content_hash(&bytes) == self.hash => {
                    return SourceState::Unchanged(candidate.clone());
                }
                Ok(_) => return SourceState::Changed(candidate.clone()),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => {
                    return SourceState::Unreadable(candidate.clone(), error.to_string());
                }
            }
        }
        SourceState::Missing(candidates)
    }

    /// Whether `self` and `other` name the same file: equal paths as written, or paths that
    /// resolve to the same file (relative ones from the current directory).
    fn same_path(&self, other: &SourceFile) -> bool {
        if self.path == other.path {
            return true;
        }
        match (
            Path::new(&self.path).canonicalize(),
            Path::new(&other.path).canonicalize(),
        ) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}

impl SourceState {
    /// The warning a reader of the profile `profile_name` prints, if any.
    pub fn warning(&self, profile_name: &str) -> Option<String> {
        match self {
            SourceState::Unchanged(_) => None,
            SourceState::Changed(file) => Some(format!(
                "{profile_name}: the source {} changed since the profile was taken (its hash \
                 differs), so the profile's line numbers may have moved",
                file.display()
            )),
            SourceState::Missing(tried) => {
                let tried: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
                Some(format!(
                    "{profile_name}: the profiled source file is gone (tried {})",
                    tried.join(", ")
                ))
            }
            SourceState::Unreadable(file, error) => Some(format!(
                "{profile_name}: cannot read the profiled source {}: {error}",
                file.display()
            )),
        }
    }
}

/// How two programs relate, each given by its source record and its functions' (name,
/// `cfg_hash`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kinship {
    /// The same source path, or the same bytes.
    Same,
    /// Another path and other bytes, but some function has the same name and code in both:
    /// the program was moved or copied (and perhaps edited).
    SameCodeElsewhere,
    /// Nothing in common: profiles of different programs, never to be combined.
    Other,
}

/// The rule of docs/PROFILE-FORMAT.md, "Source identity".
pub fn kinship<'a>(
    a: &SourceFile,
    a_functions: impl IntoIterator<Item = (&'a str, &'a str)>,
    b: &SourceFile,
    b_functions: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Kinship {
    if a.same_path(b) || a.hash == b.hash {
        return Kinship::Same;
    }
    let a_functions: Vec<(&str, &str)> = a_functions.into_iter().collect();
    if b_functions.into_iter().any(|f| a_functions.contains(&f)) {
        Kinship::SameCodeElsewhere
    } else {
        Kinship::Other
    }
}

impl Profile {
    /// Each function's (name, `cfg_hash`).
    pub fn function_hashes(&self) -> impl Iterator<Item = (&str, &str)> {
        self.functions
            .iter()
            .map(|f| (f.name.as_str(), f.cfg_hash.as_str()))
    }

    /// How this profile's program relates to `other`'s.
    pub fn kinship(&self, other: &Profile) -> Kinship {
        kinship(
            &self.source,
            self.function_hashes(),
            &other.source,
            other.function_hashes(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_of_known_inputs() {
        // The reference values of the FNV-1a 64 test suite.
        assert_eq!(content_hash(b""), "cbf29ce484222325");
        assert_eq!(content_hash(b"a"), "af63dc4c8601ec8c");
        assert_eq!(content_hash(b"foobar"), "85944171f73967e8");
    }

    #[test]
    fn kinship_by_path_bytes_or_shared_code() {
        let a = SourceFile::new("a.pl", b"fn main() {}");
        let moved = SourceFile::new("elsewhere/a.pl", b"fn main() {}");
        let b = SourceFile::new("b.pl", b"fn main() { f(); }");
        let edited = SourceFile::new("a.pl", b"// note\nfn main() {}");
        let main = [("main", "h1")];
        let other = [("main", "h2")];
        assert_eq!(kinship(&a, main, &edited, other), Kinship::Same);
        assert_eq!(kinship(&a, main, &moved, other), Kinship::Same);
        assert_eq!(kinship(&a, main, &b, main), Kinship::SameCodeElsewhere);
        assert_eq!(kinship(&a, main, &b, other), Kinship::Other);
    }
}
