//! Where a profile is written, checked before it is needed and written without clobbering
//! anything: a regular file (or a path that does not exist yet) is replaced atomically, a
//! symbolic link is followed and its target replaced (the link stays), and anything else — a
//! device, a FIFO, a socket, a directory — is refused. Every command and the runtime that write
//! profiles go through [`check_output`] (before the work that produces the profile) and
//! [`write_atomic`].
//!
//! Profiles are often written where others may write too (a run in `/tmp`), perhaps by root, so:
//! - the temporary file is created exclusively (`O_CREAT | O_EXCL`, never through a link) under
//!   a random name (`.pcc-XXXXXX.tmp`, short, so that any file name that fits fits it too);
//! - a symbolic link is followed only where the kernel's `fs.protected_symlinks` would let the
//!   user follow it ([`may_follow`]): pcc resolves links itself, so the kernel's rule does not
//!   apply on its own;
//! - temporary files that killed runs left behind are removed, best effort ([`remove_stale`]).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Symbolic links followed at most, as the kernel's own limit (`ELOOP`).
const MAX_LINKS: usize = 40;

/// The temporary file a write goes through is `.pcc-` + [`TEMP_RANDOM`] random letters and
/// digits + `.tmp`, in the target's directory.
const TEMP_PREFIX: &str = ".pcc-";
const TEMP_SUFFIX: &str = ".tmp";
const TEMP_RANDOM: usize = 6;

/// A temporary file of ours this old is left by a run that was killed while writing (a write
/// takes seconds at most).
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(12 * 60 * 60);

/// The file a write to `path` lands in: `path` with every symbolic link along the final
/// component followed (a link's relative target is taken from the link's directory). The
/// result may not exist yet (a dangling link, or a new file). A link that the kernel's
/// `fs.protected_symlinks` would not let the user follow is an error that names it
/// ([`may_follow`]).
pub fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                may_follow(&current, &meta)?;
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

/// The effective user id of the process, whose files these are.
#[cfg(unix)]
fn euid() -> libc::uid_t {
    // SAFETY: `geteuid` has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Whether the user may follow the symbolic link `link` (`meta`, its own metadata), by Linux's
/// `fs.protected_symlinks` rule: yes if the link is the user's, or its directory is not both
/// sticky and writable by everyone (like `/tmp`), or the link's owner owns that directory too.
/// Otherwise anyone could have planted it, to make the user's write land elsewhere, and the
/// error names the link and says why it is not followed. Applied whether or not the kernel
/// enforces the rule (it does not see pcc's own resolution), and to root too, as the kernel does.
#[cfg(unix)]
fn may_follow(link: &Path, meta: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    const STICKY_AND_WORLD_WRITABLE: u32 = 0o1002;
    if meta.uid() == euid() {
        return Ok(());
    }
    let dir = directory_of(link);
    let dir_meta = fs::metadata(dir)?;
    if dir_meta.mode() & STICKY_AND_WORLD_WRITABLE != STICKY_AND_WORLD_WRITABLE
        || dir_meta.uid() == meta.uid()
    {
        return Ok(());
    }
    let place = if dir == Path::new(".") {
        "the current directory".to_string()
    } else {
        format!("`{}`", dir.display())
    };
    Err(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "refusing to follow the symbolic link `{}`: it belongs to user {}, not to you, and \
             sits in {place}, which is sticky and writable by anyone (owned by user {}), so \
             anyone could have planted it (the rule of the kernel's fs.protected_symlinks); \
             remove the link or write the profile elsewhere",
            link.display(),
            meta.uid(),
            dir_meta.uid()
        ),
    ))
}

#[cfg(not(unix))]
fn may_follow(_link: &Path, _meta: &fs::Metadata) -> io::Result<()> {
    Ok(())
}

/// Whether `error` says that a file does not exist (or a component of its path is no directory).
fn missing(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// What kind of file `meta` describes, for a message ("a FIFO").
pub(crate) fn kind_of(meta: &fs::Metadata) -> &'static str {
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

/// Creates the temporary file a write to a file in `dir` goes through: a new file under a
/// random name (`.pcc-XXXXXX.tmp`), created exclusively, so never an existing file nor the
/// target of a link someone put there (another name is tried if the name is taken). It is
/// removed when dropped, unless persisted. Its mode is what `File::create` gives (0666 less the
/// umask), not tempfile's 0600: the profile is as readable as before.
fn create_temp(dir: &Path) -> io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
        .rand_bytes(TEMP_RANDOM)
        .make_in(dir, |path| {
            let mut options = fs::OpenOptions::new();
            // `O_CREAT | O_EXCL`: a link at the name is an error, not followed.
            options.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(0o666).custom_flags(libc::O_NOFOLLOW);
            }
            options.open(path)
        })
}

