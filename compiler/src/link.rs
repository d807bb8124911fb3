//! Linking a native executable (`pcc build`): the program's object file and the runtime library,
//! with the system C compiler as the linker driver (it knows the C library, start files and
//! default linker of the platform).
//!
//! The runtime is `pcc-stdlib` as a static library, built by `build.rs` and embedded in `pcc`,
//! so that a `pcc` binary needs nothing beside it but a C compiler.

use std::ffi::OsString;
use std::fmt;
use std::path::Path;
use std::process::Command;

/// `libpcc_runtime.a`, as `build.rs` built it.
const RUNTIME_ARCHIVE: &[u8] = include_bytes!(env!("PCC_RUNTIME_ARCHIVE"));

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

#[derive(Debug)]
pub enum LinkError {
    /// The C compiler could not be started.
    NoCompiler { cc: String, error: std::io::Error },
    /// It ran and failed; its output says why.
    Failed {
        command: String,
        status: std::process::ExitStatus,
        output: String,
    },
    /// The temporary files could not be written.
    Io(std::io::Error),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            LinkError::NoCompiler { cc, error } => write!(
                f,
                "no C compiler to link with: cannot run `{cc}` ({error}); pcc build links \
                 executables with the system C compiler: {INSTALL_HINT}, or name one in the \
                 {CC_VAR} environment variable"
            ),
            LinkError::Failed {
                command,
                status,
                output,
            } => write!(f, "linking failed: `{command}` {status}\n{output}"),
            LinkError::Io(error) => write!(f, "cannot write temporary files for linking: {error}"),
        }
    }
}

/// Links `object` with the runtime into the executable `output`.
pub fn link(object: &[u8], output: &Path) -> Result<(), LinkError> {
    let (cc, cc_args) = c_compiler(std::env::var(CC_VAR).ok().as_deref());
    let dir = tempfile::Builder::new()
        .prefix("pcc-build-")
        .tempdir()
        .map_err(LinkError::Io)?;
    let object_path = dir.path().join("program.o");
    let runtime_path = dir.path().join("libpcc_runtime.a");
    std::fs::write(&object_path, object).map_err(LinkError::Io)?;
    std::fs::write(&runtime_path, RUNTIME_ARCHIVE).map_err(LinkError::Io)?;
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
}
