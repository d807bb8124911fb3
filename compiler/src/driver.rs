//! The compilation pipeline behind each command: source → typed program → MIR → machine code.
//! Everything pcc itself says goes to stderr: the passes' notes through [`say`], and the
//! [`Failure`]s the commands here return, through `main`. stdout belongs to the program (or to
//! `--emit`).

use std::path::Path;

use pcc_lang::{LineIndex, typed};

use pcc_profiler::english::with_article;
use pcc_profiler::profile::{Kinship, Mode, Profile, SourceFile, kinship, printable};
use pcc_profiler::spec::ProfileSpec;
use pcc_profiler::tpp::TppConfig;

use crate::mir::verify;
use crate::notes::Notes;
use crate::profiling::{self, EdgeProfileSource, Instrumentation, InterestingSource};
use crate::{codegen, interp, link, lower, mir, opt, pgo};

/// Exit status for compile errors and for problems with pcc's own inputs.
pub const EXIT_COMPILE_ERROR: i32 = 1;

/// Why a command of the driver failed. The driver returns it without printing; `main` prints it
/// with [`Failure::report`] and exits with its status (docs/CLI.md: compile errors and problems with
/// pcc's inputs exit with 1; command-line usage errors, found by clap in `main`, with 2).
///
/// Its `Display` is the text [`Failure::report`] prints, ending in a newline.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// The front end's diagnostics, rendered as `--error-format` asks.
    #[error("{0}")]
    Diagnostics(String),
    /// Any other problem: an input that cannot be read or used (the source, a profile, an
    /// option), code generation, writing the output: `error: {message}`.
    #[error("error: {0}\n")]
    Error(String),
}

impl Failure {
    /// The exit status pcc ends with.
    pub fn status(&self) -> i32 {
        match self {
            Failure::Diagnostics(_) | Failure::Error(_) => EXIT_COMPILE_ERROR,
        }
    }

    /// Prints the failure on stderr and returns its exit status.
    pub fn report(self) -> i32 {
        eprint!("{self}");
        self.status()
    }
}

/// Prints what the passes said, in the order they said it, and empties `notes`: the one place
/// the notes of passes reach stderr.
pub fn say(notes: &mut Notes) {
    for note in notes.take() {
        eprintln!("{note}");
    }
}

/// Functions with more potential paths than this count them in a hash table, not an array: an
/// array of 2^16 counters is 512 KiB of zero pages, touched only where paths are counted; past
/// that, the array's memory and cache footprint would outgrow the hash table's cost per count.
pub const DEFAULT_HASH_THRESHOLD: u64 = 1 << 16;

pub struct Options {
    pub opt_level: u8,
    pub profile: Option<ProfileOptions>,
    /// `--use-profile`: a `bl` or `kbl` profile of an earlier run to recompile with.
    pub use_profile: Option<std::path::PathBuf>,
    /// Testing: write the run's block trace here (docs/TESTING.md).
    pub trace_blocks: Option<std::path::PathBuf>,
    pub error_format: ErrorFormat,
}

/// How compile errors are printed (`--error-format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ErrorFormat {
    /// Message, `file:line:col`, the line and a caret.
    #[default]
    Human,
    /// One JSON object per error and line, for graders and editors.
    Json,
}

pub struct ProfileOptions {
    pub mode: pcc_profiler::profile::Mode,
    /// Where to write the profile; `None` = `<stem>.<mode>.profile.json` in the current folder.
    pub out: Option<std::path::PathBuf>,
    pub hash_threshold: u64,
    /// `ppp`: the path profile whose executed paths are interesting; `None` = the default-location
    /// `bl` profile if there is one, else a static estimate.
    pub interesting: Option<std::path::PathBuf>,
    /// `ppp`: per function, only the hottest paths covering this share (0–1] of its path
    /// executions in the `interesting` profile.
    pub interesting_share: f64,
    /// `kbl`: the longest sequences of path ids counted ([KBLPP]'s `k`).
    pub k: usize,
    /// `tpp`: the edge profile to plan from; `None` = `<stem>.edge.profile.json` here.
    pub edge_profile: Option<std::path::PathBuf>,
    /// `tpp`: the thresholds of TPP(i, j), in percent.
    pub tpp: TppConfig,
}

