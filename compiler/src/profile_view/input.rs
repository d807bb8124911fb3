//! Reading a profile for a command: validated, with a warning when its source changed or is gone
//! (docs/PROFILE-FORMAT.md, "Source identity"), and, for the commands that recompile it, the
//! program it was taken from. Every failure is said on stderr; the callers exit with 1.

use std::path::{Path, PathBuf};

use pcc_profiler::profile::{Profile, SourceState};

/// Reads and validates a profile, or says why it cannot on stderr.
pub fn read(path: &Path) -> Option<Profile> {
    Profile::read(path)
        .map_err(|error| eprintln!("error: {error}"))
        .ok()
}

/// Reads and validates a profile, or says why it cannot on stderr; warns when its source file
/// changed since it was taken, is gone or cannot be read (docs/PROFILE-FORMAT.md, "Source
/// identity"). Also returns what was found of the source, read once.
pub fn load_with_source(path: &Path) -> Option<(Profile, SourceState)> {
    let profile = read(path)?;
    let state = profile.source.state(path);
    if let Some(warning) = state.warning(&path.display().to_string()) {
        eprintln!("warning: {warning}");
    }
    Some((profile, state))
}

/// [`load_with_source`] without the source.
pub fn load(path: &Path) -> Option<Profile> {
    load_with_source(path).map(|(profile, _)| profile)
}

/// A profile with its program's source, for the commands that compile it (the views, `aodf`):
/// the source file and its bytes, which are those the profile was taken from. Any other file
/// is refused with an error on stderr (the reason [`load_with_source`] would warn of), as is a
/// bad profile: a profile can name any file as its source, and what the commands show of it,
/// also in a compiler error, must come from the profiled program.
pub fn load_with_program(path: &Path) -> Option<(Profile, PathBuf, Vec<u8>)> {
    let profile = read(path)?;
    let (file, bytes) = profiled_program(&profile, path)?;
    Some((profile, file, bytes))
}

/// The source of `profile` (read from `path`) as [`load_with_program`] gives it.
pub fn profiled_program(profile: &Profile, path: &Path) -> Option<(PathBuf, Vec<u8>)> {
    let state = profile.source.state(path);
    if let Some(why) = state.warning(&path.display().to_string()) {
        eprintln!("error: {why}");
    }
    state.into_source()
}
