//! The compilation pipeline behind each command: source → typed program → MIR → machine code.
//! Everything pcc itself says goes to stderr; stdout belongs to the program (or to `--emit`).

use std::path::Path;

use pcc_lang::{LineIndex, typed};

use crate::{codegen, lower, mir, opt};

/// Exit status for compile errors and for problems with pcc's own inputs.
pub const EXIT_COMPILE_ERROR: i32 = 1;

pub struct Options {
    pub opt_level: u8,
}

#[derive(Clone, Copy)]
pub enum Emit {
    Mir,
    Clif,
    Asm,
}

/// A source file that passed the front end.
pub struct Checked {
    pub file_name: String,
    pub source: String,
    pub program: typed::Program,
}

/// Reads and checks a program, printing every diagnostic on failure.
pub fn front_end(path: &Path) -> Result<Checked, i32> {
    let file_name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|err| {
        eprintln!("error: cannot read `{file_name}`: {err}");
        EXIT_COMPILE_ERROR
    })?;
    let source = String::from_utf8_lossy(&bytes).into_owned();
    match pcc_lang::check_bytes(&file_name, &bytes) {
        Ok(program) => Ok(Checked {
            file_name,
            source,
            program,
        }),
        Err(diagnostics) => {
            eprint!("{}", diagnostics.render(&file_name, &source));
            Err(EXIT_COMPILE_ERROR)
        }
    }
}

/// Lowers to MIR and applies the MIR passes the options ask for.
pub fn middle_end(checked: &Checked, options: &Options) -> mir::Program {
    let mut program = lower::lower_program(&checked.program);
    if options.opt_level >= 2 {
        opt::optimize(&mut program);
    }
    program
}

fn codegen_options(options: &Options) -> codegen::Options {
    codegen::Options {
        opt_level: options.opt_level,
    }
}

pub fn check(path: &Path) -> i32 {
    match front_end(path) {
        Ok(_) => 0,
        Err(status) => status,
    }
}

pub fn run(path: &Path, options: &Options, args: Vec<String>) -> i32 {
    let checked = match front_end(path) {
        Ok(checked) => checked,
        Err(status) => return status,
    };
    let program = middle_end(&checked, options);
    match codegen::jit(&program, &checked.source, &codegen_options(options)) {
        Ok(jit) => pcc_stdlib::run_program(jit.info.clone(), args, jit.entry),
        Err(err) => {
            eprintln!("error: code generation failed: {err}");
            EXIT_COMPILE_ERROR
        }
    }
}

/// Prints every function (or just `only`) at the given stage on stdout.
pub fn emit(path: &Path, options: &Options, stage: Emit, only: Option<&str>) -> i32 {
    let checked = match front_end(path) {
        Ok(checked) => checked,
        Err(status) => return status,
    };
    if let Some(name) = only
        && !checked.program.functions.iter().any(|f| f.name == name)
    {
        eprintln!("error: no function `{name}` in `{}`", checked.file_name);
        return EXIT_COMPILE_ERROR;
    }
    let program = middle_end(&checked, options);
    let text = match stage {
        Emit::Mir => {
            let lines = LineIndex::new(&checked.source);
            let line_of = |span: pcc_lang::Span| lines.line(span.lo);
            program
                .functions
                .iter()
                .enumerate()
                .filter(|(_, f)| only.is_none_or(|name| f.name == name))
                .map(|(id, _)| program.function_text(id, &line_of))
                .collect::<Vec<_>>()
                .join("\n")
        }
        Emit::Clif | Emit::Asm => {
            let options = codegen_options(options);
            let result = match stage {
                Emit::Clif => codegen::emit_clif(&program, &checked.source, &options, only),
                _ => codegen::emit_asm(&program, &checked.source, &options, only),
            };
            match result {
                Ok(text) => text,
                Err(err) => {
                    eprintln!("error: code generation failed: {err}");
                    return EXIT_COMPILE_ERROR;
                }
            }
        }
    };
    print!("{text}");
    0
}