/// Checks that a profile can be written at `path`, before the work that produces it: the file
/// it lands in (through symbolic links that may be followed, [`resolve_links`]) is a regular file
/// or does not exist, and its directory exists and accepts new files (a temporary file is
/// created and removed there). The error names `path` and says what is wrong. Returns the file
/// a write lands in.
pub fn check_output(path: &Path) -> Result<PathBuf, String> {
    let shown = path.display();
    let target = resolve_links(path).map_err(|e| {
        // A refused link is named by the error itself; `path` only if it is another.
        let error = e.to_string();
        if error.contains(&format!("`{shown}`")) {
            error
        } else {
            format!("`{shown}`: {error}")
        }
    })?;
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
    if names_a_directory(path) || names_a_directory(&target) {
        // `newdir/`: the file `newdir` is not what was asked for, and the rename at the end
        // would fail, after the run.
        return Err(format!(
            "`{shown}` ends with `/`, so it names a directory, not a file; give the profile a \
             file name (such as `{}prog.bl.profile.json`)",
            shown.to_string().trim_end_matches('.')
        ));
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
    if target.file_name().is_none() {
        return Err(format!("`{shown}`: the path has no file name"));
    }
    // Dropped at once: the probe is removed.
    create_temp(dir).map_err(|e| format!("cannot create files in `{}`: {e}", dir.display()))?;
    Ok(target)
}

/// Whether `path` as written ends with `/` (or `/.`), which only a directory can be.
fn names_a_directory(path: &Path) -> bool {
    let bytes = path.as_os_str().as_encoded_bytes();
    bytes.ends_with(b"/") || bytes.ends_with(b"/.") || bytes == b"."
}

/// Writes `bytes` so that the file at `path` (through symbolic links that may be followed,
/// [`resolve_links`]) holds either its old content or all of `bytes`, never a part: a new
/// temporary file in the same directory ([`create_temp`]) is renamed over it. Refuses, as
/// [`check_output`] does, a target that exists and is not a regular file. Then removes, best
/// effort, the temporary files of killed runs in that directory ([`remove_stale`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let target = resolve_links(path)?;
    if names_a_directory(path) || names_a_directory(&target) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "`{}` ends with `/`, so it names a directory",
                path.display()
            ),
        ));
    }
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
    let Some(name) = target.file_name() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path has no file name",
        ));
    };
    let dir = directory_of(&target);
    // On an error the temporary file is dropped, which removes it.
    let mut temp = create_temp(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(&target).map_err(|e| e.error)?;
    remove_stale(dir, name);
    Ok(())
}

/// Removes, best effort, the temporary files that runs killed while writing (SIGKILL, a power
/// cut) left in `dir`: ours older than [`STALE_AFTER`], and those that pcc made before it named
/// them at random, `.NAME.<pid>.tmp` (and the probes `.NAME.<pid>.check`) for the target `NAME`
/// = `name`, whose process is gone. Only regular files of the user's own (never a link, nor what
/// it points to: the names are only removed, `unlink`); errors are ignored.
#[cfg(unix)]
fn remove_stale(dir: &Path, name: &std::ffi::OsStr) {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = std::time::SystemTime::now();
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let bytes = file_name.as_bytes();
        let ours = bytes.len() == TEMP_PREFIX.len() + TEMP_RANDOM + TEMP_SUFFIX.len()
            && bytes.starts_with(TEMP_PREFIX.as_bytes())
            && bytes.ends_with(TEMP_SUFFIX.as_bytes())
            && bytes[TEMP_PREFIX.len()..][..TEMP_RANDOM]
                .iter()
                .all(u8::is_ascii_alphanumeric);
        let old_pid = (!ours)
            .then(|| old_temp_pid(bytes, name.as_bytes()))
            .flatten();
        if !ours && old_pid.is_none() {
            continue;
        }
        let path = entry.path();
        // `lstat`: a link is a link, whatever it points to.
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.file_type().is_file() || meta.uid() != euid() {
            continue;
        }
        let stale = match old_pid {
            Some(pid) => process_is_gone(pid),
            None => meta
                .modified()
                .ok()
                .and_then(|modified| now.duration_since(modified).ok())
                .is_some_and(|age| age >= STALE_AFTER),
        };
        if stale {
            let _ = fs::remove_file(&path);
        }
    }
}

