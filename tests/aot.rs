//! Native executables (`pcc build`) beyond the golden harness (which checks every program's
//! output as an executable): an instrumented executable writes, byte for byte, the profile
//! `pcc run` writes for the same run, whether the run ends normally, by `exit()` or by a runtime
//! error, where the build said or `PCC_PROFILE_OUT` says; `--emit obj`; program arguments; and
//! the errors when no C compiler can link.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Run, Scratch, pl_files, program_args, root, run_command, sidecar};
use libtest_mimic::{Failed, Trial};

/// The variable that overrides an executable's profile path (stdlib's `PROFILE_OUT_VAR`).
const PROFILE_OUT_VAR: &str = "PCC_PROFILE_OUT";

/// Every program is compared in `bl` mode; these in every mode, with these extra flags: array
/// and hash-table counters, `exit()` deep in calls, runtime errors, recursion.
const EVERY_MODE: &[(&str, &[&str])] = &[
    ("programs/add_even.pl", &[]),
    ("programs/paths16.pl", &["--hash-threshold", "4"]),
    ("programs/recursion.pl", &[]),
    ("programs/exit_code.pl", &[]),
    ("tests/runtime/nested_error.pl", &[]),
    ("tests/fixtures/profiling/error_in_last_block.pl", &[]),
];

/// In this order: `ppp` takes its interesting paths from the `bl` profile.
const MODES: &[&str] = &["bl", "edge", "block", "ppp", "tpp", "kbl", "wpp"];

/// This file's trials (`tests/main.rs` runs them).
pub fn trials() -> Vec<Trial> {
    let root = root();
    let mut trials = Vec::new();
    for dir in ["programs", "tests/runtime", "tests/fixtures/profiling"] {
        for path in pl_files(&root.join(dir)) {
            let name = format!("{dir}/{}", path.file_name().unwrap().to_string_lossy());
            let (modes, flags) = match EVERY_MODE.iter().find(|(p, _)| *p == name) {
                Some((_, flags)) => (MODES, *flags),
                None => (&MODES[..1], &[][..]),
            };
            trials.push(Trial::test(format!("profiles/{name}"), move || {
                same_profiles(&path, modes, flags)
            }));
        }
    }
    let specific: [(&str, Test); 10] = [
        ("kbl_keyed_windows_as_under_run", keyed_windows),
        ("profile_path_is_overridden_by_the_variable", env_override),
        ("default_profile_path_is_in_the_run_directory", default_path),
        ("arguments_reach_the_program_as_under_run", arguments),
        ("emit_obj_writes_a_relocatable_object_only", emit_obj),
        ("the_source_is_never_overwritten", keeps_source),
        ("no_c_compiler_is_a_clear_error", no_c_compiler),
        ("a_failing_link_shows_the_linker_output", failing_link),
        ("a_corrupt_cached_runtime_is_replaced", corrupt_cache),
        (
            "the_exit_status_is_the_code_modulo_256",
            exit_status_modulo_256,
        ),
    ];
    trials.extend(
        specific
            .into_iter()
            .map(|(name, test)| Trial::test(name, test)),
    );
    trials
}

type Test = fn() -> Result<(), Failed>;

/// `pcc ARGS` in `dir`.
fn pcc(dir: &Path, args: &[&str]) -> Result<Run, Failed> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pcc"));
    command.current_dir(dir).args(args);
    Ok(run_command(command, "")?)
}

/// `pcc build` that must succeed.
fn build(dir: &Path, args: &[&str]) -> Result<Run, Failed> {
    let built = pcc(dir, &[&["build"], args].concat())?;
    if built.status != 0 {
        return Err(format!("pcc build {args:?} failed:\n{}", built.stderr).into());
    }
    Ok(built)
}

/// Runs the executable `exe` in `dir`, without the override variable unless `profile_out`.
fn execute(
    exe: &Path,
    dir: &Path,
    args: &[String],
    stdin: &str,
    profile_out: Option<&str>,
) -> Result<Run, Failed> {
    let mut command = Command::new(exe);
    command
        .current_dir(dir)
        .args(args)
        .env_remove(PROFILE_OUT_VAR);
    if let Some(path) = profile_out {
        command.env(PROFILE_OUT_VAR, path);
    }
    Ok(run_command(command, stdin)?)
}

