//! The editor files in editors/: valid JSON, and a TextMate grammar that highlights exactly the
//! reserved words of docs/LANGUAGE.md, its type names and its built-in functions.

use crate::common;

use std::collections::BTreeSet;

use pcc_lang::typed::Builtin;
use serde_json::Value;

fn read_json(path: &str) -> Value {
    let text = std::fs::read_to_string(common::root().join(path)).unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is not valid JSON: {e}"))
}

/// The words of the grammar's patterns in `repository.NAME` that are `\b(a|b|c)\b...`, by scope.
fn words(grammar: &Value, name: &str) -> Vec<(String, BTreeSet<String>)> {
    let patterns = grammar["repository"][name]["patterns"].as_array().unwrap();
    patterns
        .iter()
        .map(|p| {
            let pattern = p["match"].as_str().unwrap();
            let inner = pattern
                .strip_prefix("\\b(")
                .and_then(|rest| rest.split_once(")\\b"))
                .unwrap_or_else(|| panic!("{name}: `{pattern}` is not a word list"))
                .0;
            let scope = p["name"].as_str().unwrap().to_string();
            (scope, inner.split('|').map(str::to_string).collect())
        })
        .collect()
}

fn union(lists: &[(String, BTreeSet<String>)]) -> BTreeSet<String> {
    lists.iter().flat_map(|(_, w)| w.iter().cloned()).collect()
}

/// The reserved words as docs/LANGUAGE.md lists them ("Reserved words: `fn let ...`").
fn reserved_words() -> BTreeSet<String> {
    let doc = std::fs::read_to_string(common::root().join("docs/LANGUAGE.md")).unwrap();
    let start = doc.find("Reserved words: `").unwrap() + "Reserved words: `".len();
    let list = &doc[start..start + doc[start..].find('`').unwrap()];
    list.split_whitespace().map(str::to_string).collect()
}

fn the_grammar_knows_the_language() {
    let grammar = read_json("editors/pl.tmLanguage.json");
    assert_eq!(grammar["scopeName"], "source.pl");
    let keywords = words(&grammar, "keywords");
    let constants = words(&grammar, "constants");
    for (scope, _) in &keywords {
        assert!(scope.starts_with("keyword."), "{scope}");
    }
    for (scope, _) in &constants {
        assert!(scope.starts_with("constant.language."), "{scope}");
    }
    let mut highlighted = union(&keywords);
    highlighted.extend(union(&constants));
    assert_eq!(highlighted, reserved_words());

    let types = union(&words(&grammar, "types"));
    assert_eq!(
        types,
        ["bool", "float", "int", "map", "str"]
            .map(String::from)
            .into()
    );

    let builtins = union(&words(&grammar, "builtins"));
    let expected: BTreeSet<String> = Builtin::all().map(|b| b.name().to_string()).collect();
    assert_eq!(builtins, expected);

    // Every pattern the top level includes exists.
    for include in grammar["patterns"].as_array().unwrap() {
        let name = include["include"].as_str().unwrap().trim_start_matches('#');
        assert!(grammar["repository"].get(name).is_some(), "#{name}");
    }
}

fn the_vscode_extension_starts_pcc_lsp() {
    let package = read_json("editors/vscode/package.json");
    // The client is bundled (esbuild) into dist/, which `.vscodeignore` keeps alone in the package.
    assert_eq!(package["main"], "./dist/extension.js");
    assert!(
        package["scripts"]["bundle"]
            .as_str()
            .unwrap()
            .contains("extension.js --bundle")
    );
    assert!(package["publisher"].is_string() && package["license"] == "MIT");
    let ignore =
        std::fs::read_to_string(common::root().join("editors/vscode/.vscodeignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "node_modules/**"));
    for file in ["README.md", "LICENSE"] {
        assert!(
            common::root().join("editors/vscode").join(file).is_file(),
            "{file}"
        );
    }
    assert_eq!(
        package["contributes"]["languages"][0]["extensions"][0],
        ".pl"
    );
    assert_eq!(
        package["contributes"]["grammars"][0]["scopeName"],
        "source.pl"
    );
    assert!(package["dependencies"]["vscode-languageclient"].is_string());
    let configuration = read_json("editors/vscode/language-configuration.json");
    assert_eq!(configuration["comments"]["lineComment"], "//");
    let extension =
        std::fs::read_to_string(common::root().join("editors/vscode/extension.js")).unwrap();
    assert!(extension.contains("args: ['lsp']"));
}

/// The Vim/Neovim syntax file highlights the grammar's words: the same keywords, constants,
/// types and built-ins, so the two cannot drift apart.
fn the_vim_syntax_has_the_grammars_words() {
    let grammar = read_json("editors/pl.tmLanguage.json");
    let vim = std::fs::read_to_string(common::root().join("editors/vim/syntax/pl.vim")).unwrap();
    let mut keywords = BTreeSet::new();
    for line in vim.lines() {
        if let Some(rest) = line.strip_prefix("syn keyword ") {
            keywords.extend(rest.split_whitespace().skip(1).map(str::to_string));
        }
    }
    let mut expected = union(&words(&grammar, "keywords"));
    expected.extend(union(&words(&grammar, "constants")));
    expected.extend(union(&words(&grammar, "types")));
    assert_eq!(keywords, expected);
    let builtins = vim
        .lines()
        .find_map(|l| l.strip_prefix("syn match plBuiltin \"\\<\\("))
        .and_then(|rest| rest.split_once("\\)\\>"))
        .map(|(list, _)| {
            list.split("\\|")
                .map(str::to_string)
                .collect::<BTreeSet<_>>()
        })
        .expect("a plBuiltin match");
    assert_eq!(builtins, union(&words(&grammar, "builtins")));
    let detect =
        std::fs::read_to_string(common::root().join("editors/vim/ftdetect/pl.vim")).unwrap();
    assert!(detect.contains("*.pl set filetype=pl"));
}

/// ARCHITECTURE.md names files and folders, not functions: every path it writes (a backquoted
/// word with a `/`, from the repository's root or from `compiler/src/`) exists.
fn every_path_architecture_names_exists() {
    let root = common::root();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let mut named = 0;
    for (i, word) in text.split('`').enumerate() {
        let is_path = i % 2 == 1 && word.contains('/') && !word.contains(char::is_whitespace);
        if !is_path {
            continue;
        }
        let path = word.trim_end_matches('/');
        let found = [root.join(path), root.join("compiler/src").join(path)]
            .iter()
            .any(|p| p.exists());
        assert!(
            found,
            "ARCHITECTURE.md names `{word}`, which does not exist"
        );
        named += 1;
    }
    assert!(named > 20, "only {named} paths");
}

/// This file's tests (`tests/main.rs` runs them).
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        the_grammar_knows_the_language,
        the_vscode_extension_starts_pcc_lsp,
        the_vim_syntax_has_the_grammars_words,
        every_path_architecture_names_exists
    ]
}