/// `kbl`: `k` when `--k` is not given.
pub const DEFAULT_K: usize = 4;

/// Share of the estimated path executions the static estimate's interesting paths cover.
pub const ESTIMATE_COVERAGE: f64 = 0.9;

#[derive(Clone, Copy)]
pub enum Emit {
    Mir,
    Clif,
    Asm,
}

/// A source file that passed the front end.
pub struct Checked {
    pub file_name: String,
    pub source: String,
    /// The path and hash of the source file, as profiles record it.
    pub source_file: SourceFile,
    pub program: typed::Program,
}

/// Reads and checks a program; on failure, every diagnostic.
pub fn front_end(path: &Path) -> Result<Checked, Failure> {
    front_end_as(path, ErrorFormat::Human)
}

/// [`front_end`], with the diagnostics in `format`.
pub fn front_end_as(path: &Path, format: ErrorFormat) -> Result<Checked, Failure> {
    let file_name = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|err| Failure::Error(format!("cannot read `{file_name}`: {err}")))?;
    check_source(file_name, &bytes, format)
}

/// [`front_end`] of `bytes`, the contents of `path` as the caller read them: a profile's
/// source, read once and compared with the profile's hash, is compiled from those bytes, not
/// from whatever the file holds by now.
pub fn front_end_bytes(path: &Path, bytes: &[u8]) -> Result<Checked, Failure> {
    check_source(path.display().to_string(), bytes, ErrorFormat::Human)
}

fn check_source(file_name: String, bytes: &[u8], format: ErrorFormat) -> Result<Checked, Failure> {
    let source = String::from_utf8_lossy(bytes).into_owned();
    let render = |diagnostics: &pcc_lang::Diagnostics| match format {
        ErrorFormat::Human => diagnostics.render_styled(
            &file_name,
            &source,
            crate::terminal::colour(crate::terminal::Stream::Stderr),
        ),
        ErrorFormat::Json => diagnostics.render_json(&file_name, &source),
    };
    match pcc_lang::check_bytes(&file_name, bytes) {
        Ok(program) => {
            if !program.warnings.is_empty() {
                eprint!("{}", render(&program.warnings));
            }
            Ok(Checked {
                source_file: SourceFile::new(file_name.clone(), bytes),
                file_name,
                source,
                program,
            })
        }
        Err(diagnostics) => Err(Failure::Diagnostics(render(&diagnostics))),
    }
}

/// Lowers to MIR and applies the MIR passes the options ask for: instrumentation (on the MIR as
/// lowered, so a profile's CFGs do not depend on `-O`), then optimizations. Returns the profile
/// spec of an instrumented program; what the passes have to say goes to `notes`.
/// `args` are the program's, for messages that suggest a command.
pub fn middle_end(
    checked: &Checked,
    options: &Options,
    args: &[String],
    notes: &mut Notes,
) -> Result<(mir::Program, Option<ProfileSpec>), Failure> {
    let mut program = lower::lower_program(&checked.program);
    verify::after_pass(&program, "lower");
    let current = CurrentCode::new(checked, &program);
    if let Some(path) = &options.use_profile {
        use_profile(
            &mut program,
            &current,
            checked,
            path,
            options.opt_level,
            notes,
        )?;
        verify::after_pass(&program, "pgo");
    }
    let lowered_blocks: Vec<usize> = program.functions.iter().map(|f| f.blocks.len()).collect();
    let spec = match &options.profile {
        Some(profile) => {
            let how = Instrumentation {
                mode: profile.mode,
                program_path: &checked.file_name,
                source_hash: checked.source_file.hash.clone(),
                output: profile_output(&checked.file_name, profile),
                hash_threshold: profile.hash_threshold,
                interesting: interesting_source(&current, profile, notes)?,
                k: profile.k,
                edge_profile: edge_profile_source(&current, profile, args, notes)?,
            };
            let spec = profiling::instrument(&mut program, &how, &checked.source, notes)
                .map_err(Failure::Error)?;
            verify::after_pass(&program, "instrument");
            Some(spec)
        }
        None => None,
    };
    if options.trace_blocks.is_some() {
        profiling::trace_blocks(&mut program, &lowered_blocks);
        verify::after_pass(&program, "trace-blocks");
    }
    if options.opt_level >= 2 {
        opt::optimize(&mut program);
    }
    let spec = spec.map(|spec| ProfileSpec {
        merged: program.merged_counters.clone(),
        ..spec
    });
    Ok((program, spec))
}

