//! End-to-end tests of preferential path profiling (`pcc run --profile=ppp`, [PPP]): with the
//! interesting paths taken from a `bl` profile, the PPP profile must account for exactly the
//! paths the `bl` profile of the same run has, split into interesting (`paths`) and residual
//! ones; programs behave as without profiling; `--profile=ppp` works with no other flag.

use crate::common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use common::{Run, Scratch, function, paths, pcc_in, read_json, root, u64s as ids};
use serde_json::Value;

fn program(name: &str) -> PathBuf {
    root().join("programs").join(format!("{name}.pl"))
}

fn sidecar(name: &str, ext: &str) -> Option<String> {
    common::sidecar(&program(name), ext)
}

/// The program's own arguments: from its `.args` file unless given.
fn program_args(name: &str) -> Vec<String> {
    common::program_args(&program(name))
}

/// `pcc run programs/NAME.pl FLAGS -- ARGS` in `dir`, with the program's `.stdin`.
fn run_program(dir: &Path, name: &str, flags: &[&OsStr], args: &[String]) -> Run {
    let all = common::run_args(&program(name), flags, args);
    pcc_in(dir, &all, &sidecar(name, "stdin").unwrap_or_default())
}

/// The (plain, bl, ppp) runs of a program: the `bl` profile of `interesting_args` is the
/// interesting set of the `ppp` run with `args`; also returns the `bl` profile of `args`.
struct Profiled {
    plain: Run,
    ppp_run: Run,
    bl: Value,
    ppp: Value,
}

fn profile(
    scratch: &Scratch,
    name: &str,
    interesting_args: &[String],
    args: &[String],
) -> Profiled {
    let interesting = scratch.path(&format!("{name}.interesting.json"));
    let bl = scratch.path(&format!("{name}.bl.json"));
    let ppp = scratch.path(&format!("{name}.ppp.json"));
    let run = run_program(
        &scratch.0,
        name,
        &[
            OsStr::new("--profile=bl"),
            OsStr::new("--profile-out"),
            interesting.as_os_str(),
        ],
        interesting_args,
    );
    assert!(interesting.exists(), "{name}: {}", run.stderr);
    let run = run_program(
        &scratch.0,
        name,
        &[
            OsStr::new("--profile=bl"),
            OsStr::new("--profile-out"),
            bl.as_os_str(),
        ],
        args,
    );
    assert!(bl.exists(), "{name}: {}", run.stderr);
    let ppp_run = run_program(
        &scratch.0,
        name,
        &[
            OsStr::new("--profile=ppp"),
            OsStr::new("--interesting"),
            interesting.as_os_str(),
            OsStr::new("--profile-out"),
            ppp.as_os_str(),
        ],
        args,
    );
    assert!(ppp.exists(), "{name}: {}", ppp_run.stderr);
    let plain = run_program(&scratch.0, name, &[], args);
    Profiled {
        plain,
        ppp_run,
        bl: read_json(&bl),
        ppp: read_json(&ppp),
    }
}

/// Per function, interesting + residual paths of the PPP profile = the paths of the bl profile,
/// the interesting ones being exactly those in the interesting set; ρ = range / |I|.
fn assert_accounts_for_bl(name: &str, bl: &Value, ppp: &Value) {
    assert_eq!(ppp["mode"], "ppp");
    let bl_functions = bl["functions"].as_array().unwrap();
    assert_eq!(
        bl_functions.len(),
        ppp["functions"].as_array().unwrap().len(),
        "{name}: functions"
    );
    for b in bl_functions {
        let fname = b["name"].as_str().unwrap();
        let p = function(ppp, fname);
        assert_eq!(b["cfg_hash"], p["cfg_hash"], "{name}::{fname}");
        let interesting = ids(&p["interesting"]);
        let (hot, residual) = (paths(p, "paths"), paths(p, "residual"));
        assert!(
            hot.iter().all(|x| interesting.binary_search(&x.0).is_ok()),
            "{name}::{fname}: a counted path is not interesting"
        );
        assert!(
            residual
                .iter()
                .all(|x| interesting.binary_search(&x.0).is_err()),
            "{name}::{fname}: a residual path is interesting"
        );
        let mut all: Vec<_> = hot.into_iter().chain(residual).collect();
        all.sort();
        assert_eq!(all, paths(b, "paths"), "{name}::{fname}: paths");
        let range = p["range"].as_u64().unwrap();
        assert!(range >= interesting.len() as u64, "{name}::{fname}: range");
        match p["rho"].as_f64() {
            Some(rho) => {
                assert!((rho - range as f64 / interesting.len() as f64).abs() < 1e-9);
                assert!(rho >= 1.0);
            }
            None => assert!(interesting.is_empty(), "{name}::{fname}: rho"),
        }
    }
}

