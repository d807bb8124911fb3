//! Typed AST → MIR.
//!
//! Each source-level decision becomes its own edge: conditions are lowered straight into branches
//! (`&&`/`||` get one branch per operand, so `if (a || b) && (c || d)` has 7 acyclic paths), loops
//! get a header block whose branch decides entry, and `match` becomes one `Switch`.

use pcc_lang::Span;
use pcc_lang::typed::{self, Expr, ExprKind, Place, StmtKind};

use crate::mir::{
    self, BasicBlock, BinOp, BlockId, Callee, Const, ENTRY, LocalDecl, Operand, Rvalue, Statement,
    StatementKind, Terminator, TerminatorKind, Type, UnOp,
};

/// Name of the synthesized function that runs the global initializers.
pub const INIT_FUNCTION: &str = "<globals>";

pub fn lower_program(program: &typed::Program) -> mir::Program {
    let mut functions: mir::IdVec<mir::FnId, mir::Function> =
        program.functions.iter().map(lower_function).collect();
    let init = functions.push(lower_global_initializers(program));
    mir::Program {
        file_name: program.file_name.clone(),
        structs: program.structs.clone(),
        globals: program
            .globals
            .iter()
            .map(|g| mir::GlobalDecl {
                name: g.name.clone(),
                ty: g.ty.clone(),
            })
            .collect(),
        init,
        functions,
        main: program.main,
        counter_tables: Vec::new(),
        merged_counters: Vec::new(),
        stream: mir::PathStream::default(),
    }
}

fn lower_function(func: &typed::Function) -> mir::Function {
    let locals = func
        .locals
        .iter()
        .map(|l| LocalDecl {
            ty: l.ty.clone(),
            name: Some(l.name.clone()),
        })
        .collect();
    let mut builder = Builder::new(
        &func.name,
        func.params.iter().map(|&p| local(p)).collect(),
        func.ret.clone(),
        locals,
        func.span,
        func.name_span,
    );
    builder.block(&func.body);
    // Falling off the end returns nothing; the checker proved it cannot happen otherwise.
    let end = Span::new(
        func.span.hi.saturating_sub(1) as usize,
        func.span.hi as usize,
    );
    let last = if func.ret == Type::Void {
        TerminatorKind::Return(None)
    } else {
        TerminatorKind::Unreachable
    };
    builder.terminate(last, end);
    builder.finish()
}

fn lower_global_initializers(program: &typed::Program) -> mir::Function {
    let span = program
        .globals
        .iter()
        .next()
        .map_or(Span::default(), |g| g.span);
    let mut builder = Builder::new(
        INIT_FUNCTION,
        Vec::new(),
        Type::Void,
        mir::IdVec::new(),
        span,
        span,
    );
    // A map or array global holds a map or an empty array of its own from the start, as a `str`
    // global holds the empty string: a function an earlier initializer calls may `set` or `push`
    // into it.
    for (id, global) in program.globals.iter_enumerated() {
        let value = match global.ty {
            Type::Map(..) => builder.call(
                Callee::Builtin(mir::Builtin::MapNew),
                &[],
                global.ty.clone(),
                global.span,
            ),
            Type::Array(_) => {
                let empty = Rvalue::ArrayLit(Vec::new());
                builder.assign_temp(global.ty.clone(), empty, global.span)
            }
            _ => continue,
        };
        builder.push(StatementKind::SetGlobal(id, value), global.span);
    }
    for (id, global) in program.globals.iter_enumerated() {
        let value = builder.expr(&global.init);
        builder.push(StatementKind::SetGlobal(id, value), global.span);
    }
    builder.terminate(TerminatorKind::Return(None), span);
    builder.finish()
}

struct LoopTargets {
    continue_bb: BlockId,
    break_bb: BlockId,
}

struct Builder {
    func: mir::Function,
    /// The block statements are appended to. After a `return`, `break` or `continue` this is a
    /// fresh block nothing jumps to; [`remove_unreachable_blocks`] drops it.
    current: BlockId,
    loops: Vec<LoopTargets>,
}

impl Builder {
    fn new(
        name: &str,
        params: Vec<mir::LocalId>,
        ret: Type,
        locals: mir::IdVec<mir::LocalId, LocalDecl>,
        span: Span,
        name_span: Span,
    ) -> Self {
        let func = mir::Function {
            name: name.to_string(),
            params,
            ret,
            locals,
            blocks: mir::IdVec::new(),
            span,
            name_span,
            dead_code: Vec::new(),
            steady_callees: Default::default(),
        };
        let mut builder = Builder {
            func,
            current: ENTRY,
            loops: Vec::new(),
        };
        builder.current = builder.new_block();
        builder
    }

