//! The MIR invariants translation relies on, checked up front: every id names something that
//! exists. A compiler bug then becomes a `CodegenError` instead of a panic. (Type mismatches are
//! caught by Cranelift's verifier, which debug builds enable.)

use super::{CodegenError, Result};
use crate::mir::{
    Callee, Function, Operand, Program, Rvalue, Statement, StatementKind, StreamEvent, StructDef,
    TerminatorKind,
};

pub fn validate(program: &Program) -> Result<()> {
    for id in [program.main, program.init] {
        let func = program.functions.get(id).ok_or_else(|| {
            CodegenError::internal(format!(
                "`main` or the initializer is function {id}, which does not exist"
            ))
        })?;
        if !func.params.is_empty() {
            return Err(CodegenError::internal(format!(
                "`{}` takes parameters",
                func.name
            )));
        }
    }
    for func in &program.functions {
        let v = Validator { program, func };
        v.function().map_err(|e| match e {
            CodegenError::Internal(message) => {
                CodegenError::Internal(format!("in MIR of `{}`: {message}", func.name))
            }
            other => other,
        })?;
    }
    Ok(())
}

struct Validator<'a> {
    program: &'a Program,
    func: &'a Function,
}

impl Validator<'_> {
    fn function(&self) -> Result<()> {
        if self.func.blocks.is_empty() {
            return Err(CodegenError::internal("no blocks"));
        }
        for &param in &self.func.params {
            self.local(param)?;
        }
        for block in &self.func.blocks {
            for stmt in &block.stmts {
                self.statement(stmt)?;
            }
            self.terminator(&block.term.kind)?;
        }
        Ok(())
    }

    fn statement(&self, stmt: &Statement) -> Result<()> {
        match &stmt.kind {
            StatementKind::Assign(local, rvalue) => {
                self.local(*local)?;
                self.rvalue(rvalue)
            }
            StatementKind::SetGlobal(global, value) => {
                self.global(*global)?;
                self.operand(value)
            }
            StatementKind::SetIndex {
                array,
                index,
                value,
                ..
            } => self.operands([array, index, value]),
            StatementKind::SetField {
                object,
                strukt,
                field,
                value,
            } => {
                self.field(*strukt, *field)?;
                self.operands([object, value])
            }
            StatementKind::Call { dest, callee, args } => {
                if let Some(dest) = dest {
                    self.local(*dest)?;
                }
                if let Callee::Function(f) = callee {
                    let callee = self.program.functions.get(*f).ok_or_else(|| {
                        CodegenError::internal(format!(
                            "call of function {f}, which does not exist"
                        ))
                    })?;
                    if callee.params.len() != args.len() {
                        return Err(CodegenError::internal(format!(
                            "`{}` called with {} arguments",
                            callee.name,
                            args.len()
                        )));
                    }
                }
                self.operands(args)
            }
            StatementKind::Count { table, index } | StatementKind::CountOrCold { table, index } => {
                if *table >= self.program.counter_tables.len() {
                    return Err(CodegenError::internal(format!(
                        "count in table {table}, which does not exist"
                    )));
                }
                self.operand(index)
            }
            StatementKind::CountPpp { table, ppp, bl } => {
                match self.program.counter_tables.get(*table) {
                    None => {
                        return Err(CodegenError::internal(format!(
                            "count in table {table}, which does not exist"
                        )));
                    }
                    Some(t)
                        if t.hashed || t.slots.as_ref().map(Vec::len) != Some(t.len as usize) =>
                    {
                        return Err(CodegenError::internal(format!(
                            "PPP count in table {table}, which is not a PPP array table"
                        )));
                    }
                    Some(_) => {}
                }
                self.operands([ppp, bl])
            }
            // Block ids in trace events name the MIR as lowered, not the blocks of now.
            StatementKind::Trace(_) => Ok(()),
            StatementKind::Stream(event) => {
                let (StreamEvent::Enter { table }
                | StreamEvent::Path { table, .. }
                | StreamEvent::Leave { table }) = *event;
                if table >= self.program.counter_tables.len() {
                    return Err(CodegenError::internal(format!(
                        "path stream of table {table}, which does not exist"
                    )));
                }
                match event {
                    StreamEvent::Path { id, .. } => self.operand(id),
                    _ => Ok(()),
                }
            }
        }
    }

    fn rvalue(&self, rvalue: &Rvalue) -> Result<()> {
        match rvalue {
            Rvalue::Use(op) | Rvalue::Unary(_, op) => self.operand(op),
            Rvalue::Binary(_, x, y) => self.operands([x, y]),
            Rvalue::Global(global) => self.global(*global),
            Rvalue::Index { base, index, .. } => self.operands([base, index]),
            Rvalue::Field {
                object,
                strukt,
                field,
            } => {
                self.field(*strukt, *field)?;
                self.operand(object)
            }
            Rvalue::ArrayLit(elements) => self.operands(elements),
            Rvalue::ArrayRepeat { value, count } => self.operands([value, count]),
            Rvalue::New { strukt, fields } => {
                let count = self.strukt(*strukt)?.fields.len();
                if fields.len() != count {
                    return Err(CodegenError::internal(format!(
                        "`new` of struct {strukt} with {} fields instead of {count}",
                        fields.len()
                    )));
                }
                self.operands(fields)
            }
        }
    }

    fn terminator(&self, term: &TerminatorKind) -> Result<()> {
        for block in term.successors() {
            if block >= self.func.blocks.len() {
                return Err(CodegenError::internal(format!(
                    "jump to missing block {block}"
                )));
            }
        }
        match term {
            TerminatorKind::Branch { cond: op, .. }
            | TerminatorKind::Switch { value: op, .. }
            | TerminatorKind::Return(Some(op)) => self.operand(op),
            TerminatorKind::Goto(_)
            | TerminatorKind::Return(None)
            | TerminatorKind::Unreachable => Ok(()),
        }
    }

    fn operands<'o>(&self, ops: impl IntoIterator<Item = &'o Operand>) -> Result<()> {
        ops.into_iter().try_for_each(|op| self.operand(op))
    }

    fn operand(&self, op: &Operand) -> Result<()> {
        match op {
            Operand::Local(local) => self.local(*local),
            Operand::Const(_) => Ok(()),
        }
    }

    fn local(&self, local: usize) -> Result<()> {
        match self.func.locals.get(local) {
            Some(_) => Ok(()),
            None => Err(CodegenError::internal(format!(
                "local _{local} does not exist"
            ))),
        }
    }

    fn global(&self, global: usize) -> Result<()> {
        match self.program.globals.get(global) {
            Some(_) => Ok(()),
            None => Err(CodegenError::internal(format!(
                "global {global} does not exist"
            ))),
        }
    }

    fn strukt(&self, strukt: usize) -> Result<&StructDef> {
        self.program
            .structs
            .get(strukt)
            .ok_or_else(|| CodegenError::internal(format!("struct {strukt} does not exist")))
    }

    fn field(&self, strukt: usize, field: usize) -> Result<()> {
        match self.strukt(strukt)?.fields.get(field) {
            Some(_) => Ok(()),
            None => Err(CodegenError::internal(format!(
                "struct {strukt} has no field {field}"
            ))),
        }
    }
}
