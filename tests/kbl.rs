//! End-to-end tests of k-iteration path profiling (`pcc run --profile=kbl --k N`, [KBLPP]): for
//! every program of `programs/` and `tests/runtime/` (runtime errors), the program behaves as without profiling, the profile's
//! `paths` are those of the `bl` profile of the same run, and level 1 of each function's k-IPF
//! holds exactly those counts, for k = 1, 4 and 12 (functions with loops count windows of their
//! last k ids, in tables indexed or keyed by window) and k = 4 with paths counted in hash
//! tables (they stream their ids to the k-slab forest); every k-IPF is a well-formed prefix forest
//! of depth ≤ k. Recursion: each activation keeps its own sequence, so a call never breaks or
//! extends the caller's. The masked convolution of [KBLPP] (`programs/convolution.pl`): its k = 10
//! profile shows the long runs of each branch of the inner loop.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{
    Scratch, functions, json, paths, pcc_in, pcc_run as run, program_trials, read_json, root, u64s,
};

use libtest_mimic::{Failed, Trial};
use serde_json::Value;

/// This file's trials (`tests/main.rs` runs them).
pub fn trials() -> Vec<Trial> {
    // Programs that end normally, by `exit()`, and by runtime errors (the profile is written
    // at every kind of exit).
    let mut trials = program_trials(&["programs", "tests/runtime"], check_program);
    trials.push(Trial::test(
        "recursive_functions_without_loops_have_one_id_per_activation",
        recursion_without_loops,
    ));
    trials.push(Trial::test(
        "a_recursive_call_neither_breaks_nor_extends_the_callers_sequence",
        recursion_with_loop,
    ));
    trials.push(Trial::test("k_out_of_range_is_refused", k_out_of_range));
    trials.push(Trial::test(
        "the_forests_running_out_of_memory_is_the_out_of_memory_error",
        forests_out_of_memory,
    ));
    trials.push(Trial::test(
        "masked_convolution_runs_of_ten_repeat_one_path",
        masked_convolution,
    ));
    trials
}

fn sidecar(dir: &str, name: &str, ext: &str) -> Option<String> {
    std::fs::read_to_string(root().join(dir).join(format!("{name}.{ext}"))).ok()
}

/// Checks that `forest` (a k-IPF) is a prefix forest of depth ≤ `k`: ids strictly increasing
/// among siblings, positive counts, and no node with more continuations than occurrences.
/// Returns the sum of the counts at each level.
fn check_forest(forest: &Value, k: usize, what: &str) -> Result<Vec<u64>, String> {
    fn walk(
        nodes: &Value,
        depth: usize,
        k: usize,
        levels: &mut Vec<u64>,
        what: &str,
    ) -> Result<u64, String> {
        let nodes = nodes
            .as_array()
            .ok_or_else(|| format!("{what}: not a list of nodes"))?;
        if !nodes.is_empty() && depth > k {
            return Err(format!("{what}: a sequence longer than k = {k}"));
        }
        let mut total = 0;
        let mut last = None;
        for node in nodes {
            let id = node["id"].as_u64().ok_or(format!("{what}: no id"))?;
            let count = node["count"].as_u64().ok_or(format!("{what}: no count"))?;
            if last.is_some_and(|l| l >= id) {
                return Err(format!("{what}: siblings out of order at id {id}"));
            }
            last = Some(id);
            if count == 0 {
                return Err(format!("{what}: node {id} with count 0"));
            }
            if levels.len() < depth {
                levels.resize(depth, 0);
            }
            levels[depth - 1] += count;
            let below = walk(&node["children"], depth + 1, k, levels, what)?;
            if below > count {
                return Err(format!(
                    "{what}: node {id} at depth {depth} occurs {count} times but is followed \
                     {below} times"
                ));
            }
            total += count;
        }
        Ok(total)
    }
    let mut levels = Vec::new();
    walk(forest, 1, k, &mut levels, what)?;
    Ok(levels)
}

/// The roots of a k-IPF as (id, count).
fn roots(forest: &Value) -> Vec<(u64, u64)> {
    forest
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_u64().unwrap(), n["count"].as_u64().unwrap()))
        .collect()
}

