//! Which source a profile was taken from (docs/PROFILE-FORMAT.md, "Source identity"): the
//! program's path as given to pcc and a hash of the file's bytes. Lines in a profile are only
//! right for those bytes, so every reader compares the hash with the file as it is now, and two
//! profiles (or a profile and the code being compiled) are only combined when they are of the
//! same program.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Profile;
use super::printable::printable_path;

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

/// The most bytes a profile's source may have: 64 MiB, far more than a PL program has, and a
/// bound on what a profile naming some other file makes a reader take in.
pub const MAX_SOURCE_BYTES: u64 = 64 << 20;

/// The source file as it is now, against the profile's record of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceState {
    /// The file at this path has the recorded bytes, these.
    Unchanged(PathBuf, Vec<u8>),
    /// The file at this path has other bytes: the profile's lines may be wrong, and the file
    /// may not be the program at all (a profile can name any file), so it is never shown.
    Changed(PathBuf),
    /// No file at any of these paths.
    Missing(Vec<PathBuf>),
    /// The file at this path cannot be read, for this reason (also: it is not a regular file,
    /// or it is too large).
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

    /// Finds the file (see [`SourceFile::candidates`]) and compares its bytes with the hash: the
    /// first candidate with the recorded bytes, else what is wrong with the first that exists.
    /// Every candidate is read by [`read_source`]; this is the only place a reader of a profile
    /// reads the source it names.
    pub fn state(&self, profile_path: &Path) -> SourceState {
        let candidates = self.candidates(profile_path);
        let mut problem = None;
        for candidate in &candidates {
            let found = match read_source(candidate) {
                Ok(bytes) if content_hash(&bytes) == self.hash => {
                    return SourceState::Unchanged(candidate.clone(), bytes);
                }
                Ok(_) => SourceState::Changed(candidate.clone()),
                Err(error)
                    if matches!(
                        error.kind(),
                        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                    ) =>
                {
                    continue;
                }
                Err(error) => SourceState::Unreadable(candidate.clone(), error.to_string()),
            };
            problem.get_or_insert(found);
        }
        problem.unwrap_or(SourceState::Missing(candidates))
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

/// The bytes of the file at `path`, if it is a regular file (after symbolic links) of at most
/// [`MAX_SOURCE_BYTES`]; an error saying what else it is. A profile names its source, so it can
/// name any file: a FIFO, which would block a reader forever, a device such as `/dev/zero`,
/// which never ends, or a file of `/proc` or `/sys` (regular to `stat`, but made up by the
/// kernel as it is read). See [`read_regular`].
pub fn read_source(path: &Path) -> io::Result<Vec<u8>> {
    read_regular(path, MAX_SOURCE_BYTES, "a source file")
}

/// The bytes of the file at `path`, if it is a regular file (after symbolic links) of at most
/// `max_bytes` bytes; an `InvalidInput` error saying what else it is ("it is a FIFO (named
/// pipe), not a regular file", "it is larger than 64 MiB, the most {what} may have"). For
/// every file pcc reads that it did not choose itself (a profile's source, a profile found
/// beside a document, a test's sidecar files): the file is checked before it is opened, opened
/// without blocking (a FIFO put there in between does not hang the open), checked again once
/// open, and read up to the bound plus one byte, however it grows meanwhile.
pub fn read_regular(path: &Path, max_bytes: u64, what: &str) -> io::Result<Vec<u8>> {
    let file = open_regular(path, max_bytes, what)?;
    let mut bytes = Vec::with_capacity(
        usize::try_from(file.metadata().map_or(0, |m| m.len().min(max_bytes))).unwrap_or(0),
    );
    // The file may grow after the check: never more than the bound plus one byte is read.
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(max_bytes, what));
    }
    Ok(bytes)
}

/// The file at `path`, open for reading, if it is a regular file of at most `max_bytes` bytes
/// (as [`read_regular`] checks it); the descriptor does not block (no read of a regular file
/// does anyway).
pub fn open_regular(path: &Path, max_bytes: u64, what: &str) -> io::Result<fs::File> {
    let check = |meta: &fs::Metadata| -> io::Result<()> {
        if !meta.is_file() {
            return Err(refuse(format!(
                "it is {}, not a regular file",
                crate::output_file::kind_of(meta)
            )));
        }
        if meta.len() > max_bytes {
            return Err(too_large(max_bytes, what));
        }
        Ok(())
    };
    check(&fs::metadata(path)?)?;
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    check(&file.metadata()?)?;
    if let Some(name) = kernel_file_system(&file) {
        return Err(refuse(format!(
            "it is a file of {name}, made up by the kernel, not a regular file"
        )));
    }
    Ok(file)
}

fn refuse(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, what)
}

/// "it is larger than 64 MiB, the most a source file may have".
fn too_large(max_bytes: u64, what: &str) -> io::Error {
    let size = if max_bytes >= 1 << 30 && max_bytes.is_multiple_of(1 << 30) {
        format!("{} GiB", max_bytes >> 30)
    } else if max_bytes >= 1 << 20 && max_bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", max_bytes >> 20)
    } else {
        format!("{max_bytes} bytes")
    };
    refuse(format!(
        "it is larger than {size}, the most {what} may have"
    ))
}

