//! Putting code on the edges of a function's CFG, the one mechanism every mode's
//! instrumentation uses: on an edge out of a block with one successor, at the block's end; on
//! an edge into a block with one predecessor, at its start; otherwise in a new block that splits
//! the edge. Also the path-register code of [`PathOp`]s, shared by the Ball-Larus modes and
//! `ppp`, and where a program may stop inside a block.

use pcc_lang::Span;
use pcc_profiler::edge_profile::Stop;
use pcc_profiler::instrument::PathOp;

use super::FunctionCfg;
use crate::mir::{
    self, BasicBlock, BinOp, BlockId, Builtin, Callee, Const, FnId, IdVec, Operand, Rvalue,
    Statement, StatementKind, Terminator, TerminatorKind, Type,
};

/// The functions whose calls cannot stop the program ([`quiet_functions`]), by id.
pub(crate) type Quiet = IdVec<FnId, bool>;

/// What planning one function's instrumentation needs to know of the whole program.
pub(super) struct ProgramFacts {
    pub quiet: Quiet,
    /// The most counters a function's table may have before it is hashed.
    pub array_limit: u64,
}

/// The functions whose calls cannot stop the program: those that call no PL function (so have
/// no stack check) and have no statement that can stop it (no check, no allocation, no
/// builtin that may fail, no `exit()`), such as a numeric helper. Their calls are not stops.
pub(crate) fn quiet_functions(program: &mir::Program) -> Quiet {
    let none = Quiet::from_elem(false, program.functions.len());
    (program.functions.iter())
        .map(|func| {
            !func.calls_functions()
                && (func.blocks.iter().flat_map(|b| &b.stmts))
                    .all(|stmt| statement_stop(func, &stmt.kind, &none) == Stop::Never)
        })
        .collect()
}

/// Whether the program may stop inside each node of the function's CFG (its blocks, then
/// EXIT, which never does).
pub(super) fn stop_nodes(func: &mir::Function, quiet: &Quiet) -> Vec<bool> {
    stops(func, quiet)
        .iter()
        .map(|&stop| stop != Stop::Never)
        .collect()
}

/// How the program may stop inside each node of the function's CFG (its blocks, then EXIT,
/// which never does).
pub(super) fn stops(func: &mir::Function, quiet: &Quiet) -> Vec<Stop> {
    let mut stops: Vec<Stop> = (func.blocks.iter())
        .map(|b| block_stop(func, b, quiet))
        .collect();
    stops.push(Stop::Never);
    stops
}

/// Whether the program may end inside `block` before it reaches its terminator, and how. The
/// path in progress is then lost, so it must not have been counted yet
/// (`PathPlan::with_stops`). A dead end's own final `exit()` is where its path ends, and is
/// not such a place.
fn block_stop(func: &mir::Function, block: &BasicBlock, quiet: &Quiet) -> Stop {
    let stmts = match block.stmts.split_last() {
        Some((last, rest)) if is_exit(&last.kind) => rest,
        _ => &block.stmts[..],
    };
    (stmts.iter())
        .map(|stmt| statement_stop(func, &stmt.kind, quiet))
        .max()
        .unwrap_or(Stop::Never)
}

/// Whether the statement may end the program, and how: a check that fails (bounds, null,
/// division by a variable, an assertion), reported by code inline; or a call, which may end
/// the program itself (`exit()`, a runtime error, a stack overflow; not a builtin that
/// [cannot](Builtin::may_stop), nor a [quiet](quiet_functions) function), as may the runtime
/// functions that allocate.
pub(crate) fn statement_stop(func: &mir::Function, kind: &StatementKind, quiet: &Quiet) -> Stop {
    match kind {
        StatementKind::Assign(_, rvalue) => match rvalue {
            Rvalue::Use(_) | Rvalue::Unary(..) | Rvalue::Global(_) | Rvalue::Window { .. } => {
                Stop::Never
            }
            Rvalue::Binary(BinOp::Div | BinOp::Rem, a, b) => {
                let constant = matches!(b, Operand::Const(Const::Int(d)) if *d != 0);
                if func.operand_type(a) == Type::Int && !constant {
                    Stop::AtCheck
                } else {
                    Stop::Never
                }
            }
            // On strings, `+` allocates.
            Rvalue::Binary(_, a, b) if [a, b].iter().any(|x| func.operand_type(x) == Type::Str) => {
                Stop::InCall
            }
            Rvalue::Binary(..) => Stop::Never,
            // Unchecked: proven in bounds by `-O 2` (the lowering checks every access).
            Rvalue::Index { checked: false, .. } => Stop::Never,
            Rvalue::Index { .. } | Rvalue::Field { .. } => Stop::AtCheck,
            Rvalue::ArrayLit(_) | Rvalue::ArrayRepeat { .. } | Rvalue::New { .. } => Stop::InCall,
        },
        StatementKind::SetGlobal(..)
        | StatementKind::Count { .. }
        | StatementKind::CountBy { .. }
        | StatementKind::CountOrCold { .. }
        | StatementKind::CountPpp { .. }
        | StatementKind::CountStop { .. }
        | StatementKind::Stream(_)
        | StatementKind::Trace(_) => Stop::Never,
        StatementKind::SetIndex { checked: false, .. } => Stop::Never,
        StatementKind::SetIndex { .. } | StatementKind::SetField { .. } => Stop::AtCheck,
        StatementKind::Call {
            callee: Callee::Builtin(Builtin::Assert),
            ..
        } => Stop::AtCheck,
        StatementKind::Call {
            callee: Callee::Builtin(builtin),
            ..
        } if !builtin.may_stop() => Stop::Never,
        StatementKind::Call {
            callee: Callee::Function(f),
            ..
        } if quiet[*f] => Stop::Never,
        StatementKind::Call { .. } => Stop::InCall,
    }
}