fn read(path: &str) -> Result<String, Failed> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}").into())
}

/// For each mode: `pcc run` and the executable of `pcc build` (with the same flags, the same
/// profile path, arguments and input) print the same, exit alike, and write the same profile.
/// What `pcc run` says on stderr is what `pcc build` says and then the executable.
fn same_profiles(program: &Path, modes: &[&str], flags: &[&str]) -> Result<(), Failed> {
    let scratch = Scratch::new("profiles");
    let dir = program.parent().unwrap();
    let file = program.file_name().unwrap().to_str().unwrap();
    let args = program_args(program);
    let stdin = sidecar(program, "stdin").unwrap_or_default();
    for mode in modes {
        let out = scratch.file(&format!("{mode}.profile.json"));
        let mut options = vec![format!("--profile={mode}"), format!("--profile-out={out}")];
        // The guided modes use the profiles of the same run made just before.
        match *mode {
            "ppp" => options.push(format!("--interesting={}", scratch.file("bl.profile.json"))),
            "tpp" => options.push(format!(
                "--edge-profile={}",
                scratch.file("edge.profile.json")
            )),
            _ => {}
        }
        options.extend(flags.iter().map(|f| f.to_string()));
        let options: Vec<&str> = options.iter().map(String::as_str).collect();

        let mut run_args = [&["run", file][..], &options, &["--"]].concat();
        run_args.extend(args.iter().map(String::as_str));
        let mut command = Command::new(env!("CARGO_BIN_EXE_pcc"));
        command.current_dir(dir).args(&run_args);
        let jit = run_command(command, &stdin)?;
        let jit_profile = read(&out)?;
        std::fs::remove_file(&out)?;

        let exe = scratch.file(&format!("{mode}.exe"));
        let built = build(dir, &[&[file, "-o", &exe][..], &options].concat())?;
        let aot = execute(Path::new(&exe), dir, &args, &stdin, None)?;
        let aot_profile = read(&out)?;
        let mut problems = Vec::new();
        if (aot.status, &aot.stdout) != (jit.status, &jit.stdout) {
            problems.push(format!(
                "exit {} and stdout {:?}; under pcc run: exit {} and stdout {:?}",
                aot.status, aot.stdout, jit.status, jit.stdout
            ));
        }
        let stderr = built.stderr + &aot.stderr;
        if stderr != jit.stderr {
            problems.push(format!("stderr {stderr:?}; under pcc run {:?}", jit.stderr));
        }
        if aot_profile != jit_profile {
            problems.push(format!(
                "the profiles differ\n--- pcc run\n{jit_profile}\n--- executable\n{aot_profile}"
            ));
        }
        if !problems.is_empty() {
            return Err(format!("--profile={mode}: {}", problems.join("\n")).into());
        }
    }
    Ok(())
}

/// `kbl` at k = 12 counts `add_even`'s windows in keyed tables, probed by the generated code
/// and filled by the runtime (`pcc_profile_count_keyed`), which the executable links.
fn keyed_windows() -> Result<(), Failed> {
    same_profiles(&program("add_even.pl"), &["kbl"], &["--k", "12"])
}

fn program(name: &str) -> PathBuf {
    root().join("programs").join(name)
}

fn env_override() -> Result<(), Failed> {
    let scratch = Scratch::new("env");
    let (built_path, env_path) = (scratch.file("built.json"), scratch.file("env.json"));
    let source = program("add_even.pl");
    let exe = scratch.file("add_even");
    let source_arg = source.to_str().unwrap();
    let flags = ["--profile=bl", "--profile-out", &built_path];
    build(
        &scratch.0,
        &[&[source_arg, "-o", &exe][..], &flags].concat(),
    )?;
    let args = vec!["10".to_string()];
    let run = execute(Path::new(&exe), &scratch.0, &args, "", Some(&env_path))?;
    if Path::new(&built_path).exists() || !run.stderr.contains(&env_path) {
        return Err(format!("not written to {PROFILE_OUT_VAR}: {}", run.stderr).into());
    }
    let by_env = read(&env_path)?;
    // An empty variable does not count.
    execute(Path::new(&exe), &scratch.0, &args, "", Some(""))?;
    if read(&built_path)? != by_env {
        return Err("the profile depends on where it is written".into());
    }
    Ok(())
}

