//! The compilation pipeline behind each command: source → typed program → MIR → machine code.
//! Everything pcc itself says goes to stderr; stdout belongs to the program (or to `--emit`).

use std::path::Path;

use pcc_lang::{LineIndex, typed};

use pcc_profiler::english::with_article;
use pcc_profiler::profile::{Kinship, Mode, Profile, SourceFile, kinship};
use pcc_profiler::spec::ProfileSpec;
use pcc_profiler::tpp::TppConfig;

use crate::mir::verify;
use crate::profiling::{self, EdgeProfileSource, Instrumentation, InterestingSource};
use crate::{codegen, interp, link, lower, mir, opt, pgo};

/// Exit status for compile errors and for problems with pcc's own inputs.
pub const EXIT_COMPILE_ERROR: i32 = 1;

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

/// Reads and checks a program, printing every diagnostic on failure.
pub fn front_end(path: &Path) -> Result<Checked, i32> {
    front_end_as(path, ErrorFormat::Human)
}

/// [`front_end`], printing the diagnostics in `format`.
pub fn front_end_as(path: &Path, format: ErrorFormat) -> Result<Checked, i32> {
    let file_name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|err| {
        eprintln!("error: cannot read `{file_name}`: {err}");
        EXIT_COMPILE_ERROR
    })?;
    let source = String::from_utf8_lossy(&bytes).into_owned();
    match pcc_lang::check_bytes(&file_name, &bytes) {
        Ok(program) => Ok(Checked {
            source_file: SourceFile::new(file_name.clone(), &bytes),
            file_name,
            source,
            program,
        }),
        Err(diagnostics) => {
            let text = match format {
                ErrorFormat::Human => diagnostics.render(&file_name, &source),
                ErrorFormat::Json => diagnostics.render_json(&file_name, &source),
            };
            eprint!("{text}");
            Err(EXIT_COMPILE_ERROR)
        }
    }
}

/// Lowers to MIR and applies the MIR passes the options ask for: instrumentation (on the MIR as
/// lowered, so a profile's CFGs do not depend on `-O`), then optimizations. Returns the profile
/// spec of an instrumented program.
/// `args` are the program's, for messages that suggest a command.
pub fn middle_end(
    checked: &Checked,
    options: &Options,
    args: &[String],
) -> Result<(mir::Program, Option<ProfileSpec>), i32> {
    let mut program = lower::lower_program(&checked.program);
    verify::after_pass(&program, "lower");
    let current = CurrentCode::new(checked, &program);
    if let Some(path) = &options.use_profile {
        use_profile(&mut program, &current, checked, path)?;
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
                interesting: interesting_source(&current, profile)?,
                k: profile.k,
                edge_profile: edge_profile_source(&current, profile, args)?,
            };
            let spec =
                profiling::instrument(&mut program, &how, &checked.source).map_err(|err| {
                    eprintln!("error: {err}");
                    EXIT_COMPILE_ERROR
                })?;
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
    Ok((program, spec))
}

/// The profiles that guide a `ppp` or `tpp` numbering (`--interesting`, `--edge-profile`, or
/// their defaults), read and checked against `program` as `pcc run` does; for `pcc paths
/// --explain`.
pub fn guiding_profiles(
    checked: &Checked,
    program: &mir::Program,
    profile: &ProfileOptions,
) -> Result<(Option<InterestingSource>, Option<EdgeProfileSource>), i32> {
    let current = CurrentCode::new(checked, program);
    Ok((
        interesting_source(&current, profile)?,
        edge_profile_source(&current, profile, &[])?,
    ))
}