/// The profiles that guide a `ppp` or `tpp` numbering (`--interesting`, `--edge-profile`, or
/// their defaults), read and checked against `program` as `pcc run` does; for `pcc paths
/// --explain`.
pub fn guiding_profiles(
    checked: &Checked,
    program: &mir::Program,
    profile: &ProfileOptions,
    notes: &mut Notes,
) -> Result<(Option<InterestingSource>, Option<EdgeProfileSource>), Failure> {
    let current = CurrentCode::new(checked, program);
    Ok((
        interesting_source(&current, profile, notes)?,
        edge_profile_source(&current, profile, &[], notes)?,
    ))
}

/// `--use-profile`: the profile-guided passes on the MIR as lowered, the code the profile was
/// taken on; what they changed goes to `notes`, after their warnings.
fn use_profile(
    program: &mut mir::Program,
    current: &CurrentCode,
    checked: &Checked,
    path: &Path,
    opt_level: u8,
    notes: &mut Notes,
) -> Result<(), Failure> {
    let name = path.display().to_string();
    let profile = current
        .read_input_profile(
            &name,
            &pgo::MODES,
            "--use-profile takes a bl, kbl, ppp or wpp profile (Ball-Larus path ids of the same code) or an edge profile",
            notes,
        )
        .map_err(|error| Failure::Error(format!("--use-profile: {error}")))?;
    let lines = LineIndex::new(&checked.source);
    let line_of = |span: pcc_lang::Span| lines.line(span.lo);
    let report = pgo::optimize(program, &profile, &name, opt_level >= 2, &line_of, notes);
    notes.info(format!(
        "use-profile: recompiling with the {} profile `{name}`{}",
        profile.mode,
        if report.is_empty() {
            "; nothing changed"
        } else {
            ":"
        }
    ));
    for line in report {
        notes.info(format!("use-profile:   {line}"));
    }
    Ok(())
}

/// `--profile-out`, or `<stem>.<mode>.profile.json` in the current folder.
fn profile_output(file_name: &str, profile: &ProfileOptions) -> String {
    match &profile.out {
        Some(path) => path.display().to_string(),
        None => default_profile_path(file_name, profile.mode),
    }
}

/// `<stem>.<mode>.profile.json`, in the current folder.
pub fn default_profile_path(file_name: &str, mode: Mode) -> String {
    let stem = Path::new(file_name)
        .file_stem()
        .map_or("program".into(), |s| s.to_string_lossy());
    format!("{stem}.{mode}.profile.json")
}

/// Profiles whose `paths` (and `residual`) are Ball-Larus paths, usable as interesting paths.
const INTERESTING_MODES: [Mode; 4] = [Mode::Bl, Mode::Ppp, Mode::Kbl, Mode::Wpp];

/// The most recently written of the program's default-location path profiles, if any.
fn newest_path_profile(file_name: &str) -> Option<String> {
    INTERESTING_MODES
        .iter()
        .map(|&mode| default_profile_path(file_name, mode))
        .filter_map(|path| {
            let modified = std::fs::metadata(&path).and_then(|m| m.modified()).ok()?;
            Some((modified, path))
        })
        .max()
        .map(|(_, path)| path)
}

