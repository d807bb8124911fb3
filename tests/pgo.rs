//! End-to-end tests of profile-guided recompilation (`--use-profile P` in docs/CLI.md): every
//! program of `programs/`, `tests/runtime/` and `tests/fixtures/pgo/`, compiled with the `kbl`
//! profile of its own run, behaves exactly as without it (stdout, the program's stderr, exit
//! status), in the JIT at -O1 and -O2 and as a native executable; the selective unroller fires on
//! the masked convolution ([KBLPP]), with one guard per chain for its bounds checks, and not on a
//! loop without long runs; a guarded chain leaves a bounds error where the loop reports it; hot
//! paths through a join become superblocks; a stale profile is refused for the changed function
//! with a warning; `pcc pgo` trains, recompiles and runs in one command, with the output and exit
//! status of `pcc run` and its report on stderr.

use crate::common;

use std::path::Path;

use common::{
    Scratch, assert_same_behaviour, pcc_in, pcc_run, program_args, program_trials, root,
    run_command, sidecar,
};
use libtest_mimic::{Failed, Trial};

/// This file's trials (`tests/main.rs` runs them).
pub fn trials() -> Vec<Trial> {
    let mut trials = program_trials(
        &["programs", "tests/runtime", "tests/fixtures/pgo"],
        check_program,
    );
    trials.push(Trial::test(
        "the_masked_convolution_is_unrolled_along_its_long_runs",
        convolution_unrolled,
    ));
    trials.push(Trial::test(
        "a_loop_alternating_its_paths_is_not_unrolled",
        alternating_not_unrolled,
    ));
    trials.push(Trial::test(
        "a_loop_reading_a_global_is_left_to_versioning_at_o2",
        global_left_to_versioning,
    ));
    trials.push(Trial::test(
        "a_guarded_chain_reports_a_bounds_error_where_the_loop_does",
        bounds_error_after_a_run,
    ));
    trials.push(Trial::test(
        "hot_paths_through_a_join_become_superblocks",
        superblocks_formed,
    ));
    trials.push(Trial::test(
        "a_stale_profile_is_refused_with_a_warning",
        stale_profile,
    ));
    trials.push(Trial::test(
        "every_scheme_of_ball_larus_paths_guides_alike_and_edges_guide_blocks_only",
        guided_by_each_mode,
    ));
    for name in ["convolution", "read_ints", "exit_code"] {
        trials.push(Trial::test(
            format!("pcc_pgo_behaves_as_pcc_run::{name}"),
            move || pgo_command(name),
        ));
    }
    trials
}

/// Makes the `kbl` profile (k = 8) of `source` with `args` in `scratch`, returns its path.
fn kbl_profile(scratch: &Scratch, source: &Path, args: &[String], stdin: &str) -> String {
    let out = scratch.file("kbl.json");
    pcc_run(
        &scratch.0,
        source,
        &["--profile=kbl", "--k", "8", "--profile-out", &out],
        args,
        stdin,
    );
    out
}

fn check_program(dir: &str, name: &str) -> Result<(), Failed> {
    let scratch = Scratch::new(&format!("pgo-{name}"));
    let source = root().join(dir).join(format!("{name}.pl"));
    let args = program_args(&source);
    let stdin = sidecar(&source, "stdin").unwrap_or_default();
    let profile = kbl_profile(&scratch, &source, &args, &stdin);
    for level in ["-O1", "-O2"] {
        let plain = pcc_run(&scratch.0, &source, &[level], &args, &stdin);
        let pgo = pcc_run(
            &scratch.0,
            &source,
            &[level, "--use-profile", &profile],
            &args,
            &stdin,
        );
        assert_same_behaviour(&format!("{name} {level}"), &plain, &pgo);
        if !pgo
            .stderr
            .contains("pcc: use-profile: recompiling with the kbl profile")
        {
            return Err(format!("{name}: no report on stderr:\n{}", pgo.stderr).into());
        }
    }
    // A native executable made with the profile behaves as the JIT without one.
    let exe = scratch.file("program");
    let build = pcc_in(
        &scratch.0,
        &[
            "build".as_ref(),
            source.as_os_str(),
            "-O2".as_ref(),
            "--use-profile".as_ref(),
            profile.as_ref(),
            "-o".as_ref(),
            exe.as_ref(),
        ],
        "",
    );
    if build.status != 0 {
        return Err(format!("{name}: pcc build failed:\n{}", build.stderr).into());
    }
    let mut command = std::process::Command::new(&exe);
    command.current_dir(&scratch.0).args(&args);
    let native = run_command(command, &stdin)?;
    let plain = pcc_run(&scratch.0, &source, &["-O2"], &args, &stdin);
    assert_same_behaviour(&format!("{name} aot"), &plain, &native);
    Ok(())
}

/// The report lines of a `--use-profile` run.
fn use_profile_report(scratch: &Scratch, source: &Path, args: &[String], profile: &str) -> String {
    let run = pcc_run(&scratch.0, source, &["--use-profile", profile], args, "");
    assert_eq!(run.status, 0, "{}", run.stderr);
    run.program_stderr().1.concat()
}

