//! What the generated programs exercise: the MIR statement and terminator kinds of their code as
//! lowered (`pcc run --emit mir`), and the optimizer's transforms on them: activation regions,
//! bounds checks removed, reads made readonly and calls inlined at `-O 2`, and what
//! `--use-profile` with each program's own `kbl` profile changed (cold blocks, hot call sites,
//! unrolled loops, superblocks), from its report.

use std::collections::BTreeMap;

use crate::check::Runner;
use crate::generate::{ARGS, STDIN};

/// Counts by kind, summed over programs.
#[derive(Default)]
pub struct Coverage {
    pub kinds: BTreeMap<&'static str, u64>,
    pub programs: u64,
}

impl Coverage {
    fn add(&mut self, kind: &'static str, n: u64) {
        *self.kinds.entry(kind).or_default() += n;
    }

    /// Measures one program (written to `runner.dir`).
    pub fn measure(&mut self, runner: &Runner, source: &str) {
        let dir = &runner.dir;
        if std::fs::write(dir.join("prog.pl"), source).is_err()
            || std::fs::write(dir.join("stdin.txt"), STDIN).is_err()
        {
            return;
        }
        self.programs += 1;
        let emit = |level: &str| {
            let out = std::process::Command::new(&runner.pcc)
                .args(["run", "prog.pl", level, "--emit", "mir"])
                .current_dir(dir)
                .output()
                .ok()?;
            Some(String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let (Some(lowered), Some(optimized)) = (emit("-O1"), emit("-O2")) else {
            return;
        };
        let lowered_kinds = statement_kinds(&lowered);
        for (&kind, &n) in &lowered_kinds {
            self.add(kind, n);
        }
        let optimized_kinds = statement_kinds(&optimized);
        let get = |m: &BTreeMap<&str, u64>, k: &str| m.get(k).copied().unwrap_or(0);
        self.add(
            "opt: calls inlined",
            get(&lowered_kinds, "call (function)")
                .saturating_sub(get(&optimized_kinds, "call (function)")),
        );
        self.add(
            "opt: activation regions",
            optimized.matches("region_mark()").count() as u64,
        );
        self.add(
            "opt: bounds checks removed",
            optimized.matches("unchecked ").count() as u64,
        );
        self.add(
            "opt: reads readonly (versioned loops)",
            optimized.matches("unchecked readonly ").count() as u64,
        );
        self.add(
            "opt: blocks removed (folding, CFG simplification)",
            count(&lowered, "  bb").saturating_sub(count(&optimized, "  bb")),
        );
        self.add(
            "opt: branches folded",
            get(&lowered_kinds, "term: branch")
                .saturating_sub(get(&optimized_kinds, "term: branch")),
        );
        // Profile-guided: the program's own kbl profile.
        let run = |flags: &[&str]| {
            let mut command = std::process::Command::new(&runner.pcc);
            command
                .args(["run", "prog.pl"])
                .args(flags)
                .arg("--")
                .args(ARGS)
                .current_dir(dir);
            command.stdin(std::fs::File::open(dir.join("stdin.txt")).ok()?);
            command.output().ok()
        };
        if run(&["--profile=kbl", "--profile-out", "cov.kbl.json"]).is_none() {
            return;
        }
        let Some(guided) = run(&["-O2", "--use-profile", "cov.kbl.json"]) else {
            return;
        };
        let report = String::from_utf8_lossy(&guided.stderr);
        for (needle, kind) in [
            ("cold blocks out of line", "pgo: functions with cold blocks"),
            ("hot call sites", "pgo: functions with hot call sites"),
            ("unrolled", "pgo: loops unrolled"),
            ("superblocks:", "pgo: functions with superblocks"),
        ] {
            self.add(kind, report.matches(needle).count() as u64);
        }
    }
}

fn count(text: &str, needle: &str) -> u64 {
    text.lines().filter(|l| l.starts_with(needle)).count() as u64
}

/// The kind of each statement and terminator of `--emit mir` text.
pub fn statement_kinds(mir: &str) -> BTreeMap<&'static str, u64> {
    let mut kinds = BTreeMap::new();
    for line in mir.lines() {
        let code = line.split("//").next().unwrap_or("").trim();
        if !line.starts_with("    ") || code.is_empty() || code.starts_with("let ") {
            continue;
        }
        *kinds.entry(kind_of(code)).or_default() += 1;
    }
    kinds
}

fn kind_of(code: &str) -> &'static str {
    for (prefix, kind) in [
        ("goto ", "term: goto"),
        ("branch ", "term: branch"),
        ("switch ", "term: switch"),
        ("return", "term: return"),
        ("unreachable", "term: unreachable"),
    ] {
        if code.starts_with(prefix) {
            return kind;
        }
    }
    let Some((target, value)) = code.split_once(" = ") else {
        return if is_call(code) {
            call_kind(code)
        } else {
            "other"
        };
    };
    if target.starts_with('@') {
        return "set global";
    }
    if target.contains('[') {
        return "set index";
    }
    if target.contains('.') {
        return "set field";
    }
    let value = value
        .trim_start_matches("unchecked ")
        .trim_start_matches("readonly ");
    if is_call(value) {
        return call_kind(value);
    }
    if value.starts_with('@') {
        "read global"
    } else if value.starts_with("new ") {
        "new struct"
    } else if value.starts_with('[') && value.contains("; ") {
        "array repeat"
    } else if value.starts_with('[') {
        "array literal"
    } else if value.contains('[') {
        "index"
    } else if value.starts_with('_') && value.contains('.') {
        "field"
    } else if value.split(' ').count() == 3 {
        "binary"
    } else if value.starts_with(['-', '!', '~'])
        && !value[1..].starts_with(|c: char| c.is_ascii_digit())
    {
        "unary"
    } else {
        "use"
    }
}