/// `ppp`: where the interesting paths come from (docs/CLI.md: `--interesting`, else the newest
/// default-location path profile, else a static estimate), said in one line of `notes`.
fn interesting_source(
    current: &CurrentCode,
    profile: &ProfileOptions,
    notes: &mut Notes,
) -> Result<Option<InterestingSource>, Failure> {
    let file_name = current.source.path.as_str();
    if profile.mode != Mode::Ppp {
        return Ok(None);
    }
    let estimate = || {
        Some(InterestingSource::Estimate {
            coverage: ESTIMATE_COVERAGE,
        })
    };
    let path = match &profile.interesting {
        Some(path) => path.display().to_string(),
        None => match newest_path_profile(file_name) {
            Some(path) => path,
            None => {
                notes.info(format!(
                    "ppp: no path profile at `{}`; interesting paths from a static estimate of \
                     path frequencies (the paths covering {:.0}% of the estimated flow)",
                    default_profile_path(file_name, Mode::Bl),
                    ESTIMATE_COVERAGE * 100.0
                ));
                return Ok(estimate());
            }
        },
    };
    let loaded = current.read_input_profile(
        &path,
        &INTERESTING_MODES,
        "the interesting paths come from a path profile (bl, ppp, kbl or wpp)",
        notes,
    );
    match loaded {
        Ok(loaded) => {
            let share = if profile.interesting_share < 1.0 {
                format!(
                    " (per function, the hottest paths covering {}% of its path executions)",
                    profile.interesting_share * 100.0
                )
            } else {
                String::new()
            };
            notes.info(format!(
                "ppp: interesting paths from the {} profile `{path}`{share}",
                loaded.mode
            ));
            Ok(Some(InterestingSource::Profile {
                profile: Box::new(loaded),
                name: path,
                share: profile.interesting_share,
            }))
        }
        // An explicit `--interesting` must be usable.
        Err(error) if profile.interesting.is_some() => {
            Err(Failure::Error(format!("--interesting: {error}")))
        }
        // The default one is only a convenience: fall back on the estimate.
        Err(error) => {
            notes.warn(format!("ignoring the default bl profile: {error}"));
            notes.info(format!(
                "ppp: interesting paths from a static estimate of path frequencies (the paths \
                 covering {:.0}% of the estimated flow)",
                ESTIMATE_COVERAGE * 100.0
            ));
            Ok(estimate())
        }
    }
}

/// The program being compiled, as a profile given as input must match it.
struct CurrentCode {
    source: SourceFile,
    /// Each function's (name, `cfg_hash`) as lowered.
    functions: Vec<(String, String)>,
}

impl CurrentCode {
    fn new(checked: &Checked, program: &mir::Program) -> CurrentCode {
        let functions = program
            .functions
            .iter()
            .map(|f| (f.name.clone(), profiling::cfg_hash(program, f)))
            .collect();
        CurrentCode {
            source: checked.source_file.clone(),
            functions,
        }
    }

    /// Reads a profile that guides compilation, which must be of one of `modes` (`why` says
    /// why, in the error) and of this program (docs/PROFILE-FORMAT.md, "Source identity"): a
    /// profile of another program is refused; one of the same program taken from other bytes
    /// gets a warning (its lines may have moved; functions whose code changed are refused one
    /// by one where the profile is used), and one of the same code at another path a note.
    fn read_input_profile(
        &self,
        path: &str,
        modes: &[Mode],
        why: &str,
        notes: &mut Notes,
    ) -> Result<Profile, String> {
        let profile = Profile::read(Path::new(path)).map_err(|error| error.to_string())?;
        if !modes.contains(&profile.mode) {
            return Err(format!(
                "`{path}` is {} profile; {why}",
                with_article(&profile.mode.to_string())
            ));
        }
        let ours = self.functions.iter().map(|(n, h)| (n.as_str(), h.as_str()));
        match kinship(
            &profile.source,
            profile.function_hashes(),
            &self.source,
            ours,
        ) {
            Kinship::Other => {
                return Err(format!(
                    "`{path}` is a profile of another program: `{}`, not `{}` (another source \
                     path and other bytes, and no function with the same code)",
                    printable(&profile.source.path),
                    self.source.path
                ));
            }
            Kinship::SameCodeElsewhere => notes.note(format!(
                "`{path}` is a profile of `{}`, used for `{}` because they share code",
                printable(&profile.source.path),
                self.source.path
            )),
            Kinship::Same if profile.source.hash != self.source.hash => notes.warn(format!(
                "`{path}`: the source `{}` changed since the profile was taken (its hash \
                 differs), so the profile's line numbers may have moved",
                self.source.path
            )),
            Kinship::Same => {}
        }
        Ok(profile)
    }
}