/// The line of `report` about `function` (its name in backquotes).
fn report_line<'a>(report: &'a str, function: &str) -> Result<&'a str, Failed> {
    report
        .lines()
        .find(|l| l.contains(function))
        .ok_or_else(|| format!("{function} not transformed:\n{report}").into())
}

fn convolution_unrolled() -> Result<(), Failed> {
    let scratch = Scratch::new("pgo-convolution");
    let source = root().join("programs/convolution.pl");
    let args: Vec<String> = ["200", "100", "1"].map(String::from).to_vec();
    let profile = kbl_profile(&scratch, &source, &args, "");
    let report = use_profile_report(&scratch, &source, &args, &profile);
    let line = report_line(&report, "`convolve`")?;
    // The inner loop (line 44), along the copy path and the blur path, each chain with one
    // guard for its bounds checks (3 per copy of the copy path, 11 per copy of the blur path)
    // and its loop tests.
    if !(line.contains("loop at line 44")
        && line.matches("(runs of ≥ 8 in the profile").count() == 2
        && line.contains(
            ") 16×, its 48 bounds checks and 16 branches replaced by one guard of 3 index ranges \
             and 1 comparison",
        )
        && line.contains(
            ") 16×, its 176 bounds checks and 16 branches replaced by one guard of 5 index ranges \
             and 1 comparison",
        ))
    {
        return Err(format!("unexpected report: {line}").into());
    }
    // A bl profile has no k-IPF: no unrolling.
    let bl = scratch.file("bl.json");
    pcc_run(
        &scratch.0,
        &source,
        &["--profile=bl", "--profile-out", &bl],
        &args,
        "",
    );
    let report = use_profile_report(&scratch, &source, &args, &bl);
    if report.contains("unrolled") {
        // Not even "not unrolled": a bl profile has no runs to give a reason by.
        return Err(format!("unrolled without a k-IPF:\n{report}").into());
    }
    Ok(())
}

fn global_left_to_versioning() -> Result<(), Failed> {
    let scratch = Scratch::new("pgo-global");
    let source = root().join("tests/fixtures/pgo/global_in_loop.pl");
    let profile = kbl_profile(&scratch, &source, &[], "");
    for (level, unrolled) in [("-O1", true), ("-O2", false)] {
        let run = pcc_run(
            &scratch.0,
            &source,
            &[level, "--use-profile", &profile],
            &[],
            "",
        );
        let report = run.program_stderr().1.concat();
        if report.contains("`total`: loop at line 8 (bb1) unrolled") != unrolled {
            return Err(format!("{level}: unrolled should be {unrolled}:\n{report}").into());
        }
    }
    Ok(())
}

fn alternating_not_unrolled() -> Result<(), Failed> {
    let scratch = Scratch::new("pgo-alternating");
    let source = root().join("tests/fixtures/pgo/alternating.pl");
    let profile = kbl_profile(&scratch, &source, &[], "");
    let report = use_profile_report(&scratch, &source, &[], &profile);
    if report.contains(") unrolled")
        || !report
            .contains("not unrolled: no path of it runs 4 times in a row in 50% of its executions")
    {
        return Err(format!(
            "an alternating loop was unrolled, or the report does not say why not:\n{report}"
        )
        .into());
    }
    Ok(())
}

/// The training run ends with a bounds error (exit 101) and still writes its profile; the guided
/// run unrolls `sum_pairs`, `strided` and `near_the_top` with guards, prints the same and fails
/// at the same access (`check_program` compares the native executable too).
fn bounds_error_after_a_run() -> Result<(), Failed> {
    let scratch = Scratch::new("pgo-runs-off-the-end");
    let source = root().join("tests/fixtures/pgo/runs_off_the_end.pl");
    let profile = kbl_profile(&scratch, &source, &[], "");
    let plain = pcc_run(&scratch.0, &source, &["-O2"], &[], "");
    let guided = pcc_run(
        &scratch.0,
        &source,
        &["-O2", "--use-profile", &profile],
        &[],
        "",
    );
    assert_eq!(plain.status, 101, "{}", plain.stderr);
    assert_same_behaviour("runs_off_the_end --use-profile", &plain, &guided);
    let report = guided.program_stderr().1.concat();
    for function in ["`sum_pairs`", "`strided`", "`near_the_top`"] {
        let line = report_line(&report, function)?;
        if !line.contains("bounds checks and") || !line.contains("replaced by one guard of") {
            return Err(format!("{function} not guarded: {line}").into());
        }
    }
    Ok(())
}

/// Same behaviour with the profile, in the JIT and as an executable: `check_program`.
fn superblocks_formed() -> Result<(), Failed> {
    let scratch = Scratch::new("pgo-superblock");
    let source = root().join("tests/fixtures/pgo/superblock.pl");
    let profile = kbl_profile(&scratch, &source, &[], "");
    let report = use_profile_report(&scratch, &source, &[], &profile);
    // Both alternating paths past the join, not unrolled (no path runs twice in a row).
    if !report.contains("`main`: superblocks: 2 hot paths (path ") || report.contains(") unrolled")
    {
        return Err(format!("unexpected report:\n{report}").into());
    }
    Ok(())
}