fn check_program(dir: &str, name: &str) -> Result<(), Failed> {
    let scratch = Scratch::new(name);
    let source = root().join(dir).join(format!("{name}.pl"));
    let args: Vec<String> = sidecar(dir, name, "args")
        .map(|a| a.lines().map(str::to_string).collect())
        .unwrap_or_default();
    let stdin = sidecar(dir, name, "stdin").unwrap_or_default();
    let expected_stdout = sidecar(dir, name, "stdout").unwrap_or_default();
    let expected_status: i32 = sidecar(dir, name, "exit").map_or(0, |s| s.trim().parse().unwrap());

    let bl_out = scratch.path("bl.json");
    let bl = run(
        &scratch.0,
        &source,
        &["--profile=bl", "--profile-out", bl_out.to_str().unwrap()],
        &args,
        &stdin,
    );
    let bl_profile = functions(&read_json(&bl_out));
    // Functions with loops count windows in a table indexed by window at k = 4, mostly in a keyed
    // table at k = 12, and stream their ids to the k-slab forest when their paths are counted
    // in a hash table (`--hash-threshold 1`).
    for (k, hashed) in [(1usize, false), (4, false), (12, false), (4, true)] {
        let out = scratch.path(&format!("kbl{k}{hashed}.json"));
        let k_text = k.to_string();
        let mut options = vec![
            "--profile=kbl",
            "--k",
            &k_text,
            "--profile-out",
            out.to_str().unwrap(),
        ];
        if hashed {
            options.extend(["--hash-threshold", "1"]);
        }
        let kbl = run(&scratch.0, &source, &options, &args, &stdin);
        if kbl.stdout != expected_stdout || kbl.status != expected_status {
            return Err(format!(
                "k = {k}: stdout or exit status changed (status {}, expected {expected_status})",
                kbl.status
            )
            .into());
        }
        if kbl.program_stderr().0 != bl.program_stderr().0 {
            return Err(
                format!("k = {k}: stderr {:?}, under bl {:?}", kbl.stderr, bl.stderr).into(),
            );
        }
        let profile = read_json(&out);
        if profile["mode"] != "kbl" {
            return Err(format!("k = {k}: mode {}", profile["mode"]).into());
        }
        let kbl_profile = functions(&profile);
        if kbl_profile.keys().collect::<Vec<_>>() != bl_profile.keys().collect::<Vec<_>>() {
            return Err(format!("k = {k}: not the functions of the bl profile").into());
        }
        for (function, record) in &kbl_profile {
            let what = format!("k = {k}, `{function}`");
            let expected = paths(&bl_profile[function], "paths");
            if paths(record, "paths") != expected {
                return Err(format!("{what}: paths differ from bl's").into());
            }
            let forest = &record["kipf"];
            check_forest(forest, k, &what)?;
            let level1: Vec<(u64, u64)> = expected.iter().map(|p| (p.0, p.1)).collect();
            if roots(forest) != level1 {
                return Err(format!(
                    "{what}: level 1 of the k-IPF is {:?}, the bl counts {level1:?}",
                    roots(forest)
                )
                .into());
            }
        }
    }
    Ok(())
}

/// Runs `source` (a file of `scratch`) under `--profile=kbl --k K`; returns its functions.
fn kbl_profile(
    scratch: &Scratch,
    source: &Path,
    k: usize,
) -> Result<BTreeMap<String, Value>, String> {
    let out = scratch.path(&format!("kbl{k}.json"));
    let k_text = k.to_string();
    let run = run(
        &scratch.0,
        source,
        &[
            "--profile=kbl",
            "--k",
            &k_text,
            "--profile-out",
            out.to_str().unwrap(),
        ],
        &[],
        "",
    );
    if run.status != 0 {
        return Err(format!("status {}: {}", run.status, run.stderr));
    }
    Ok(functions(&read_json(&out)))
}

/// A function without loops ends one path per activation; with one cursor per activation, its
/// k-IPF has no sequence longer than 1 however deep the recursion.
fn recursion_without_loops() -> Result<(), Failed> {
    let scratch = Scratch::new("recursion");
    let source = root().join("programs/recursion.pl");
    let profile = kbl_profile(&scratch, &source, 4)?;
    for name in [
        "fib",
        "ack",
        "gcd",
        "is_even",
        "is_odd",
        "hanoi",
        "hf",
        "hm",
        "depth_sum",
        "binom",
        "power",
    ] {
        let forest = &profile
            .get(name)
            .ok_or_else(|| format!("no `{name}` in the profile"))?["kipf"];
        let levels = check_forest(forest, 4, name)?;
        if levels.len() != 1 {
            return Err(format!("`{name}`: sequences of {} path ids", levels.len()).into());
        }
    }
    // `main` loops around its calls: its sequences go on across them.
    let levels = check_forest(&profile["main"]["kipf"], 4, "main")?;
    if levels.len() != 4 {
        return Err(format!("`main`: longest sequence {}, not 4", levels.len()).into());
    }
    Ok(())
}

