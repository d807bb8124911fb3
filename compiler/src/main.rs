//! The `pcc` command line: argument parsing only; each command lives in `pcc::commands`.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use pcc::commands;
use pcc::driver::{self, Emit, Failure};
use pcc_profiler::profile::Mode;
use pcc_profiler::tpp::TppConfig;

#[cfg(test)]
mod cli_doc;

#[derive(Parser)]
#[command(
    name = "pcc",
    version,
    about = "PL compiler with built-in path profiling, on Cranelift"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colour pcc's own output (errors, annotated listings): `auto` when the stream is a
    /// terminal, `NO_COLOR` is unset or empty and `TERM` is not `dumb`.
    #[arg(
        long,
        value_enum,
        global = true,
        default_value = "auto",
        value_name = "WHEN"
    )]
    color: ColorArg,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Compile a program in memory (JIT) and run it; its exit status is pcc's.
    Run(RunArgs),
    /// Compile a program into a native executable, linked by the system C compiler (`$CC`, else
    /// `cc`); an instrumented one writes its profile when it ends (to `$PCC_PROFILE_OUT` if set).
    Build(BuildArgs),
    /// Profile-guided recompilation in one command: train (a kbl profile of this input), run at
    /// -O N without and with --use-profile, and say what changed and what it gained (stderr);
    /// stdout and exit status are the guided run's.
    Pgo(PgoArgs),
    /// Report every error in a program without running it.
    Check(CheckArgs),
    /// A language server for editors, on stdin and stdout (docs/EDITORS.md).
    Lsp,
    /// List every potential acyclic path of each function with its Ball-Larus id and source
    /// lines, or (--explain) show step by step how they are numbered.
    Paths(PathsArgs),
    /// Golden tests: run every X.pl (of the folders, or the files, given; default: here) with
    /// X.args and X.stdin, and compare stdout, stderr and exit status with X.stdout, X.stderr
    /// and X.exit.
    Test(TestArgs),
    /// Inspect and combine profiles.
    #[command(subcommand)]
    Profile(ProfileCommand),
    /// Analyze the whole program path of a `--profile=wpp` run.
    #[command(subcommand)]
    Wpp(WppCommand),
}

#[derive(clap::Args)]
struct RunArgs {
    /// The program to compile and run.
    file: PathBuf,
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    profile: ProfileArgs,
    /// Print the program instead of running it: as MIR, as Cranelift IR after optimization,
    /// or as machine code.
    #[arg(long, value_enum)]
    emit: Option<EmitArg>,
    /// With --emit: only this function.
    #[arg(long)]
    function: Option<String>,
    /// Testing: write every function entry, block entry and function exit to this file as
    /// JSON (docs/TESTING.md).
    #[arg(long, hide = true)]
    trace_blocks: Option<PathBuf>,
    /// What runs the program: compiled code (`jit`), or the reference interpreter of the
    /// MIR as lowered (`interp`: slow, but obviously right; profiles bl, edge and block).
    #[arg(long, value_enum, default_value = "jit")]
    engine: EngineArg,
    /// With --engine interp: print each block entered (function, block, line) on stderr.
    #[arg(long)]
    trace: bool,
    /// Arguments for the program, after `--`.
    #[arg(last = true)]
    args: Vec<String>,
}

#[derive(clap::Args)]
struct BuildArgs {
    /// The program to compile.
    file: PathBuf,
    /// The executable (or object file) to write.
    #[arg(short = 'o', value_name = "EXE")]
    output: PathBuf,
    #[command(flatten)]
    compile: CompileArgs,
    #[command(flatten)]
    profile: ProfileArgs,
    /// Write only the object file to EXE, not linked (for `objdump -d`).
    #[arg(long, value_enum)]
    emit: Option<BuildEmitArg>,
}