    fn finish(mut self) -> mir::Function {
        self.func.dead_code = remove_unreachable_blocks(&mut self.func);
        self.func
    }

    fn new_block(&mut self) -> BlockId {
        self.func.blocks.push(BasicBlock::new(
            Vec::new(),
            Terminator {
                kind: TerminatorKind::Unreachable,
                span: Span::default(),
            },
        ))
    }

    fn push(&mut self, kind: StatementKind, span: Span) {
        self.func.blocks[self.current]
            .stmts
            .push(Statement { kind, span });
    }

    /// Ends the current block; code that follows goes into a new (unreachable) block.
    fn terminate(&mut self, kind: TerminatorKind, span: Span) {
        self.func.blocks[self.current].term = Terminator { kind, span };
        self.current = self.new_block();
    }

    /// Ends the current block with a jump to `target` and continues in `target`.
    fn goto_and_switch(&mut self, target: BlockId, span: Span) {
        self.func.blocks[self.current].term = Terminator {
            kind: TerminatorKind::Goto(target),
            span,
        };
        self.current = target;
    }

    fn temp(&mut self, ty: Type) -> mir::LocalId {
        self.func.new_temp(ty)
    }

    /// Evaluates `rvalue` into a new temporary of type `ty`.
    fn assign_temp(&mut self, ty: Type, rvalue: Rvalue, span: Span) -> Operand {
        let t = self.temp(ty);
        self.push(StatementKind::Assign(t, rvalue), span);
        Operand::Local(t)
    }

    // ---- statements ----

