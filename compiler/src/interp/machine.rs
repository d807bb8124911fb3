//! The driver loop: a stack of frames, one per activation, and the block each one is in. Calls
//! push a frame and returns pop one, so PL recursion never recurses in Rust and the depth limit
//! is a number, not the size of a thread's stack.

use std::io::Stdin;
use std::time::Instant;

use pcc_lang::LineIndex;
use pcc_stdlib::Location;
use pcc_stdlib::interp_support::{Input, RuntimeError};

use super::recorder::Recorder;
use super::value::Value;
use crate::mir::{
    BlockId, Builtin, Callee, ENTRY, FnId, GlobalId, IdVec, LocalId, Program, StatementKind,
    TerminatorKind,
};
use pcc_lang::Span;

/// The most activations alive at once (the globals' initializer and `main` included); one more
/// call is the stack overflow error of compiled code. Compiled code's limit is the size of its
/// stack (256 MiB) and so depends on frame sizes; this one is below it for every program.
pub const MAX_DEPTH: usize = 200_000;

/// How a run ends early.
#[derive(Debug)]
pub enum Stop {
    /// `exit(code)`.
    Exit(i32),
    /// A runtime error, at a source location (none where compiled code has none either: an
    /// allocation failing in a string concatenation).
    Error(RuntimeError, Option<Location>),
}

/// One activation.
pub struct Frame {
    pub function: FnId,
    pub block: BlockId,
    /// The next statement of `block` to execute; its terminator once past the last.
    pub next: usize,
    pub locals: IdVec<LocalId, Value>,
    /// Where the caller wants the result.
    pub dest: Option<LocalId>,
}

pub struct Machine<'p> {
    pub program: &'p Program,
    pub globals: IdVec<GlobalId, Value>,
    pub frames: Vec<Frame>,
    pub input: Input<Stdin>,
    pub args: Vec<String>,
    pub started: Instant,
    lines: LineIndex,
    /// `--trace`: print each block entered on stderr.
    trace: bool,
    pub recorder: Recorder<'p>,
}

