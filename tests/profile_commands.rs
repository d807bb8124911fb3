//! End-to-end tests of `pcc profile show|merge|diff` on the hand-written profiles of
//! `programs/add_even.pl` in `tests/profiles/` (see its README), and on real profiles of the
//! year-2000 example (`programs/y2k.pl`, [PFP] §5.3) written by `pcc run --profile=bl`.

use crate::common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use common::{Run, Scratch, function, json, root};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    root().join("tests/profiles").join(name)
}

/// Runs `pcc ARGS` in `dir`, with nothing on its standard input.
fn pcc_in<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Run {
    common::pcc_in(dir, args, "")
}

/// Runs `pcc profile ARGS` from a scratch directory, so a fixture's source is found beside it.
fn profile(args: &[&OsStr]) -> Run {
    let scratch = Scratch::new("cwd");
    let mut all = vec![OsStr::new("profile")];
    all.extend_from_slice(args);
    pcc_in(&scratch.0, &all)
}

fn os(path: &Path) -> &OsStr {
    path.as_os_str()
}

/// (id, count) of each path of `function` in a profile or report, in order.
fn path_counts(function: &Value) -> Vec<(u64, u64)> {
    function["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_u64().unwrap(), p["count"].as_u64().unwrap()))
        .collect()
}

fn show_ranks_paths_hottest_first_with_shares_and_source() {
    let run = profile(&[OsStr::new("show"), os(&fixture("add_even.10.bl.json"))]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "");
    let expected = "\
bl profile of ../../programs/add_even.pl (args: 10): 12 path executions in 2 functions
coverage: 5 of 7 potential paths ran (71.43%); the hottest 2 cover 50% of path executions, 4 cover 90%, 5 cover 99%

all 5 executed paths, hottest first; share = count / all 12 path executions in the profile
  #   share  count  function  path  lines
  1  41.67%      5  add_even     0  5 6 7 9
       5 | while j <= limit {
       6 |     if j % 2 == 0 {
       7 |         sum = sum + j;
       9 |     j = j + 1;
  2  33.33%      4  add_even     1  5 6 9
       5 | while j <= limit {
       6 |     if j % 2 == 0 {
       9 |     j = j + 1;
  3   8.33%      1  add_even     2  5 11
       5 | while j <= limit {
      11 | return sum;
  4   8.33%      1  add_even     4  3 4 5 6 9
       3 | let sum = 0;
       4 | let j = 1;
       5 | while j <= limit {
       6 |     if j % 2 == 0 {
       9 |     j = j + 1;
  5   8.33%      1  main         0  15 16
      15 |     println(add_even(parse_int(arg(0))));
      16 | }

functions (paths: potential ones, ran: executed ones):
  function  paths  ran  executions  storage  notes
  add_even      6    4          11  array
  main          1    1           1  array
";
    assert_eq!(run.stdout, expected);
}

fn show_top_n_keeps_the_hottest() {
    let run = profile(&[
        OsStr::new("show"),
        os(&fixture("add_even.10.bl.json")),
        OsStr::new("--top"),
        OsStr::new("2"),
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains(
        "the 2 hottest of 5 executed paths, hottest first; share = count / all 12 path executions"
    ));
    assert!(
        run.stdout
            .contains("  2  33.33%      4  add_even     1  5 6 9\n")
    );
    assert!(!run.stdout.contains("  3  "), "{}", run.stdout);
    assert!(
        run.stdout.contains("\n  main          1 "),
        "every function is still summarized"
    );
}

fn show_json_has_the_same_data() {
    let run = profile(&[
        OsStr::new("show"),
        os(&fixture("add_even.10.bl.json")),
        OsStr::new("--top"),
        OsStr::new("3"),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let report = json(&run.stdout);
    assert_eq!(report["mode"], "bl");
    assert_eq!(report["args"], serde_json::json!(["10"]));
    assert_eq!(report["total_count"], 12);
    let ranked: Vec<(&str, u64, u64)> = report["paths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["function"].as_str().unwrap(),
                p["id"].as_u64().unwrap(),
                p["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ranked,
        vec![("add_even", 0, 5), ("add_even", 1, 4), ("add_even", 2, 1)]
    );
    let share = report["paths"][0]["share"].as_f64().unwrap();
    assert!((share - 5.0 / 12.0).abs() < 1e-12);
    assert_eq!(report["paths"][0]["lines"], serde_json::json!([5, 6, 7, 9]));
    assert_eq!(report["source"]["lines"]["7"], "            sum = sum + j;");
    assert_eq!(report["functions"][0]["executed_paths"], 4);
}

fn show_ranks_edges_of_edge_profiles() {
    let run = profile(&[OsStr::new("show"), os(&fixture("add_even.10.edge.json"))]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with(
        "edge profile of ../../programs/add_even.pl (args: 10): 39 edge executions in 2 functions\n"
    ));
    assert!(
        run.stdout
            .contains("hottest edges; share = count / all 39 edge executions in the profile")
    );
    assert!(
        run.stdout
            .contains("  1  25.64%     10  add_even  bb1 (line 5) → bb2 (line 6)\n")
    );
    assert!(run.stdout.contains(
        "add_even  bb3 (line 11) → exit (line 12)\n      11 |     return sum;\n      12 | }\n"
    ));
    assert!(run.stdout.contains("  add_even               38\n"));
}

fn show_flags_truncated_functions() {
    let run = profile(&[
        OsStr::new("show"),
        os(&fixture("add_even.truncated.bl.json")),
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("  1  41.67%      5  add_even     0  truncated  5 6 7 9\n")
    );
    assert!(
        run.stdout
            .contains("(truncated: the function's path numbering was cut")
    );
    assert!(run.stdout.contains("array    truncated path numbering\n"));
}

fn show_without_the_source_lists_line_numbers_and_says_why_once() {
    let scratch = Scratch::new("no-source");
    let copy = scratch.path("add_even.bl.json");
    std::fs::copy(fixture("add_even.10.bl.json"), &copy).unwrap();
    let run = pcc_in(&scratch.0, &["profile", "show", "add_even.bl.json"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("  1  41.67%      5  add_even     0  5 6 7 9\n  2  ")
    );
    assert!(!run.stdout.contains(" | "));
    assert_eq!(
        run.stderr,
        "warning: add_even.bl.json: the profiled source file is gone (tried \
         ../../programs/add_even.pl)\n"
    );

    // A source with other bytes is not shown (it may not be the program at all).
    let nested = scratch.path("a/b");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::create_dir_all(scratch.path("programs")).unwrap();
    std::fs::write(scratch.path("programs/add_even.pl"), "fn main() {\n}\n").unwrap();
    std::fs::copy(&copy, nested.join("p.json")).unwrap();
    let run = pcc_in(&scratch.0, &["profile", "show", "a/b/p.json"]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(!run.stdout.contains(" | "));
    assert_eq!(
        run.stderr,
        "warning: a/b/p.json: the source a/b/../../programs/add_even.pl has changed since the \
         profile was written (hash mismatch); re-run the program to profile it again\n"
    );
}

fn merge_sums_counts() {
    let scratch = Scratch::new("merge");
    let out = scratch.path("merged.json");
    let run = profile(&[
        OsStr::new("merge"),
        os(&fixture("add_even.2.bl.json")),
        os(&fixture("add_even.10.bl.json")),
        OsStr::new("-o"),
        os(&out),
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .starts_with("merged 2 `bl` profiles of ../../programs/add_even.pl into ")
    );
    assert!(
        run.stderr
            .ends_with(": 5 distinct paths, 16 path executions\n")
    );
    let merged = json(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(
        path_counts(function(&merged, "add_even")),
        vec![(0, 6), (1, 4), (2, 2), (4, 2)]
    );
    assert_eq!(path_counts(function(&merged, "main")), vec![(0, 2)]);
    // Edge profiles add up edge by edge.
    let run = profile(&[
        OsStr::new("merge"),
        os(&fixture("add_even.10.edge.json")),
        os(&fixture("add_even.10.edge.json")),
        OsStr::new("-o"),
        os(&scratch.path("edges.json")),
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stderr.ends_with(": 78 edge executions\n"),
        "{}",
        run.stderr
    );
    let edges = json(&std::fs::read_to_string(scratch.path("edges.json")).unwrap());
    assert_eq!(function(&edges, "add_even")["edges"][1]["count"], 20);
    assert_eq!(
        merged["args"],
        serde_json::json!([]),
        "runs with different args"
    );
    assert_eq!(
        function(&merged, "add_even")["cfg_hash"],
        "9ba733467aee9297"
    );
    let leftovers = std::fs::read_dir(&scratch.0).unwrap().count();
    assert_eq!(
        leftovers, 2,
        "the writes are atomic: no temporary file is left"
    );
}

fn merge_refuses_profiles_of_different_code() {
    let scratch = Scratch::new("merge-refused");
    let out = scratch.path("merged.json");
    let base = fixture("add_even.10.bl.json");
    for (other, message) in [
        (
            "add_even.10.edge.json",
            "mode `edge` here and `bl` in the earlier profile; only profiles of the same mode can \
             be merged",
        ),
        (
            "other_program.bl.json",
            "a profile of program `../../programs/paths16.pl` here and of \
             `../../programs/add_even.pl` in the earlier profile, different programs (another \
             source path and other bytes, and no function with the same code); only profiles of \
             the same program can be merged",
        ),
        (
            "add_even.stale.bl.json",
            "function `add_even` was profiled in different code (cfg_hash 0123456789abcdef here, \
             9ba733467aee9297 in the earlier profile), so one of them is stale",
        ),
    ] {
        let other = fixture(other);
        let run = profile(&[
            OsStr::new("merge"),
            os(&base),
            os(&other),
            OsStr::new("-o"),
            os(&out),
        ]);
        assert_eq!(run.status, 1, "{}", run.stderr);
        assert_eq!(
            run.stderr,
            format!(
                "error: {}: {message} (the earlier profile is {})\n",
                other.display(),
                base.display()
            )
        );
        assert!(!out.exists(), "nothing is written");
    }
}

fn diff_lists_paths_only_in_a_only_in_b_and_changed() {
    let run = profile(&[
        OsStr::new("diff"),
        os(&fixture("add_even.0.bl.json")),
        os(&fixture("add_even.2.bl.json")),
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("function `add_even`: 1 paths only in A, 3 only in B, 0 with changed counts")
    );
    assert!(
        run.stdout
            .contains("  only in A     5           1           0  3 4 5 11\n")
    );
    assert!(
        run.stdout
            .contains("  only in B     0           0           1  5 6 7 9\n")
    );
    assert!(run.stdout.contains("       7 |         sum = sum + j;\n"));
    assert!(
        !run.stdout.contains("function `main`"),
        "main ran the same path"
    );

    let run = profile(&[
        OsStr::new("diff"),
        os(&fixture("add_even.2.bl.json")),
        os(&fixture("add_even.10.bl.json")),
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let expected_rows = "\
function `add_even`: 0 paths only in A, 1 only in B, 1 with changed counts
             path  count in A  count in B  lines
  only in B     1           0           4  5 6 9
";
    assert!(run.stdout.contains(expected_rows), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("  changed       0           1           5  5 6 7 9\n")
    );

    let run = profile(&[
        OsStr::new("diff"),
        os(&fixture("add_even.2.bl.json")),
        os(&fixture("add_even.2.bl.json")),
    ]);
    assert!(run.stdout.ends_with("no differences in path spectra\n"));
}

fn diff_json_has_the_same_data() {
    let run = profile(&[
        OsStr::new("diff"),
        os(&fixture("add_even.2.bl.json")),
        os(&fixture("add_even.10.bl.json")),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let diff = json(&run.stdout);
    assert_eq!(diff["a"]["args"], serde_json::json!(["2"]));
    assert_eq!(diff["b"]["args"], serde_json::json!(["10"]));
    let f = function(&diff, "add_even");
    assert_eq!(f["status"], "compared");
    assert_eq!(f["only_in_a"], serde_json::json!([]));
    assert_eq!(
        f["only_in_b"],
        serde_json::json!([{ "id": 1, "count": 4, "lines": [5, 6, 9] }])
    );
    assert_eq!(
        f["changed"],
        serde_json::json!([{ "id": 0, "lines": [5, 6, 7, 9], "count_a": 1, "count_b": 5 }])
    );
    assert_eq!(diff["source"]["lines"]["9"], "        j = j + 1;");
}

fn diff_refuses_stale_functions_and_compares_the_others() {
    let a = fixture("add_even.10.bl.json");
    let b = fixture("add_even.stale.bl.json");
    let run = profile(&[OsStr::new("diff"), os(&a), os(&b)]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let refusal = "function `add_even`: not compared: the profiles come from different code of \
                   this function (cfg_hash 9ba733467aee9297 in A, 0123456789abcdef in B), so one \
                   of them is stale";
    assert!(run.stdout.contains(refusal), "{}", run.stdout);
    assert_eq!(
        run.stderr,
        format!("warning: {} and {}: {refusal}\n", a.display(), b.display())
    );
    let run = profile(&[
        OsStr::new("diff"),
        os(&a),
        os(&b),
        OsStr::new("--format"),
        OsStr::new("json"),
    ]);
    let diff = json(&run.stdout);
    assert_eq!(function(&diff, "add_even")["status"], "hash_mismatch");
    assert_eq!(function(&diff, "main")["status"], "compared");
}

fn diff_compares_edge_profiles_edge_by_edge() {
    let scratch = Scratch::new("diff-edges");
    let b = scratch.path("b.edge.json");
    let text = std::fs::read_to_string(fixture("add_even.10.edge.json")).unwrap();
    let text = text.replace(
        r#""from_line": 6, "to_line": 7, "count": 5 }"#,
        r#""from_line": 6, "to_line": 7, "count": 4 }"#,
    );
    std::fs::write(&b, text).unwrap();
    let run = profile(&[
        OsStr::new("diff"),
        os(&fixture("add_even.10.edge.json")),
        os(&b),
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("function `add_even`: 1 edges with changed counts")
    );
    assert!(
        run.stdout
            .contains("  changed  bb2 (line 6) → bb4 (line 7)           5           4\n")
    );
}

fn diff_refuses_profiles_of_different_modes() {
    let a = fixture("add_even.10.bl.json");
    let b = fixture("add_even.10.edge.json");
    let run = profile(&[OsStr::new("diff"), os(&a), os(&b)]);
    assert_eq!(run.status, 1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!(
            "error: {}: mode `bl` in A and `edge` in B; only profiles of the same mode can be \
             compared, or two of bl, ppp, kbl and wpp, which all list Ball-Larus paths (A is {})\n",
            b.display(),
            a.display()
        )
    );
}

fn bad_files_are_refused_by_every_command() {
    let scratch = Scratch::new("bad");
    let good = fixture("add_even.10.bl.json");
    let missing = scratch.path("missing.json");
    let fifo = scratch.path("fifo.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let cases = [
        (fixture("bad/not_json.json"), "profile is not valid JSON: "),
        (
            fixture("bad/truncated.json"),
            "profile is truncated (incomplete JSON)",
        ),
        (
            fixture("bad/wrong_format.json"),
            "not a pcc profile (format is \"perf-data\", expected \"pcc-profile\")",
        ),
        (
            fixture("bad/wrong_version.json"),
            "unsupported profile version 3 (this pcc reads version 2)",
        ),
        (
            fixture("bad/version_1.json"),
            "this profile was written by an older pcc (profile format version 1; this pcc reads \
             version 2); re-run the program with --profile to make a new one",
        ),
        (
            fixture("bad/unknown_mode.json"),
            "unknown profiling mode \"fast\" (expected one of block, edge, bl, ppp, tpp, kbl, wpp)",
        ),
        (
            fixture("bad/inconsistent.json"),
            "invalid profile: function `add_even`: path id 7 is not below num_paths 6",
        ),
        (
            fixture("bad/duplicate_mode.json"),
            "invalid profile: duplicate key \"mode\" at line 1 column",
        ),
        (missing.clone(), "No such file or directory"),
        // A FIFO would block the reader until someone writes to it; /dev/zero never ends.
        (
            fifo.clone(),
            "it is a FIFO (named pipe), not a regular file",
        ),
        (
            PathBuf::from("/dev/zero"),
            "it is a character device, not a regular file",
        ),
    ];
    let out = scratch.path("out.json");
    for (bad, message) in &cases {
        let commands: [Vec<&OsStr>; 4] = [
            vec![OsStr::new("show"), os(bad)],
            vec![
                OsStr::new("merge"),
                os(&good),
                os(bad),
                OsStr::new("-o"),
                os(&out),
            ],
            vec![OsStr::new("diff"), os(bad), os(&good)],
            vec![OsStr::new("diff"), os(&good), os(bad)],
        ];
        for args in commands {
            let run = profile(&args);
            assert_eq!(run.status, 1, "{args:?}: {}", run.stderr);
            assert_eq!(run.stdout, "", "{args:?}");
            let prefix = format!("error: {}: {message}", bad.display());
            assert!(
                run.stderr.starts_with(&prefix) && run.stderr.lines().count() == 1,
                "{args:?}: expected `{prefix}…`, got `{}`",
                run.stderr
            );
            assert!(!out.exists());
        }
    }
}

/// The source line of `y2k.pl` that holds `marker` (1-based), so the test follows edits.
fn y2k_line(marker: &str) -> u64 {
    let source = std::fs::read_to_string(root().join("programs/y2k.pl")).unwrap();
    let index = source
        .lines()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("no `{marker}` in y2k.pl"));
    index as u64 + 1
}

/// Profiles `programs/y2k.pl` for the years FIRST..=LAST into `out`.
fn profile_y2k(out: &Path, first: &str, last: &str) {
    let run = pcc_in(
        &root(),
        &[
            OsStr::new("run"),
            OsStr::new("programs/y2k.pl"),
            OsStr::new("--profile=bl"),
            OsStr::new("--profile-out"),
            os(out),
            OsStr::new("--"),
            OsStr::new(first),
            OsStr::new(last),
            OsStr::new("1"),
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(out.exists(), "{}", run.stderr);
}

fn has_lines(path: &Value, lines: &[u64]) -> bool {
    let path_lines: Vec<u64> = path["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_u64().unwrap())
        .collect();
    lines.iter().all(|l| path_lines.contains(l))
}

/// [PFP] §5.3, Figure 8: with two-digit years, ages go negative after 1999, so paths through both
/// B (under 15) and D (college graduate) run only in the run that crosses 2000.
fn y2k_diff_finds_the_paths_that_appear_after_1999() {
    let scratch = Scratch::new("y2k");
    let (pre, post) = (scratch.path("pre.json"), scratch.path("post.json"));
    profile_y2k(&pre, "1994", "1999");
    profile_y2k(&post, "1994", "2004");
    let (b, d) = (y2k_line("// B"), y2k_line("// D"));

    let run = pcc_in(
        &root(),
        &[
            OsStr::new("profile"),
            OsStr::new("diff"),
            os(&pre),
            os(&post),
            OsStr::new("--format"),
            OsStr::new("json"),
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let diff = json(&run.stdout);
    let main = function(&diff, "main");
    assert_eq!(main["status"], "compared");
    let new_paths: Vec<&Value> = main["only_in_b"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| has_lines(p, &[b, d]))
        .collect();
    assert!(
        !new_paths.is_empty(),
        "no under-15 graduate path only after 1999: {main}"
    );
    // Every path through B and D in the later run is new: none ran before 2000.
    let post_profile = json(&std::fs::read_to_string(&post).unwrap());
    let bd_after = function(&post_profile, "main")["paths"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| has_lines(p, &[b, d]))
        .count();
    assert_eq!(bd_after, new_paths.len());
    assert_eq!(
        main["only_in_a"],
        serde_json::json!([]),
        "no path stops running"
    );

    // The text report shows them with their source.
    let run = pcc_in(
        &root(),
        &[
            OsStr::new("profile"),
            OsStr::new("diff"),
            os(&pre),
            os(&post),
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains("only in B"));
    assert!(run.stdout.contains(&format!("{b} |         young += 1;")));
    assert!(run.stdout.contains(&format!("{d} |         grads += 1;")));
}

fn merge_of_two_real_runs_adds_their_counts() {
    let scratch = Scratch::new("y2k-merge");
    let (one, two, merged) = (
        scratch.path("one.json"),
        scratch.path("two.json"),
        scratch.path("merged.json"),
    );
    profile_y2k(&one, "1994", "1999");
    profile_y2k(&two, "1998", "2003");
    let run = profile(&[
        OsStr::new("merge"),
        os(&one),
        os(&two),
        OsStr::new("-o"),
        os(&merged),
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let read = |p: &Path| json(&std::fs::read_to_string(p).unwrap());
    let (one, two, merged) = (read(&one), read(&two), read(&merged));
    for f in merged["functions"].as_array().unwrap() {
        let name = f["name"].as_str().unwrap();
        let mut expected = std::collections::BTreeMap::new();
        for input in [&one, &two] {
            for (id, count) in path_counts(function(input, name)) {
                *expected.entry(id).or_insert(0) += count;
            }
        }
        let got: std::collections::BTreeMap<u64, u64> = path_counts(f).into_iter().collect();
        assert_eq!(got, expected, "function `{name}`");
    }
    let run = pcc_in(
        &root(),
        &[
            OsStr::new("profile"),
            OsStr::new("show"),
            os(&scratch.path("merged.json")),
            OsStr::new("--top"),
            OsStr::new("1"),
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains("current_date"), "{}", run.stdout);
}

/// `pcc run programs/y2k.pl --profile=MODE` of the years `first..last` into `out`.
fn profile_y2k_in(mode: &str, out: &Path, first: &str, last: &str) {
    let profile = format!("--profile={mode}");
    let run = pcc_in(
        &root(),
        &[
            "run",
            "programs/y2k.pl",
            &profile,
            "--profile-out",
            out.to_str().unwrap(),
            "--",
            first,
            last,
            "1",
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
}

/// A bl profile and a ppp, kbl or wpp profile of other runs are compared path by path (their
/// ids are Ball-Larus ids), as two bl profiles of the same runs would be.
fn diff_compares_schemes_that_list_ball_larus_paths() {
    let scratch = Scratch::new("y2k-schemes");
    let (bl_a, bl_b) = (scratch.path("a.bl.json"), scratch.path("b.bl.json"));
    profile_y2k_in("bl", &bl_a, "1994", "1999");
    profile_y2k_in("bl", &bl_b, "1998", "2003");
    let both_bl = profile(&[
        OsStr::new("diff"),
        os(&bl_a),
        os(&bl_b),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(both_bl.status, 0, "{}", both_bl.stderr);
    let functions = |run: &Run| json(&run.stdout)["functions"].clone();
    for mode in ["ppp", "kbl", "wpp"] {
        let other = scratch.path(&format!("b.{mode}.json"));
        profile_y2k_in(mode, &other, "1998", "2003");
        let run = profile(&[
            OsStr::new("diff"),
            os(&bl_a),
            os(&other),
            "--format".as_ref(),
            "json".as_ref(),
        ]);
        assert_eq!(run.status, 0, "{mode}: {}", run.stderr);
        assert_eq!(json(&run.stdout)["mode_b"], mode);
        assert_eq!(functions(&run), functions(&both_bl), "bl against {mode}");
        let text = profile(&[OsStr::new("diff"), os(&bl_a), os(&other)]);
        assert!(
            text.stdout
                .starts_with(&format!("path spectra of bl and {mode} profiles")),
            "{}",
            text.stdout
        );
    }
}

/// `--top N` keeps the N largest differences, `--min-count C` those of at least C, and the
/// text says how many were left out.
fn diff_top_and_min_count_keep_the_largest_differences() {
    let scratch = Scratch::new("y2k-top");
    let (a, b) = (scratch.path("a.json"), scratch.path("b.json"));
    profile_y2k_in("bl", &a, "1994", "1999");
    profile_y2k_in("bl", &b, "1998", "2003");
    let diff = |extra: &[&str]| {
        let mut args = vec![
            OsStr::new("diff"),
            os(&a),
            os(&b),
            "--format".as_ref(),
            "json".as_ref(),
        ];
        args.extend(extra.iter().map(OsStr::new));
        let run = profile(&args);
        assert_eq!(run.status, 0, "{}", run.stderr);
        json(&run.stdout)
    };
    // Every difference's size, largest first.
    let sizes = |d: &Value| -> Vec<u64> {
        let mut sizes = Vec::new();
        for f in d["functions"].as_array().unwrap() {
            for list in ["only_in_a", "only_in_b"] {
                for p in f[list].as_array().into_iter().flatten() {
                    sizes.push(p["count"].as_u64().unwrap());
                }
            }
            for c in f["changed"].as_array().into_iter().flatten() {
                sizes.push(
                    c["count_a"]
                        .as_u64()
                        .unwrap()
                        .abs_diff(c["count_b"].as_u64().unwrap()),
                );
            }
        }
        sizes.sort_unstable_by(|x, y| y.cmp(x));
        sizes
    };
    let all = sizes(&diff(&[]));
    assert!(all.len() > 3, "{all:?}");
    let top = diff(&["--top", "3"]);
    assert_eq!(sizes(&top), all[..3].to_vec());
    assert_eq!(top["omitted"].as_u64(), Some(all.len() as u64 - 3));
    let floor = all[all.len() / 2];
    let big = diff(&["--min-count", &floor.to_string()]);
    assert!(sizes(&big).iter().all(|&s| s >= floor));
    assert_eq!(
        sizes(&big).len(),
        all.iter().filter(|&&s| s >= floor).count()
    );
    let text = profile(&[
        OsStr::new("diff"),
        os(&a),
        os(&b),
        "--top".as_ref(),
        "1".as_ref(),
    ]);
    let left_out = format!(
        "{} smaller differences left out (--top, --min-count)",
        all.len() - 1
    );
    assert!(text.stdout.contains(&left_out), "{}", text.stdout);
}

/// `@FILE` operands name the profiles FILE lists; the merge reads them one at a time and adds
/// up the same counts as naming them all.
fn merge_reads_lists_of_profiles() {
    let scratch = Scratch::new("y2k-list");
    let runs: Vec<PathBuf> = (0..3)
        .map(|i| scratch.path(&format!("run{i}.json")))
        .collect();
    for (i, run) in runs.iter().enumerate() {
        profile_y2k_in("bl", run, &format!("199{i}"), "2001");
    }
    let list = scratch.path("runs.txt");
    let listed = format!("{}\n\n{}\n", runs[0].display(), runs[1].display());
    std::fs::write(&list, listed).unwrap();
    let (by_list, by_name) = (scratch.path("list.json"), scratch.path("names.json"));
    let at_list = format!("@{}", list.display());
    let run = pcc_in(
        &root(),
        &[
            OsStr::new("profile"),
            OsStr::new("merge"),
            at_list.as_ref(),
            os(&runs[2]),
            "-o".as_ref(),
            os(&by_list),
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("merged 3 `bl` profiles"),
        "{}",
        run.stderr
    );
    let run = pcc_in(
        &root(),
        &[
            OsStr::new("profile"),
            OsStr::new("merge"),
            os(&runs[0]),
            os(&runs[1]),
            os(&runs[2]),
            "-o".as_ref(),
            os(&by_name),
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let read = |p: &Path| json(&std::fs::read_to_string(p).unwrap())["functions"].clone();
    assert_eq!(read(&by_list), read(&by_name));
    let missing = format!("@{}", scratch.path("none.txt").display());
    let run = pcc_in(
        &root(),
        &[
            OsStr::new("profile"),
            OsStr::new("merge"),
            missing.as_ref(),
            "-o".as_ref(),
            os(&by_list),
        ],
    );
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains("cannot read the list of profiles"),
        "{}",
        run.stderr
    );
}

// A profile file is untrusted input (issue 52): what it names as its source is shown only when it
// has the profiled bytes, only regular files are read, and what a report prints of a profile is
// escaped.

/// `add_even.10.bl.json` with its program and source path set to `source` (its hash stays the
/// add_even.pl one) and `edit` applied, written to `dir/name`.
fn profile_naming(dir: &Scratch, name: &str, source: &str, edit: impl Fn(&mut Value)) -> PathBuf {
    let mut profile = common::read_json(&fixture("add_even.10.bl.json"));
    profile["program"] = source.into();
    profile["source"]["path"] = source.into();
    edit(&mut profile);
    let path = dir.path(name);
    std::fs::write(&path, profile.to_string()).unwrap();
    path
}

/// Runs `pcc ARGS` in `dir`, which must end within `seconds` (a source that blocks a reader
/// would hang the test): killed and failed after that.
fn pcc_within<S: AsRef<OsStr>>(dir: &Path, args: &[S], seconds: u64) -> Run {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_pcc"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(seconds) {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("pcc {:?} still runs after {seconds} s", args[0].as_ref());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let output = child.wait_with_output().unwrap();
    let run = Run {
        status: output.status.code().expect("pcc ends by itself"),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    run
}

/// Every command that reads a profile's source, on the profile `p`, from `dir`: (command,
/// status, stdout, stderr).
fn source_readers(dir: &Scratch, p: &Path) -> Vec<(&'static str, Run)> {
    let p = p.to_str().unwrap();
    let program = root().join("programs/add_even.pl");
    let program = program.to_str().unwrap();
    let html = dir.file("report.html");
    let commands: [(&str, Vec<&str>); 7] = [
        ("show", vec!["profile", "show", p]),
        ("diff", vec!["profile", "diff", p, p]),
        ("annotate", vec!["profile", "annotate", p]),
        ("export", vec!["profile", "export", p, "--format", "lcov"]),
        ("report", vec!["profile", "report", p, "-o", &html]),
        (
            "paths",
            vec!["paths", program, "--format", "dot", "--profile", p],
        ),
        ("merge", vec!["profile", "merge", p, p, "-o", "m.json"]),
    ];
    commands
        .into_iter()
        .map(|(name, args)| (name, pcc_within(&dir.0, &args, 10)))
        .collect()
}

fn a_source_without_the_profiled_bytes_is_never_shown() {
    let dir = Scratch::new("other-bytes");
    // The profile names lines up to 16: a file that has them, but not the profiled bytes.
    let secret: String = (1..=20).map(|n| format!("SECRET {n}\n")).collect();
    std::fs::write(dir.path("secret.txt"), &secret).unwrap();
    let mut sources = vec![dir.file("secret.txt")];
    if Path::new("/etc/passwd").is_file() {
        sources.push("/etc/passwd".to_string());
    }
    for source in &sources {
        let p = profile_naming(&dir, "p.json", source, |_| {});
        let why = format!(
            "the source {source} has changed since the profile was written (hash mismatch); \
             re-run the program to profile it again"
        );
        let text = std::fs::read_to_string(source).unwrap();
        let first = text.lines().next().unwrap();
        for (command, run) in source_readers(&dir, &p) {
            let all = format!("{}{}", run.stdout, run.stderr);
            assert!(!all.contains(first), "{command} shows {source}: {all}");
            let html = std::fs::read_to_string(dir.path("report.html")).unwrap_or_default();
            assert!(!html.contains(first), "report shows {source}");
            let (status, message) = match command {
                // A report of the profile without the text of its lines.
                "show" | "diff" | "merge" => (0, format!("warning: {}: {why}", p.display())),
                // Views of the source: nothing to show.
                _ => (1, format!("error: {}: {why}", p.display())),
            };
            assert_eq!(run.status, status, "{command}: {}", run.stderr);
            assert!(
                run.stderr.starts_with(&message),
                "{command}: expected `{message}`, got `{}`",
                run.stderr
            );
        }
    }
}

/// A FIFO would block every reader forever and `/dev/zero` never ends; `/proc` files are
/// made up as they are read. None is read: each command ends at once, saying why.
fn a_source_that_is_not_a_regular_file_is_refused_at_once() {
    let dir = Scratch::new("special-source");
    let fifo = dir.file("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let big = dir.path("big.pl");
    std::fs::File::create(&big)
        .unwrap()
        .set_len((64 << 20) + 1)
        .unwrap();
    let cases = [
        (
            fifo.clone(),
            "it is a FIFO (named pipe), not a regular file",
        ),
        (
            "/dev/zero".into(),
            "it is a character device, not a regular file",
        ),
        (
            "/proc/self/environ".into(),
            "it is a file of /proc, made up by the kernel, not a regular file",
        ),
        (
            dir.file("big.pl"),
            "it is larger than 64 MiB, the most a source file may have",
        ),
    ];
    for (source, why) in &cases {
        let p = profile_naming(&dir, "p.json", source, |_| {});
        let message = format!(
            "{}: cannot read the profiled source {source}: {why}\n",
            p.display()
        );
        for (command, run) in source_readers(&dir, &p) {
            let (status, kind) = match command {
                "show" | "diff" | "merge" => (0, "warning"),
                _ => (1, "error"),
            };
            assert_eq!(run.status, status, "{command} {source}: {}", run.stderr);
            assert!(
                run.stderr.starts_with(&format!("{kind}: {message}")),
                "{command} {source}: {}",
                run.stderr
            );
        }
    }
}

/// `$'\e]0;PWNED\a3'` as a program argument sets a terminal's title if printed as it is; so
/// does a source line. Reports escape them; a function name can only be an identifier.
fn terminal_escapes_in_a_profile_do_not_reach_the_terminal() {
    let dir = Scratch::new("escapes");
    std::fs::write(
        dir.path("esc.pl"),
        "fn main() {\n    println(arg(0)); // \u{1b}]0;PWNED\u{7}\n}\n",
    )
    .unwrap();
    let title = "\u{1b}]0;PWNED\u{7}3";
    let run = pcc_in(
        &dir.0,
        &["run", "esc.pl", "--profile=bl", "--", title, "a\nb"],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let p = "esc.bl.profile.json";
    let escaped_args = "(args: \\e]0;PWNED\\x073 a\\nb)";
    let escaped_line = "      2 |     println(arg(0)); // \\e]0;PWNED\\x07";
    for (args, expected) in [
        (vec!["profile", "show", p], vec![escaped_args, escaped_line]),
        (vec!["profile", "diff", p, p], vec![]),
        (
            vec!["profile", "annotate", p],
            vec![
                escaped_args,
                "    2 |     println(arg(0)); // \\e]0;PWNED\\x07",
            ],
        ),
    ] {
        let run = pcc_in(&dir.0, &args);
        assert_eq!(run.status, 0, "{args:?}: {}", run.stderr);
        for text in [&run.stdout, &run.stderr] {
            assert!(
                !text.contains(['\u{1b}', '\u{7}']),
                "{args:?} prints a control character: {text:?}"
            );
        }
        for expected in expected {
            assert!(run.stdout.contains(expected), "{args:?}: {}", run.stdout);
        }
    }
    // A function name is refused, and the message escapes it.
    let p = profile_naming(&dir, "named.json", "esc.pl", |p| {
        p["functions"][0]["name"] = "add_\u{1b}]0;PWNED\u{7}even".into();
    });
    let run = profile(&[OsStr::new("show"), os(&p)]);
    assert_eq!(run.status, 1);
    assert_eq!(
        run.stderr,
        format!(
            "error: {}: invalid profile: function name \"add_\\e]0;PWNED\\x07even\" is not an \
             identifier\n",
            p.display()
        )
    );
}

/// The compiler takes a function name of any length; a name of 70,000 characters made
/// `show` and `aodf` panic (a format width over `u16::MAX`). Table columns are cut at 80.
fn function_names_of_any_length_fit_the_tables() {
    let dir = Scratch::new("long-name");
    let long = "f".repeat(70_000);
    let cut = format!("{}…", "f".repeat(79));
    let program = root().join("programs/add_even.pl");
    let program = program.to_str().unwrap();
    let bl = profile_naming(&dir, "bl.json", program, |p| {
        p["functions"][0]["name"] = long.as_str().into();
    });
    let run = pcc_in(&dir.0, &[OsStr::new("profile"), "show".as_ref(), os(&bl)]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains(&format!("  1  41.67%      5  {cut}     0  5 6 7 9\n")),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains(&long));
    let json = pcc_in(
        &dir.0,
        &[
            OsStr::new("profile"),
            "show".as_ref(),
            os(&bl),
            "--format".as_ref(),
            "json".as_ref(),
        ],
    );
    assert_eq!(
        common::json(&json.stdout)["paths"][0]["function"],
        long.as_str()
    );

    // aodf: a tpp profile with that function (not in the program: left out).
    let bl = profile_naming(&dir, "bl.json", program, |_| {});
    let tpp = profile_naming(&dir, "tpp.json", program, |p| {
        p["mode"] = "tpp".into();
        let mut extra = p["functions"][1].clone();
        extra["name"] = long.as_str().into();
        p["functions"].as_array_mut().unwrap().push(extra);
        for f in p["functions"].as_array_mut().unwrap() {
            f["bl_fallback"] = true.into();
        }
    });
    let run = pcc_in(
        &dir.0,
        &[OsStr::new("profile"), "aodf".as_ref(), os(&tpp), os(&bl)],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(&format!(
            "  {cut}  left out: the program has no such function\n"
        )),
        "{}",
        run.stdout
    );
}

/// Issue 52: counts that add up past 2^64 − 1 stay there, and `merge` says so on stderr rather
/// than write the saturated counts silently.
fn merge_warns_when_a_count_saturates() {
    let dir = Scratch::new("saturate");
    let source = root().join("programs/add_even.pl");
    let write = |name: &str, count: u64| {
        let mut profile = common::read_json(&fixture("add_even.10.bl.json"));
        profile["source"]["path"] = source.to_str().unwrap().into();
        let add_even = profile["functions"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|f| f["name"] == "add_even")
            .unwrap();
        add_even["paths"][0]["count"] = count.into();
        std::fs::write(dir.path(name), profile.to_string()).unwrap();
    };
    write("a.json", u64::MAX - 1);
    write("b.json", 2);
    let run = pcc_in(
        &dir.0,
        &["profile", "merge", "a.json", "b.json", "-o", "m.json"],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(
            "warning: counts saturated at 18446744073709551615 (2^64 - 1) in `add_even`: their \
             sums are larger, the merged profile holds 2^64 - 1 instead\n"
        ),
        "{}",
        run.stderr
    );
    let merged = common::read_json(&dir.path("m.json"));
    let counts = path_counts(function(&merged, "add_even"));
    assert!(counts.iter().any(|&(_, c)| c == u64::MAX), "{counts:?}");
    // No warning when nothing saturates.
    write("b.json", 0);
    let run = pcc_in(
        &dir.0,
        &["profile", "merge", "a.json", "b.json", "-o", "m.json"],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(!run.stderr.contains("saturated"), "{}", run.stderr);
}

/// `pcc profile show` fits `COLUMNS` (its notes wrap under their column), keeps the `--top`
/// functions with the most executions, and says how many it left out.
fn show_fits_columns_and_top_limits_the_function_table() {
    use std::process::Command;
    let scratch = Scratch::new("show-width");
    let show = |columns: &str, top: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_pcc"))
            .args(["profile", "show"])
            .arg(fixture("add_even.truncated.bl.json"))
            .args(["--top", top])
            .env("COLUMNS", columns)
            .current_dir(&scratch.0)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let narrow = show("60", "1");
    let table = &narrow[narrow.find("\nfunctions (").unwrap()..];
    assert!(table.lines().all(|l| l.chars().count() <= 60), "{table}");
    assert!(table.contains("\n  add_even "), "{table}");
    assert!(!table.contains("\n  main "), "{table}");
    assert!(
        table.contains("(1 function with fewer executions not shown)"),
        "{table}"
    );
    // The header still counts every function and every executed path.
    assert!(
        narrow.contains("path executions in 2 functions"),
        "{narrow}"
    );
    // The notes, wrapped, start in their column on every line.
    let column = table.lines().nth(2).unwrap().find("notes").unwrap();
    let notes: Vec<&str> = table
        .lines()
        .skip(3)
        .take_while(|l| !l.starts_with("  ("))
        .collect();
    assert!(notes.len() >= 2, "{table}");
    assert!(
        notes[1..].iter().all(|l| l[..column].trim().is_empty()),
        "{table}"
    );
    // Wide enough: one line per function, both listed.
    let wide = show("200", "5");
    assert!(
        wide.contains("array    truncated path numbering\n"),
        "{wide}"
    );
    assert!(wide.contains("\n  main "), "{wide}");
}

/// `--color`: `always` colours a compile error in a pipe, `auto` does not, nor does `always`
/// touch the JSON form; `NO_COLOR=` (empty) leaves `auto` as it is (no-color.org).
fn color_follows_the_flag_no_color_and_term() {
    use std::process::Command;
    let scratch = Scratch::new("color");
    std::fs::write(scratch.path("bad.pl"), "fn main() {\n    let x = 1 +;\n}\n").unwrap();
    let check = |args: &[&str], env: &[(&str, &str)]| {
        let out = Command::new(env!("CARGO_BIN_EXE_pcc"))
            .args(args)
            .envs(env.iter().copied())
            .current_dir(&scratch.0)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        String::from_utf8(out.stderr).unwrap()
    };
    let always = check(&["--color", "always", "check", "bad.pl"], &[]);
    assert!(always.contains("\x1b["), "{always}");
    assert!(always.contains("bad.pl:2:16"), "{always}");
    let plain = check(&["check", "bad.pl", "--color", "auto"], &[("NO_COLOR", "")]);
    assert!(!plain.contains('\x1b'), "{plain}");
    assert!(!check(&["check", "bad.pl", "--color", "never"], &[]).contains('\x1b'));
    let json = check(
        &[
            "--color",
            "always",
            "check",
            "bad.pl",
            "--error-format",
            "json",
        ],
        &[],
    );
    assert!(!json.contains('\x1b'), "{json}");
}

/// This file's tests (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        diff_compares_schemes_that_list_ball_larus_paths,
        diff_top_and_min_count_keep_the_largest_differences,
        merge_reads_lists_of_profiles,
        show_ranks_paths_hottest_first_with_shares_and_source,
        show_top_n_keeps_the_hottest,
        show_json_has_the_same_data,
        show_ranks_edges_of_edge_profiles,
        show_flags_truncated_functions,
        show_without_the_source_lists_line_numbers_and_says_why_once,
        merge_sums_counts,
        merge_refuses_profiles_of_different_code,
        diff_lists_paths_only_in_a_only_in_b_and_changed,
        diff_json_has_the_same_data,
        diff_refuses_stale_functions_and_compares_the_others,
        diff_compares_edge_profiles_edge_by_edge,
        diff_refuses_profiles_of_different_modes,
        bad_files_are_refused_by_every_command,
        y2k_diff_finds_the_paths_that_appear_after_1999,
        merge_of_two_real_runs_adds_their_counts,
        a_source_without_the_profiled_bytes_is_never_shown,
        a_source_that_is_not_a_regular_file_is_refused_at_once,
        terminal_escapes_in_a_profile_do_not_reach_the_terminal,
        function_names_of_any_length_fit_the_tables,
        merge_warns_when_a_count_saturates,
        show_fits_columns_and_top_limits_the_function_table,
        color_follows_the_flag_no_color_and_term
    ]
}
