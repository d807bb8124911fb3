//! Linking a native executable (`pcc build`): the program's object file and the runtime library,
//! with the system C compiler as the linker driver (it knows the C library, start files and
//! default linker of the platform).
//!
//! The runtime is `pcc-stdlib` as a static library, built by `build.rs` and embedded in `pcc`,
//! so that a `pcc` binary needs nothing beside it but a C compiler. The linker reads it from a
//! file: a copy in the user's cache (`$XDG_CACHE_HOME/pcc` or `~/.cache/pcc`), named by the
//! archive's digest and written once, atomically; writing the 25 MB archive for every build took
//! a third of a `pcc build`. Each build compares the copy's bytes with the embedded archive and
//! replaces a copy that differs. Where there is no cache, each build writes its own copy.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `libpcc_runtime.a`, as `build.rs` built it.
const RUNTIME_ARCHIVE: &[u8] = include_bytes!(env!("PCC_RUNTIME_ARCHIVE"));
/// Its digest (`build.rs`), which names the cached copy.
const RUNTIME_DIGEST: &str = env!("PCC_RUNTIME_DIGEST");

/// The environment variable naming the C compiler that links (default `cc`); it may carry
/// arguments (`CC="ccache gcc"`).
pub const CC_VAR: &str = "CC";

/// After the objects: drop the sections nothing uses (most of the runtime's Rust std: the
/// executable shrinks by half and links faster), then the system libraries the runtime needs, as
/// `rustc --print native-static-libs` lists them for `pcc-runtime`.
#[cfg(target_os = "macos")]
const LINK_ARGS: &[&str] = &["-Wl,-dead_strip", "-lSystem", "-lc", "-lm"];
#[cfg(not(target_os = "macos"))]
const LINK_ARGS: &[&str] = &[
    "-Wl,--gc-sections",
    "-lgcc_s",
    "-lutil",
    "-lrt",
    "-lpthread",
    "-lm",
    "-ldl",
    "-lc",
];

/// How to get a C compiler, for the error that there is none.
const INSTALL_HINT: &str = if cfg!(target_os = "macos") {
    "install the Xcode command line tools (`xcode-select --install`)"
} else {
    "install a C compiler and linker (Debian/Ubuntu: `apt-get install gcc`; Fedora: \
     `dnf install gcc`)"
};

/// Why linking failed. The I/O errors are part of the message, not its source.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// The C compiler could not be started.
    #[error(
        "no C compiler to link with: cannot run `{cc}` ({error}); pcc build links executables \
         with the system C compiler: {INSTALL_HINT}, or name one in the {CC_VAR} environment \
         variable"
    )]
    NoCompiler { cc: String, error: std::io::Error },
    /// It ran and failed; its output says why.
    #[error("linking failed: `{command}` {status}\n{output}")]
    Failed {
        command: String,
        status: std::process::ExitStatus,
        output: String,
    },
    /// The temporary files could not be written.
    #[error("cannot write temporary files for linking: {0}")]
    Io(std::io::Error),
}

/// Links `object` with the runtime into the executable `output`.
pub fn link(object: &[u8], output: &Path) -> Result<(), LinkError> {
    let (cc, cc_args) = c_compiler(std::env::var(CC_VAR).ok().as_deref());
    let dir = tempfile::Builder::new()
        .prefix("pcc-build-")
        .tempdir()
        .map_err(LinkError::Io)?;
    let object_path = dir.path().join("program.o");
    std::fs::write(&object_path, object).map_err(LinkError::Io)?;
    let runtime_path = match cache_dir().and_then(|cache| cached_runtime(&cache)) {
        Some(path) => path,
        None => {
            let path = dir.path().join("libpcc_runtime.a");
            std::fs::write(&path, RUNTIME_ARCHIVE).map_err(LinkError::Io)?;
            path
        }
    };
    let mut args: Vec<OsString> = cc_args.into_iter().map(OsString::from).collect();
    args.extend([
        "-o".into(),
        output.into(),
        object_path.into(),
        runtime_path.into(),
    ]);
    args.extend(LINK_ARGS.iter().map(OsString::from));
    let result = Command::new(&cc)
        .args(&args)
        .output()
        .map_err(|error| LinkError::NoCompiler {
            cc: cc.clone(),
            error,
        })?;
    if result.status.success() {
        return Ok(());
    }
    let mut command = cc;
    for arg in &args {
        command.push(' ');
        command.push_str(&arg.to_string_lossy());
    }
    let mut output = String::from_utf8_lossy(&result.stderr).into_owned();
    output.push_str(&String::from_utf8_lossy(&result.stdout));
    Err(LinkError::Failed {
        command,
        status: result.status,
        output,
    })
}