/// Whether the statement is a call of `exit()`, which never returns.
pub(crate) fn is_exit(kind: &StatementKind) -> bool {
    matches!(
        kind,
        StatementKind::Call {
            callee: Callee::Builtin(Builtin::Exit),
            ..
        }
    )
}

pub(super) fn count_const(table: usize, index: u64) -> StatementKind {
    StatementKind::Count {
        table,
        index: Operand::Const(Const::Int(index as i64)),
    }
}

/// Inserts statements on the edges of one function's CFG, computed before any insertion.
pub(super) struct Inserter<'f> {
    pub(super) func: &'f mut mir::Function,
    edges: &'f [(BlockId, Option<BlockId>)],
    num_succs: IdVec<BlockId, usize>,
    num_preds: IdVec<BlockId, usize>,
    pub(super) table: usize,
}

impl<'f> Inserter<'f> {
    pub(super) fn new(
        func: &'f mut mir::Function,
        fcfg: &'f FunctionCfg,
        table: usize,
    ) -> Inserter<'f> {
        let num_succs = func
            .blocks
            .iter()
            .map(|b| b.term.kind.successors().len())
            .collect();
        let num_preds = func.predecessors().iter().map(Vec::len).collect();
        Inserter {
            func,
            edges: &fcfg.edges,
            num_succs,
            num_preds,
            table,
        }
    }

    /// MIR statements for the profiler's path-register operations (`r` is the register).
    pub(super) fn path_code(&mut self, r: mir::LocalId, ops: &[PathOp]) -> Vec<StatementKind> {
        let reg = Operand::Local(r);
        let mut code = Vec::new();
        for &op in ops {
            match op {
                PathOp::Set(c) => code.push(StatementKind::Assign(
                    r,
                    Rvalue::Use(Operand::Const(Const::Int(c))),
                )),
                PathOp::Add(c) => code.push(StatementKind::Assign(
                    r,
                    Rvalue::Binary(BinOp::Add, reg.clone(), Operand::Const(Const::Int(c))),
                )),
                PathOp::CountAdd(0) => code.push(StatementKind::Count {
                    table: self.table,
                    index: reg.clone(),
                }),
                PathOp::CountAdd(c) => {
                    let id = self.func.new_temp(Type::Int);
                    code.push(StatementKind::Assign(
                        id,
                        Rvalue::Binary(BinOp::Add, reg.clone(), Operand::Const(Const::Int(c))),
                    ));
                    code.push(StatementKind::Count {
                        table: self.table,
                        index: Operand::Local(id),
                    });
                }
                PathOp::CountConst(id) => code.push(count_const(self.table, id)),
            }
        }
        code
    }

    /// The id a counting [`PathOp`] stands for (register `r` plus a constant, or a constant),
    /// as an operand; `code` gets the statement that computes it, if one is needed.
    pub(super) fn path_id(
        &mut self,
        r: mir::LocalId,
        op: PathOp,
        code: &mut Vec<StatementKind>,
    ) -> Operand {
        match op {
            PathOp::CountAdd(0) => Operand::Local(r),
            PathOp::CountAdd(c) => {
                let id = self.func.new_temp(Type::Int);
                code.push(StatementKind::Assign(
                    id,
                    Rvalue::Binary(BinOp::Add, Operand::Local(r), Operand::Const(Const::Int(c))),
                ));
                Operand::Local(id)
            }
            PathOp::CountConst(id) => Operand::Const(Const::Int(id as i64)),
            PathOp::Set(_) | PathOp::Add(_) => unreachable!("a path end counts"),
        }
    }

    /// Puts `code` where it runs exactly when CFG edge `e` is taken.
    pub(super) fn on_edge(&mut self, e: usize, code: Vec<StatementKind>) {
        if code.is_empty() {
            return;
        }
        let (from, to) = self.edges[e];
        let span = self.func.blocks[from].term.span;
        let stmts = code.into_iter().map(|kind| Statement { kind, span });
        match to {
            // The edge to EXIT is the `return` itself.
            None => self.func.blocks[from].stmts.extend(stmts),
            Some(_) if self.num_succs[from] == 1 => self.func.blocks[from].stmts.extend(stmts),
            Some(to) if self.num_preds[to] == 1 && to != mir::ENTRY => {
                self.func.blocks[to].stmts.splice(0..0, stmts);
            }
            Some(to) => {
                let split = self.func.blocks.push(BasicBlock::new(
                    stmts.collect(),
                    Terminator {
                        kind: TerminatorKind::Goto(to),
                        span,
                    },
                ));
                self.func.blocks[from].term.kind.retarget(to, split);
            }
        }
    }

    /// Puts `code` at the end of a block without successors: before its call to `exit()` if it
    /// has one (the call never returns), else before its `unreachable`.
    pub(super) fn at_dead_end(&mut self, b: BlockId, code: Vec<StatementKind>) {
        if code.is_empty() {
            return;
        }
        let block = &mut self.func.blocks[b];
        let ends_in_exit = block.stmts.last().is_some_and(|s| is_exit(&s.kind));
        let at = block.stmts.len() - usize::from(ends_in_exit);
        let span: Span = block.term.span;
        block.stmts.splice(
            at..at,
            code.into_iter().map(|kind| Statement { kind, span }),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lower(source: &str) -> mir::Program {
        let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
        crate::lower::lower_program(&typed)
    }

    /// How each statement of `name` that `pick` chooses may stop the program.
    fn statement_stops(
        program: &mir::Program,
        name: &str,
        pick: impl Fn(&StatementKind) -> bool,
    ) -> Vec<Stop> {
        let quiet = quiet_functions(program);
        let func = program.functions.iter().find(|f| f.name == name).unwrap();
        (func.blocks.iter().flat_map(|b| &b.stmts))
            .filter(|stmt| pick(&stmt.kind))
            .map(|stmt| statement_stop(func, &stmt.kind, &quiet))
            .collect()
    }

    #[test]
    fn checks_calls_and_quiet_helpers_stop_the_program_differently() {
        let program = lower(
            "fn helper(x: int) -> float { return sqrt(float(x)) / 2.0 + float(x % 3); }
             fn element(a: [int], i: int) -> int { return a[i]; }
             fn caller(a: [int], k: int) -> float {
                 let s = helper(k) + float(element(a, k));
                 return s + float(a[k] / k) + float(k / 4);
             }
             fn main() { println(caller([1, 2], 1)); }",
        );
        let quiet = quiet_functions(&program);
        let id = |name: &str| {
            let at = program.functions.iter().position(|f| f.name == name);
            FnId::new(at.unwrap())
        };
        let names = ["helper", "element", "caller", "main"];
        let quiet_names: Vec<bool> = names.iter().map(|&name| quiet[id(name)]).collect();
        assert_eq!(quiet_names, [true, false, false, false]);
        let calls = |callee: &str| {
            let f = id(callee);
            statement_stops(&program, "caller", move |k| k.called_function() == Some(f))
        };
        assert_eq!(calls("helper"), [Stop::Never]);
        assert_eq!(calls("element"), [Stop::InCall]);
        let divisions = statement_stops(&program, "caller", |k| {
            matches!(k, StatementKind::Assign(_, Rvalue::Binary(BinOp::Div, ..)))
        });
        // `a[k] / k` may divide by zero; `k / 4` cannot; the index is a check too.
        assert_eq!(divisions, [Stop::AtCheck, Stop::Never]);
        let indices = statement_stops(&program, "caller", |k| {
            matches!(k, StatementKind::Assign(_, Rvalue::Index { .. }))
        });
        assert_eq!(indices, [Stop::AtCheck]);
    }
}