/// `--use-profile`: the profile-guided passes on the MIR as lowered, the code the profile was
/// taken on; what they changed goes to stderr.
fn use_profile(
    program: &mut mir::Program,
    current: &CurrentCode,
    checked: &Checked,
    path: &Path,
) -> Result<(), i32> {
    let name = path.display().to_string();
    let profile = current
        .read_input_profile(
            &name,
            &pgo::MODES,
            "--use-profile takes a bl or kbl profile (Ball-Larus path ids of the same code)",
        )
        .map_err(|error| {
            eprintln!("error: --use-profile: {error}");
            EXIT_COMPILE_ERROR
        })?;
    let lines = LineIndex::new(&checked.source);
    let line_of = |span: pcc_lang::Span| lines.line(span.lo);
    let report = pgo::optimize(program, &profile, &name, &line_of);
    eprintln!(
        "pcc: use-profile: recompiling with the {} profile `{name}`{}",
        profile.mode,
        if report.is_empty() {
            "; nothing changed"
        } else {
            ":"
        }
    );
    for line in report {
        eprintln!("pcc: use-profile:   {line}");
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

/// `ppp`: where the interesting paths come from (README: `--interesting`, else the newest
/// default-location path profile, else a static estimate), said in one line on stderr.
fn interesting_source(
    current: &CurrentCode,
    profile: &ProfileOptions,
) -> Result<Option<InterestingSource>, i32> {
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
                eprintln!(
                    "pcc: ppp: no path profile at `{}`; interesting paths from a static \
                     estimate of path frequencies (the paths covering {:.0}% of the estimated flow)",
                    default_profile_path(file_name, Mode::Bl),
                    ESTIMATE_COVERAGE * 100.0
                );
                return Ok(estimate());
            }
        },
    };
    let loaded = current.read_input_profile(
        &path,
        &INTERESTING_MODES,
        "the interesting paths come from a path profile (bl, ppp, kbl or wpp)",
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
            eprintln!(
                "pcc: ppp: interesting paths from the {} profile `{path}`{share}",
                loaded.mode
            );
            Ok(Some(InterestingSource::Profile {
                profile: Box::new(loaded),
                name: path,
                share: profile.interesting_share,
            }))
        }
        // An explicit `--interesting` must be usable.
        Err(error) if profile.interesting.is_some() => {
            eprintln!("error: --interesting: {error}");
            Err(EXIT_COMPILE_ERROR)
        }
        // The default one is only a convenience: fall back on the estimate.
        Err(error) => {
            eprintln!("pcc: warning: ignoring the default bl profile: {error}");
            eprintln!(
                "pcc: ppp: interesting paths from a static estimate of path frequencies (the \
                 paths covering {:.0}% of the estimated flow)",
                ESTIMATE_COVERAGE * 100.0
            );
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
    fn read_input_profile(&self, path: &str, modes: &[Mode], why: &str) -> Result<Profile, String> {
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
                    profile.source.path, self.source.path
                ));
            }
            Kinship::SameCodeElsewhere => eprintln!(
                "pcc: note: `{path}` is a profile of `{}`, used for `{}` because they share code",
                profile.source.path, self.source.path
            ),
            Kinship::Same if profile.source.hash != self.source.hash => eprintln!(
                "pcc: warning: `{path}`: the source `{}` changed since the profile was taken (its \
                 hash differs), so the profile's line numbers may have moved",
                self.source.path
            ),
            Kinship::Same => {}
        }
        Ok(profile)
    }
}

/// `tpp`: the edge profile to plan from (README: `--edge-profile`, else the
/// default-location one; without one, stop with the command that makes it), said in one line
/// on stderr.
fn edge_profile_source(
    current: &CurrentCode,
    profile: &ProfileOptions,
    args: &[String],
) -> Result<Option<EdgeProfileSource>, i32> {
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
        eprintln!(
            "error: --profile=tpp needs an edge profile of `{file_name}`, and there is none at \
             `{path}` (or give one with --edge-profile P); make one with:\n    {}",
            make_one()
        );
        return Err(EXIT_COMPILE_ERROR);
    }
    let loaded = current.read_input_profile(&path, &[Mode::Edge], "tpp plans from an edge profile");
    match loaded {
        Ok(loaded) => {
            let config = profile.tpp;
            eprintln!(
                "pcc: tpp: cold edges and obvious paths from the edge profile `{path}`, \
                 TPP({}, {})",
                config.cold_threshold, config.loop_threshold
            );
            Ok(Some(EdgeProfileSource {
                profile: loaded,
                name: path,
                config,
            }))
        }
        Err(error) => {
            eprintln!(
                "error: --profile=tpp: {error}; make an edge profile with:\n    {}",
                make_one()
            );
            Err(EXIT_COMPILE_ERROR)
        }
    }
}

fn codegen_options(options: &Options) -> codegen::Options {
    codegen::Options {
        opt_level: options.opt_level,
    }
}

pub fn check(path: &Path, format: ErrorFormat) -> i32 {
    match front_end_as(path, format) {
        Ok(_) => 0,
        Err(status) => status,
    }
}

/// The front and middle ends: the checked program, its MIR ready for code generation, and the
/// profile spec of an instrumented program.
fn to_mir(
    path: &Path,
    options: &Options,
    args: &[String],
) -> Result<(Checked, mir::Program, Option<ProfileSpec>), i32> {
    let checked = front_end_as(path, options.error_format)?;
    let (program, spec) = middle_end(&checked, options, args)?;
    Ok((checked, program, spec))
}