    fn block(&mut self, block: &typed::Block) {
        for stmt in &block.stmts {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &typed::Stmt) {
        let span = stmt.span;
        match &stmt.kind {
            StmtKind::Let { local: id, init } => {
                let value = self.expr(init);
                self.push(StatementKind::Assign(local(*id), Rvalue::Use(value)), span);
            }
            StmtKind::Assign { target, value } => self.assign(target, value, span),
            StmtKind::CompoundAssign { target, op, value } => {
                self.compound_assign(target, *op, value, span)
            }
            StmtKind::If {
                cond,
                then_block,
                else_block,
            } => {
                let then_bb = self.new_block();
                let join = self.new_block();
                let else_bb = if else_block.is_some() {
                    self.new_block()
                } else {
                    join
                };
                self.cond(cond, then_bb, else_bb);
                self.current = then_bb;
                self.block(then_block);
                self.goto_and_switch(join, end_of(then_block.span));
                if let Some(else_block) = else_block {
                    self.current = else_bb;
                    self.block(else_block);
                    self.goto_and_switch(join, end_of(else_block.span));
                }
                self.current = join;
            }
            StmtKind::While { cond, body } => {
                let header = self.new_block();
                let body_bb = self.new_block();
                let exit = self.new_block();
                self.goto_and_switch(header, span);
                self.cond(cond, body_bb, exit);
                self.current = body_bb;
                self.loop_body(body, header, exit);
                self.goto_and_switch(header, span);
                self.current = exit;
            }
            StmtKind::For { var, lo, hi, body } => {
                let var = local(*var);
                let lo = self.expr(lo);
                // `hi` is evaluated once, even if the body changes what it was computed from.
                let hi_value = self.expr(hi);
                let hi = self.assign_temp(Type::Int, Rvalue::Use(hi_value), span);
                self.push(StatementKind::Assign(var, Rvalue::Use(lo)), span);
                let header = self.new_block();
                let body_bb = self.new_block();
                let latch = self.new_block();
                let exit = self.new_block();
                self.goto_and_switch(header, span);
                let in_range = self.assign_temp(
                    Type::Bool,
                    Rvalue::Binary(BinOp::Lt, Operand::Local(var), hi),
                    span,
                );
                self.terminate(
                    TerminatorKind::Branch {
                        cond: in_range,
                        then_bb: body_bb,
                        else_bb: exit,
                    },
                    span,
                );
                self.current = body_bb;
                self.loop_body(body, latch, exit);
                self.goto_and_switch(latch, end_of(body.span));
                self.push(
                    StatementKind::Assign(
                        var,
                        Rvalue::Binary(
                            BinOp::Add,
                            Operand::Local(var),
                            Operand::Const(Const::Int(1)),
                        ),
                    ),
                    span,
                );
                self.goto_and_switch(header, span);
                self.current = exit;
            }
            StmtKind::Break => {
                let target = self
                    .loops
                    .last()
                    .expect("checker: break inside a loop")
                    .break_bb;
                self.terminate(TerminatorKind::Goto(target), span);
            }
            StmtKind::Continue => {
                let target = self
                    .loops
                    .last()
                    .expect("checker: continue inside a loop")
                    .continue_bb;
                self.terminate(TerminatorKind::Goto(target), span);
            }
            StmtKind::Return(value) => {
                let value = value.as_ref().map(|e| self.expr(e));
                self.terminate(TerminatorKind::Return(value), span);
            }
            StmtKind::Match {
                scrutinee,
                arms,
                default,
            } => {
                let value = self.expr(scrutinee);
                let join = self.new_block();
                let arm_blocks: Vec<BlockId> = arms.iter().map(|_| self.new_block()).collect();
                let default_bb = self.new_block();
                let cases = arms
                    .iter()
                    .zip(&arm_blocks)
                    .flat_map(|(arm, &bb)| arm.patterns.iter().map(move |&(v, _)| (v, bb)))
                    .collect();
                self.terminate(
                    TerminatorKind::Switch {
                        value,
                        cases,
                        default: default_bb,
                    },
                    scrutinee.span,
                );
                for (arm, bb) in arms.iter().zip(arm_blocks) {
                    self.current = bb;
                    self.block(&arm.body);
                    self.goto_and_switch(join, end_of(arm.body.span));
                }
                self.current = default_bb;
                self.block(default);
                self.goto_and_switch(join, end_of(default.span));
                self.current = join;
            }
            StmtKind::Expr(e) => {
                self.expr(e);
            }
            StmtKind::Block(block) => self.block(block),
        }
    }

    fn loop_body(&mut self, body: &typed::Block, continue_bb: BlockId, break_bb: BlockId) {
        self.loops.push(LoopTargets {
            continue_bb,
            break_bb,
        });
        self.block(body);
        self.loops.pop();
    }

    fn assign(&mut self, target: &Place, value: &Expr, span: Span) {
        match target {
            Place::Local(l) => {
                let v = self.expr(value);
                self.push(StatementKind::Assign(local(*l), Rvalue::Use(v)), span);
            }
            Place::Global(g) => {
                let v = self.expr(value);
                self.push(StatementKind::SetGlobal(*g, v), span);
            }
            Place::Index { base, index } => {
                let array = self.expr(base);
                let index = self.expr(index);
                let value = self.expr(value);
                let at = Span::new(base.span.lo as usize, span.hi as usize);
                self.push(
                    StatementKind::SetIndex {
                        array,
                        index,
                        value,
                        checked: true,
                    },
                    at,
                );
            }
            Place::Field { base, field } => {
                let object = self.expr(base);
                let value = self.expr(value);
                let at = Span::new(base.span.lo as usize, span.hi as usize);
                self.push(
                    StatementKind::SetField {
                        object,
                        strukt: struct_of(&base.ty),
                        field: *field,
                        value,
                    },
                    at,
                );
            }
        }
    }

    /// `target op= value`: the target's base and index are evaluated once, then the current
    /// value is read, then `value` is evaluated (left to right, as `target = target op value`).
    fn compound_assign(&mut self, target: &Place, op: BinOp, value: &Expr, span: Span) {
        let ty = value.ty.clone();
        match target {
            Place::Local(l) => {
                let l = local(*l);
                let v = self.expr(value);
                let rv = Rvalue::Binary(op, Operand::Local(l), v);
                self.push(StatementKind::Assign(l, rv), span);
            }
            Place::Global(g) => {
                let current = self.assign_temp(ty.clone(), Rvalue::Global(*g), span);
                let v = self.expr(value);
                let result = self.assign_temp(ty, Rvalue::Binary(op, current, v), span);
                self.push(StatementKind::SetGlobal(*g, result), span);
            }
            Place::Index { base, index } => {
                let at = Span::new(base.span.lo as usize, span.hi as usize);
                let array = self.expr(base);
                let index = self.expr(index);
                let current = self.assign_temp(
                    ty.clone(),
                    Rvalue::Index {
                        base: array.clone(),
                        index: index.clone(),
                        checked: true,
                        readonly: false,
                    },
                    at,
                );
                let v = self.expr(value);
                let value = self.assign_temp(ty, Rvalue::Binary(op, current, v), at);
                self.push(
                    StatementKind::SetIndex {
                        array,
                        index,
                        value,
                        checked: true,
                    },
                    at,
                );
            }
            Place::Field { base, field } => {
                let at = Span::new(base.span.lo as usize, span.hi as usize);
                let strukt = struct_of(&base.ty);
                let object = self.expr(base);
                let current = self.assign_temp(
                    ty.clone(),
                    Rvalue::Field {
                        object: object.clone(),
                        strukt,
                        field: *field,
                    },
                    at,
                );
                let v = self.expr(value);
                let value = self.assign_temp(ty, Rvalue::Binary(op, current, v), at);
                self.push(
                    StatementKind::SetField {
                        object,
                        strukt,
                        field: *field,
                        value,
                    },
                    at,
                );
            }
        }
    }

    // ---- conditions ----

    /// Lowers a boolean expression straight into control flow to `then_bb` / `else_bb`.
    fn cond(&mut self, e: &Expr, then_bb: BlockId, else_bb: BlockId) {
        match &e.kind {
            ExprKind::And(a, b) => {
                let mid = self.new_block();
                self.cond(a, mid, else_bb);
                self.current = mid;
                self.cond(b, then_bb, else_bb);
            }
            ExprKind::Or(a, b) => {
                let mid = self.new_block();
                self.cond(a, then_bb, mid);
                self.current = mid;
                self.cond(b, then_bb, else_bb);
            }
            ExprKind::Unary {
                op: UnOp::Not,
                operand,
            } => self.cond(operand, else_bb, then_bb),
            // `while true`: no edge out of the loop is better than one that is never taken.
            ExprKind::Bool(value) => {
                let target = if *value { then_bb } else { else_bb };
                self.terminate(TerminatorKind::Goto(target), e.span);
            }
            _ => {
                let cond = self.expr(e);
                self.terminate(
                    TerminatorKind::Branch {
                        cond,
                        then_bb,
                        else_bb,
                    },
                    e.span,
                );
            }
        }
    }

    // ---- expressions ----

    /// Evaluates `e` and returns an operand holding its value (a constant, a local, or a new
    /// temporary). Locals cannot change while an expression is evaluated (calls cannot assign
    /// to the caller's locals), so a local is returned as itself.
    fn expr(&mut self, e: &Expr) -> Operand {
        let span = e.span;
        let ty = e.ty.clone();
        match &e.kind {
            ExprKind::Int(v) => Operand::Const(Const::Int(*v)),
            ExprKind::Float(v) => Operand::Const(Const::Float(*v)),
            ExprKind::Bool(v) => Operand::Const(Const::Bool(*v)),
            ExprKind::Str(bytes) => Operand::Const(Const::Str(bytes.clone())),
            ExprKind::Null => Operand::Const(Const::Null),
            ExprKind::Local(l) => Operand::Local(local(*l)),
            ExprKind::Global(g) => self.assign_temp(ty, Rvalue::Global(*g), span),
            ExprKind::Call { func, args } => self.call(Callee::Function(*func), args, ty, span),
            ExprKind::Builtin { builtin, args } => {
                self.call(Callee::Builtin(*builtin), args, ty, span)
            }
            ExprKind::Index { base, index } => {
                let base = self.expr(base);
                let index = self.expr(index);
                self.assign_temp(
                    ty,
                    Rvalue::Index {
                        base,
                        index,
                        checked: true,
                        readonly: false,
                    },
                    span,
                )
            }
            ExprKind::Field { base, field } => {
                let strukt = struct_of(&base.ty);
                let object = self.expr(base);
                self.assign_temp(
                    ty,
                    Rvalue::Field {
                        object,
                        strukt,
                        field: *field,
                    },
                    span,
                )
            }
            ExprKind::Unary { op, operand } => {
                let operand = self.expr(operand);
                self.assign_temp(ty, Rvalue::Unary(*op, operand), span)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let lhs = self.expr(lhs);
                let rhs = self.expr(rhs);
                self.assign_temp(ty, Rvalue::Binary(*op, lhs, rhs), span)
            }
            ExprKind::And(..) | ExprKind::Or(..) => {
                // A short-circuit value: branch, then materialize true/false at a join.
                let result = self.temp(Type::Bool);
                let true_bb = self.new_block();
                let false_bb = self.new_block();
                let join = self.new_block();
                self.cond(e, true_bb, false_bb);
                for (bb, value) in [(true_bb, true), (false_bb, false)] {
                    self.current = bb;
                    self.push(
                        StatementKind::Assign(
                            result,
                            Rvalue::Use(Operand::Const(Const::Bool(value))),
                        ),
                        span,
                    );
                    self.goto_and_switch(join, span);
                }
                self.current = join;
                Operand::Local(result)
            }
            ExprKind::ArrayLit(elems) => {
                let elems = elems.iter().map(|el| self.expr(el)).collect();
                self.assign_temp(ty, Rvalue::ArrayLit(elems), span)
            }
            ExprKind::ArrayRepeat { value, count } => {
                let value = self.expr(value);
                let count = self.expr(count);
                self.assign_temp(ty, Rvalue::ArrayRepeat { value, count }, span)
            }
            ExprKind::New { strukt, fields } => {
                // Initializers run in source order; the struct is built in declaration order.
                let mut values = vec![Operand::Const(Const::Null); fields.len()];
                for (index, init) in fields {
                    values[*index] = self.expr(init);
                }
                self.assign_temp(
                    ty,
                    Rvalue::New {
                        strukt: *strukt,
                        fields: values,
                    },
                    span,
                )
            }
        }
    }

    fn call(&mut self, callee: Callee, args: &[Expr], ty: Type, span: Span) -> Operand {
        let args = args.iter().map(|a| self.expr(a)).collect();
        let dest = (ty != Type::Void).then(|| self.temp(ty));
        self.push(StatementKind::Call { dest, callee, args }, span);
        if let Callee::Builtin(mir::Builtin::Exit) = callee {
            self.terminate(TerminatorKind::Unreachable, span);
        }
        // A void call's "value" is never used; the checker guarantees that.
        dest.map_or(Operand::Const(Const::Null), Operand::Local)
    }
}

/// The last character of a block (its closing brace): where control leaves it.
fn end_of(span: Span) -> Span {
    Span::new(span.hi.saturating_sub(1) as usize, span.hi as usize)
}

/// The MIR local of a typed local: the same number, as [`lower_function`] copies the typed
/// function's locals in order (temporaries come after them).
fn local(l: typed::LocalId) -> mir::LocalId {
    mir::LocalId::new(l.index())
}

fn struct_of(ty: &Type) -> mir::StructId {
    match ty {
        Type::Struct(s) => *s,
        other => unreachable!("checker: field access on {other:?}"),
    }
}

/// Drops blocks not reachable from the entry and renumbers the rest in order; returns the
/// spans of the statements and the branches and returns it dropped (not of jumps, which mark
/// where constructs end, nor of the placeholder that ends a block after `return`).
pub fn remove_unreachable_blocks(func: &mut mir::Function) -> Vec<Span> {
    let mut reachable = mir::IdVec::from_elem(false, func.blocks.len());
    let mut stack = vec![ENTRY];
    reachable[ENTRY] = true;
    while let Some(b) = stack.pop() {
        for s in func.blocks[b].term.kind.successors() {
            if !reachable[s] {
                reachable[s] = true;
                stack.push(s);
            }
        }
    }
    let mut new_id = mir::IdVec::from_elem(None, func.blocks.len());
    let mut next = 0;
    for (b, &live) in reachable.iter_enumerated() {
        if live {
            new_id[b] = Some(BlockId::new(next));
            next += 1;
        }
    }
    let blocks = std::mem::take(&mut func.blocks);
    let mut dropped = Vec::new();
    for (block, _) in blocks.iter().zip(&reachable).filter(|&(_, &live)| !live) {
        dropped.extend(block.stmts.iter().map(|s| s.span));
        if !matches!(
            block.term.kind,
            TerminatorKind::Goto(_) | TerminatorKind::Unreachable
        ) {
            dropped.push(block.term.span);
        }
    }
    func.blocks = blocks
        .into_iter()
        .zip(&reachable)
        .filter(|&(_, &live)| live)
        .map(|(mut block, _)| {
            for target in block.term.kind.targets_mut() {
                *target = new_id[*target].expect("a reachable block's successor is reachable");
            }
            block
        })
        .collect();
    dropped
}