#[derive(clap::Args)]
struct PgoArgs {
    /// The program to train, compile and run.
    file: PathBuf,
    /// Optimization level of both timed runs.
    #[arg(short = 'O', value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=2))]
    opt_level: u8,
    /// The training run's k (k-iteration paths). A run of the same path k times in a row is
    /// as long as the profile can show, and the unroller makes up to 16 copies for it; the
    /// profile of branchy code grows about tenfold per extra level.
    #[arg(long = "k", value_name = "K", default_value_t = 6,
          value_parser = clap::value_parser!(u8).range(1..=64))]
    k: u8,
    /// Where to write the training run's profile, which is kept (default:
    /// `<stem>.kbl.profile.json` here).
    #[arg(long, value_name = "P")]
    profile_out: Option<PathBuf>,
    /// Rounds of timed runs (plain, guided, plain again), at least; short runs get more, up to
    /// 20 or a second of CPU.
    #[arg(long, value_name = "N", default_value_t = 5,
          value_parser = clap::value_parser!(u16).range(1..))]
    runs: u16,
    /// Arguments for the program, after `--`.
    #[arg(last = true)]
    args: Vec<String>,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// The program to check.
    file: PathBuf,
    /// How errors are printed: as text, or one JSON object per error and line.
    #[arg(long, value_enum, default_value = "human")]
    error_format: ErrorFormatArg,
}

#[derive(clap::Args)]
struct PathsArgs {
    /// The program whose paths are listed.
    file: PathBuf,
    /// Only this function (default: all).
    #[arg(long)]
    function: Option<String>,
    /// `text` to read, `json` for tools, or `dot`: each function's Ball-Larus DAG as a
    /// Graphviz digraph.
    #[arg(long, value_enum, default_value = "text")]
    format: PathsFormat,
    /// With --format dot: label blocks and edges with this profile's counts, edge widths by
    /// count, and draw the hottest path in blue.
    #[arg(long, value_name = "P")]
    profile: Option<PathBuf>,
    /// Teach the numbering step by step: the DAG, NumPaths, Val, the spanning tree and
    /// chords, and one path regenerated (with --interesting P: PPP's numbering; with
    /// --edge-profile P: TPP's).
    #[arg(long, conflicts_with_all = ["format", "profile"])]
    explain: bool,
    /// With --explain: the path id to regenerate (default: the last).
    #[arg(long, value_name = "ID", requires = "explain")]
    path: Option<u64>,
    /// With --explain: the path profile whose executed paths PPP finds interesting.
    #[arg(
        long,
        value_name = "P",
        requires = "explain",
        conflicts_with = "edge_profile"
    )]
    interesting: Option<PathBuf>,
    /// With --explain: the edge profile TPP plans from.
    #[arg(long, value_name = "P", requires = "explain")]
    edge_profile: Option<PathBuf>,
}

#[derive(clap::Args)]
struct TestArgs {
    /// Folders (every X.pl below them) and files to test (default: the current folder).
    targets: Vec<PathBuf>,
    /// Write the actual results as the expected files.
    #[arg(long, conflicts_with = "profile")]
    update: bool,
    /// Kill a run after this many seconds (a failure); 0: no limit.
    #[arg(long, value_name = "S", default_value_t = 10.0, value_parser = parse_seconds)]
    timeout: f64,
    /// `text`: a line per test and the diffs; `json`: one object for graders.
    #[arg(long, value_enum, default_value = "text")]
    format: ReportFormat,
    /// Profile every run and merge the profiles of each program into
    /// `<stem>.<mode>.profile.json` here.
    #[arg(long, value_parser = ["bl", "edge", "block", "ppp", "tpp", "kbl"])]
    profile: Option<String>,
    /// Passed on to every `pcc run`.
    #[arg(long, value_enum, default_value = "human")]
    error_format: ErrorFormatArg,
}

#[derive(Subcommand)]
enum WppCommand {
    /// Minimal hot subpaths: runs of at most L consecutive acyclic paths that cost at least C
    /// (frequency times the paths' MIR instruction counts), found on the grammar (Larus, Fig. 7).
    Hot(HotArgs),
    /// The whole acyclic-path trace, one path per line: `FUNCTION PATH_ID`.
    Expand(ExpandArgs),
}

#[derive(clap::Args)]
struct HotArgs {
    /// A profile of `pcc run --profile=wpp`.
    profile: PathBuf,
    /// C: the least cost of a hot subpath.
    #[arg(long, value_name = "C")]
    min_cost: u64,
    /// L: the most acyclic paths in a subpath.
    #[arg(long, value_name = "L", value_parser = clap::value_parser!(u64).range(1..))]
    max_len: u64,
    /// The fewest acyclic paths in a reported subpath.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    min_len: u64,
    /// A table, or JSON: the same, with the grammar rule each subpath was first found at.
    #[arg(long, value_enum, default_value = "text")]
    format: ReportFormat,
}

#[derive(clap::Args)]
struct ExpandArgs {
    /// A profile of `pcc run --profile=wpp`.
    profile: PathBuf,
}

