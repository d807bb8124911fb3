//! What the driver and its passes say, tested as values, in-process: the notes of
//! `--use-profile`, `--profile=ppp` and `--profile=tpp` with stale or missing guiding
//! profiles, and the failures `main` turns into exit statuses.

use super::*;
use crate::notes::{Level, Note};
use pcc_profiler::ball_larus::BallLarus;
use pcc_profiler::profile::{EdgeRecord, FunctionProfile, ModeRecord, PathCount, Storage};

/// One branch on the program's arguments: a profile of a run taking one side finds the other
/// cold.
const SOURCE: &str = "fn main() {\n    if argc() > 5 {\n        println(1);\n    } else {\n        \
                      println(2);\n    }\n}\n";

fn checked(source: &str) -> Checked {
    let file_name = "branch.pl".to_string();
    let program = pcc_lang::check_bytes(&file_name, source.as_bytes()).expect("valid");
    Checked {
        source_file: SourceFile::new(file_name.clone(), source.as_bytes()),
        file_name,
        source: source.to_string(),
        program,
    }
}

/// A `mode` profile of `source` (as `branch.pl`) in which `main`, with CFG hash `cfg_hash`
/// (`None`: the current code's), ran its path 0 once.
fn profile_of(source: &str, mode: Mode, cfg_hash: Option<&str>) -> Profile {
    let checked = checked(source);
    let program = lower::lower_program(&checked.program);
    let main = program
        .functions
        .iter()
        .find(|f| f.name == "main")
        .expect("main");
    let num_paths = BallLarus::new(&profiling::function_cfg(main).cfg)
        .expect("numbered")
        .num_paths();
    let hash = cfg_hash.map_or_else(|| profiling::cfg_hash(&program, main), str::to_string);
    let record = match mode {
        // No edges: the record cannot apply to the current code.
        Mode::Edge => ModeRecord::Edge(EdgeRecord {
            num_blocks: main.blocks.len(),
            edges: Vec::new(),
            unfinished: 0,
        }),
        _ => ModeRecord::Bl,
    };
    let mut function = FunctionProfile::new("main", hash, num_paths, Storage::Array, record);
    function.paths.push(PathCount {
        id: 0,
        count: 1,
        lines: Vec::new(),
    });
    let mut profile = Profile::new(mode, checked.source_file, Vec::new());
    profile.functions.push(function);
    profile
}

/// `profile` written to a file of a fresh folder (kept alive by the returned guard).
fn written(profile: &Profile) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("guide.profile.json");
    std::fs::write(&path, profile.to_json()).expect("written");
    (dir, path.display().to_string())
}

fn options() -> Options {
    Options {
        opt_level: 1,
        profile: None,
        use_profile: None,
        trace_blocks: None,
        error_format: ErrorFormat::Human,
    }
}

fn profile_options(mode: Mode) -> ProfileOptions {
    ProfileOptions {
        mode,
        out: None,
        hash_threshold: DEFAULT_HASH_THRESHOLD,
        interesting: None,
        interesting_share: 1.0,
        k: DEFAULT_K,
        edge_profile: None,
        tpp: TppConfig::default(),
    }
}

/// The notes of compiling `SOURCE` with `options`, which must succeed.
fn notes_of(options: &Options) -> Vec<Note> {
    let mut notes = Notes::default();
    middle_end(&checked(SOURCE), options, &[], &mut notes).expect("compiled");
    notes.take()
}

fn lines(notes: &[Note]) -> Vec<String> {
    notes.iter().map(Note::to_string).collect()
}

#[test]
fn use_profile_reports_what_changed() {
    let (_dir, path) = written(&profile_of(SOURCE, Mode::Bl, None));
    let notes = notes_of(&Options {
        use_profile: Some(path.clone().into()),
        ..options()
    });
    let lines = lines(&notes);
    assert_eq!(
        lines[0],
        format!("pcc: use-profile: recompiling with the bl profile `{path}`:")
    );
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[1].starts_with("pcc: use-profile:   `main`: ") && lines[1].contains("out of line"),
        "{lines:?}"
    );
    assert!(notes.iter().all(|n| n.level == Level::Info));
}