/// `tpp`: the edge profile to plan from (docs/CLI.md: `--edge-profile`, else the
/// default-location one; without one, stop with the command that makes it), said in one line
/// of `notes`.
fn edge_profile_source(
    current: &CurrentCode,
    profile: &ProfileOptions,
    args: &[String],
    notes: &mut Notes,
) -> Result<Option<EdgeProfileSource>, Failure> {
    let file_name = current.source.path.as_str();
    if profile.mode != Mode::Tpp {
        return Ok(None);
    }
    let path = match &profile.edge_profile {
        Some(path) => path.display().to_string(),
        None => default_profile_path(file_name, Mode::Edge),
    };
    let make_one = || {
        let args = if args.is_empty() {
            String::new()
        } else {
            format!(" -- {}", args.join(" "))
        };
        let out = match &profile.edge_profile {
            Some(_) => format!(" --profile-out {path}"),
            None => String::new(),
        };
        format!("pcc run {file_name} --profile=edge{out}{args}")
    };
    if profile.edge_profile.is_none() && !Path::new(&path).is_file() {
        return Err(Failure::Error(format!(
            "--profile=tpp needs an edge profile of `{file_name}`, and there is none at \
             `{path}` (or give one with --edge-profile P); make one with:\n    {}",
            make_one()
        )));
    }
    let loaded = current.read_input_profile(
        &path,
        &[Mode::Edge],
        "tpp plans from an edge profile",
        notes,
    );
    match loaded {
        Ok(loaded) => {
            let config = profile.tpp;
            notes.info(format!(
                "tpp: cold edges and obvious paths from the edge profile `{path}`, TPP({}, {})",
                config.cold_threshold, config.loop_threshold
            ));
            Ok(Some(EdgeProfileSource {
                profile: loaded,
                name: path,
                config,
            }))
        }
        Err(error) => Err(Failure::Error(format!(
            "--profile=tpp: {error}; make an edge profile with:\n    {}",
            make_one()
        ))),
    }
}

fn codegen_options(options: &Options) -> codegen::Options {
    codegen::Options {
        opt_level: options.opt_level,
    }
}

pub fn check(path: &Path, format: ErrorFormat) -> Result<i32, Failure> {
    front_end_as(path, format).map(|_| 0)
}

/// [`middle_end`], its notes printed whether it succeeds or not (before the failure, which
/// `main` prints).
fn passes(
    checked: &Checked,
    options: &Options,
    args: &[String],
) -> Result<(mir::Program, Option<ProfileSpec>), Failure> {
    let mut notes = Notes::default();
    let result = middle_end(checked, options, args, &mut notes);
    say(&mut notes);
    result
}

/// The front and middle ends: the checked program, its MIR ready for code generation, and the
/// profile spec of an instrumented program.
fn to_mir(
    path: &Path,
    options: &Options,
    args: &[String],
) -> Result<(Checked, mir::Program, Option<ProfileSpec>), Failure> {
    let checked = front_end_as(path, options.error_format)?;
    let (program, spec) = passes(&checked, options, args)?;
    Ok((checked, program, spec))
}

fn codegen_failed(err: impl std::fmt::Display) -> Failure {
    Failure::Error(format!("code generation failed: {err}"))
}

/// Compiles and runs the program; its exit status.
pub fn run(path: &Path, options: &Options, args: Vec<String>) -> Result<i32, Failure> {
    let (checked, program, spec) = to_mir(path, options, &args)?;
    let jit = codegen::jit(&program, &checked.source, &codegen_options(options))
        .map_err(codegen_failed)?;
    if let Some(path) = &options.trace_blocks {
        let names = program.functions.iter().map(|f| f.name.clone()).collect();
        pcc_stdlib::install_block_trace(path.clone(), names);
    }
    let mut info = jit.info.clone();
    info.profile = spec;
    Ok(pcc_stdlib::run_program(info, args, jit.entry))
}