/// Programs (with their `.args` and `.stdin`) the equality tests run.
const PROGRAMS: &[&str] = &[
    "add_even",
    "y2k",
    "nqueens",
    "sieve",
    "control_flow",
    "bst",
    "dp",
    "expr_eval",
    "rle",
    "word_freq",
    "paths16",
    "exit_code",
];

fn interesting_paths_of_the_same_run_are_counted_exactly() {
    for name in PROGRAMS {
        let scratch = Scratch::new("same");
        let args = program_args(name);
        let p = profile(&scratch, name, &args, &args);
        common::assert_same_behaviour(name, &p.plain, &p.ppp_run);
        assert_accounts_for_bl(name, &p.bl, &p.ppp);
        for b in p.bl["functions"].as_array().unwrap() {
            let fname = b["name"].as_str().unwrap();
            let f = function(&p.ppp, fname);
            assert_eq!(paths(f, "paths"), paths(b, "paths"), "{name}::{fname}");
            assert_eq!(paths(f, "residual"), vec![], "{name}::{fname}");
            let executed: Vec<u64> = paths(b, "paths").iter().map(|x| x.0).collect();
            assert_eq!(ids(&f["interesting"]), executed, "{name}::{fname}");
        }
    }
}

fn interesting_paths_of_another_run_split_its_paths() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("y2k", &["1994", "1996", "1"], &["1994", "2004", "1"]),
        ("sieve", &["30"], &["5000"]),
        ("nqueens", &["4"], &["7"]),
        ("add_even", &["3"], &["10"]),
        ("paths16", &["1"], &["3"]),
    ];
    for &(name, interesting, args) in cases {
        let scratch = Scratch::new("other");
        let strings = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let p = profile(&scratch, name, &strings(interesting), &strings(args));
        common::assert_same_behaviour(name, &p.plain, &p.ppp_run);
        assert_accounts_for_bl(name, &p.bl, &p.ppp);
    }
}

fn interesting_share_keeps_the_hottest_paths() {
    let (bl, ppp) = y2k_ppp_guided_by_its_bl_profile("share", &["--interesting-share", "0.5"]);
    let main_bl = paths(function(&bl, "main"), "paths");
    let main = function(&ppp, "main");
    let kept = ids(&main["interesting"]);
    assert!(!kept.is_empty() && kept.len() < main_bl.len(), "{main}");
    // The kept paths cover at least half the executions, and are the hottest.
    let total: u64 = main_bl.iter().map(|x| x.1).sum();
    let covered: u64 = paths(main, "paths").iter().map(|x| x.1).sum();
    assert!(2 * covered >= total);
    let coldest_kept = paths(main, "paths").iter().map(|x| x.1).min().unwrap();
    assert!(paths(main, "residual").iter().all(|x| x.1 <= coldest_kept));

    let scratch = Scratch::new("share-bad");
    let (name, args) = ("y2k", program_args("y2k"));
    for bad in ["0", "1.5", "x"] {
        let run = run_program(
            &scratch.0,
            name,
            &[
                OsStr::new("--profile=ppp"),
                OsStr::new("--interesting-share"),
                OsStr::new(bad),
            ],
            &args,
        );
        assert_ne!(run.status, 0, "--interesting-share {bad} accepted");
    }
}