#[test]
fn use_profile_warns_of_a_stale_function_and_changes_nothing() {
    // Taken on an older version of the file, whose `main` had other code.
    let (_dir, path) = written(&profile_of(
        "fn main() {\n    println(0);\n}\n",
        Mode::Bl,
        Some("0000"),
    ));
    let lines = lines(&notes_of(&Options {
        use_profile: Some(path.clone().into()),
        ..options()
    }));
    assert_eq!(
        lines,
        [
            format!(
                "pcc: warning: `{path}`: the source `branch.pl` changed since the profile was \
                 taken (its hash differs), so the profile's line numbers may have moved"
            ),
            format!(
                "pcc: warning: the profile `{path}` is stale for function `main` (its CFG hash \
                 differs from the current code's); `main` is compiled without it"
            ),
            format!("pcc: use-profile: recompiling with the bl profile `{path}`; nothing changed"),
        ]
    );
}

#[test]
fn ppp_warns_of_a_stale_interesting_profile() {
    let (_dir, path) = written(&profile_of(SOURCE, Mode::Bl, Some("0000")));
    let profile = ProfileOptions {
        interesting: Some(path.clone().into()),
        ..profile_options(Mode::Ppp)
    };
    let lines = lines(&notes_of(&Options {
        profile: Some(profile),
        ..options()
    }));
    assert_eq!(
        lines,
        [
            format!("pcc: ppp: interesting paths from the bl profile `{path}`"),
            format!(
                "pcc: warning: the interesting-path profile `{path}` is stale for function \
                 `main` (its CFG hash differs from the current code's); no path of `main` is \
                 interesting"
            ),
        ]
    );
}

#[test]
fn tpp_warns_of_a_stale_edge_profile() {
    let (_dir, path) = written(&profile_of(SOURCE, Mode::Edge, Some("0000")));
    let profile = ProfileOptions {
        edge_profile: Some(path.clone().into()),
        ..profile_options(Mode::Tpp)
    };
    let notes = notes_of(&Options {
        profile: Some(profile),
        ..options()
    });
    let warnings: Vec<&str> = notes
        .iter()
        .filter(|n| n.level == Level::Warning)
        .map(|n| n.message.as_str())
        .collect();
    assert_eq!(
        warnings,
        [format!(
            "tpp: the edge profile `{path}` is stale for function `main` (its CFG hash differs \
             from the current code's); `main` is profiled like bl"
        )]
    );
}

#[test]
fn a_missing_interesting_profile_is_a_failure_with_status_1() {
    let profile = ProfileOptions {
        interesting: Some("no-such.profile.json".into()),
        ..profile_options(Mode::Ppp)
    };
    let options = Options {
        profile: Some(profile),
        ..options()
    };
    let mut notes = Notes::default();
    let failure = middle_end(&checked(SOURCE), &options, &[], &mut notes).expect_err("refused");
    assert!(
        matches!(&failure, Failure::Error(m) if m.starts_with("--interesting: ")),
        "{failure:?}"
    );
    assert!(failure.to_string().starts_with("error: --interesting: "));
    assert_eq!(failure.status(), EXIT_COMPILE_ERROR);
}

#[test]
fn tpp_without_an_edge_profile_fails_with_the_command_that_makes_one() {
    let options = Options {
        profile: Some(profile_options(Mode::Tpp)),
        ..options()
    };
    let mut notes = Notes::default();
    let failure = middle_end(&checked(SOURCE), &options, &["7".into()], &mut notes)
        .expect_err("no edge profile of branch.pl here");
    assert!(
        failure
            .to_string()
            .ends_with("make one with:\n    pcc run branch.pl --profile=edge -- 7\n"),
        "{failure}"
    );
    assert_eq!(failure.status(), 1);
}

#[test]
fn compile_errors_are_the_front_ends_diagnostics() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("bad.pl");
    std::fs::write(&path, "fn main() { let x = ; }\n").expect("written");
    let failure = front_end(&path).err().expect("a compile error");
    let Failure::Diagnostics(text) = &failure else {
        panic!("{failure:?}")
    };
    assert!(text.starts_with("error"), "{text}");
    assert_eq!(failure.to_string(), *text);
    assert_eq!(failure.status(), 1);
}
