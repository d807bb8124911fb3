//! The MIR verifier: the invariants every pass may assume and must keep, checked on a whole
//! program (as Cranelift's verifier checks its IR). Debug builds and tests run it after every pass
//! ([`after_pass`]); code generation runs it in every build before translating, so a compiler bug
//! becomes an internal-error message instead of a crash. The invariants:
//! - `main` and the global initializer exist and take no parameters;
//! - a function has at least one block; its parameters are its first locals, in order;
//! - every id names something that exists: blocks, locals, globals, structs and their fields,
//!   functions, counter tables (a `CountPpp` table is a PPP array table with its slots);
//! - a call passes as many arguments as the callee has parameters, each of the parameter's type,
//!   and stores its result only into a local of the callee's result type;
//! - a value moved (`x = y`, a global store, a `return`) has the type of where it goes (`null`
//!   goes into any struct type); a branch tests a `bool`, a `switch` an `int` (its first case
//!   with the value wins); counters and path ids are `int`s; a function without a result type returns no value.
//!
//! Block ids in `Trace` statements name the blocks as lowered, not the current ones: not checked.

use super::{
    Callee, Const, Function, GlobalId, LocalId, Operand, Program, Rvalue, Statement, StatementKind,
    StreamEvent, StructDef, StructId, TerminatorKind, Type,
};

/// What is wrong, naming the function and block.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct VerifyError(pub String);

type Result<T> = std::result::Result<T, VerifyError>;

fn error(message: impl Into<String>) -> VerifyError {
    VerifyError(message.into())
}

/// In debug builds (and so in every test), verifies `program` after the pass `pass` and stops
/// with the pass's name and the broken invariant: that pass has a bug. Release builds skip it;
/// code generation still verifies once.
pub fn after_pass(program: &Program, pass: &str) {
    if cfg!(debug_assertions)
        && let Err(problem) = verify(program)
    {
        panic!("MIR is invalid after the `{pass}` pass: {problem}");
    }
}

pub fn verify(program: &Program) -> Result<()> {
    for id in [program.main, program.init] {
        let func = program.functions.get(id).ok_or_else(|| {
            error(format!(
                "`main` or the initializer is function {id}, which does not exist"
            ))
        })?;
        if !func.params.is_empty() {
            return Err(error(format!("`{}` takes parameters", func.name)));
        }
    }
    for func in &program.functions {
        let v = Verifier { program, func };
        v.function()
            .map_err(|e| error(format!("in MIR of `{}`: {e}", func.name)))?;
    }
    Ok(())
}

struct Verifier<'a> {
    program: &'a Program,
    func: &'a Function,
}