#[cfg(not(unix))]
fn remove_stale(_dir: &Path, _name: &std::ffi::OsStr) {}

/// The pid in `file_name` if it is a temporary file an older pcc made for the target `name`:
/// `.NAME.<pid>.tmp` or `.NAME.<pid>.check`.
#[cfg(unix)]
fn old_temp_pid(file_name: &[u8], name: &[u8]) -> Option<libc::pid_t> {
    let rest = file_name
        .strip_prefix(b".")?
        .strip_prefix(name)?
        .strip_prefix(b".")?;
    let digits = rest
        .strip_suffix(b".tmp")
        .or_else(|| rest.strip_suffix(b".check"))?;
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let pid: libc::pid_t = std::str::from_utf8(digits).ok()?.parse().ok()?;
    (pid > 0).then_some(pid)
}

/// Whether no process `pid` exists (a process of another user exists: `kill` says `EPERM`).
#[cfg(unix)]
fn process_is_gone(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    let sent = unsafe { libc::kill(pid, 0) };
    sent == -1 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
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

    /// The temporary names of the pcc before this one: `.NAME.<pid>.tmp` (the write) and
    /// `.NAME.<pid>.check` (the probe of `check_output`), predictable by anyone.
    #[cfg(unix)]
    fn old_temp_names(name: &str) -> [String; 2] {
        let pid = std::process::id();
        [format!(".{name}.{pid}.tmp"), format!(".{name}.{pid}.check")]
    }

    #[cfg(unix)]
    fn is_link(path: &Path) -> bool {
        fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink())
    }

    #[cfg(unix)]
    #[test]
    fn links_at_the_old_predictable_temporary_names_are_never_written_through() {
        let dir = scratch("planted");
        let victim = dir.join("victim");
        fs::write(&victim, "victim").unwrap();
        let out = dir.join("out");
        fs::create_dir(&out).unwrap();
        for name in old_temp_names("p.json") {
            std::os::unix::fs::symlink("../victim", out.join(name)).unwrap();
        }
        let path = out.join("p.json");
        write_atomic(&path, b"profile").unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"victim");
        // Nor is a link at the old name of the probe a reason to refuse the output.
        assert_eq!(check_output(&path).unwrap(), path);
        write_atomic(&path, b"profile").unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"victim");
        assert!(!is_link(&path), "the output is a file of its own");
        assert_eq!(fs::read(&path).unwrap(), b"profile");
        for name in old_temp_names("p.json") {
            assert!(is_link(&out.join(&name)), "{name} is left alone");
        }
        assert_eq!(
            fs::read_dir(&out).unwrap().count(),
            3,
            "no temporary file is left"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn the_profile_is_as_readable_as_a_file_create_makes_it() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("mode");
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o7777;
        fs::File::create(dir.join("reference")).unwrap();
        let expected = mode(&dir.join("reference"));
        let path = dir.join("p.json");
        write_atomic(&path, b"new").unwrap();
        assert_eq!(mode(&path), expected, "a new profile: 0666 less the umask");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&path, b"again").unwrap();
        assert_eq!(mode(&path), expected, "a replaced profile, as before");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_long_file_name_is_not_refused_for_the_temporary_name() {
        let dir = scratch("long");
        let path = dir.join(format!("{}.json", "p".repeat(245)));
        assert_eq!(check_output(&path).unwrap(), path);
        write_atomic(&path, b"long").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"long");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn stale_temporary_files_of_the_user_are_removed_and_nothing_else() {
        let dir = scratch("stale");
        let victim = dir.join("victim");
        fs::write(&victim, "victim").unwrap();
        let out = dir.join("out");
        fs::create_dir(&out).unwrap();
        // No process has a pid this large (Linux's pid_max is at most 2^22).
        let (gone, gone_too) = (i32::MAX, i32::MAX - 1);
        let ours = std::process::id();
        let old = std::time::SystemTime::now() - STALE_AFTER - std::time::Duration::from_secs(60);
        let file = |name: &str, modified: Option<std::time::SystemTime>| {
            let file = fs::File::create(out.join(name)).unwrap();
            if let Some(time) = modified {
                file.set_modified(time).unwrap();
            }
        };
        let removed = [
            format!(".p.json.{gone}.tmp"),
            format!(".p.json.{gone}.check"),
            ".pcc-AbC123.tmp".to_string(),
        ];
        for name in &removed {
            file(name, Some(old));
        }
        let kept = [
            // A live process (this one), another target, ours but recent, not ours.
            format!(".p.json.{ours}.tmp"),
            format!(".q.json.{gone}.tmp"),
            ".pcc-XyZ789.tmp".to_string(),
            ".pcc-AbC1234.tmp".to_string(),
            ".pcc-AbC-12.tmp".to_string(),
            ".p.json.12x.tmp".to_string(),
        ];
        file(&kept[0], Some(old));
        file(&kept[1], Some(old));
        file(&kept[2], None);
        file(&kept[3], Some(old));
        file(&kept[4], Some(old));
        file(&kept[5], Some(old));
        // A link is never removed, nor what it points to.
        let link = format!(".p.json.{gone_too}.tmp");
        std::os::unix::fs::symlink("../victim", out.join(&link)).unwrap();
        write_atomic(&out.join("p.json"), b"profile").unwrap();
        for name in &removed {
            assert!(!out.join(name).exists(), "{name} is removed");
        }
        for name in &kept {
            assert!(out.join(name).is_file(), "{name} is kept");
        }
        assert!(is_link(&out.join(&link)));
        assert_eq!(fs::read(&victim).unwrap(), b"victim");
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Whether the tests run as root and can run commands as `nobody` (`runuser`); if not, says
    /// that `test` is skipped.
    #[cfg(unix)]
    fn root_with_nobody(test: &str) -> bool {
        if euid() != 0 {
            eprintln!("skipped {test}: needs root (to plant links as the user nobody)");
            return false;
        }
        let runs = std::process::Command::new("runuser")
            .args(["-u", "nobody", "--", "true"])
            .status()
            .is_ok_and(|status| status.success());
        if !runs {
            eprintln!("skipped {test}: `runuser -u nobody -- true` does not work here");
        }
        runs
    }

    /// Runs `command` as the user nobody, which must succeed.
    #[cfg(unix)]
    fn as_nobody(command: &[&str]) {
        let status = std::process::Command::new("runuser")
            .args(["-u", "nobody", "--"])
            .args(command)
            .status()
            .unwrap();
        assert!(status.success(), "as nobody: {command:?}");
    }

    /// Makes the directory `dir` with `mode` (the umask does not apply) and `owner`.
    #[cfg(unix)]
    fn directory(dir: &Path, mode: u32, owner: Option<u32>) {
        use std::os::unix::fs::PermissionsExt;
        fs::create_dir(dir).unwrap();
        std::os::unix::fs::chown(dir, owner, None).unwrap();
        fs::set_permissions(dir, fs::Permissions::from_mode(mode)).unwrap();
    }

    /// A scratch directory `name` that nobody may enter, with a root-owned file `victim` in it
    /// and the sticky directory `shared` everyone may write to (like `/tmp`), if the test runs
    /// as root and can act as nobody (else it says it is skipped).
    #[cfg(unix)]
    fn sticky_scratch(name: &str, test: &str) -> Option<(PathBuf, PathBuf, PathBuf)> {
        use std::os::unix::fs::PermissionsExt;
        if !root_with_nobody(test) {
            return None;
        }
        let dir = scratch(name);
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        let victim = dir.join("victim");
        fs::write(&victim, "root's").unwrap();
        let shared = dir.join("shared");
        directory(&shared, 0o1777, None);
        Some((dir, victim, shared))
    }

    #[cfg(unix)]
    #[test]
    fn root_never_writes_through_links_another_user_planted_at_temporary_names() {
        use std::os::unix::fs::MetadataExt;
        let Some((dir, victim, shared)) = sticky_scratch(
            "hijack",
            "root_never_writes_through_links_another_user_planted_at_temporary_names",
        ) else {
            return;
        };
        let s = |name: &str| shared.join(name).to_str().unwrap().to_string();
        // Nobody's links at the names the temporary files of root's write used to have.
        for name in old_temp_names("out.json") {
            as_nobody(&["ln", "-s", "../victim", &s(&name)]);
        }
        let out = shared.join("out.json");
        write_atomic(&out, b"profile").unwrap();
        assert_eq!(
            fs::read(&victim).unwrap(),
            b"root's",
            "the victim is unchanged"
        );
        assert_eq!(check_output(&out).unwrap(), out);
        write_atomic(&out, b"profile").unwrap();
        assert_eq!(fs::read(&victim).unwrap(), b"root's");
        assert!(!is_link(&out));
        assert_eq!(fs::read(&out).unwrap(), b"profile");
        assert_eq!(fs::symlink_metadata(&out).unwrap().uid(), 0);
        for name in old_temp_names("out.json") {
            assert!(is_link(&shared.join(&name)), "{name} is left alone");
        }

        // Nobody's old temporary files are not root's to remove, however stale.
        as_nobody(&["touch", "-d", "2 days ago", &s(".pcc-AbC123.tmp")]);
        as_nobody(&["touch", &s(&format!(".out.json.{}.tmp", i32::MAX))]);
        write_atomic(&out, b"again").unwrap();
        assert!(shared.join(".pcc-AbC123.tmp").is_file());
        assert!(shared.join(format!(".out.json.{}.tmp", i32::MAX)).is_file());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn links_another_user_planted_in_a_sticky_directory_are_not_followed() {
        use std::os::unix::fs::MetadataExt;
        let Some((dir, victim, shared)) = sticky_scratch(
            "sticky",
            "links_another_user_planted_in_a_sticky_directory_are_not_followed",
        ) else {
            return;
        };
        // Nobody's link where root's profile goes.
        let link = shared.join("p.json");
        as_nobody(&["ln", "-s", "../victim", link.to_str().unwrap()]);
        let nobody = fs::symlink_metadata(&link).unwrap().uid();
        assert_ne!(nobody, 0);
        let error = check_output(&link).unwrap_err();
        for part in [
            format!("refusing to follow the symbolic link `{}`", link.display()),
            format!("belongs to user {nobody}, not to you"),
            format!(
                "sits in `{}`, which is sticky and writable by anyone",
                shared.display()
            ),
        ] {
            assert!(error.contains(&part), "{part}: {error}");
        }
        assert!(
            !error.starts_with(&format!("`{}`", link.display())),
            "the link is named once: {error}"
        );
        let error = write_atomic(&link, b"profile").unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::PermissionDenied, "{error}");
        assert!(is_link(&link), "the link is left as it was");
        assert_eq!(
            fs::read(&victim).unwrap(),
            b"root's",
            "the victim is unchanged"
        );
        // Also as the second link of a chain that starts with root's own.
        std::os::unix::fs::symlink("p.json", shared.join("chain")).unwrap();
        let error = check_output(&shared.join("chain")).unwrap_err();
        let named = format!(
            "`{}`: refusing to follow the symbolic link `{}`",
            shared.join("chain").display(),
            link.display()
        );
        assert!(error.starts_with(&named), "{error}");

        // Where the kernel's rule lets a link be followed, pcc follows it: root's own link in
        // the sticky directory; nobody's in a sticky directory of nobody's; nobody's in a
        // directory everyone may write to that is not sticky.
        std::os::unix::fs::symlink("../made-0", shared.join("mine")).unwrap();
        let nobodys = dir.join("nobodys");
        directory(&nobodys, 0o1777, Some(nobody));
        let open = dir.join("open");
        directory(&open, 0o777, None);
        as_nobody(&[
            "ln",
            "-s",
            "../made-1",
            nobodys.join("link").to_str().unwrap(),
        ]);
        as_nobody(&["ln", "-s", "../made-2", open.join("link").to_str().unwrap()]);
        for (n, link) in [shared.join("mine"), nobodys.join("link"), open.join("link")]
            .iter()
            .enumerate()
        {
            assert_eq!(
                check_output(link).unwrap(),
                link.parent().unwrap().join(format!("../made-{n}"))
            );
            write_atomic(link, b"followed").unwrap();
            assert_eq!(
                fs::read(dir.join(format!("made-{n}"))).unwrap(),
                b"followed"
            );
            assert!(is_link(link));
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