/// `walk(n)` runs its loop three times and calls `walk(n - 1)` from the middle iteration, so
/// every activation emits the same number `L` of path ids. Per activation there are exactly
/// `L − j + 1` sequences of `j` ids: a call that broke the caller's sequence would lose some,
/// one that let the callee's ids continue it would add some.
fn recursion_with_loop() -> Result<(), Failed> {
    let scratch = Scratch::new("walk");
    let source = scratch.path("walk.pl");
    std::fs::write(
        &source,
        "fn walk(n: int) -> int {\n\
         \x20   let s: int = 0;\n\
         \x20   let i: int = 0;\n\
         \x20   while i < 3 {\n\
         \x20       if i == 1 && n > 0 {\n\
         \x20           s += walk(n - 1);\n\
         \x20       } else {\n\
         \x20           s += i;\n\
         \x20       }\n\
         \x20       i += 1;\n\
         \x20   }\n\
         \x20   return s;\n\
         }\n\
         \n\
         fn main() {\n\
         \x20   println(walk(5));\n\
         }\n",
    )?;
    const ACTIVATIONS: u64 = 6;
    // Windows indexed up to k = 8, keyed at k = 24, the k-slab forest at k = 64.
    for k in [2usize, 4, 8, 24, 64] {
        let profile = kbl_profile(&scratch, &source, k)?;
        let walk = &profile["walk"];
        let ids: u64 = paths(walk, "paths").iter().map(|p| p.1).sum();
        if !ids.is_multiple_of(ACTIVATIONS) {
            return Err(format!("{ids} path ids in {ACTIVATIONS} alike activations").into());
        }
        let per_activation = ids / ACTIVATIONS;
        let levels = check_forest(&walk["kipf"], k, "walk")?;
        let expected: Vec<u64> = (1..=k as u64)
            .map(|j| ACTIVATIONS * (per_activation + 1).saturating_sub(j))
            .take_while(|&n| n > 0)
            .collect();
        if levels != expected {
            return Err(format!(
                "k = {k}: sequences per length {levels:?}, expected {expected:?} ({per_activation} \
                 ids per activation)"
            )
            .into());
        }
    }
    Ok(())
}

fn k_out_of_range() -> Result<(), Failed> {
    let scratch = Scratch::new("range");
    let source = root().join("programs/add_even.pl");
    for k in ["0", "65"] {
        let run = run(&scratch.0, &source, &["--profile=kbl", "--k", k], &[], "");
        if run.status == 0 || !run.stderr.contains("--k") {
            return Err(format!("--k {k}: status {}, {}", run.status, run.stderr).into());
        }
    }
    Ok(())
}

/// The mask of `programs/convolution.pl` (`make_mask`), rewritten here as the oracle.
fn convolution_mask(w: i64, h: i64) -> Vec<bool> {
    let (cx, cy, r) = (w / 3, h / 2, h / 3);
    let mut mask = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let (dx, dy) = (x - cx, y - cy);
            let disc = dx * dx + dy * dy <= r * r;
            let rect = x >= 2 * w / 3 && x < 2 * w / 3 + w / 4 && y >= h / 5 && y < 4 * h / 5;
            mask.push(disc || rect);
        }
    }
    mask
}

