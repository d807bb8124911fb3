//! Golden diagnostics: every `tests/errors/NAME.pl` of the workspace must fail to check, and
//! render exactly `NAME.stderr` (what `pcc` prints). Run with `PCC_BLESS=1` to (re)write the
//! `.stderr` files — then read each one before keeping it.

use std::fs;
use std::path::{Path, PathBuf};

fn error_programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/errors");
    let mut programs: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "pl"))
        .collect();
    programs.sort();
    programs
}

#[test]
fn error_programs_render_their_stderr() {
    let bless = std::env::var_os("PCC_BLESS").is_some();
    let programs = error_programs();
    assert!(
        programs.len() >= 45,
        "only {} error programs",
        programs.len()
    );
    let mut failures = Vec::new();
    for path in &programs {
        let file_name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("file name");
        let bytes = fs::read(path).expect("read program");
        let rendered = match pcc_lang::check_bytes(file_name, &bytes) {
            Ok(_) => {
                failures.push(format!("{file_name}: checked without errors"));
                continue;
            }
            Err(diagnostics) => diagnostics.render_bytes(file_name, &bytes),
        };
        let stderr_path = path.with_extension("stderr");
        if bless {
            fs::write(&stderr_path, &rendered).expect("write .stderr");
            fs::write(path.with_extension("stdout"), "").expect("write .stdout");
            fs::write(path.with_extension("exit"), "1\n").expect("write .exit");
            continue;
        }
        let expected = fs::read_to_string(&stderr_path).unwrap_or_default();
        if rendered != expected {
            failures.push(format!(
                "{file_name}: rendered diagnostics differ\n--- expected\n{expected}--- rendered\n{rendered}"
            ));
        }
        let exit = fs::read_to_string(path.with_extension("exit")).unwrap_or_default();
        let stdout = fs::read_to_string(path.with_extension("stdout"));
        if exit.trim() != "1" || stdout.ok().as_deref() != Some("") {
            failures.push(format!(
                "{file_name}: needs `.exit` = 1 and an empty `.stdout`"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