pub fn run(path: &Path, options: &Options, args: Vec<String>) -> i32 {
    let (checked, program, spec) = match to_mir(path, options, &args) {
        Ok(result) => result,
        Err(status) => return status,
    };
    match codegen::jit(&program, &checked.source, &codegen_options(options)) {
        Ok(jit) => {
            if let Some(path) = &options.trace_blocks {
                let names = program.functions.iter().map(|f| f.name.clone()).collect();
                pcc_stdlib::install_block_trace(path.clone(), names);
            }
            let mut info = jit.info.clone();
            info.profile = spec;
            pcc_stdlib::run_program(info, args, jit.entry)
        }
        Err(err) => {
            eprintln!("error: code generation failed: {err}");
            EXIT_COMPILE_ERROR
        }
    }
}

/// `pcc run --engine interp`: the reference interpreter on the MIR as lowered (`-O` does not
/// apply); `trace` prints each block it enters.
pub fn interpret(path: &Path, options: &Options, args: Vec<String>, trace: bool) -> i32 {
    let refuse = |what: &str| {
        eprintln!("error: --engine interp runs the program as lowered: {what}");
        EXIT_COMPILE_ERROR
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
    let checked = match front_end(path) {
        Ok(checked) => checked,
        Err(status) => return status,
    };
    let program = lower::lower_program(&checked.program);
    verify::after_pass(&program, "lower");
    let profile = options.profile.as_ref().map(|p| interp::ProfileOptions {
        mode: p.mode,
        output: profile_output(&checked.file_name, p),
        array_limit: p.hash_threshold.min(profiling::MAX_ARRAY_COUNTERS),
        source: checked.source_file.clone(),
    });
    let options = interp::Options { profile, trace };
    interp::run(&program, &checked.source, args, &options)
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
pub fn build(path: &Path, options: &Options, output: &Path, what: BuildOutput) -> i32 {
    if let (Ok(source), Ok(target)) = (path.canonicalize(), output.canonicalize())
        && source == target
    {
        eprintln!(
            "error: `-o {}` would overwrite the program's source",
            output.display()
        );
        return EXIT_COMPILE_ERROR;
    }
    let (checked, program, spec) = match to_mir(path, options, &[]) {
        Ok(result) => result,
        Err(status) => return status,
    };
    let object = match codegen::object(&program, &checked.source, &codegen_options(options), spec) {
        Ok(object) => object,
        Err(err) => {
            eprintln!("error: code generation failed: {err}");
            return EXIT_COMPILE_ERROR;
        }
    };
    let written = match what {
        BuildOutput::Object => std::fs::write(output, object)
            .map_err(|error| format!("cannot write `{}`: {error}", output.display())),
        BuildOutput::Executable => link::link(&object, output).map_err(|error| error.to_string()),
    };
    match written {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("error: {error}");
            EXIT_COMPILE_ERROR
        }
    }
}

/// Prints every function (or just `only`) at the given stage on stdout.
pub fn emit(path: &Path, options: &Options, stage: Emit, only: Option<&str>) -> i32 {
    let checked = match front_end_as(path, options.error_format) {
        Ok(checked) => checked,
        Err(status) => return status,
    };
    if let Some(name) = only
        && !checked.program.functions.iter().any(|f| f.name == name)
    {
        eprintln!("error: no function `{name}` in `{}`", checked.file_name);
        return EXIT_COMPILE_ERROR;
    }
    let program = match middle_end(&checked, options, &[]) {
        Ok((program, _)) => program,
        Err(status) => return status,
    };
    let text = match stage {
        Emit::Mir => {
            let lines = LineIndex::new(&checked.source);
            let line_of = |span: pcc_lang::Span| lines.line(span.lo);
            program
                .functions
                .iter_enumerated()
                .filter(|(_, f)| only.is_none_or(|name| f.name == name))
                .map(|(id, _)| program.function_text(id, &line_of))
                .collect::<Vec<_>>()
                .join("\n")
        }
        Emit::Clif | Emit::Asm => {
            let options = codegen_options(options);
            let result = match stage {
                Emit::Clif => codegen::emit_clif(&program, &checked.source, &options, only),
                _ => codegen::emit_asm(&program, &checked.source, &options, only),
            };
            match result {
                Ok(text) => text,
                Err(err) => {
                    eprintln!("error: code generation failed: {err}");
                    return EXIT_COMPILE_ERROR;
                }
            }
        }
    };
    print!("{text}");
    0
}