fn default_path() -> Result<(), Failed> {
    let scratch = Scratch::new("default");
    let source = program("add_even.pl");
    let exe = scratch.file("add_even");
    build(
        &scratch.0,
        &[source.to_str().unwrap(), "-o", &exe, "--profile=edge"],
    )?;
    let elsewhere = scratch.path("elsewhere");
    std::fs::create_dir(&elsewhere)?;
    execute(Path::new(&exe), &elsewhere, &["4".into()], "", None)?;
    let profile = common::read_json(&elsewhere.join("add_even.edge.profile.json"));
    if profile["mode"] != "edge" || profile["args"] != serde_json::json!(["4"]) {
        return Err(format!("unexpected profile {profile}").into());
    }
    Ok(())
}

fn arguments() -> Result<(), Failed> {
    let scratch = Scratch::new("args");
    let exe = scratch.file("args");
    build(
        &scratch.0,
        &[program("args.pl").to_str().unwrap(), "-o", &exe],
    )?;
    let args: Vec<String> = ["a b  c", "1", "2", "0.5", "", "ünï ✓"]
        .map(String::from)
        .to_vec();
    let mut command = Command::new(env!("CARGO_BIN_EXE_pcc"));
    command
        .current_dir(&scratch.0)
        .arg("run")
        .arg(program("args.pl"))
        .arg("--")
        .args(&args);
    let jit = run_command(command, "")?;
    let aot = execute(Path::new(&exe), &scratch.0, &args, "", None)?;
    if (aot.status, &aot.stdout, &aot.stderr) != (jit.status, &jit.stdout, &jit.stderr)
        || !jit.stdout.contains("[ünï ✓]")
    {
        return Err(format!("executable: {:?}\npcc run: {:?}", aot.stdout, jit.stdout).into());
    }
    Ok(())
}

fn emit_obj() -> Result<(), Failed> {
    let scratch = Scratch::new("obj");
    let object = scratch.file("add_even.o");
    build(
        &scratch.0,
        &[
            program("add_even.pl").to_str().unwrap(),
            "-o",
            &object,
            "--emit",
            "obj",
        ],
    )?;
    let bytes = std::fs::read(&object)?;
    // ELF, type ET_REL (relocatable), as cc expects to link it.
    if cfg!(target_os = "linux") && (!bytes.starts_with(b"\x7fELF") || bytes[16] != 1) {
        return Err("not a relocatable ELF object".into());
    }
    if std::fs::read_dir(&scratch.0)?.count() != 1 {
        return Err("--emit obj wrote more than the object".into());
    }
    Ok(())
}

fn keeps_source() -> Result<(), Failed> {
    let scratch = Scratch::new("source");
    let source = scratch.file("prog.pl");
    let text = "fn main() {\n    println(1);\n}\n";
    std::fs::write(&source, text)?;
    let run = pcc(&scratch.0, &["build", "prog.pl", "-o", &source])?;
    if run.status != 1 || read(&source)? != text || !run.stderr.contains("overwrite") {
        return Err(format!("status {}, stderr {:?}", run.status, run.stderr).into());
    }
    Ok(())
}