/// `name(args)` with a name that is not a local.
fn is_call(code: &str) -> bool {
    code.find('(').is_some_and(|i| {
        let name = &code[..i];
        !name.is_empty()
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !name.starts_with('_')
    })
}

/// Builtins are the callees named in the language; the generator's functions are `fN`/`leafN`.
fn call_kind(code: &str) -> &'static str {
    let name = &code[..code.find('(').unwrap_or(0)];
    let user = (name.starts_with('f') || name.starts_with("leaf"))
        && name
            .trim_start_matches("leaf")
            .trim_start_matches('f')
            .chars()
            .all(|c| c.is_ascii_digit())
        && name != "floor";
    if user {
        "call (function)"
    } else {
        "call (builtin)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_mir_lines() {
        let mir = "fn f1(_0: int) -> int {\n    let _1: int; // s\n  bb0:\n    _2 = @FUEL  // line 8\n    \
                   _3 = _2 - 1\n    @FUEL = _3\n    _4 = f1(_3)\n    println(_4)\n    _5 = unchecked _6[_3]\n    \
                   _6[_3] = 1\n    _7 = _8.v\n    _8.w = 1.0\n    _9 = [0; 3]\n    _9 = [1, 2]\n    \
                   _10 = new P { v: 1 }\n    _11 = -_3\n    _12 = -1\n    _13 = floor(_1)\n    \
                   branch _5 ? bb1 : bb2\n    return _4\n}\n";
        let kinds = statement_kinds(mir);
        let expected: BTreeMap<&str, u64> = [
            ("read global", 1),
            ("binary", 1),
            ("set global", 1),
            ("call (function)", 1),
            ("call (builtin)", 2),
            ("index", 1),
            ("set index", 1),
            ("field", 1),
            ("set field", 1),
            ("array repeat", 1),
            ("array literal", 1),
            ("new struct", 1),
            ("unary", 1),
            ("use", 1),
            ("term: branch", 1),
            ("term: return", 1),
        ]
        .into_iter()
        .collect();
        assert_eq!(kinds, expected);
    }
}