#[derive(Subcommand)]
enum ProfileCommand {
    /// The hottest paths first, with their source lines and share of all path executions.
    Show(ShowArgs),
    /// Sum the counts of profiles of the same program and mode.
    Merge(MergeArgs),
    /// Path spectra comparison: paths only in A, only in B, and count changes.
    Diff(DiffArgs),
    /// Attribution of definite flow (TPP paper §5): how much of a bl profile's flow a tpp
    /// profile of the same program attributes to the right paths.
    Aodf(AodfArgs),
    /// One self-contained HTML page (no network needed): the summary, per function its
    /// heat-coloured source, executed paths and CFG (choose a path to highlight it), the mode's
    /// own section and, with --compare, the two runs' path spectra side by side.
    Report(ReportArgs),
    /// The profiled source with each line's count and share, like gcov or `perf annotate`.
    Annotate(AnnotateArgs),
    /// Write the profile for other viewers: `lcov` (a tracefile for genhtml and editors'
    /// coverage views) or `folded` (one stack per executed path, for flame graphs and
    /// speedscope).
    Export(ExportArgs),
}

#[derive(clap::Args)]
struct ShowArgs {
    /// The profile to show.
    profile: PathBuf,
    /// How many of the hottest paths (edges, blocks) and functions to list (default: all).
    #[arg(long, value_name = "N")]
    top: Option<usize>,
    /// Tables, or the same data as JSON.
    #[arg(long, value_enum, default_value = "text")]
    format: ReportFormat,
}

#[derive(clap::Args)]
struct MergeArgs {
    /// The profiles to add up; `@FILE` stands for the profiles FILE lists, one per line.
    #[arg(required = true, num_args = 1..)]
    profiles: Vec<PathBuf>,
    /// The merged profile to write.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: PathBuf,
}

#[derive(clap::Args)]
struct DiffArgs {
    /// The first profile.
    a: PathBuf,
    /// The second profile, of the same program and mode (or bl, ppp, kbl and wpp, which all list
    /// Ball-Larus paths, with each other).
    b: PathBuf,
    /// Only the N largest differences (a path's count if it ran in one profile, else how far its
    /// count moved).
    #[arg(long, value_name = "N")]
    top: Option<usize>,
    /// Only differences of at least C.
    #[arg(long, value_name = "C", default_value_t = 0)]
    min_count: u64,
    /// Tables, or the same data as JSON.
    #[arg(long, value_enum, default_value = "text")]
    format: ReportFormat,
}

#[derive(clap::Args)]
struct AodfArgs {
    /// A profile of `pcc run --profile=tpp`.
    tpp: PathBuf,
    /// A profile of `pcc run --profile=bl` of the same program (and, usually, input).
    bl: PathBuf,
    /// A table, or the same data as JSON.
    #[arg(long, value_enum, default_value = "text")]
    format: ReportFormat,
}

#[derive(clap::Args)]
struct ReportArgs {
    /// The profile to report on.
    profile: PathBuf,
    /// Another profile of the same program: path spectra side by side (same mode), or the
    /// AoDF (a tpp profile compared with a bl one).
    #[arg(long, value_name = "Q")]
    compare: Option<PathBuf>,
    /// The HTML file to write.
    #[arg(short = 'o', long = "output", value_name = "HTML")]
    output: PathBuf,
}

#[derive(clap::Args)]
struct AnnotateArgs {
    /// The profile whose counts annotate the source.
    profile: PathBuf,
    /// Only this function (default: all, hottest first).
    #[arg(long)]
    function: Option<String>,
}

#[derive(clap::Args)]
struct ExportArgs {
    /// The profile to export.
    profile: PathBuf,
    /// `lcov` (line, branch and function counts) or `folded` (stacks of paths).
    #[arg(long, value_enum)]
    format: ExportFormat,
    /// Where to write (default: stdout).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExportFormat {
    Lcov,
    Folded,
}