impl<'p> Machine<'p> {
    pub fn new(
        program: &'p Program,
        source: &str,
        args: Vec<String>,
        trace: bool,
        recorder: Recorder<'p>,
    ) -> Machine<'p> {
        Machine {
            program,
            globals: program.globals.iter().map(|g| Value::zero(&g.ty)).collect(),
            frames: Vec::new(),
            input: Input::new(std::io::stdin()),
            args,
            started: Instant::now(),
            lines: LineIndex::new(source),
            trace,
            recorder,
        }
    }

    pub fn frame(&self) -> &Frame {
        self.frames.last().expect("a function is running")
    }

    pub fn frame_mut(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a function is running")
    }

    /// The globals' initializers, then `main`; `main`'s int result or 0.
    pub fn run_program(&mut self) -> Result<i64, Stop> {
        self.run_function(self.program.init)?;
        Ok(match self.run_function(self.program.main)? {
            Some(Value::Int(code)) => code,
            _ => 0,
        })
    }

    /// Runs function `function` (without arguments) to its end.
    fn run_function(&mut self, function: FnId) -> Result<Option<Value>, Stop> {
        let bottom = self.frames.len();
        self.call(function, Vec::new(), None)?;
        loop {
            let frame = self.frame();
            let program = self.program;
            let block = &program.functions[frame.function].blocks[frame.block];
            let Some(stmt) = block.stmts.get(frame.next) else {
                if let Some(result) = self.terminator(&block.term.kind) {
                    // `main` (or the initializer) returned.
                    if self.frames.len() == bottom {
                        return Ok(result);
                    }
                }
                continue;
            };
            self.frame_mut().next += 1;
            match &stmt.kind {
                StatementKind::Call { dest, callee, args } => {
                    let values = self.operands(args);
                    match callee {
                        Callee::Function(f) => self.call(*f, values, *dest)?,
                        Callee::Builtin(builtin) => {
                            if matches!(callee, Callee::Builtin(Builtin::Exit))
                                && self.frame().next == block.stmts.len()
                                && matches!(block.term.kind, TerminatorKind::Unreachable)
                            {
                                // The `exit()` that ends a dead end finishes the activation.
                                self.recorder.exit_in_dead_end();
                            }
                            let result = self.builtin(*builtin, values, stmt.span)?;
                            if let (Some(dest), Some(result)) = (dest, result) {
                                self.frame_mut().locals[*dest] = result;
                            }
                        }
                    }
                }
                _ => self.statement(stmt)?,
            }
        }
    }

    /// Pushes an activation of `function` with `args`, checking the depth as compiled code's
    /// prologue checks the stack.
    fn call(
        &mut self,
        function: FnId,
        args: Vec<Value>,
        dest: Option<LocalId>,
    ) -> Result<(), Stop> {
        let func = &self.program.functions[function];
        if self.frames.len() >= MAX_DEPTH {
            return Err(self.error_in(RuntimeError::StackOverflow, func.name_span, function));
        }
        let mut locals: IdVec<LocalId, Value> =
            func.locals.iter().map(|l| Value::zero(&l.ty)).collect();
        for (&param, arg) in func.params.iter().zip(args) {
            locals[param] = arg;
        }
        self.frames.push(Frame {
            function,
            block: ENTRY,
            next: 0,
            locals,
            dest,
        });
        self.recorder.enter(function);
        self.entered(function, ENTRY);
        Ok(())
    }

    /// Executes a terminator; `Some(result)` when it returned from the function.
    fn terminator(&mut self, term: &TerminatorKind) -> Option<Option<Value>> {
        let target = match term {
            TerminatorKind::Goto(b) => *b,
            TerminatorKind::Branch {
                cond,
                then_bb,
                else_bb,
            } => {
                if self.operand(cond).bool() {
                    *then_bb
                } else {
                    *else_bb
                }
            }
            TerminatorKind::Switch {
                value,
                cases,
                default,
            } => {
                let value = self.operand(value).int();
                cases
                    .iter()
                    .find(|&&(case, _)| case == value)
                    .map_or(*default, |&(_, b)| b)
            }
            TerminatorKind::Return(value) => {
                let result = value.as_ref().map(|v| self.operand(v));
                if self.trace {
                    let name = &self.program.functions[self.frame().function].name;
                    self.trace_line(format_args!("{name} returns"));
                }
                self.recorder.leave();
                let frame = self.frames.pop().expect("a function is running");
                if let (Some(caller), Some(dest), Some(result)) =
                    (self.frames.last_mut(), frame.dest, &result)
                {
                    caller.locals[dest] = result.clone();
                }
                return Some(result);
            }
            TerminatorKind::Unreachable => {
                panic!("interpreter: control reached an `unreachable` terminator")
            }
        };
        self.recorder.goto(target);
        let frame = self.frame_mut();
        frame.block = target;
        frame.next = 0;
        let function = frame.function;
        self.entered(function, target);
        None
    }

    /// Control entered `block` of `function`: `--trace` shows it.
    fn entered(&self, function: FnId, block: BlockId) {
        if self.trace {
            let func = &self.program.functions[function];
            let bb = &func.blocks[block];
            let span = bb.stmts.first().map_or(bb.term.span, |s| s.span);
            let line = self.lines.line(span.lo);
            let name = &func.name;
            self.trace_line(format_args!("{name} bb{block} line {line}"));
        }
    }

    /// One line of `--trace` on stderr, indented by the call depth, after the program's output
    /// so far (so the two interleave as they happened on a terminal).
    fn trace_line(&self, text: std::fmt::Arguments) {
        pcc_stdlib::interp_support::flush();
        let depth = self.frames.len().saturating_sub(1).min(40);
        eprintln!("trace: {:indent$}{text}", "", indent = 2 * depth);
    }

    /// The error `error` at the statement at `span` of the running function.
    pub fn error(&self, error: RuntimeError, span: Span) -> Stop {
        self.error_in(error, span, self.frame().function)
    }

    /// The error `error` at `span`, named after the function whose source holds it (for global
    /// initializers, which no function holds, `function`), as compiled code names it.
    fn error_in(&self, error: RuntimeError, span: Span, function: FnId) -> Stop {
        let functions = &self.program.functions;
        let holder = functions
            .iter()
            .find(|f| f.span.lo <= span.lo && span.lo < f.span.hi)
            .unwrap_or(&functions[function]);
        let (line, col) = self.lines.line_col(span.lo);
        let location = Location {
            line,
            col,
            function: holder.name.clone(),
        };
        Stop::Error(error, Some(location))
    }
}
