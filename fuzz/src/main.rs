//! `pcc-fuzz --seed S --count N [--jobs J] [--quick] [--pcc PATH] [--out DIR]`: generates programs
//! S, S+1, …, S+N-1, puts each through the differential checks, shrinks every program that shows
//! a mismatch and writes it, with the command that shows the difference, to DIR
//! (default `fuzz-out/`). Ends with the line `N programs, M mismatches`. `--print` shows the
//! program of a seed, `--coverage` what the programs exercise.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use pcc_fuzz::check::{Depth, Runner, Verdict, check, clip, command_line};
use pcc_fuzz::{generate, shrink};

struct Options {
    seed: u64,
    count: u64,
    jobs: usize,
    depth: Depth,
    pcc: Option<PathBuf>,
    out: PathBuf,
    shrink_budget: usize,
    /// Only print program `seed`.
    print: bool,
    /// Only measure what the programs exercise.
    coverage: bool,
}

fn usage() -> ! {
    eprintln!(
        "usage: pcc-fuzz --seed S --count N [--jobs J] [--quick] [--pcc PATH] [--out DIR] [--shrink-budget K]\n       \
         pcc-fuzz --seed S --print          (the program of seed S)\n       \
         pcc-fuzz --seed S --count N --coverage   (the MIR kinds and transforms they reach)"
    );
    std::process::exit(2)
}

fn parse() -> Options {
    let mut options = Options {
        seed: 0,
        count: 100,
        jobs: 1,
        depth: Depth::Full,
        pcc: None,
        out: PathBuf::from("fuzz-out"),
        shrink_budget: 400,
        print: false,
        coverage: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| usage());
        let number = |text: String| text.parse::<u64>().unwrap_or_else(|_| usage());
        match arg.as_str() {
            "--seed" => options.seed = number(value()),
            "--count" => options.count = number(value()),
            "--jobs" => options.jobs = number(value()).max(1) as usize,
            "--shrink-budget" => options.shrink_budget = number(value()) as usize,
            "--quick" => options.depth = Depth::Quick,
            "--print" => options.print = true,
            "--coverage" => options.coverage = true,
            "--pcc" => options.pcc = Some(PathBuf::from(value())),
            "--out" => options.out = PathBuf::from(value()),
            _ => usage(),
        }
    }
    options
}

/// The `pcc` binary: `--pcc`, else the one beside this executable, built first if missing.
fn find_pcc(given: Option<PathBuf>) -> PathBuf {
    if let Some(path) = given {
        return path;
    }
    let exe = std::env::current_exe().expect("own path");
    let pcc = exe.with_file_name(format!("pcc{}", std::env::consts::EXE_SUFFIX));
    if !pcc.exists()
        && let Some(cargo) = std::env::var_os("CARGO")
    {
        eprintln!("pcc-fuzz: building pcc first");
        let release = exe.parent().is_some_and(|d| d.ends_with("release"));
        let mut build = std::process::Command::new(cargo);
        build.args(["build", "-p", "pcc"]);
        if release {
            build.arg("--release");
        }
        let _ = build.status();
    }
    if !pcc.exists() {
        eprintln!(
            "pcc-fuzz: no pcc at {}; build it (cargo build -p pcc) or pass --pcc PATH",
            pcc.display()
        );
        std::process::exit(2);
    }
    pcc
}

