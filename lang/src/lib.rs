//! The PL front end: source text in, a typed program (or every error found) out.
//! It knows nothing of MIR or Cranelift and never panics on any input.

pub mod ast;
mod check;
pub mod diagnostics;
pub mod id;
pub mod index;
mod lexer;
mod parser;
pub mod span;
pub mod typed;

pub use diagnostics::{Diagnostic, Diagnostics};
pub use span::{LineIndex, Span};

/// The stack the checker runs on. Its recursion is bounded by [`ast::MAX_DEPTH`] levels of
/// nesting, which an unoptimized build needs a few MiB for: more than a test thread has.
const CHECK_STACK_SIZE: usize = 32 << 20;

/// Whether `name` is one identifier token: a name a program may declare (not a keyword).
pub fn is_identifier(name: &str) -> bool {
    let (tokens, errors) = lexer::lex(name);
    errors.is_empty()
        && matches!(tokens.as_slice(), [(0, lexer::Tok::Ident(_), end)] if *end == name.len())
}

/// Lexes, parses, resolves and type-checks one PL program.
pub fn check(file_name: &str, source: &str) -> Result<typed::Program, Diagnostics> {
    on_big_stack(|| {
        let (program, errors) = parser::parse(source);
        if !errors.is_empty() {
            return Err(Diagnostics::new(errors));
        }
        check::check_program(file_name, &program).map_err(Diagnostics::new)
    })
}

/// What an editor shows of a program: [`check`]'s result, and the [`index::Index`] of its
/// names. After a syntax error the parser resumes at the next item, and the index covers
/// what it could parse (the diagnostics are then the syntax errors, as `check` gives them).
pub fn analyze(
    file_name: &str,
    source: &str,
) -> (Result<typed::Program, Diagnostics>, index::Index) {
    on_big_stack(|| {
        let (program, errors) = parser::parse(source);
        let mut index = index::Index::default();
        let checked = check::check_program_indexed(file_name, &program, &mut index);
        let result = match checked {
            _ if !errors.is_empty() => Err(Diagnostics::new(errors)),
            Ok(program) => Ok(program),
            Err(errors) => Err(Diagnostics::new(errors)),
        };
        (result, index)
    })
}

/// Runs `run` on a thread of its own, so that the caller's stack size does not matter.
fn on_big_stack<T: Send>(run: impl FnOnce() -> T + Send + Copy) -> T {
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .name("pcc-check".into())
            .stack_size(CHECK_STACK_SIZE)
            .spawn_scoped(scope, run)
        {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            // No thread to be had: the caller's stack will most likely do.
            Err(_) => run(),
        }
    })
}

/// [`check`] for raw file contents: invalid UTF-8 is reported as a diagnostic. Render the
/// result with [`Diagnostics::render_bytes`].
pub fn check_bytes(file_name: &str, bytes: &[u8]) -> Result<typed::Program, Diagnostics> {
    match std::str::from_utf8(bytes) {
        Ok(source) => check(file_name, source),
        Err(error) => {
            let at = error.valid_up_to();
            let len = error.error_len().unwrap_or(bytes.len() - at);
            Err(Diagnostics::new(vec![Diagnostic::new(
                format!(
                    "source file is not valid UTF-8 (invalid byte 0x{:02X})",
                    bytes[at]
                ),
                Span::new(at, at + len),
            )]))
        }
    }
}
