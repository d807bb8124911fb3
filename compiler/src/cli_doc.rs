//! docs/CLI.md's option tables, generated from clap's definitions of the command line, and the
//! tests that keep the two the same: `pcc help COMMAND` and docs/CLI.md say the same.
//!
//! Every command (`pcc run`, `pcc profile show`, …) has a section in docs/CLI.md whose heading
//! is the command in backquotes; in it, between `<!-- options pcc run -->` and
//! `<!-- end options -->`, the command's summary and its options as [`block`] renders them. The
//! global options (`--color`) have one such block, `<!-- options pcc -->`, in "Every command".
//! `PCC_BLESS=1 cargo test -p pcc --bin pcc` rewrites the blocks from clap.

use std::path::PathBuf;

use clap::{Arg, Command, CommandFactory};

use crate::Cli;

const END: &str = "<!-- end options -->";

/// docs/CLI.md, found from the `pcc` crate's manifest.
fn cli_md() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/CLI.md")
}

fn begin(name: &str) -> String {
    format!("<!-- options {name} -->")
}

/// The command line as `pcc --help` sees it (with global options propagated and `--help` added).
fn cli() -> Command {
    let mut cli = Cli::command();
    cli.build();
    cli
}

/// Every command with its full name (`pcc`, `pcc run`, `pcc profile`, `pcc profile show`, …),
/// depth first in clap's order, without clap's `help` commands.
fn commands() -> Vec<(String, Command)> {
    fn walk(name: String, command: &Command, out: &mut Vec<(String, Command)>) {
        out.push((name.clone(), command.clone()));
        for sub in command.get_subcommands() {
            if sub.get_name() != "help" && !sub.is_hide_set() {
                walk(format!("{name} {}", sub.get_name()), sub, out);
            }
        }
    }
    let mut out = Vec::new();
    let cli = cli();
    walk(cli.get_name().to_string(), &cli, &mut out);
    out
}

/// One line of help text: clap's, its line breaks joined.
fn one_line(text: Option<&clap::builder::StyledStr>) -> String {
    let text = text.map(ToString::to_string).unwrap_or_default();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A table cell: `|` escaped, so that it does not end the cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The arguments a command's table lists: its own, visible ones (for `pcc` itself, the global
/// ones), positional arguments first, then options in `--help`'s order.
fn listed(command: &Command, root: bool) -> Vec<&Arg> {
    let mut args: Vec<&Arg> = command
        .get_arguments()
        .filter(|arg| !arg.is_hide_set())
        .filter(|arg| !matches!(arg.get_id().as_str(), "help" | "version"))
        .filter(|arg| arg.is_global_set() == root)
        .collect();
    args.sort_by_key(|arg| (!arg.is_positional(), arg.get_display_order()));
    args
}

/// How the argument is written: `` `--long` ``, `` `-o`, `--output` ``, `` `FILE` ``,
/// `` `PROFILES...` ``, `` `-- ARGS...` ``.
fn option(arg: &Arg) -> String {
    if arg.is_positional() {
        let name = arg
            .get_value_names()
            .and_then(|names| names.first())
            .map_or_else(|| arg.get_id().as_str().to_uppercase(), ToString::to_string);
        let many = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
        let dots = if many { "..." } else { "" };
        let dashes = if arg.is_last_set() { "-- " } else { "" };
        return format!("`{dashes}{name}{dots}`");
    }
    let short = arg.get_short().map(|c| format!("`-{c}`"));
    let long = arg.get_long().map(|name| format!("`--{name}`"));
    [short, long]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
}

/// The value an option takes: the possible values (`` `human\|json` ``), else its value name;
/// nothing for a flag or a positional argument.
fn value(arg: &Arg) -> String {
    if arg.is_positional() || !arg.get_action().takes_values() {
        return String::new();
    }
    let possible: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|value| !value.is_hide_set())
        .map(|value| value.get_name().to_string())
        .collect();
    if !possible.is_empty() {
        return format!("`{}`", cell(&possible.join("|")));
    }
    let names = arg.get_value_names().unwrap_or_default();
    let names: Vec<String> = names.iter().map(ToString::to_string).collect();
    format!("`{}`", cell(&names.join(" ")))
}

fn default(arg: &Arg) -> String {
    if !arg.get_action().takes_values() {
        return String::new();
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|value| value.to_string_lossy().into_owned())
        .collect();
    if defaults.is_empty() {
        String::new()
    } else {
        format!("`{}`", cell(&defaults.join(" ")))
    }
}

/// The table of a command's arguments, or of a command's commands.
fn table(command: &Command, root: bool) -> String {
    let args = listed(command, root);
    let mut out = String::new();
    if args.is_empty() && !command.has_subcommands() {
        out.push_str("No options of its own.\n");
    }
    if !args.is_empty() {
        out.push_str("| option | value | default | meaning |\n|---|---|---|---|\n");
        for arg in args {
            out.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                option(arg),
                value(arg),
                default(arg),
                cell(&one_line(arg.get_help()))
            ));
        }
    }
    if !root && command.has_subcommands() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("| command | meaning |\n|---|---|\n");
        for sub in command.get_subcommands() {
            if sub.get_name() != "help" && !sub.is_hide_set() {
                let about = cell(&one_line(sub.get_about()));
                out.push_str(&format!("| `{}` | {about} |\n", sub.get_name()));
            }
        }
    }
    out
}