/// The user's cache folder for pcc: `$XDG_CACHE_HOME/pcc`, else `$HOME/.cache/pcc`.
fn cache_dir() -> Option<PathBuf> {
    let nonempty = |var| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = nonempty("XDG_CACHE_HOME").or_else(|| nonempty("HOME").map(|h| h.join(".cache")))?;
    Some(base.join("pcc"))
}

/// The runtime archive in `cache`, written there first if it is not (`None` if that fails).
/// A file under the digest's name is used only if it holds the archive's bytes: anything else
/// (cut short, corrupted, or planted) is replaced, by a whole copy renamed into place.
fn cached_runtime(cache: &Path) -> Option<PathBuf> {
    let path = cache.join(format!("libpcc_runtime-{RUNTIME_DIGEST}.a"));
    if holds_the_runtime(&path) {
        return Some(path);
    }
    std::fs::create_dir_all(cache).ok()?;
    let mut file = tempfile::NamedTempFile::new_in(cache).ok()?;
    std::io::Write::write_all(&mut file, RUNTIME_ARCHIVE).ok()?;
    // Another build may have put its copy there meanwhile: the same bytes, so either wins.
    file.persist(&path).ok()?;
    Some(path)
}

/// Whether the file at `path` is the embedded archive, byte for byte. Reading it back costs a
/// few milliseconds of a build (it is in the page cache after the first); writing it, a third.
fn holds_the_runtime(path: &Path) -> bool {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    if !file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() == RUNTIME_ARCHIVE.len() as u64)
    {
        return false;
    }
    let mut chunk = vec![0; 1 << 20];
    let mut at = 0;
    loop {
        match file.read(&mut chunk) {
            Ok(0) => return at == RUNTIME_ARCHIVE.len(),
            Ok(n) => {
                let expected = RUNTIME_ARCHIVE.get(at..at + n);
                if expected != Some(&chunk[..n]) {
                    return false;
                }
                at += n;
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// The program and leading arguments of `$CC` (`cc` when unset or blank).
fn c_compiler(var: Option<&str>) -> (String, Vec<String>) {
    let mut words = var.unwrap_or("").split_whitespace().map(String::from);
    match words.next() {
        Some(cc) => (cc, words.collect()),
        None => ("cc".to_string(), Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cc_defaults_to_cc_and_may_carry_arguments() {
        assert_eq!(c_compiler(None), ("cc".to_string(), vec![]));
        assert_eq!(c_compiler(Some("  ")), ("cc".to_string(), vec![]));
        assert_eq!(
            c_compiler(Some("ccache gcc -fuse-ld=gold")),
            (
                "ccache".to_string(),
                vec!["gcc".to_string(), "-fuse-ld=gold".to_string()]
            )
        );
    }

    #[test]
    fn the_embedded_runtime_is_an_archive() {
        assert!(RUNTIME_ARCHIVE.starts_with(b"!<arch>\n"));
    }

    /// The cached copy is written once, whole, and used as it is afterwards; a copy of another
    /// size (cut short) is replaced.
    #[test]
    fn the_runtime_is_cached_once_and_a_truncated_copy_replaced() {
        let cache = tempfile::tempdir().expect("a temporary folder");
        let dir = cache.path().join("pcc");
        let path = cached_runtime(&dir).expect("cached");
        assert_eq!(std::fs::read(&path).unwrap(), RUNTIME_ARCHIVE);
        let written = std::fs::metadata(&path).unwrap().modified().unwrap();
        assert_eq!(cached_runtime(&dir), Some(path.clone()));
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            written
        );
        std::fs::write(&path, b"!<arch>\n").unwrap();
        assert_eq!(cached_runtime(&dir), Some(path.clone()));
        assert_eq!(std::fs::read(&path).unwrap(), RUNTIME_ARCHIVE);
        // Only the archive is left in the folder: no temporary files.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    }

    /// A copy of the right size with other bytes (here only the last one) is replaced too.
    #[test]
    fn a_same_size_corrupt_copy_is_replaced() {
        let cache = tempfile::tempdir().expect("a temporary folder");
        let dir = cache.path().join("pcc");
        let path = cached_runtime(&dir).expect("cached");
        let mut corrupt = RUNTIME_ARCHIVE.to_vec();
        *corrupt.last_mut().unwrap() ^= 0x20;
        std::fs::write(&path, &corrupt).unwrap();
        assert!(!holds_the_runtime(&path));
        assert_eq!(cached_runtime(&dir), Some(path.clone()));
        assert!(holds_the_runtime(&path), "replaced");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    }
}
