//! Commands that work on programs' paths and on profiles rather than running programs, and
//! `pgo` and `test`, which chain runs of `pcc run`.

pub mod annotate;
pub mod aodf;
pub mod explain;
pub mod export;
pub mod paths;
pub mod pgo;
pub mod profile;
pub mod report;
pub mod test;
pub mod wpp;

/// Writes pcc's own output (a report, a listing) to stdout; its exit status. A closed pipe
/// (`pcc profile show P | head`) is not an error: the reader has what it wanted.
pub fn print_text(text: &str) -> i32 {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            eprintln!("error: cannot write to stdout: {error}");
            1
        }
        _ => 0,
    }
}

/// Writes a report as pretty JSON to stdout, as [`print_text`] writes text.
pub fn print_json(value: &impl serde::Serialize) -> i32 {
    let text = serde_json::to_string_pretty(value).expect("reports always serialize");
    print_text(&(text + "\n"))
}