/// `/proc` or `/sys` when `file` is on the kernel's procfs or sysfs.
#[cfg(target_os = "linux")]
fn kernel_file_system(file: &fs::File) -> Option<&'static str> {
    use std::os::fd::AsRawFd;
    // SAFETY: `statfs` is plain data, for which all zeros is a valid value.
    let mut info: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `fstatfs` only writes `info`, and the descriptor is open while `file` lives.
    if unsafe { libc::fstatfs(file.as_raw_fd(), &mut info) } != 0 {
        return None;
    }
    // `f_type` and the constants are of the platform's word type.
    #[allow(clippy::unnecessary_cast)]
    let kind = info.f_type as i64;
    #[allow(clippy::unnecessary_cast)]
    match kind {
        k if k == libc::PROC_SUPER_MAGIC as i64 => Some("/proc"),
        k if k == libc::SYSFS_MAGIC as i64 => Some("/sys"),
        _ => None,
    }
}

#[cfg(not(target_os = "linux"))]
fn kernel_file_system(_: &fs::File) -> Option<&'static str> {
    None
}

impl SourceState {
    /// The file and its bytes, if they are the profiled ones.
    pub fn into_source(self) -> Option<(PathBuf, Vec<u8>)> {
        match self {
            SourceState::Unchanged(file, bytes) => Some((file, bytes)),
            _ => None,
        }
    }

    /// The warning a reader of the profile `profile_name` prints, if any; the same text is the
    /// error of a reader that needs the source.
    pub fn warning(&self, profile_name: &str) -> Option<String> {
        match self {
            SourceState::Unchanged(..) => None,
            SourceState::Changed(file) => Some(format!(
                "{profile_name}: the source {} has changed since the profile was written (hash \
                 mismatch); re-run the program to profile it again",
                printable_path(file)
            )),
            SourceState::Missing(tried) => {
                let tried: Vec<String> = tried.iter().map(|p| printable_path(p)).collect();
                Some(format!(
                    "{profile_name}: the profiled source file is gone (tried {})",
                    tried.join(", ")
                ))
            }
            SourceState::Unreadable(file, error) => Some(format!(
                "{profile_name}: cannot read the profiled source {}: {error}",
                printable_path(file)
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

    /// `state` on a thread, which must end within a second whatever the file is.
    fn state_within_a_second(source: &SourceFile, profile: &Path) -> SourceState {
        let (source, profile) = (source.clone(), profile.to_path_buf());
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || send.send(source.state(&profile)));
        receive
            .recv_timeout(std::time::Duration::from_secs(1))
            .expect("reading the source took more than a second")
    }

    fn unreadable(state: SourceState) -> String {
        match state {
            SourceState::Unreadable(_, why) => why,
            other => panic!("expected an unreadable source, got {other:?}"),
        }
    }

    /// A profile names its source, so it can name any file: only the profiled bytes are
    /// returned, only regular files of at most 64 MiB are read, and no file blocks the reader.
    #[test]
    fn only_the_profiled_bytes_of_a_regular_file_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let profile = dir.path().join("p.json");
        let prog = dir.path().join("prog.pl");
        std::fs::write(&prog, "fn main() {}\n").unwrap();
        let at = |path: &Path, bytes: &[u8]| SourceFile::new(path.to_str().unwrap(), bytes);
        assert_eq!(
            at(&prog, b"fn main() {}\n").state(&profile),
            SourceState::Unchanged(prog.clone(), b"fn main() {}\n".to_vec())
        );
        let changed = at(&prog, b"other bytes").state(&profile);
        assert_eq!(changed, SourceState::Changed(prog.clone()));
        let warning = changed.warning("p.json").unwrap();
        assert!(
            warning.ends_with(
                "prog.pl has changed since the profile was written (hash mismatch); re-run the \
                 program to profile it again"
            ),
            "{warning}"
        );
        assert_eq!(changed.into_source(), None);

        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
            // SAFETY: a NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
            let why = unreadable(state_within_a_second(&at(&fifo, b""), &profile));
            assert_eq!(why, "it is a FIFO (named pipe), not a regular file");
            let zero = Path::new("/dev/zero");
            let why = unreadable(state_within_a_second(&at(zero, b""), &profile));
            assert_eq!(why, "it is a character device, not a regular file");
            let why = unreadable(at(dir.path(), b"").state(&profile));
            assert_eq!(why, "it is a directory, not a regular file");
        }
        #[cfg(target_os = "linux")]
        {
            let environ = Path::new("/proc/self/environ");
            let why = unreadable(state_within_a_second(&at(environ, b""), &profile));
            assert_eq!(
                why,
                "it is a file of /proc, made up by the kernel, not a regular file"
            );
        }
        // A sparse file one byte over the bound: refused before it is read.
        let big = dir.path().join("big.pl");
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(MAX_SOURCE_BYTES + 1).unwrap();
        let why = unreadable(state_within_a_second(&at(&big, b""), &profile));
        assert_eq!(
            why,
            "it is larger than 64 MiB, the most a source file may have"
        );
        let warning = at(&big, b"").state(&profile).warning("p.json").unwrap();
        let shown = big.display();
        assert_eq!(
            warning,
            format!("p.json: cannot read the profiled source {shown}: {why}")
        );
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
