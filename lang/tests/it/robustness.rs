//! The front end never panics: random bytes, token soup, mangled programs, token-level
//! mutations of every program of `programs/` and absurd nesting all come back as diagnostics
//! (or a program), and every diagnostic renders with a location.

use pcc_lang::{check, check_bytes};
use proptest::prelude::*;

const VALID: &str = r#"struct Node { key: int, left: Node, right: Node }
let SEED: int = 74755;
let NAMES: [str] = ["a", "b"];
fn insert(t: Node, k: int) -> Node {
    if t == null { return new Node { key: k, left: null, right: null }; }
    if k < t.key { t.left = insert(t.left, k); } else if k > t.key { t.right = insert(t.right, k); }
    return t;
}
fn classify(x: int) -> str {
    match x { 0 => { return "zero"; } 1 | -2 => { return "small"; } _ => { return "big"; } }
}
fn main() -> int {
    let root: Node = null;
    let grid = [[0; 3]; 4];
    for i in 0..10 { root = insert(root, (i * SEED) % 17); grid[i % 4][i % 3] += i; }
    let s = "x\t\x41" + str(1.5) + classify(len(NAMES));
    while true { if s != "" { break; } }
    println(root, grid, s, abs(-3), min(1.0, 2.0), ~5 << 2 >> 1 & 3 | 4 ^ 1, !true || false && 1 <= 2);
    return 0;
}
"#;

const FRAGMENTS: &[&str] = &[
    "fn",
    "main",
    "(",
    ")",
    "{",
    "}",
    "let",
    "x",
    "=",
    "1",
    ";",
    "if",
    "else",
    "while",
    "for",
    "in",
    "0..10",
    "..",
    "match",
    "_",
    "=>",
    "|",
    "-",
    "new",
    "Node",
    ":",
    "int",
    "[",
    "]",
    "struct",
    "return",
    "break",
    "continue",
    "null",
    "true",
    "\"s\"",
    "1.5",
    ",",
    ".",
    "+=",
    "<",
    "==",
    "&&",
    "||",
    "println",
    "len",
    "/*",
    "*/",
    "//",
    "\n",
    "\"",
    "\\",
    "0x",
    "->",
    "9223372036854775808",
    "é",
    "@",
    "1e999",
    "[0; 3]",
    "x[0]",
    "p.key",
    "f(x)",
    "~",
    "!",
    "<<=",
    "exit(1)",
    "\\x4",
    "str",
    "float",
];

/// Checks some bytes, renders whatever comes back, and returns whether they were accepted.
/// Valid UTF-8 is also analyzed as an editor would (the checker then runs after syntax errors
/// too): the same diagnostics, and an index whose spans lie in the text.
fn check_and_render(bytes: &[u8]) -> bool {
    if let Ok(source) = std::str::from_utf8(bytes) {
        let messages = |result: &Result<_, pcc_lang::Diagnostics>| match result {
            Ok(_) => Vec::new(),
            Err(diagnostics) => diagnostics.iter().cloned().collect::<Vec<_>>(),
        };
        let (analyzed, index) = pcc_lang::analyze("fuzz.pl", source);
        assert_eq!(messages(&analyzed), messages(&check("fuzz.pl", source)));
        let spans = index.symbols.iter().map(|s| s.span);
        for span in spans.chain(index.uses.iter().map(|u| u.0)) {
            assert!(
                span.lo <= span.hi && span.hi as usize <= source.len(),
                "{span:?}"
            );
        }
    }
    match check_bytes("fuzz.pl", bytes) {
        Ok(_) => true,
        Err(diagnostics) => {
            assert!(!diagnostics.is_empty());
            let rendered = diagnostics.render_bytes("fuzz.pl", bytes);
            assert!(rendered.starts_with("error: "), "{rendered}");
            assert!(rendered.contains("--> fuzz.pl:"), "no location: {rendered}");
            false
        }
    }
}

#[test]
fn the_sample_program_is_valid() {
    assert!(check_and_render(VALID.as_bytes()));
}

// 256 cases each by default; set PROPTEST_CASES for a longer run.
proptest! {
    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check_and_render(&bytes);
    }

    #[test]
    fn token_soup(
        tokens in proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..80),
        glue in proptest::sample::select(&[" ", "", "\n"][..]),
    ) {
        check_and_render(tokens.join(glue).as_bytes());
    }

    #[test]
    fn shuffled_lines(lines in Just(VALID.lines().collect::<Vec<_>>()).prop_shuffle()) {
        check_and_render(lines.join("\n").as_bytes());
    }

    #[test]
    fn mangled_program(cuts in proptest::collection::vec((0..VALID.len(), 0..12usize), 1..6)) {
        let mut bytes = VALID.as_bytes().to_vec();
        for (at, len) in cuts {
            let at = at.min(bytes.len());
            let end = (at + len).min(bytes.len());
            if len % 2 == 0 {
                bytes.drain(at..end);
            } else {
                let copy = bytes[at..end].to_vec();
                bytes.splice(at..at, copy);
            }
        }
        check_and_render(&bytes);
    }
}

/// The programs of `programs/`, as the material of token-level mutations (read once).
static EXAMPLES: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(example_programs);

fn example_programs() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../programs");
    let mut sources: Vec<String> = std::fs::read_dir(&dir)
        .expect("programs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "pl"))
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect();
    sources.sort();
    assert!(sources.len() > 10, "programs/ has the examples");
    sources
}

