//! The `pcc` command line.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use pcc::driver::{self, Emit};

#[derive(Parser)]
#[command(
    name = "pcc",
    version,
    about = "PL compiler with built-in path profiling, on Cranelift"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compile a program in memory (JIT) and run it; its exit status is pcc's.
    Run {
        file: PathBuf,
        #[command(flatten)]
        compile: CompileArgs,
        /// Print the program at this stage instead of running it.
        #[arg(long, value_enum)]
        emit: Option<EmitArg>,
        /// With --emit: only this function.
        #[arg(long)]
        function: Option<String>,
        /// Arguments for the program, after `--`.
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Report every error in a program without running it.
    Check { file: PathBuf },
}

#[derive(clap::Args)]
struct CompileArgs {
    /// Optimization level: 0 = none, 1 = Cranelift `speed`, 2 = also MIR clean-ups.
    #[arg(short = 'O', default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=2))]
    opt_level: u8,
}

#[derive(Clone, Copy, ValueEnum)]
enum EmitArg {
    Mir,
    Clif,
    Asm,
}

fn main() {
    let cli = Cli::parse();
    let status = match cli.command {
        Command::Check { file } => driver::check(&file),
        Command::Run {
            file,
            compile,
            emit,
            function,
            args,
        } => {
            let options = driver::Options {
                opt_level: compile.opt_level,
            };
            match emit {
                Some(stage) => {
                    let stage = match stage {
                        EmitArg::Mir => Emit::Mir,
                        EmitArg::Clif => Emit::Clif,
                        EmitArg::Asm => Emit::Asm,
                    };
                    driver::emit(&file, &options, stage, function.as_deref())
                }
                None => driver::run(&file, &options, args),
            }
        }
    };
    std::process::exit(status)
}