/// `pcc build` with the environment `env` must fail with status 1, no executable, and a message
/// containing each of `expected`.
fn fails_to_link(env: &[(&str, Option<&str>)], expected: &[&str]) -> Result<(), Failed> {
    let scratch = Scratch::new("link");
    let exe = scratch.file("add_even");
    let mut command = Command::new(env!("CARGO_BIN_EXE_pcc"));
    command
        .current_dir(&scratch.0)
        .arg("build")
        .arg(program("add_even.pl"))
        .args(["-o", &exe]);
    for (name, value) in env {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let run = run_command(command, "")?;
    if run.status != 1 || Path::new(&exe).exists() || !run.stderr.starts_with("error: ") {
        return Err(format!("status {}, stderr {:?}", run.status, run.stderr).into());
    }
    for text in expected {
        if !run.stderr.contains(text) {
            return Err(format!("{text:?} not in {:?}", run.stderr).into());
        }
    }
    Ok(())
}

fn no_c_compiler() -> Result<(), Failed> {
    let what = ["no C compiler", "install", "CC environment variable"];
    // `CC` names the compiler...
    fails_to_link(
        &[("CC", Some("/nonexistent/cc"))],
        &[&what[..], &["`/nonexistent/cc`"]].concat(),
    )?;
    // ... and without it `cc` is looked up in PATH.
    fails_to_link(
        &[("CC", None), ("PATH", Some("/nonexistent"))],
        &[&what[..], &["`cc`"]].concat(),
    )
}

fn failing_link() -> Result<(), Failed> {
    // A "compiler" that fails, saying why.
    let scratch = Scratch::new("cc");
    let script = scratch.file("cc.sh");
    std::fs::write(&script, "echo no luck >&2\nexit 1\n")?;
    fails_to_link(
        &[("CC", Some(&format!("sh {script}")))],
        &["linking failed: `sh ", "no luck"],
    )
}

/// A cached runtime archive of the right size but other bytes is replaced by the build, which
/// links a working executable.
fn corrupt_cache() -> Result<(), Failed> {
    let scratch = Scratch::new("cache");
    let cache = scratch.path("cache");
    // Where and what `pcc build` caches (compiler/build.rs, src/link.rs).
    let copy = cache
        .join("pcc")
        .join(concat!("libpcc_runtime-", env!("PCC_RUNTIME_DIGEST"), ".a"));
    let archive = std::fs::read(env!("PCC_RUNTIME_ARCHIVE"))?;
    let mut corrupt = archive.clone();
    let middle = corrupt.len() / 2;
    corrupt[middle..middle + 64].fill(0);
    std::fs::create_dir_all(copy.parent().unwrap())?;
    std::fs::write(&copy, &corrupt)?;
    let exe = scratch.file("add_even");
    let mut command = Command::new(env!("CARGO_BIN_EXE_pcc"));
    command
        .current_dir(&scratch.0)
        .env("XDG_CACHE_HOME", &cache)
        .arg("build")
        .arg(program("add_even.pl"))
        .args(["-o", &exe]);
    let built = run_command(command, "")?;
    if built.status != 0 {
        return Err(format!("pcc build with a corrupt cache: {}", built.stderr).into());
    }
    if std::fs::read(&copy)? != archive {
        return Err("the corrupt cached archive was not replaced".into());
    }
    let run = execute(Path::new(&exe), &scratch.0, &["10".into()], "", None)?;
    if run.status != 0 || run.stdout.is_empty() {
        return Err(format!("the executable: {} {:?}", run.status, run.stderr).into());
    }
    Ok(())
}

/// `exit(code)` and `main`'s result: the status a parent sees is the code modulo 256, under
/// `pcc run`, the interpreter and as an executable (docs/LANGUAGE.md).
fn exit_status_modulo_256() -> Result<(), Failed> {
    let scratch = Scratch::new("exit256");
    let source = "fn main() -> int {\n    let code = parse_int(arg(1));\n    \
                  if arg(0) == \"exit\" {\n        exit(code);\n    }\n    return code;\n}\n";
    std::fs::write(scratch.path("exit.pl"), source)?;
    let exe = scratch.file("exit");
    build(&scratch.0, &["exit.pl", "-o", &exe])?;
    let cases = [
        ("exit", "256", 0),
        ("exit", "-1", 255),
        ("exit", "511", 255),
        ("return", "257", 1),
        ("return", "-256", 0),
    ];
    for (how, code, status) in cases {
        let args = [how.to_string(), code.to_string()];
        let runs = [
            (
                "pcc run",
                pcc(&scratch.0, &["run", "exit.pl", "--", how, code])?,
            ),
            (
                "the interpreter",
                pcc(
                    &scratch.0,
                    &["run", "--engine", "interp", "exit.pl", "--", how, code],
                )?,
            ),
            (
                "the executable",
                execute(Path::new(&exe), &scratch.0, &args, "", None)?,
            ),
        ];
        for (engine, run) in runs {
            if run.status != status {
                let got = run.status;
                return Err(
                    format!("{how} {code} under {engine}: status {got}, not {status}").into(),
                );
            }
        }
    }
    Ok(())
}
