//! Where a profile is written, checked before it is needed and written without clobbering
//! anything: a regular file (or a path that does not exist yet) is replaced atomically, a
//! symbolic link is followed and its target replaced (the link stays), and anything else — a
//! device, a FIFO, a socket, a directory — is refused. Every command and the runtime that write
//! profiles go through [`check_output`] (before the work that produces the profile) and
//! [`write_atomic`].

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Symbolic links followed at most, as the kernel's own limit (`ELOOP`).
const MAX_LINKS: usize = 40;

/// The file a write to `path` lands in: `path` with every symbolic link along the final
/// component followed (a link's relative target is taken from the link's directory). The
/// result may not exist yet (a dangling link, or a new file).
pub fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            Ok(_) => return Ok(current),
            // The directory is checked on its own, with its own message.
            Err(error) if missing(&error) => return Ok(current),
            Err(error) => return Err(error),
        }
    }
    Err(io::Error::other(format!(
        "more than {MAX_LINKS} symbolic links in a row"
    )))
}

/// Whether `error` says that a file does not exist (or a component of its path is no directory).
fn missing(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// What kind of file `meta` describes, for a message ("a FIFO").
fn kind_of(meta: &fs::Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// The directory a file `path` is created in (`.` for a bare file name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The temporary file next to `target` that a write goes through (`tag` tells apart the
/// temporary files of one process).
fn temp_path(target: &Path, tag: &str) -> io::Result<PathBuf> {
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path has no file name"))?;
    Ok(directory_of(target).join(format!(
        ".{}.{}.{tag}",
        name.to_string_lossy(),
        std::process::id()
    )))
}

/// Checks that a profile can be written at `path`, before the work that produces it: the file
/// it lands in (through symbolic links) is a regular file or does not exist, and its directory
/// exists and accepts new files (a temporary file is created and removed there). The error
/// names `path` and says what is wrong. Returns the file a write lands in.
pub fn check_output(path: &Path) -> Result<PathBuf, String> {
    let shown = path.display();
    let target = resolve_links(path).map_err(|e| format!("`{shown}`: {e}"))?;
    let via = if target == path {
        String::new()
    } else {
        format!(" (the target of the symbolic link `{shown}`)")
    };
    match fs::metadata(&target) {
        Ok(meta) if !meta.is_file() => {
            return Err(format!(
                "`{}`{via} is {}, not a regular file; pcc replaces only regular files",
                target.display(),
                kind_of(&meta)
            ));
        }
        Ok(_) => {}
        Err(error) if missing(&error) => {}
        Err(error) => return Err(format!("`{}`{via}: {error}", target.display())),
    }
    let dir = directory_of(&target);
    match fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(format!("`{}` is not a directory", dir.display())),
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Err(format!("the directory `{}` does not exist", dir.display()));
        }
        Err(error) => return Err(format!("`{}`: {error}", dir.display())),
    }
    let probe = temp_path(&target, "check").map_err(|e| format!("`{shown}`: {e}"))?;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .and_then(|_| fs::remove_file(&probe))
        .map_err(|e| format!("cannot create files in `{}`: {e}", dir.display()))?;
    Ok(target)
}

/// Writes `bytes` so that the file at `path` (through symbolic links) holds either its old
/// content or all of `bytes`, never a part: a temporary file in the same directory is renamed
/// over it. Refuses, as [`check_output`] does, a target that exists and is not a regular file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = resolve_links(path)?;
    match fs::metadata(&target) {
        Ok(meta) if !meta.is_file() => {
            return Err(io::Error::other(format!(
                "`{}` is {}, not a regular file",
                target.display(),
                kind_of(&meta)
            )));
        }
        _ => {}
    }
    let temp = temp_path(&target, "tmp")?;
    let written = (|| {
        let mut file = fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, &target)
    })();
    if written.is_err() {
        // Best effort: the temporary file may not even exist.
        let _ = fs::remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory of its own under the system's temporary directory.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pcc-output-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn regular_and_new_files_are_replaced_atomically() {
        let dir = scratch("regular");
        let path = dir.join("p.json");
        assert_eq!(check_output(&path).unwrap(), path);
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let left: Vec<_> = fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file is left behind");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_are_followed_and_kept() {
        let dir = scratch("links");
        let target = dir.join("real.json");
        fs::write(&target, "old").unwrap();
        let sub = dir.join("sub");
        fs::create_dir(&sub).unwrap();
        // A relative link, from another directory, to another relative link.
        std::os::unix::fs::symlink("../real.json", sub.join("first")).unwrap();
        std::os::unix::fs::symlink("sub/first", dir.join("second")).unwrap();
        let link = dir.join("second");
        assert_eq!(check_output(&link).unwrap(), sub.join("../real.json"));
        write_atomic(&link, b"new").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        // A dangling link: its target is created.
        std::os::unix::fs::symlink("made.json", dir.join("dangling")).unwrap();
        write_atomic(&dir.join("dangling"), b"made").unwrap();
        assert_eq!(fs::read(dir.join("made.json")).unwrap(), b"made");
        // A loop of links is an error, not a hang.
        std::os::unix::fs::symlink("loop", dir.join("loop")).unwrap();
        assert!(check_output(&dir.join("loop")).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn anything_but_a_regular_file_is_refused_untouched() {
        let dir = scratch("special");
        let fifo = dir.join("fifo");
        let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let error = check_output(&fifo).unwrap_err();
        assert!(error.contains("fifo` is a FIFO"), "{error}");
        assert!(write_atomic(&fifo, b"x").is_err());
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
        let error = check_output(&dir).unwrap_err();
        assert!(error.contains("is a directory"), "{error}");
        std::os::unix::fs::symlink(&fifo, dir.join("to-fifo")).unwrap();
        let error = check_output(&dir.join("to-fifo")).unwrap_err();
        assert!(error.contains("symbolic link"), "{error}");
        let error = check_output(&dir.join("none/p.json")).unwrap_err();
        assert!(error.contains("none` does not exist"), "{error}");
        fs::write(dir.join("file"), "").unwrap();
        let error = check_output(&dir.join("file/p.json")).unwrap_err();
        assert!(error.contains("file` is not a directory"), "{error}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