/// [KBLPP]'s masked-convolution case study: `pcc profile show` of the `--k 10` profile lists, as
/// the hottest multi-iteration paths of `convolve`'s inner loop, the copy path ten times in a
/// row and the convolution path ten times in a row, exactly as often as the mask has runs of
/// ten such iterations (counted here from the mask: in a row, the iterations after the first,
/// whose path starts at the outer loop's header, each run of L contributing L − 9).
fn masked_convolution() -> Result<(), Failed> {
    const K: usize = 10;
    let (w, h, rounds) = (96i64, 64i64, 2u64);
    let scratch = Scratch::new("convolution");
    let source = root().join("programs/convolution.pl");
    let out = scratch.path("conv.json");
    let args = [w, h, rounds as i64].map(|n| n.to_string());
    let k = K.to_string();
    let profile_out = out.to_str().unwrap();
    let flags = ["--profile=kbl", "--k", &k, "--profile-out", profile_out];
    let run = run(&scratch.0, &source, &flags, &args, "");
    if run.status != 0 {
        return Err(format!("status {}: {}", run.status, run.stderr).into());
    }
    let mask = convolution_mask(w, h);
    let mut expected = [0u64; 2]; // runs of ten [copies, convolutions]
    for y in 1..h - 1 {
        let row: Vec<bool> = (2..w - 1).map(|x| mask[(y * w + x) as usize]).collect();
        for run in row.chunk_by(|a, b| a == b) {
            expected[usize::from(run[0])] += (run.len() as u64).saturating_sub(K as u64 - 1);
        }
    }
    let expected = expected.map(|n| n * rounds);

    let show = pcc_in(
        &scratch.0,
        &["profile", "show", profile_out, "--format", "json"],
        "",
    );
    let report = json(&show.stdout);
    let text = std::fs::read_to_string(&source)?;
    let line_of = |needle: &str| {
        text.lines()
            .position(|l| l.contains(needle))
            .map(|i| i as u64 + 1)
            .unwrap()
    };
    let (copy_line, blur_line) = (line_of("out[i] = img[i];"), line_of(">> 4;"));
    let hottest: Vec<&Value> = report["sequences"]
        .as_array()
        .ok_or("no `sequences` in the report")?
        .iter()
        .filter(|s| s["function"] == "convolve")
        .take(2)
        .collect();
    let mut seen = Vec::new();
    for s in &hottest {
        let ids = u64s(&s["ids"]);
        let runs = s["runs"].as_array().unwrap();
        if ids.len() != K || s["iterations"] != K || runs.len() != 1 || runs[0]["times"] != K {
            return Err(format!("not a run of one path {K} times: {s}").into());
        }
        let lines = u64s(&runs[0]["lines"]);
        let kind = match (lines.contains(&copy_line), lines.contains(&blur_line)) {
            (true, false) => 0,
            (false, true) => 1,
            _ => return Err(format!("path {} is neither branch: {lines:?}", ids[0]).into()),
        };
        if s["count"] != expected[kind] {
            return Err(format!("{s}: expected count {}", expected[kind]).into());
        }
        seen.push(kind);
    }
    seen.sort_unstable();
    if seen != [0, 1] {
        return Err(format!("the hottest runs of `convolve` are {hottest:?}").into());
    }
    Ok(())
}

/// A loop with 2^20 distinct paths under `ulimit -v`: the forest outgrows what the runtime lets
/// the forests take, and the program ends with the `out of memory` runtime error (status 101)
/// and the profile of what was counted written, where the allocator failing aborted it (SIGABRT,
/// no profile).
fn forests_out_of_memory() -> Result<(), Failed> {
    let scratch = Scratch::new("kbl-oom");
    let mut source = String::from(
        "fn main() {\n    let s = 0;\n    let i = 0;\n    while i < 3000000 {\n        \
         let x = i * 2654435761 % 1048576;\n",
    );
    for k in 0..20 {
        source += &format!("        if x / {} % 2 == 1 {{ s += {k}; }}\n", 1 << k);
    }
    source += "        i += 1;\n    }\n    println(s);\n}\n";
    let file = scratch.path("paths.pl");
    std::fs::write(&file, source)?;
    let out = scratch.path("paths.json");
    let script = format!(
        "ulimit -v 1500000 && exec '{}' run paths.pl --profile kbl --profile-out paths.json",
        env!("CARGO_BIN_EXE_pcc")
    );
    let mut command = std::process::Command::new("sh");
    command.args(["-c", &script]).current_dir(&scratch.0);
    let run = common::run_command(command, "")?;
    assert_eq!(run.status, 101, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("runtime error: out of memory\n"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("kbl profile written to"),
        "{}",
        run.stderr
    );
    let profile = read_json(&out);
    assert!(!profile["functions"].as_array().unwrap().is_empty());
    Ok(())
}