#[derive(clap::Args)]
struct CompileArgs {
    /// Optimization level: 0 = Cranelift's optimizer off, 1 = Cranelift `speed`, 2 = also pcc's
    /// own MIR passes (inlining, versioning, superblocks, …).
    #[arg(short = 'O', value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=2))]
    opt_level: u8,
    /// Recompile with a profile of an earlier run of the same code (bl, kbl, ppp or wpp; edge for
    /// block frequencies only): cold blocks out of line, hot call sites inlined more at -O 2, hot
    /// loop paths made superblocks and, from kbl, loops whose iterations repeat one path unrolled
    /// along it.
    #[arg(long, value_name = "P", conflicts_with = "profile")]
    use_profile: Option<PathBuf>,
    /// How compile errors are printed: as text, or one JSON object per error and line.
    #[arg(long, value_enum, default_value = "human")]
    error_format: ErrorFormatArg,
}

#[derive(clap::Args)]
struct ProfileArgs {
    /// Instrument the program with this profiling scheme and write its profile at exit.
    #[arg(long, value_parser = ["bl", "edge", "block", "ppp", "tpp", "kbl", "wpp"])]
    profile: Option<String>,
    /// Where to write the profile (default: `<stem>.<mode>.profile.json` here).
    #[arg(long, value_name = "P")]
    profile_out: Option<PathBuf>,
    /// Functions with more potential paths than this count them in a hash table, not an array.
    #[arg(long, value_name = "N", default_value_t = driver::DEFAULT_HASH_THRESHOLD)]
    hash_threshold: u64,
    /// With --profile=ppp: a bl, ppp, kbl or wpp profile whose executed paths are the interesting
    /// ones (default: the newest of those at `<stem>.<mode>.profile.json` here, else a static
    /// estimate).
    #[arg(long, value_name = "P")]
    interesting: Option<PathBuf>,
    /// With --profile=ppp: per function, only the hottest paths covering this share (0 < F ≤ 1)
    /// of its path executions in the --interesting profile are interesting.
    #[arg(long, value_name = "F", default_value_t = 1.0, value_parser = parse_share)]
    interesting_share: f64,
    /// With --profile=kbl: count sequences of up to K consecutive path ids of an activation
    /// (k-iteration paths) [default: 4].
    #[arg(long = "k", value_name = "K", value_parser = clap::value_parser!(u8).range(1..=64))]
    k: Option<u8>,
    /// With --profile=tpp: the edge profile of an earlier run to plan from (default:
    /// `<stem>.edge.profile.json` here).
    #[arg(long, value_name = "P")]
    edge_profile: Option<PathBuf>,
    /// With --profile=tpp: an edge carrying less than this percentage of its block's flow is
    /// cold; paths through it are not numbered (TPP(i, j)'s i).
    #[arg(long, value_name = "PCT", default_value_t = TppConfig::default().cold_threshold,
          value_parser = clap::value_parser!(u32).range(0..=100))]
    cold_threshold: u32,
    /// With --profile=tpp: a loop whose entries carry less than this percentage of its
    /// header's flow is disconnected from the rest of its function (TPP(i, j)'s j).
    #[arg(long, value_name = "PCT", default_value_t = TppConfig::default().loop_threshold,
          value_parser = clap::value_parser!(u32).range(0..=100))]
    loop_threshold: u32,
}

/// A share in (0, 1].
fn parse_share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(share) if share > 0.0 && share <= 1.0 => Ok(share),
        Ok(_) => Err("the share must be greater than 0 and at most 1".into()),
        Err(error) => Err(error.to_string()),
    }
}

/// A number of seconds, finite and not negative.
fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => Ok(seconds),
        Ok(_) => Err("the seconds must be a finite number, 0 or more".into()),
        Err(error) => Err(error.to_string()),
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum ErrorFormatArg {
    Human,
    Json,
}