/// The superblock fixture's profile under bl, ppp and wpp names the same Ball-Larus paths, so
/// each makes the same superblocks; an edge profile is taken too, for its block frequencies,
/// and has no path to make one of: path- and edge-guided builds can be compared on one run.
fn guided_by_each_mode() -> Result<(), Failed> {
    let scratch = Scratch::new("pgo-modes");
    let source = root().join("tests/fixtures/pgo/superblock.pl");
    let mut reports = Vec::new();
    for mode in ["bl", "ppp", "wpp", "edge"] {
        let profile = scratch
            .path(&format!("superblock.{mode}.json"))
            .display()
            .to_string();
        let flags = [
            format!("--profile={mode}"),
            "--profile-out".into(),
            profile.clone(),
        ];
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let run = pcc_run(&scratch.0, &source, &flags, &[], "");
        assert_eq!(run.status, 0, "{mode}: {}", run.stderr);
        let report = use_profile_report(&scratch, &source, &[], &profile);
        let superblocks = report
            .lines()
            .find(|l| l.contains("superblocks"))
            .map(str::to_string);
        reports.push((mode, superblocks, report));
    }
    let (_, bl, _) = &reports[0];
    for (mode, superblocks, report) in &reports[1..3] {
        if superblocks != bl || bl.is_none() {
            return Err(format!("{mode} guides otherwise than bl:\n{report}").into());
        }
    }
    let (_, edge, report) = &reports[3];
    if edge.is_some() || !report.contains("recompiling with the edge profile") {
        return Err(format!("edge-guided build:\n{report}").into());
    }
    Ok(())
}

fn stale_profile() -> Result<(), Failed> {
    let scratch = Scratch::new("pgo-stale");
    let original = std::fs::read_to_string(root().join("tests/fixtures/pgo/alternating.pl"))?;
    let changed = scratch.path("alternating.pl");
    std::fs::write(&changed, &original)?;
    let profile = kbl_profile(&scratch, &changed, &[], "");
    // The same program with the loop's bound changed: `main`'s code differs.
    std::fs::write(&changed, original.replace("let n = 2000;", "let n = 2001;"))?;
    let run = pcc_run(&scratch.0, &changed, &["--use-profile", &profile], &[], "");
    if run.status != 0
        || !run.stderr.contains("pcc: warning: the profile")
        || !run.stderr.contains("is stale for function `main`")
    {
        return Err(format!("no stale warning:\n{}", run.stderr).into());
    }
    Ok(())
}

/// `pcc pgo` prints what `pcc run -O2` prints and exits the same (stdin, exit status and the
/// program's stderr included), leaves its profile at the default path, and reports the guided
/// compilation, the two times and the comparison of the runs.
fn pgo_command(name: &str) -> Result<(), Failed> {
    let scratch = Scratch::new(&format!("pgo-command-{name}"));
    let source = root().join(format!("programs/{name}.pl"));
    let args = match name {
        "convolution" => ["200", "100", "1"].map(String::from).to_vec(),
        _ => program_args(&source),
    };
    let stdin = sidecar(&source, "stdin").unwrap_or_default();
    let plain = pcc_run(&scratch.0, &source, &["-O2"], &args, &stdin);
    let mut command = vec!["pgo".to_string(), source.display().to_string(), "--".into()];
    command.extend(args.iter().cloned());
    let pgo = pcc_in(&scratch.0, &command, &stdin);
    assert_same_behaviour(&format!("pcc pgo {name}"), &plain, &pgo);
    let report = pgo.program_stderr().1.concat();
    for expected in [
        "pcc: pgo: trained: kbl profile (k = 6)",
        "pcc: use-profile: recompiling with the kbl profile",
        "pcc: pgo: -O2: ",
        "JIT compilation included",
        "pcc: pgo: same output and exit status as without the profile",
    ] {
        if !report.contains(expected) {
            return Err(format!("{name}: `{expected}` missing from:\n{report}").into());
        }
    }
    // At -O2, which versions its loops, the image loop (one path) is unrolled, and the blur
    // loop, whose two paths alternate, is not (docs/CLI.md: `--use-profile`).
    if name == "convolution"
        && (!report.contains("`make_image`: loop at line 11 (bb1) unrolled")
            || report.contains("loop at line 44 (bb5) unrolled")
            || !report.contains(
                "loop at line 44 (bb5) not unrolled: path 4: -O2's versioning clears the same checks",
            ))
    {
        return Err(format!("unexpected unrolling at -O2:\n{report}").into());
    }
    if !scratch.path(&format!("{name}.kbl.profile.json")).is_file() {
        return Err(format!("{name}: no profile at the default path").into());
    }
    Ok(())
}