fn main() {
    let options = parse();
    if options.print {
        print!("{}", generate::program(options.seed).text());
        return;
    }
    let pcc = find_pcc(options.pcc.clone());
    let work = std::env::temp_dir().join(format!("pcc-fuzz-{}", std::process::id()));
    if options.coverage {
        let dir = work.join("coverage");
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        let runner = Runner { pcc, dir };
        let mut coverage = pcc_fuzz::coverage::Coverage::default();
        for seed in options.seed..options.seed + options.count {
            coverage.measure(&runner, &generate::program(seed).text());
        }
        let _ = std::fs::remove_dir_all(&work);
        println!("over {} programs:", coverage.programs);
        for (kind, n) in &coverage.kinds {
            println!("  {kind:<52} {n}");
        }
        return;
    }
    let next = AtomicU64::new(options.seed);
    let end = options.seed + options.count;
    let mismatches = Mutex::new(Vec::new());
    let skipped = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for job in 0..options.jobs {
            let (next, mismatches, skipped, options, pcc) =
                (&next, &mismatches, &skipped, &options, &pcc);
            let done = &done;
            let dir = work.join(format!("job{job}"));
            scope.spawn(move || {
                std::fs::create_dir_all(&dir).expect("a scratch directory");
                let runner = Runner {
                    pcc: pcc.clone(),
                    dir,
                };
                loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed);
                    if seed >= end {
                        break;
                    }
                    let program = generate::program(seed);
                    match check(&runner, &program.text(), options.depth) {
                        Verdict::Same => {}
                        Verdict::Skipped(why) => {
                            eprintln!("pcc-fuzz: seed {seed} skipped: {why:?}");
                            skipped.fetch_add(1, Ordering::Relaxed);
                        }
                        Verdict::Differs(found) => {
                            eprintln!(
                                "pcc-fuzz: seed {seed}: {} differs: {}",
                                found.stage,
                                clip(&found.detail, 1000)
                            );
                            // The quick checks are enough to see a difference they include.
                            let depth = match found.stage.as_str() {
                                "-O0" | "-O2" | "profile=bl -O2" => Depth::Quick,
                                _ => options.depth,
                            };
                            let mut still = |p: &pcc_fuzz::program::Program| {
                                matches!(check(&runner, &p.text(), depth),
                                    Verdict::Differs(m) if m.stage == found.stage)
                            };
                            // A difference that does not come back is not worth shrinking.
                            let small = if still(&program) {
                                eprintln!("pcc-fuzz: seed {seed}: shrinking");
                                shrink::shrink(&program, options.shrink_budget, &mut still)
                            } else {
                                eprintln!("pcc-fuzz: seed {seed}: did not happen again (flaky)");
                                program.clone()
                            };
                            let report = write_report(
                                &options.out,
                                seed,
                                &program.text(),
                                &small.text(),
                                &found,
                            );
                            eprintln!("{report}");
                            mismatches.lock().expect("lock").push(seed);
                        }
                    }
                    let checked = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if checked.is_multiple_of(100) {
                        let rate = checked as f64 / started.elapsed().as_secs_f64();
                        let found = mismatches.lock().expect("lock").len();
                        eprintln!(
                            "pcc-fuzz: {checked} programs checked ({rate:.2}/s), {found} mismatches"
                        );
                    }
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&work);
    let seconds = started.elapsed().as_secs_f64();
    let skipped = skipped.into_inner();
    eprintln!(
        "pcc-fuzz: {:.1} programs/second ({} jobs), {skipped} skipped",
        options.count as f64 / seconds.max(1e-9),
        options.jobs
    );
    let mismatches = mismatches.into_inner().expect("lock");
    println!(
        "{} programs, {} mismatches",
        options.count,
        mismatches.len()
    );
    std::process::exit(i32::from(!mismatches.is_empty()));
}

/// Writes the original and the shrunk program to `out`, and what to tell the user, which it
/// returns.
fn write_report(
    out: &Path,
    seed: u64,
    original: &str,
    small: &str,
    found: &pcc_fuzz::check::Mismatch,
) -> String {
    let _ = std::fs::create_dir_all(out);
    let full = out.join(format!("seed{seed}.pl"));
    let min = out.join(format!("seed{seed}.min.pl"));
    let _ = std::fs::write(&full, original);
    let _ = std::fs::write(&min, small);
    let min_name = min.display().to_string();
    let report = format!(
        "pcc-fuzz: seed {seed}: {} differs from the interpreter: {}\n  smallest reproducer: {min_name}\n  \
         compare: {}\n  with:    {}",
        found.stage,
        found.detail,
        command_line(&min_name, &found.flags),
        command_line(&min_name, &["--engine".into(), "interp".into()]),
    );
    let _ = std::fs::write(out.join(format!("seed{seed}.txt")), &report);
    report
}