/// A program split into tokens, roughly as the lexer sees it: words and numbers, string
/// literals, single punctuation characters, and the whitespace between them.
fn tokens(source: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        let mut token = c.to_string();
        let same_class = |a: char, b: char| {
            (a.is_alphanumeric() || a == '_') && (b.is_alphanumeric() || b == '_' || b == '.')
                || a.is_whitespace() && b.is_whitespace()
        };
        if c == '"' {
            for d in chars.by_ref() {
                token.push(d);
                if d == '"' {
                    break;
                }
            }
        } else {
            while let Some(&d) = chars.peek() {
                if !same_class(c, d) {
                    break;
                }
                token.push(d);
                chars.next();
            }
        }
        tokens.push(token);
    }
    tokens
}

/// A token-level edit: delete, duplicate, swap with another, or replace by a fragment.
#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Replace(usize, &'static str),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (any::<usize>(), proptest::sample::select(FRAGMENTS))
            .prop_map(|(a, f)| Mutation::Replace(a, f)),
    ]
}

fn mutate(mut tokens: Vec<String>, mutations: &[Mutation]) -> String {
    for m in mutations {
        let n = tokens.len().max(1);
        match *m {
            Mutation::Delete(i) if !tokens.is_empty() => {
                tokens.remove(i % n);
            }
            Mutation::Duplicate(i) if !tokens.is_empty() => {
                let t = tokens[i % n].clone();
                tokens.insert(i % n, t);
            }
            Mutation::Swap(a, b) if !tokens.is_empty() => tokens.swap(a % n, b % n),
            Mutation::Replace(i, fragment) if !tokens.is_empty() => tokens[i % n] = fragment.into(),
            _ => {}
        }
    }
    tokens.concat()
}

proptest! {
    // Token-level mutations of the example programs: mostly almost-valid programs, which reach
    // the parser's recovery and the type checker rather than the lexer.
    #[test]
    fn mutated_example_programs(
        program in any::<prop::sample::Index>(),
        mutations in proptest::collection::vec(mutation(), 1..4),
    ) {
        let source = &EXAMPLES[program.index(EXAMPLES.len())];
        check_and_render(mutate(tokens(source), &mutations).as_bytes());
    }
}

#[test]
fn tokens_concatenate_to_the_source() {
    for source in example_programs() {
        assert_eq!(tokens(&source).concat(), source);
    }
}

fn messages(source: &str) -> Vec<String> {
    match check("deep.pl", source) {
        Ok(_) => Vec::new(),
        Err(diagnostics) => diagnostics.iter().map(|d| d.message.clone()).collect(),
    }
}

#[test]
fn nesting_up_to_the_limit_checks() {
    let deep = |open: &str, inner: &str, close: &str, n: usize| {
        format!(
            "fn f(x: int) -> int {{ return x; }}\nfn main() {{ let x = 1; let y = {}{inner}{}; }}",
            open.repeat(n),
            close.repeat(n)
        )
    };
    for (open, inner, close) in [
        ("(", "1", ")"),
        ("f(", "1", ")"),
        ("-", "x", ""),
        ("[", "1", "]"),
        ("", "x", " + 1"),
    ] {
        assert_eq!(
            messages(&deep(open, inner, close, 240)),
            Vec::<String>::new(),
            "{open}"
        );
        assert_eq!(
            messages(&deep(open, inner, close, 100_000)),
            ["expression nested too deeply (the limit is 512 levels)"],
            "{open}"
        );
    }
    let blocks = |n: usize| {
        format!(
            "fn main() {{ let c = true; {}{} }}",
            "if c { ".repeat(n),
            "}".repeat(n)
        )
    };
    assert_eq!(messages(&blocks(120)), Vec::<String>::new());
    assert_eq!(
        messages(&blocks(100_000)),
        ["block nested too deeply (the limit is 512 levels)"]
    );
    let unclosed = format!("fn main() {{ {}", "{ (".repeat(100_000));
    assert_eq!(messages(&unclosed).len(), 1);
}

#[test]
fn invalid_utf8_is_a_diagnostic() {
    let bytes = b"fn main() {\n    println(\"caf\xe9\");\n}\n";
    let diagnostics = check_bytes("bad.pl", bytes).unwrap_err();
    assert_eq!(diagnostics.len(), 1);
    let rendered = diagnostics.render_bytes("bad.pl", bytes);
    assert!(rendered.contains("bad.pl:2:17"), "{rendered}");
    assert!(rendered.contains("not valid UTF-8"), "{rendered}");
}

#[test]
fn rendering_survives_a_mismatched_source() {
    let diagnostics = check("a.pl", "fn main() { let x: int = 1.5; }").unwrap_err();
    for source in ["", "é", "fn main() {}"] {
        assert!(diagnostics.render("a.pl", source).starts_with("error: "));
    }
}

#[test]
fn many_errors_are_capped_when_rendered() {
    let source = "@ ".repeat(300);
    let diagnostics = check("many.pl", &source).unwrap_err();
    assert_eq!(diagnostics.len(), 300);
    let rendered = diagnostics.render("many.pl", &source);
    assert_eq!(rendered.matches("error: unexpected character").count(), 100);
    assert!(rendered.ends_with("error: too many errors; 200 more not shown\n"));
}