/// What docs/CLI.md holds between a command's markers: the summary `pcc help` gives the command
/// and the table of its options (of `pcc` itself: only the table of the global options).
fn block(name: &str, command: &Command) -> String {
    let root = !name.contains(' ');
    if root {
        table(command, true)
    } else {
        format!(
            "{}\n\n{}",
            one_line(command.get_about()),
            table(command, false)
        )
    }
}

/// Where the text between a command's markers starts and ends in `doc`.
fn find_block(doc: &str, name: &str) -> Result<(usize, usize), String> {
    let marker = format!("{}\n", begin(name));
    let mut found = doc.match_indices(&marker);
    let Some((at, _)) = found.next() else {
        return Err(format!(
            "`pcc` has the command `{name}`, but docs/CLI.md has no `{}` block: add one (and \
             `{END}`) to the command's section and run with PCC_BLESS=1",
            begin(name)
        ));
    };
    if found.next().is_some() {
        return Err(format!("docs/CLI.md has two `{}` blocks", begin(name)));
    }
    let start = at + marker.len();
    let end = doc[start..]
        .find(END)
        .map(|n| start + n)
        .ok_or_else(|| format!("docs/CLI.md: `{}` has no `{END}` after it", begin(name)))?;
    Ok((start, end))
}

/// The names of the commands docs/CLI.md has option blocks for.
fn documented_blocks(doc: &str) -> Vec<String> {
    doc.lines()
        .filter_map(|line| line.strip_prefix("<!-- options ")?.strip_suffix(" -->"))
        .map(str::to_string)
        .collect()
}

/// Headings of docs/CLI.md as (byte offset, level, text), outside code blocks.
fn headings(doc: &str) -> Vec<(usize, usize, &str)> {
    let mut out = Vec::new();
    let mut offset = 0;
    let mut fenced = false;
    for line in doc.split_inclusive('\n') {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            let level = line.chars().take_while(|&c| c == '#').count();
            if line[level..].starts_with(' ') {
                out.push((offset, level, line[level..].trim()));
            }
        }
        offset += line.len();
    }
    out
}

#[test]
fn cli_md_option_tables_match_clap() {
    let path = cli_md();
    let doc = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let bless = std::env::var_os("PCC_BLESS").is_some();
    let commands = commands();
    let mut new_doc = doc.clone();
    let mut failures = Vec::new();
    let mut blocks = Vec::new();
    for (name, command) in &commands {
        match find_block(&doc, name) {
            Ok((start, end)) => blocks.push((start, end, name, block(name, command))),
            Err(message) => failures.push(message),
        }
    }
    blocks.sort_by_key(|&(start, ..)| start);
    for &(start, end, name, ref generated) in &blocks {
        let written = &doc[start..end];
        if written != generated && !bless {
            let line = doc[..start].lines().count() + 1;
            let diff = similar::TextDiff::from_lines(written, generated.as_str())
                .unified_diff()
                .header("docs/CLI.md", "clap (pcc help)")
                .to_string();
            failures.push(format!(
                "`{name}` (docs/CLI.md, line {line}): the options docs/CLI.md gives differ from \
                 clap's. PCC_BLESS=1 rewrites them; a wrong text is fixed in the `///` comments \
                 of compiler/src/main.rs.\n{diff}"
            ));
        }
    }
    if bless {
        // From the last block back, so that the earlier blocks' offsets stay right.
        for (start, end, _, generated) in blocks.iter().rev() {
            new_doc.replace_range(start..end, generated);
        }
    }
    let known: Vec<&str> = commands.iter().map(|(name, _)| name.as_str()).collect();
    for name in documented_blocks(&doc) {
        if !known.contains(&name.as_str()) {
            failures.push(format!(
                "docs/CLI.md has a `{}` block, but `pcc` has no command `{name}`",
                begin(&name)
            ));
        }
    }
    if bless && new_doc != doc {
        std::fs::write(&path, &new_doc)
            .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// Every command has a section whose heading is the command (`` ## `pcc run` ``, `pcc profile
/// show` under `pcc profile`), and its option block is in that section (before the next heading
/// of the same level or higher); the global options' block is in "Every command".
#[test]
fn every_command_has_a_section_in_cli_md() {
    let path = cli_md();
    let doc = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let headings = headings(&doc);
    let mut failures = Vec::new();
    for (name, _) in commands() {
        let title = if name.contains(' ') {
            format!("`{name}`")
        } else {
            "Every command".to_string()
        };
        let Some(i) = headings.iter().position(|&(_, _, text)| text == title) else {
            failures.push(format!(
                "docs/CLI.md has no section headed \"{title}\" for `{name}` (`##`, or `###` \
                 in its command's section)"
            ));
            continue;
        };
        let (start, level, _) = headings[i];
        let end = headings[i + 1..]
            .iter()
            .find(|&&(_, l, _)| l <= level)
            .map_or(doc.len(), |&(offset, ..)| offset);
        let inside = doc[start..end].contains(&format!("{}\n", begin(&name)));
        if !inside {
            failures.push(format!(
                "docs/CLI.md's section {title} has no `{}` block for `{name}`'s options",
                begin(&name)
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// `pcc help` has a text for every option and command: a new one without a `///` comment fails.
#[test]
fn every_option_and_command_has_help() {
    let mut missing = Vec::new();
    for (name, command) in commands() {
        if name.contains(' ') && one_line(command.get_about()).is_empty() {
            missing.push(format!("`{name}` has no summary"));
        }
        for arg in listed(&command, !name.contains(' ')) {
            if one_line(arg.get_help()).is_empty() {
                missing.push(format!("`{name}`: {} has no help text", option(arg)));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "add a `///` comment in compiler/src/main.rs:\n{}",
        missing.join("\n")
    );
}