/// [PPP] §1 residual path profiling, on the year-2000 example: the paths tested before 2000 are
/// interesting; a run past 2000 reports as residual exactly the paths `pcc profile diff` finds
/// only in the later run.
fn y2k_residual_paths_are_the_paths_only_after_1999() {
    let scratch = Scratch::new("y2k");
    let name = "y2k";
    let pre = scratch.path("pre.bl.json");
    let post = scratch.path("post.bl.json");
    let ppp = scratch.path("post.ppp.json");
    let strings = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let bl = |out: &Path, args: &[&str]| {
        let run = run_program(
            &scratch.0,
            name,
            &[
                OsStr::new("--profile=bl"),
                OsStr::new("--profile-out"),
                out.as_os_str(),
            ],
            &strings(args),
        );
        assert_eq!(run.status, 0, "{}", run.stderr);
    };
    bl(&pre, &["1994", "1999", "1"]);
    bl(&post, &["1994", "2004", "1"]);
    let run = run_program(
        &scratch.0,
        name,
        &[
            OsStr::new("--profile=ppp"),
            OsStr::new("--interesting"),
            pre.as_os_str(),
            OsStr::new("--profile-out"),
            ppp.as_os_str(),
        ],
        &strings(&["1994", "2004", "1"]),
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let diff = pcc_in(
        &scratch.0,
        &[
            OsStr::new("profile"),
            OsStr::new("diff"),
            pre.as_os_str(),
            post.as_os_str(),
            OsStr::new("--format"),
            OsStr::new("json"),
        ],
        "",
    );
    assert_eq!(diff.status, 0, "{}", diff.stderr);
    let diff: Value = serde_json::from_str(&diff.stdout).unwrap();
    let ppp = read_json(&ppp);
    let mut new_paths = 0;
    for f in ppp["functions"].as_array().unwrap() {
        let fname = f["name"].as_str().unwrap();
        let d = function(&diff, fname);
        let only_in_b = match d.get("only_in_b") {
            Some(list) if list.is_array() => paths(d, "only_in_b"),
            _ => vec![],
        };
        new_paths += only_in_b.len();
        assert_eq!(paths(f, "residual"), only_in_b, "{fname}");
    }
    assert!(new_paths > 0, "the post-2000 run takes new paths");
    assert_accounts_for_bl(name, &read_json(&post), &ppp);
}

/// `pcc run prog.pl --profile=ppp` as typed: from the static estimate without a bl profile,
/// then from the default-location bl profile once there is one; stderr says which.
fn ppp_with_no_flags_uses_the_default_bl_profile_or_the_estimate() {
    for name in ["y2k", "add_even", "word_freq"] {
        let scratch = Scratch::new("default");
        std::fs::copy(program(name), scratch.path(&format!("{name}.pl"))).unwrap();
        let args = program_args(name);
        let stdin = sidecar(name, "stdin").unwrap_or_default();
        let source = PathBuf::from(format!("{name}.pl"));
        let run =
            |flags: &[&str]| pcc_in(&scratch.0, &common::run_args(&source, flags, &args), &stdin);
        let plain = run(&[]);
        let ppp_json = scratch.path(&format!("{name}.ppp.profile.json"));

        let estimated = run(&["--profile=ppp"]);
        common::assert_same_behaviour(name, &plain, &estimated);
        let said: Vec<&str> = estimated
            .stderr
            .lines()
            .filter(|l| l.starts_with("pcc: ") && l.contains("interesting paths from"))
            .collect();
        assert_eq!(said.len(), 1, "{}", estimated.stderr);
        assert!(said[0].contains("static estimate"), "{}", said[0]);
        let profile = read_json(&ppp_json);
        // The estimate picks some paths of every function (its hottest estimated ones).
        for f in profile["functions"].as_array().unwrap() {
            assert!(!ids(&f["interesting"]).is_empty(), "{f}");
            assert!(f["rho"].as_f64().unwrap() >= 1.0);
        }

        let bl = run(&["--profile=bl"]);
        assert_eq!(bl.status, plain.status, "{}", bl.stderr);
        let measured = run(&["--profile=ppp"]);
        common::assert_same_behaviour(name, &plain, &measured);
        let said: Vec<&str> = measured
            .stderr
            .lines()
            .filter(|l| l.starts_with("pcc: ") && l.contains("interesting paths from"))
            .collect();
        assert_eq!(said.len(), 1, "{}", measured.stderr);
        assert!(
            said[0].contains(&format!("{name}.bl.profile.json")),
            "{}",
            said[0]
        );
        let bl = read_json(&scratch.path(&format!("{name}.bl.profile.json")));
        let ppp = read_json(&ppp_json);
        assert_accounts_for_bl(name, &bl, &ppp);
        for f in ppp["functions"].as_array().unwrap() {
            assert_eq!(paths(f, "residual"), vec![], "{f}");
        }

        // The newest default-location path profile wins: a kbl run after the ppp one.
        let kbl = run(&["--profile=kbl"]);
        assert_eq!(kbl.status, plain.status, "{}", kbl.stderr);
        let again = run(&["--profile=ppp"]);
        common::assert_same_behaviour(name, &plain, &again);
        assert!(
            again.stderr.contains(&format!(
                "interesting paths from the kbl profile `{name}.kbl.profile.json`"
            )),
            "{}",
            again.stderr
        );
        let ppp = read_json(&ppp_json);
        assert_accounts_for_bl(name, &bl, &ppp);
    }
}

/// A function whose CFG changed since the interesting profile was taken is refused, with a
/// warning: it has no interesting path; the other functions keep theirs.
fn stale_interesting_profile_is_refused_per_function() {
    let scratch = Scratch::new("stale");
    let source = std::fs::read_to_string(program("y2k")).unwrap();
    let old = scratch.path("y2k.pl");
    std::fs::write(&old, &source).unwrap();
    let run = pcc_in(
        &scratch.0,
        &["run", "y2k.pl", "--profile=bl", "--", "1994", "1996"],
        "",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    // `rand` gets a branch.
    let changed = source.replacen(
        "    return SEED % n;",
        "    if n == 0 { return 0; }\n    return SEED % n;",
        1,
    );
    assert_ne!(changed, source);
    std::fs::write(&old, &changed).unwrap();
    let run = pcc_in(
        &scratch.0,
        &["run", "y2k.pl", "--profile=ppp", "--", "1994", "1996"],
        "",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let warnings: Vec<&str> = run.stderr.lines().filter(|l| l.contains("stale")).collect();
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(warnings[0].starts_with("pcc: warning:") && warnings[0].contains("`rand`"));
    let ppp = read_json(&scratch.path("y2k.ppp.profile.json"));
    let rand = function(&ppp, "rand");
    assert_eq!(ids(&rand["interesting"]), Vec::<u64>::new());
    assert_eq!(paths(rand, "paths"), vec![]);
    assert!(!paths(rand, "residual").is_empty());
    assert!(!ids(&function(&ppp, "main")["interesting"]).is_empty());
    assert_eq!(paths(function(&ppp, "main"), "residual"), vec![]);
}

fn profile_show_reports_range_and_rho() {
    let scratch = Scratch::new("show");
    let args = program_args("y2k");
    let p = profile(&scratch, "y2k", &args, &args);
    assert_accounts_for_bl("y2k", &p.bl, &p.ppp);
    let out = pcc_in(
        &scratch.0,
        &[
            OsStr::new("profile"),
            OsStr::new("show"),
            scratch.path("y2k.ppp.json").as_os_str(),
        ],
        "",
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains("PPP range"), "{}", out.stdout);
    assert!(
        out.stdout.contains("ρ") || out.stdout.contains("rho"),
        "{}",
        out.stdout
    );
}

/// [PPP] §5 "Hash table usage policy": with an array smaller than the PPP range, interesting
/// paths with larger PPP ids are counted as residual at run time and moved back when the
/// profile is written: the profile is the same.
fn small_arrays_lose_no_interesting_path() {
    let (bl, ppp) = y2k_ppp_guided_by_its_bl_profile("small", &["--hash-threshold", "3"]);
    let main = function(&ppp, "main");
    assert!(main["range"].as_u64().unwrap() > 3);
    assert_eq!(paths(main, "paths"), paths(function(&bl, "main"), "paths"));
    assert_eq!(paths(main, "residual"), vec![]);
}

/// Profiles `y2k` with bl, then with ppp guided by that profile and `flags`; checks the ppp run
/// succeeded and accounts for every bl path, and returns both profiles.
fn y2k_ppp_guided_by_its_bl_profile(scratch: &str, flags: &[&str]) -> (Value, Value) {
    let scratch = Scratch::new(scratch);
    let name = "y2k";
    let args = program_args(name);
    let interesting = scratch.path("interesting.json");
    let ppp = scratch.path("ppp.json");
    let bl_flags = [
        OsStr::new("--profile=bl"),
        OsStr::new("--profile-out"),
        interesting.as_os_str(),
    ];
    run_program(&scratch.0, name, &bl_flags, &args);
    let mut ppp_flags = vec![
        OsStr::new("--profile=ppp"),
        OsStr::new("--interesting"),
        interesting.as_os_str(),
    ];
    ppp_flags.extend(flags.iter().map(OsStr::new));
    ppp_flags.extend([OsStr::new("--profile-out"), ppp.as_os_str()]);
    let run = run_program(&scratch.0, name, &ppp_flags, &args);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let (bl, ppp) = (read_json(&interesting), read_json(&ppp));
    assert_accounts_for_bl(name, &bl, &ppp);
    (bl, ppp)
}

/// This file's tests (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        interesting_paths_of_the_same_run_are_counted_exactly,
        interesting_paths_of_another_run_split_its_paths,
        interesting_share_keeps_the_hottest_paths,
        y2k_residual_paths_are_the_paths_only_after_1999,
        ppp_with_no_flags_uses_the_default_bl_profile_or_the_estimate,
        stale_interesting_profile_is_refused_per_function,
        profile_show_reports_range_and_rho,
        small_arrays_lose_no_interesting_path
    ]
}