impl From<ErrorFormatArg> for driver::ErrorFormat {
    fn from(format: ErrorFormatArg) -> driver::ErrorFormat {
        match format {
            ErrorFormatArg::Human => driver::ErrorFormat::Human,
            ErrorFormatArg::Json => driver::ErrorFormat::Json,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum EmitArg {
    Mir,
    Clif,
    Asm,
}

#[derive(Clone, Copy, ValueEnum)]
enum EngineArg {
    Jit,
    Interp,
}

#[derive(Clone, Copy, ValueEnum)]
enum BuildEmitArg {
    Obj,
}

#[derive(Clone, Copy, ValueEnum)]
enum PathsFormat {
    Text,
    Json,
    Dot,
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportFormat {
    Text,
    Json,
}

fn main() {
    let cli = Cli::try_parse().unwrap_or_else(|error| {
        let _ = error.print();
        if let Some(hint) = program_arguments_hint(&error) {
            eprintln!("{hint}");
        }
        // Usage errors exit 2 (docs/CLI.md), like clap's own.
        std::process::exit(error.exit_code())
    });
    pcc::terminal::set_color(match cli.color {
        ColorArg::Auto => pcc::terminal::ColorChoice::Auto,
        ColorArg::Always => pcc::terminal::ColorChoice::Always,
        ColorArg::Never => pcc::terminal::ColorChoice::Never,
    });
    std::process::exit(cli.command.run())
}

impl Command {
    /// Runs the command; pcc's exit status.
    fn run(self) -> i32 {
        match self {
            Command::Run(args) => args.run(),
            Command::Build(args) => args.run(),
            Command::Pgo(args) => args.run(),
            Command::Check(args) => {
                exit_status(driver::check(&args.file, args.error_format.into()))
            }
            Command::Lsp => pcc::lsp::run(),
            Command::Paths(args) => args.run(),
            Command::Test(args) => args.run(),
            Command::Profile(command) => command.run(),
            Command::Wpp(command) => command.run(),
        }
    }
}

impl RunArgs {
    fn run(self) -> i32 {
        let options = driver_options(self.compile, self.profile, self.trace_blocks);
        let file = &self.file;
        let result = if self.trace && !matches!(self.engine, EngineArg::Interp) {
            Err(Failure::Error("--trace needs --engine interp".into()))
        } else {
            match self.emit {
                Some(stage) => {
                    let stage = match stage {
                        EmitArg::Mir => Emit::Mir,
                        EmitArg::Clif => Emit::Clif,
                        EmitArg::Asm => Emit::Asm,
                    };
                    driver::emit(file, &options, stage, self.function.as_deref())
                }
                None => match self.engine {
                    EngineArg::Jit => driver::run(file, &options, self.args),
                    EngineArg::Interp => driver::interpret(file, &options, self.args, self.trace),
                },
            }
        };
        exit_status(result)
    }
}

impl BuildArgs {
    fn run(self) -> i32 {
        let options = driver_options(self.compile, self.profile, None);
        let what = match self.emit {
            Some(BuildEmitArg::Obj) => driver::BuildOutput::Object,
            None => driver::BuildOutput::Executable,
        };
        exit_status(driver::build(&self.file, &options, &self.output, what))
    }
}

impl PgoArgs {
    fn run(self) -> i32 {
        let profile_out = self.profile_out.unwrap_or_else(|| {
            driver::default_profile_path(&self.file.display().to_string(), Mode::Kbl).into()
        });
        let options = commands::pgo::PgoOptions {
            opt_level: self.opt_level,
            k: self.k,
            profile_out: &profile_out,
            runs: usize::from(self.runs),
        };
        commands::pgo::run(&self.file, &options, &self.args)
    }
}

impl PathsArgs {
    fn run(self) -> i32 {
        let function = self.function.as_deref();
        if self.explain {
            let guide = match (self.interesting, self.edge_profile) {
                (Some(p), _) => commands::explain::Guide::Interesting(p),
                (None, Some(p)) => commands::explain::Guide::EdgeProfile(p),
                (None, None) => commands::explain::Guide::None,
            };
            return commands::explain::run(&self.file, function, self.path, &guide);
        }
        let format = match self.format {
            PathsFormat::Text => commands::paths::Format::Text,
            PathsFormat::Json => commands::paths::Format::Json,
            PathsFormat::Dot => commands::paths::Format::Dot,
        };
        commands::paths::run(&self.file, function, format, self.profile.as_deref())
    }
}

impl TestArgs {
    fn run(self) -> i32 {
        let options = commands::test::Options {
            update: self.update,
            timeout: (self.timeout > 0.0).then(|| std::time::Duration::from_secs_f64(self.timeout)),
            json: json(self.format),
            profile: (self.profile)
                .map(|mode| mode.parse::<Mode>().expect("clap checked the mode")),
            json_errors: matches!(self.error_format, ErrorFormatArg::Json),
        };
        commands::test::run(&self.targets, &options)
    }
}

impl ProfileCommand {
    fn run(self) -> i32 {
        match self {
            ProfileCommand::Show(a) => commands::profile::show(&a.profile, a.top, json(a.format)),
            ProfileCommand::Merge(a) => commands::profile::merge(&a.profiles, &a.output),
            ProfileCommand::Diff(a) => {
                let keep = commands::profile::Keep {
                    top: a.top,
                    min_count: a.min_count,
                };
                commands::profile::diff(&a.a, &a.b, keep, json(a.format))
            }
            ProfileCommand::Aodf(a) => commands::aodf::run(&a.tpp, &a.bl, json(a.format)),
            ProfileCommand::Report(a) => {
                commands::report::run(&a.profile, a.compare.as_deref(), &a.output)
            }
            ProfileCommand::Annotate(a) => {
                commands::annotate::run(&a.profile, a.function.as_deref())
            }
            ProfileCommand::Export(a) => {
                let format = match a.format {
                    ExportFormat::Lcov => commands::export::Format::Lcov,
                    ExportFormat::Folded => commands::export::Format::Folded,
                };
                commands::export::run(&a.profile, format, a.output.as_deref())
            }
        }
    }
}

impl WppCommand {
    fn run(self) -> i32 {
        match self {
            WppCommand::Hot(a) => {
                let size = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
                let params = pcc_profiler::wpp::HotParams {
                    min_cost: a.min_cost,
                    max_len: size(a.max_len),
                    min_len: size(a.min_len),
                };
                commands::wpp::hot(&a.profile, params, json(a.format))
            }
            WppCommand::Expand(a) => commands::wpp::expand(&a.profile),
        }
    }
}

/// pcc's exit status for what a command of the driver returned: the status it chose (the
/// program's, for `run`), or its failure's, printed here.
fn exit_status(result: Result<i32, Failure>) -> i32 {
    result.unwrap_or_else(Failure::report)
}

/// For `pcc run|pgo FILE 5 6`: the program's arguments go after `--`.
fn program_arguments_hint(error: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if error.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(unexpected)) = error.get(ContextKind::InvalidArg) else {
        return None;
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !matches!(args.first().map(String::as_str), Some("run" | "pgo"))
        || args.contains(&"--".into())
    {
        return None;
    }
    let at = args.iter().skip(2).position(|a| a == unexpected)? + 2;
    let mut fixed = args.clone();
    fixed.insert(at, "--".into());
    Some(format!(
        "hint: the program's arguments go after `--`: pcc {}",
        fixed.join(" ")
    ))
}

/// Warnings for profiling options that the chosen mode (or no mode) ignores.
fn ignored_options(profile: &ProfileArgs) -> Vec<String> {
    let mode = profile.profile.as_deref();
    let mut ignored = Vec::new();
    let mut check = |given: bool, option: &str, wanted: &str, applies: bool| {
        if given && !applies {
            let now = mode.map_or("no --profile".to_string(), |m| format!("--profile={m}"));
            ignored.push(format!(
                "pcc: warning: {option} is ignored with {now} (it applies to {wanted})"
            ));
        }
    };
    check(
        profile.profile_out.is_some(),
        "--profile-out",
        "--profile",
        mode.is_some(),
    );
    check(
        profile.k.is_some(),
        "--k",
        "--profile=kbl",
        mode == Some("kbl"),
    );
    check(
        profile.interesting.is_some(),
        "--interesting",
        "--profile=ppp",
        mode == Some("ppp"),
    );
    check(
        profile.edge_profile.is_some(),
        "--edge-profile",
        "--profile=tpp",
        mode == Some("tpp"),
    );
    ignored
}

/// The pipeline's options from those of `run` and `build`.
fn driver_options(
    compile: CompileArgs,
    profile: ProfileArgs,
    trace_blocks: Option<PathBuf>,
) -> driver::Options {
    for warning in ignored_options(&profile) {
        eprintln!("{warning}");
    }
    driver::Options {
        opt_level: compile.opt_level,
        use_profile: compile.use_profile,
        trace_blocks,
        error_format: compile.error_format.into(),
        profile: profile.profile.map(|mode| driver::ProfileOptions {
            mode: mode.parse::<Mode>().expect("clap checked the mode"),
            out: profile.profile_out,
            hash_threshold: profile.hash_threshold,
            interesting: profile.interesting,
            interesting_share: profile.interesting_share,
            k: profile.k.map_or(driver::DEFAULT_K, usize::from),
            edge_profile: profile.edge_profile,
            tpp: TppConfig {
                cold_threshold: profile.cold_threshold,
                loop_threshold: profile.loop_threshold,
                eliminate_obvious: true,
            },
        }),
    }
}

fn json(format: ReportFormat) -> bool {
    matches!(format, ReportFormat::Json)
}