impl Verifier<'_> {
    fn function(&self) -> Result<()> {
        if self.func.blocks.is_empty() {
            return Err(error("no blocks"));
        }
        for (i, &param) in self.func.params.iter().enumerate() {
            self.local(param)?;
            if param.index() != i {
                return Err(error(format!("parameter {i} is local _{param}, not _{i}")));
            }
        }
        for (b, block) in self.func.blocks.iter_enumerated() {
            let in_block = |e: VerifyError| error(format!("bb{b}: {e}"));
            for stmt in &block.stmts {
                self.statement(stmt).map_err(in_block)?;
            }
            self.terminator(&block.term.kind).map_err(in_block)?;
        }
        Ok(())
    }

    fn statement(&self, stmt: &Statement) -> Result<()> {
        match &stmt.kind {
            StatementKind::Assign(local, rvalue) => {
                self.local(*local)?;
                self.rvalue(rvalue)?;
                match rvalue {
                    Rvalue::Use(value) => self.moves(value, &self.func.locals[*local].ty),
                    _ => Ok(()),
                }
            }
            StatementKind::SetGlobal(global, value) => {
                self.global(*global)?;
                self.operand(value)?;
                self.moves(value, &self.program.globals[*global].ty)
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
                self.operands(args)?;
                if let Callee::Function(f) = callee {
                    let callee = self.program.functions.get(*f).ok_or_else(|| {
                        error(format!("call of function {f}, which does not exist"))
                    })?;
                    if callee.params.len() != args.len() {
                        return Err(error(format!(
                            "`{}` called with {} arguments",
                            callee.name,
                            args.len()
                        )));
                    }
                    // A callee with a missing parameter local fails its own verification.
                    for (arg, param) in args.iter().zip(&callee.params) {
                        if let Some(param) = callee.locals.get(*param) {
                            self.moves(arg, &param.ty)?;
                        }
                    }
                    if let Some(dest) = dest {
                        self.same(
                            &callee.ret,
                            &self.func.locals[*dest].ty,
                            "the call's result",
                        )?;
                    }
                }
                Ok(())
            }
            StatementKind::Count { table, index } | StatementKind::CountOrCold { table, index } => {
                if *table >= self.program.counter_tables.len() {
                    return Err(error(format!(
                        "count in table {table}, which does not exist"
                    )));
                }
                self.int(index)
            }
            StatementKind::CountBy {
                table,
                index,
                amount,
            } => {
                match self.program.counter_tables.get(*table) {
                    Some(t) if !t.hashed && !t.keyed => {}
                    _ => {
                        return Err(error(format!(
                            "count by an amount in table {table}, which is no array of counters"
                        )));
                    }
                }
                self.int(index)?;
                self.int(amount)
            }
            StatementKind::CountStop { table, index } => {
                match self.program.counter_tables.get(*table) {
                    Some(t) if !t.hashed && *index < t.len => Ok(()),
                    _ => Err(error(format!(
                        "stop counted in table {table} at {index}, which does not exist"
                    ))),
                }
            }
            StatementKind::CountPpp { table, ppp, bl } => {
                match self.program.counter_tables.get(*table) {
                    None => {
                        return Err(error(format!(
                            "count in table {table}, which does not exist"
                        )));
                    }
                    Some(t)
                        if t.hashed || t.slots.as_ref().map(Vec::len) != Some(t.len as usize) =>
                    {
                        return Err(error(format!(
                            "PPP count in table {table}, which is not a PPP array table"
                        )));
                    }
                    Some(_) => {}
                }
                self.int(ppp)?;
                self.int(bl)
            }
            // Block ids in trace events name the MIR as lowered, not the blocks of now.
            StatementKind::Trace(_) => Ok(()),
            StatementKind::Stream(event) => {
                let (StreamEvent::Enter { table }
                | StreamEvent::Path { table, .. }
                | StreamEvent::Leave { table }) = *event;
                if table >= self.program.counter_tables.len() {
                    return Err(error(format!(
                        "path stream of table {table}, which does not exist"
                    )));
                }
                match event {
                    StreamEvent::Path { id, .. } => self.int(id),
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
            Rvalue::Index {
                checked: true,
                readonly: true,
                ..
            } => Err(error("a bounds-checked read marked readonly")),
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
            Rvalue::Window { window, id, .. } => self.operands([window, id]),
            Rvalue::New { strukt, fields } => {
                let count = self.strukt(*strukt)?.fields.len();
                if fields.len() != count {
                    return Err(error(format!(
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
            if self.func.blocks.get(block).is_none() {
                return Err(error(format!("jump to missing block {block}")));
            }
        }
        match term {
            TerminatorKind::Branch { cond, .. } => {
                self.operand(cond)?;
                self.typed(cond, &Type::Bool, "a branch condition")
            }
            TerminatorKind::Switch { value, .. } => self.int(value),
            TerminatorKind::Return(Some(value)) => {
                self.operand(value)?;
                if self.func.ret == Type::Void {
                    return Err(error(
                        "returns a value from a function without a result type",
                    ));
                }
                self.moves(value, &self.func.ret)
            }
            TerminatorKind::Return(None) if self.func.ret != Type::Void => {
                Err(error("returns no value from a function with a result type"))
            }
            TerminatorKind::Goto(_)
            | TerminatorKind::Return(None)
            | TerminatorKind::Unreachable => Ok(()),
        }
    }

    fn operands<'o>(&self, ops: impl IntoIterator<Item = &'o Operand>) -> Result<()> {
        ops.into_iter().try_for_each(|op| self.operand(op))
    }

    /// The type of an operand whose ids were checked.
    fn ty(&self, op: &Operand) -> Type {
        match op {
            Operand::Local(local) => self.func.locals[*local].ty.clone(),
            Operand::Const(c) => c.ty(),
        }
    }

    /// `op` is an existing `int`.
    fn int(&self, op: &Operand) -> Result<()> {
        self.operand(op)?;
        self.typed(op, &Type::Int, "an int operand")
    }

    /// `value` may be stored where a `ty` goes: same type, or `null` into a struct.
    fn moves(&self, value: &Operand, ty: &Type) -> Result<()> {
        match (value, ty) {
            (Operand::Const(Const::Null), Type::Struct(_)) => Ok(()),
            _ => self.typed(value, ty, "a value stored or passed"),
        }
    }

    fn typed(&self, op: &Operand, expected: &Type, what: &str) -> Result<()> {
        self.same(&self.ty(op), expected, &format!("{what} (`{op}`)"))
    }

    fn same(&self, found: &Type, expected: &Type, what: &str) -> Result<()> {
        if found == expected {
            Ok(())
        } else {
            Err(error(format!(
                "{what} has type {found:?} where {expected:?} is expected"
            )))
        }
    }

    fn operand(&self, op: &Operand) -> Result<()> {
        match op {
            Operand::Local(local) => self.local(*local),
            Operand::Const(_) => Ok(()),
        }
    }

    fn local(&self, local: LocalId) -> Result<()> {
        match self.func.locals.get(local) {
            Some(_) => Ok(()),
            None => Err(error(format!("local _{local} does not exist"))),
        }
    }

    fn global(&self, global: GlobalId) -> Result<()> {
        match self.program.globals.get(global) {
            Some(_) => Ok(()),
            None => Err(error(format!("global {global} does not exist"))),
        }
    }

    fn strukt(&self, strukt: StructId) -> Result<&StructDef> {
        self.program
            .structs
            .get(strukt)
            .ok_or_else(|| error(format!("struct {strukt} does not exist")))
    }

    fn field(&self, strukt: StructId, field: usize) -> Result<()> {
        match self.strukt(strukt)?.fields.get(field) {
            Some(_) => Ok(()),
            None => Err(error(format!("struct {strukt} has no field {field}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{BasicBlock, BlockId, ENTRY, Terminator};

    fn lower(source: &str) -> Program {
        let typed = pcc_lang::check_bytes("test.pl", source.as_bytes()).expect("a valid program");
        crate::lower::lower_program(&typed)
    }

    const SOURCE: &str = "
        fn twice(x: int) -> int { return 2 * x; }
        fn main() {
            let s = 0;
            for i in 0..10 { if i % 3 == 0 { s += twice(i); } }
            match s { 0 => { println(0); } _ => { println(s); } }
        }";

    /// The program as lowered, its `main` changed by `break_it`, verified: the message.
    fn broken(break_it: impl FnOnce(&mut Function)) -> String {
        let mut program = lower(SOURCE);
        let main = program.main;
        break_it(&mut program.functions[main]);
        verify(&program)
            .expect_err("the change breaks an invariant")
            .0
    }

    fn error_of(message: &str, expected: &str) {
        assert!(message.contains(expected), "`{message}` lacks `{expected}`");
        assert!(message.starts_with("in MIR of `main`"), "{message}");
    }

    #[test]
    fn lowered_programs_verify() {
        verify(&lower(SOURCE)).unwrap();
    }

    #[test]
    fn a_jump_to_a_missing_block_is_reported_with_its_block() {
        let message = broken(|f| {
            let n = f.blocks.len();
            f.blocks[ENTRY].term.kind = TerminatorKind::Goto(BlockId::new(n + 5));
        });
        error_of(&message, "bb0: jump to missing block");
    }

    #[test]
    fn a_branch_on_an_int_is_reported() {
        let message = broken(|f| {
            let (then_bb, else_bb) = (BlockId::new(1), BlockId::new(1));
            f.blocks[ENTRY].term.kind = TerminatorKind::Branch {
                cond: Operand::Const(Const::Int(1)),
                then_bb,
                else_bb,
            };
        });
        error_of(
            &message,
            "a branch condition (`1`) has type Int where Bool is expected",
        );
    }

    #[test]
    fn returning_a_value_from_main_is_reported() {
        let message = broken(|f| {
            f.blocks.push(BasicBlock::new(
                Vec::new(),
                Terminator {
                    kind: TerminatorKind::Return(Some(Operand::Const(Const::Int(0)))),
                    span: f.span,
                },
            ));
        });
        error_of(
            &message,
            "returns a value from a function without a result type",
        );
    }

    #[test]
    fn a_call_with_an_argument_of_the_wrong_type_is_reported() {
        let message = broken(|f| {
            let call = f
                .blocks
                .iter_mut()
                .flat_map(|b| &mut b.stmts)
                .find_map(|s| match &mut s.kind {
                    StatementKind::Call {
                        callee: Callee::Function(_),
                        args,
                        ..
                    } => Some(args),
                    _ => None,
                })
                .expect("main calls twice");
            call[0] = Operand::Const(Const::Bool(true));
        });
        error_of(
            &message,
            "a value stored or passed (`true`) has type Bool where Int is expected",
        );
    }

    #[test]
    #[should_panic(expected = "MIR is invalid after the `test` pass")]
    fn after_pass_names_the_pass() {
        let mut program = lower(SOURCE);
        let main = program.main;
        program.functions[main].blocks[ENTRY].term.kind = TerminatorKind::Goto(BlockId::new(999));
        after_pass(&program, "test");
    }
}