/// `pcc run --engine interp`: the reference interpreter on the MIR as lowered (`-O` does not
/// apply); `trace` prints each block it enters. The program's exit status.
pub fn interpret(
    path: &Path,
    options: &Options,
    args: Vec<String>,
    trace: bool,
) -> Result<i32, Failure> {
    let refuse = |what: &str| {
        Err(Failure::Error(format!(
            "--engine interp runs the program as lowered: {what}"
        )))
    };
    if options.use_profile.is_some() {
        return refuse("it takes no --use-profile");
    }
    if options.trace_blocks.is_some() {
        return refuse("it takes no --trace-blocks (see --trace)");
    }
    if let Some(profile) = &options.profile
        && !interp::PROFILE_MODES.contains(&profile.mode)
    {
        return refuse("it profiles with --profile=bl, edge or block only");
    }
    let checked = front_end(path)?;
    let program = lower::lower_program(&checked.program);
    verify::after_pass(&program, "lower");
    let profile = options.profile.as_ref().map(|p| interp::ProfileOptions {
        mode: p.mode,
        output: profile_output(&checked.file_name, p),
        array_limit: p.hash_threshold.min(profiling::MAX_ARRAY_COUNTERS),
        source: checked.source_file.clone(),
    });
    let options = interp::Options { profile, trace };
    Ok(interp::run(&program, &checked.source, args, &options))
}

/// What `pcc build` writes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum BuildOutput {
    /// A native executable: the object file linked with the runtime.
    Executable,
    /// The object file alone (`--emit obj`).
    Object,
}

/// Compiles the program into a native executable (or object file) at `output`. The code is the
/// JIT's (one code generator); an instrumented executable writes its profile where `pcc run`
/// would, unless `PCC_PROFILE_OUT` says otherwise when it runs.
pub fn build(
    path: &Path,
    options: &Options,
    output: &Path,
    what: BuildOutput,
) -> Result<i32, Failure> {
    if let (Ok(source), Ok(target)) = (path.canonicalize(), output.canonicalize())
        && source == target
    {
        return Err(Failure::Error(format!(
            "`-o {}` would overwrite the program's source",
            output.display()
        )));
    }
    let (checked, program, spec) = to_mir(path, options, &[])?;
    let object = codegen::object(&program, &checked.source, &codegen_options(options), spec)
        .map_err(codegen_failed)?;
    match what {
        BuildOutput::Object => std::fs::write(output, object)
            .map_err(|error| format!("cannot write `{}`: {error}", output.display())),
        BuildOutput::Executable => link::link(&object, output).map_err(|error| error.to_string()),
    }
    .map_err(Failure::Error)?;
    Ok(0)
}

/// Prints every function (or just `only`) at the given stage on stdout.
pub fn emit(
    path: &Path,
    options: &Options,
    stage: Emit,
    only: Option<&str>,
) -> Result<i32, Failure> {
    let checked = front_end_as(path, options.error_format)?;
    if let Some(name) = only
        && !checked.program.functions.iter().any(|f| f.name == name)
    {
        return Err(Failure::Error(format!(
            "no function `{name}` in `{}`",
            checked.file_name
        )));
    }
    let (program, _) = passes(&checked, options, &[])?;
    let text = match stage {
        Emit::Mir => {
            let lines = LineIndex::new(&checked.source);
            let line_of = |span: pcc_lang::Span| lines.line(span.lo);
            program
                .functions
                .iter_enumerated()
                .filter(|(_, f)| only.is_none_or(|name| crate::mir::is_part_of(&f.name, name)))
                .map(|(id, _)| program.function_text(id, &line_of))
                .collect::<Vec<_>>()
                .join("\n")
        }
        Emit::Clif | Emit::Asm => {
            let options = codegen_options(options);
            match stage {
                Emit::Clif => codegen::emit_clif(&program, &checked.source, &options, only),
                _ => codegen::emit_asm(&program, &checked.source, &options, only),
            }
            .map_err(codegen_failed)?
        }
    };
    Ok(crate::commands::print_text(&text))
}

#[cfg(test)]
mod tests;
