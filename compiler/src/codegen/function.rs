//! One MIR function → one Cranelift function. Each MIR local is a cranelift-frontend `Variable`
//! (the frontend builds SSA), except the temporaries that live within one block, which are plain
//! SSA values; each MIR block is a Cranelift block; statements become instructions, with the
//! runtime checks of `checks.rs` and the builtins of `builtins.rs`.

use std::collections::{BTreeMap, HashMap, HashSet};

use cranelift_codegen::ir::condcodes::{CondCode, FloatCC, IntCC};
use cranelift_codegen::ir::{
    AliasRegion, AliasRegionData, Block, FuncRef, Function, GlobalValue, InstBuilder,
    InstructionData, JumpTableData, MemFlagsData, StackSlot, TrapCode, Value, types,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch, Variable};
use cranelift_module::{DataId, FuncId};
use pcc_lang::Span;

use super::context::ProgramContext;
use super::layout::{
    self, ARRAY_HEADER, ElementClass, Memory, PTR, SLOT, access_flags, clif_type, element_size,
    load_element, load_slot, slot_offset, store_element, store_slot,
};
use super::profiling::Instrumentation;
use super::roots;
use super::runtime::{self, Ret, RuntimeFn};
use super::{CodegenError, Result};
use crate::mir::appends::AppendRvalues;
use crate::mir::non_null::{self, NonNull};
use crate::mir::{
    self, BinOp, BlockId, Callee, Const, FnId, IdVec, LocalId, Operand, Rvalue, Statement,
    StatementKind, TerminatorKind, Type, UnOp,
};

/// The trap that ends a block after a call that never returns; it is never executed.
const UNREACHABLE: TrapCode = TrapCode::unwrap_user(1);

/// Fills `func` (whose signature is already set) with the translation of MIR function `id`.
pub fn translate(
    cx: &mut ProgramContext,
    id: FnId,
    func: &mut Function,
    builder_cx: &mut FunctionBuilderContext,
) -> Result<()> {
    let mir = &cx.program.functions[id];
    let mut builder = FunctionBuilder::new(func, builder_cx);
    let block_local = block_local_temps(mir);
    let vars = mir
        .locals
        .iter()
        .zip(&block_local)
        .map(|(local, &block_local)| match clif_type(&local.ty) {
            Some(_) if block_local => Some(Local::Value(None)),
            Some(ty) => Some(Local::Var(builder.declare_var(ty))),
            None => None,
        })
        .collect();
    let entry = builder.create_block();
    let blocks: IdVec<BlockId, Block> = mir.blocks.iter().map(|_| builder.create_block()).collect();
    // A block is sealed once every edge into it is emitted; MIR's entry also has the prologue's.
    let mut unemitted_edges: IdVec<BlockId, usize> =
        mir.predecessors().iter().map(Vec::len).collect();
    unemitted_edges[mir::ENTRY] += 1;
    for (&block, &edges) in blocks.iter().zip(&unemitted_edges) {
        if edges == 0 {
            // Unreachable: no edge will come.
            builder.seal_block(block);
        }
    }
    let loops = mir.natural_loops();
    let recursive_loops = loops.iter().any(|l| mir.calls_in(&l.body, id));
    let resizes = cx.resizing[id];
    let mut t = FunctionTranslator {
        cx,
        builder,
        mir,
        vars,
        entry,
        blocks,
        unemitted_edges,
        span: mir.name_span,
        func_refs: HashMap::new(),
        data_refs: HashMap::new(),
        static_refs: HashMap::new(),
        regions: HashMap::new(),
        profiling: Instrumentation::new(recursive_loops),
        cold: false,
        non_null: HashSet::new(),
        movable_lengths: !(mir.blocks.iter())
            .any(|b| matches!(b.term.kind, TerminatorKind::Switch { .. })),
        resizes,
        quiet: true,
        print_area: None,
        appends: AppendRvalues::of(mir),
    };
    t.prologue()?;
    // Per MIR block, the values known non-null at its end (`FunctionTranslator::non_null`).
    let mut non_null_at_end = IdVec::from_elem(HashSet::new(), mir.blocks.len());
    let idom = mir.dominators();
    let mut loops_of = IdVec::from_elem(Vec::new(), mir.blocks.len());
    for (i, l) in loops.iter().enumerate() {
        for &b in &l.body {
            loops_of[b].push(i);
        }
    }
    let non_null_at_entry = NonNull::with_params(mir, &t.cx.non_null_params[id]);
    let collections = roots::collections(mir, id, &t.cx.collects);
    t.edge_emitted(mir::ENTRY);
    // Reverse postorder, then unreachable blocks: a block's dominators come before it, and a
    // block that is no loop header is sealed when translated.
    let mut order = mir.reverse_postorder();
    let mut reachable = IdVec::from_elem(false, mir.blocks.len());
    for &b in &order {
        reachable[b] = true;
    }
    order.extend(mir.blocks.ids().filter(|&b| !reachable[b]));
    for b in order {
        let block = &mir.blocks[b];
        t.builder.switch_to_block(t.blocks[b]);
        // What is non-null at the end of the block's immediate dominator (translated before it)
        // is at its start. A variable not assigned since reads as the same SSA value when the
        // frontend finds the same value on every edge; a block parameter is not in the set.
        t.non_null = idom[b].map_or_else(HashSet::new, |d| non_null_at_end[d].clone());
        // So are the locals the MIR knows to be non-null there (tested by every branch into
        // it, `while x != null`, or accessed on every path to it) whose copies the block
        // accesses: the frontend reads a copy as the same SSA value.
        let known = non_null_at_entry.at_start(b);
        let accessed: HashSet<LocalId> = (block.stmts.iter())
            .filter_map(|s| non_null::null_checked(&s.kind))
            .map(|l| non_null_at_entry.original(l))
            .collect();
        for object in known.originals() {
            if accessed.contains(&object) {
                let value = t.operand(&Operand::Local(object))?;
                let value = t.builder.func.dfg.resolve_aliases(value);
                t.non_null.insert(value);
            }
        }
        t.cold = block.cold;
        if block.cold {
            t.builder.set_cold_block(t.blocks[b]);
        }
        t.profiling.stop_counter = None;
        t.profiling.flush_at_stop = &block.flush_at_stop;
        for ((stmt, held), &quiet) in (block.stmts.iter())
            .zip(&collections.held[b])
            .zip(&collections.quiet[b])
        {
            t.quiet = quiet;
            match held {
                Some(held) => {
                    t.copy_locals(&held.during, true)?;
                    t.statement(stmt)?;
                    t.copy_locals(&held.after, false)?;
                }
                None => t.statement(stmt)?,
            }
        }
        // A latch's exit arm leaves through a block of its own: Cranelift rematerializes an
        // add of a constant in each block that uses it, and a value the loop passes out on its
        // exit edge (a count incremented before an inner loop) would otherwise be recomputed
        // in every iteration.
        let loop_exit = match block.term.kind {
            TerminatorKind::Branch {
                then_bb, else_bb, ..
            } if idom.dominates(then_bb, b) != idom.dominates(else_bb, b) => {
                Some(if idom.dominates(then_bb, b) {
                    else_bb
                } else {
                    then_bb
                })
            }
            _ => None,
        };
        // The arm that stays in the block's loops goes second when it is a block of its own:
        // Cranelift's elaboration (where its loop-invariant code motion happens) visits the
        // second successor's dominator subtree first and forgets a loop when it meets a block
        // outside it, so code that the arm in the loop computes would otherwise stay in the loop
        // (cranelift-codegen 0.135, `egraph/elaborate.rs`; AWFY Mandelbrot's `cr` under `bl`).
        // So does a hot arm beside a cold one: Cranelift lays the second successor out right
        // after the block, so the hot path falls through (bytecode_vm's block guard).
        let swap = match block.term.kind {
            TerminatorKind::Branch {
                then_bb, else_bb, ..
            } => {
                let stays = |s: BlockId| loops_of[b].iter().all(|l| loops_of[s].contains(l));
                let cold = |s: BlockId| mir.blocks[s].cold;
                (stays(then_bb) && !stays(else_bb) && idom[then_bb] == Some(b))
                    || (cold(else_bb) && !cold(then_bb))
            }
            _ => false,
        };
        t.terminator(&block.term.kind, loop_exit, swap)?;
        non_null_at_end[b] = std::mem::take(&mut t.non_null);
        for succ in block.term.kind.successors() {
            t.edge_emitted(succ);
        }
    }
    let config = t.cx.module.target_config();
    t.builder.finalize(config);
    Ok(())
}

pub(super) struct FunctionTranslator<'a, 'm> {
    pub cx: &'a mut ProgramContext<'m>,
    pub builder: FunctionBuilder<'a>,
    pub mir: &'m mir::Function,
    /// `None` for `Void` locals, which hold no value.
    vars: IdVec<LocalId, Option<Local>>,
    /// Cranelift's entry block (`prologue`).
    pub entry: Block,
    blocks: IdVec<BlockId, Block>,
    /// Per MIR block, the edges into it not yet emitted.
    unemitted_edges: IdVec<BlockId, usize>,
    /// The span of the statement being translated: its `lo` is the location of runtime errors.
    pub span: Span,
    func_refs: HashMap<FuncId, FuncRef>,
    data_refs: HashMap<DataId, GlobalValue>,
    /// The string constants' addresses (past their headers).
    static_refs: HashMap<DataId, GlobalValue>,
    regions: HashMap<Memory, AliasRegion>,
    /// Profiling statements' state (`profiling.rs`).
    pub profiling: Instrumentation<'m>,
    /// The MIR block being translated is cold: so is every block its code goes on in
    /// ([`FunctionTranslator::new_block`]), so that Cranelift lays none of it out among the
    /// hot blocks.
    cold: bool,
    /// Struct values known to be non-null here: null-checked, or just allocated, earlier in the
    /// MIR block or in a block that dominates it. A later null check of the same SSA value is
    /// left out.
    pub non_null: HashSet<Value>,
    /// Whether lengths may be hoisted out of loops: not in a function with a `match` dispatch
    /// (an interpreter's loop), whose arms keep so many values live that hoisted lengths are
    /// spilled and push the loop's own variables to the stack (bytecode_vm ran 13% slower),
    /// nor, for a length a statement reads into a local, where a collection may follow (`quiet`).
    pub movable_lengths: bool,
    /// Whether an array's length and data pointer may change while the function runs
    /// (`Program::resizing`): then they are loaded again after every call (`header_flags`).
    pub resizes: bool,
    /// Whether no collection can happen from the statement being translated on
    /// (`roots::Collections::quiet`): only then may it read a length into a local, or an element
    /// of an array it never writes, with a load Cranelift may move.
    pub quiet: bool,
    /// Where `print` lays out its values (`builtins.rs`), once made.
    pub print_area: Option<StackSlot>,
    /// The string appends of the function and whether each is in place (`mir/appends.rs`).
    appends: AppendRvalues<'m>,
}

impl FunctionTranslator<'_, '_> {
    /// Binds the parameters, checks the stack and enters MIR's entry block. The Cranelift entry
    /// block is separate because MIR's may be a loop header, and Cranelift's may not be.
    ///
    /// A function that calls no PL function skips the stack check: it cannot recurse, its caller
    /// passed the check, and the runtime's safety margin below the limit holds its one frame.
    fn prologue(&mut self) -> Result<()> {
        let entry = self.entry;
        self.builder.append_block_params_for_function_params(entry);
        self.builder.switch_to_block(entry);
        self.builder.seal_block(entry);
        let params = self.builder.block_params(entry).to_vec();
        for (&local, value) in self.mir.params.iter().zip(params) {
            self.assign(local, value)?;
        }
        if self.mir.calls_functions() {
            self.stack_check()?;
        }
        self.stream_positions()?;
        self.builder.ins().jump(self.blocks[mir::ENTRY], &[]);
        Ok(())
    }

    /// Notes that an edge into MIR block `target` is emitted; seals the block after the last.
    fn edge_emitted(&mut self, target: BlockId) {
        self.unemitted_edges[target] -= 1;
        if self.unemitted_edges[target] == 0 {
            self.builder.seal_block(self.blocks[target]);
        }
    }

    fn statement(&mut self, stmt: &Statement) -> Result<()> {
        self.span = stmt.span;
        if let StatementKind::CountStop { table, index } = stmt.kind {
            self.profiling.stop_counter = Some((table, index));
            return Ok(());
        }
        self.statement_kind(&stmt.kind)?;
        self.profiling.stop_counter = None;
        Ok(())
    }

    fn statement_kind(&mut self, kind: &StatementKind) -> Result<()> {
        match kind {
            StatementKind::Assign(local, rvalue) => {
                let value = self.rvalue(rvalue, *local)?;
                self.assign(*local, value)?;
            }
            StatementKind::SetGlobal(global, value) => {
                let value = self.operand(value)?;
                let globals = self.globals_address()?;
                let flags = self.memory_flags(Memory::Global(*global));
                store_slot(
                    &mut self.builder,
                    flags,
                    value,
                    globals,
                    slot_offset(global.index())?,
                );
            }
            StatementKind::SetIndex {
                array,
                index,
                value,
                checked,
            } => {
                let (flags, _, size) = self.element_access(array)?;
                let array = self.operand(array)?;
                let index = self.operand(index)?;
                let value = self.operand(value)?;
                let (slot, displacement) = self.element_slot(array, index, *checked, size)?;
                store_element(&mut self.builder, flags, size, value, slot, displacement);
            }
            StatementKind::SetField {
                object,
                strukt,
                field,
                value,
            } => {
                let object = self.operand(object)?;
                let value = self.operand(value)?;
                self.null_check(object, *strukt, *field)?;
                let flags = self.memory_flags(Memory::Field(*strukt, *field));
                store_slot(
                    &mut self.builder,
                    flags,
                    value,
                    object,
                    slot_offset(*field)?,
                );
            }
            StatementKind::Count { table, index } => {
                let index = self.operand(index)?;
                self.count(*table, index)?
            }
            StatementKind::CountBy {
                table,
                index,
                amount,
            } => self.count_by(*table, index, amount)?,
            StatementKind::CountOrCold { table, index } => self.count_or_cold(*table, index)?,
            StatementKind::CountPpp { table, ppp, bl } => self.count_ppp(*table, ppp, bl)?,
            StatementKind::CountStop { .. } => unreachable!("handled by `statement`"),
            StatementKind::Trace(event) => self.trace(*event)?,
            StatementKind::Stream(event) => self.stream(event)?,
            StatementKind::Call { dest, callee, args } => {
                let result = match callee {
                    Callee::Function(f) => {
                        let result = self.call_function(*f, args)?;
                        self.reload_stream_positions();
                        result
                    }
                    Callee::Builtin(crate::mir::Builtin::MapNew) => {
                        let ty = dest.map(|d| self.mir.locals[d].ty.clone());
                        Some(self.map_new(ty)?)
                    }
                    Callee::Builtin(b) => self.builtin(*b, args)?,
                };
                if let (Some(dest), Some(result)) = (dest, result) {
                    self.assign(*dest, result)?;
                }
            }
        }
        Ok(())
    }

    /// Ends the current block with `term`; the edge to `exit` (a loop's exit from its latch), if
    /// any, passes through a block of its own; with `swap`, a branch tests the opposite
    /// condition and names its arms the other way round.
    fn terminator(
        &mut self,
        term: &TerminatorKind,
        exit: Option<BlockId>,
        swap: bool,
    ) -> Result<()> {
        match term {
            TerminatorKind::Goto(target) => {
                self.builder.ins().jump(self.blocks[*target], &[]);
            }
            TerminatorKind::Branch {
                cond,
                then_bb,
                else_bb,
            } => {
                let cond = self.operand(cond)?;
                let target = |bb: BlockId, t: &mut Self| match exit {
                    Some(exit) if exit == bb => t.new_block(),
                    _ => t.blocks[bb],
                };
                let (then_block, else_block) = (target(*then_bb, self), target(*else_bb, self));
                if swap {
                    let opposite = self.opposite(cond);
                    (self.builder.ins()).brif(opposite, else_block, &[], then_block, &[]);
                } else {
                    (self.builder.ins()).brif(cond, then_block, &[], else_block, &[]);
                }
                if let Some(exit) = exit {
                    let through = if exit == *then_bb {
                        then_block
                    } else {
                        else_block
                    };
                    self.builder.switch_to_block(through);
                    self.builder.seal_block(through);
                    self.builder.ins().jump(self.blocks[exit], &[]);
                }
            }
            TerminatorKind::Switch {
                value,
                cases,
                default,
            } => {
                let value = self.operand(value)?;
                // The first case with a value wins; cases compare as unsigned 64-bit values.
                let mut entries: BTreeMap<u64, Block> = BTreeMap::new();
                for &(case, target) in cases {
                    entries.entry(case as u64).or_insert(self.blocks[target]);
                }
                if let Some(first) = dense(&entries) {
                    let targets: Vec<Block> = entries.into_values().collect();
                    self.jump_table(value, first, &targets, self.blocks[*default]);
                    return Ok(());
                }
                let mut switch = Switch::new();
                for (case, target) in entries {
                    switch.set_entry(u128::from(case), target);
                }
                let before = self.builder.func.dfg.num_blocks();
                switch.emit(&mut self.builder, value, self.blocks[*default]);
                // The blocks the switch made (its range tests, its jump table's) are this
                // block's code.
                if self.cold {
                    for block in before..self.builder.func.dfg.num_blocks() {
                        self.builder.set_cold_block(Block::from_u32(block as u32));
                    }
                }
            }
            TerminatorKind::Return(value) => {
                let values = match value {
                    Some(value) => vec![self.operand(value)?],
                    None => Vec::new(),
                };
                self.builder.ins().return_(&values);
            }
            TerminatorKind::Unreachable => {
                self.builder.ins().trap(UNREACHABLE);
            }
        }
        Ok(())
    }

    /// Jumps to `targets[value - first]`, or to `default` where `value - first` (unsigned) is
    /// past them: one comparison with an immediate, then the jump table.
    fn jump_table(&mut self, value: Value, first: u64, targets: &[Block], default: Block) {
        let index = (self.builder.ins()).iadd_imm_s(value, (first as i64).wrapping_neg());
        let count = targets.len() as i64;
        let inside = (self.builder.ins()).icmp_imm_u(IntCC::UnsignedLessThan, index, count);
        let table_block = self.new_block();
        self.builder
            .ins()
            .brif(inside, table_block, &[], default, &[]);
        self.builder.seal_block(table_block);
        self.builder.switch_to_block(table_block);
        // Below `count`: the jump table's own index type holds it.
        let index = self.builder.ins().ireduce(types::I32, index);
        let dfg = &mut self.builder.func.dfg;
        let calls: Vec<_> = targets.iter().map(|&b| dfg.block_call(b, &[])).collect();
        let default = dfg.block_call(default, &[]);
        let table = (self.builder).create_jump_table(JumpTableData::new(default, &calls));
        self.builder.ins().br_table(index, table);
    }

    /// The bool that is true when `cond` is false: the inverse comparison, when `cond` is one.
    fn opposite(&mut self, cond: Value) -> Value {
        let dfg = &self.builder.func.dfg;
        match dfg.value_def(cond).inst().map(|inst| &dfg.insts[inst]) {
            Some(&InstructionData::IntCompare { cond: cc, args, .. }) => {
                self.builder.ins().icmp(cc.complement(), args[0], args[1])
            }
            Some(&InstructionData::FloatCompare { cond: cc, args, .. }) => {
                self.builder.ins().fcmp(cc.complement(), args[0], args[1])
            }
            _ => self.builder.ins().icmp_imm_u(IntCC::Equal, cond, 0),
        }
    }

    /// The value of `rvalue`, which is assigned to `dest`.
    fn rvalue(&mut self, rvalue: &Rvalue, dest: LocalId) -> Result<Value> {
        match rvalue {
            Rvalue::Use(op) => self.operand(op),
            Rvalue::Unary(op, operand) => self.unary(*op, operand),
            Rvalue::Binary(op, lhs, rhs) => match self.appends.get(rvalue) {
                Some(in_place) => self.str_append(lhs, rhs, in_place),
                None => self.binary(*op, lhs, rhs),
            },
            Rvalue::Window {
                window,
                id,
                bits,
                mask,
            } => {
                let (window, id) = (self.operand(window)?, self.operand(id)?);
                let shifted = self.builder.ins().ishl_imm_u(window, i64::from(*bits));
                let window = self.builder.ins().iadd(shifted, id);
                Ok(self.builder.ins().band_imm_u(window, *mask as i64))
            }
            Rvalue::Global(global) => {
                let ty = self.machine_type(&self.cx.program.globals[*global].ty)?;
                let globals = self.globals_address()?;
                let flags = self.memory_flags(Memory::Global(*global));
                Ok(load_slot(
                    &mut self.builder,
                    flags,
                    ty,
                    globals,
                    slot_offset(global.index())?,
                ))
            }
            Rvalue::Index {
                base,
                index,
                checked,
                ..
            } if self.mir.operand_type(base) == Type::Str => {
                let (string, index) = (self.operand(base)?, self.operand(index)?);
                self.string_byte(string, index, *checked)
            }
            Rvalue::Index {
                base,
                index,
                checked,
                readonly,
            } => {
                let (mut flags, ty, size) = self.element_access(base)?;
                if *readonly && self.quiet {
                    // A pure value to Cranelift: its elaboration places the read with the
                    // arithmetic that uses it, where a load could fold into it.
                    flags = flags.with_readonly().with_can_move();
                }
                let (array, index) = (self.operand(base)?, self.operand(index)?);
                let (slot, displacement) = self.element_slot(array, index, *checked, size)?;
                Ok(load_element(
                    &mut self.builder,
                    flags,
                    ty,
                    size,
                    slot,
                    displacement,
                ))
            }
            Rvalue::Field {
                object,
                strukt,
                field,
            } => {
                let object = self.operand(object)?;
                self.null_check(object, *strukt, *field)?;
                let ty = self.machine_type(&self.cx.program.structs[*strukt].fields[*field].ty)?;
                let flags = self.memory_flags(Memory::Field(*strukt, *field));
                Ok(load_slot(
                    &mut self.builder,
                    flags,
                    ty,
                    object,
                    slot_offset(*field)?,
                ))
            }
            Rvalue::ArrayLit(elements) => {
                let values = self.operands(elements)?;
                let len = self.iconst(values.len() as i64);
                let zero = self.iconst(0);
                let loc = self.location();
                // The destination's type, not the first element's: `[]` has none, and an
                // empty array of references must say so to the collector once it grows.
                let element = match &self.mir.locals[dest].ty {
                    Type::Array(element) => Some((**element).clone()),
                    _ => elements.first().map(|e| self.mir.operand_type(e)),
                };
                let size = element.as_ref().map_or(SLOT, element_size);
                let array = self.new_array(element.as_ref(), len, zero, loc)?;
                let class = ElementClass::of(element.as_ref().unwrap_or(&Type::Int));
                let flags = self.memory_flags(Memory::Elements(class));
                for (i, value) in values.into_iter().enumerate() {
                    let offset = i32::try_from(i)
                        .ok()
                        // A new array's elements are inline, after its header.
                        .and_then(|i| i.checked_mul(size)?.checked_add(ARRAY_HEADER))
                        .ok_or_else(|| CodegenError::internal("too many elements"))?;
                    store_element(&mut self.builder, flags, size, value, array, offset);
                }
                Ok(array)
            }
            Rvalue::ArrayRepeat {
                value: element,
                count,
            } => {
                let value = self.operand(element)?;
                let fill = layout::slot_bits(&mut self.builder, value);
                let count = self.operand(count)?;
                let loc = self.location();
                let element = self.mir.operand_type(element);
                self.new_array(Some(&element), count, fill, loc)
            }
            Rvalue::New { strukt, fields } => {
                let values = self.operands(fields)?;
                let count = self.iconst(values.len() as i64);
                let id = self.iconst(strukt.index() as i64);
                let loc = self.location();
                let object = self.call_runtime(&runtime::STRUCT_NEW, &[count, id, loc])?;
                self.non_null.insert(object);
                for (field, value) in values.into_iter().enumerate() {
                    let flags = self.memory_flags(Memory::Field(*strukt, field));
                    store_slot(&mut self.builder, flags, value, object, slot_offset(field)?);
                }
                Ok(object)
            }
        }
    }

    fn unary(&mut self, op: UnOp, operand: &Operand) -> Result<Value> {
        let is_float = self.mir.operand_type(operand) == Type::Float;
        let x = self.operand(operand)?;
        let ins = self.builder.ins();
        Ok(match op {
            UnOp::Neg if is_float => ins.fneg(x),
            UnOp::Neg => ins.ineg(x),
            UnOp::Not => ins.bxor_imm_u(x, 1),
            UnOp::BitNot => ins.bnot(x),
        })
    }

    fn binary(&mut self, op: BinOp, lhs: &Operand, rhs: &Operand) -> Result<Value> {
        let ty = self.mir.operand_type(lhs);
        match ty {
            Type::Int => self.int_binary(op, lhs, rhs),
            Type::Float => self.float_binary(op, lhs, rhs),
            Type::Str => self.str_binary(op, lhs, rhs),
            // Bools compare as 0 < 1; references by identity.
            Type::Bool | Type::Array(_) | Type::Map(..) | Type::Struct(_) | Type::Null => {
                let (x, y) = (self.operand(lhs)?, self.operand(rhs)?);
                let ins = self.builder.ins();
                Ok(match op {
                    BinOp::BitAnd => ins.band(x, y),
                    BinOp::BitOr => ins.bor(x, y),
                    BinOp::BitXor => ins.bxor(x, y),
                    _ => ins.icmp(unsigned_cc(op)?, x, y),
                })
            }
            Type::Void => Err(CodegenError::internal("binary operation on void")),
        }
    }

    fn int_binary(&mut self, op: BinOp, lhs: &Operand, rhs: &Operand) -> Result<Value> {
        let (x, y) = (self.operand(lhs)?, self.operand(rhs)?);
        if let Some(cc) = signed_cc(op) {
            return Ok(self.builder.ins().icmp(cc, x, y));
        }
        // `x - c` as `x + (-c)`: x64 computes the sum into a new register (`lea`), where a
        // subtraction overwrites `x`, and regalloc2 then ties `x - c` to `x`: a loop counter
        // took the fixed register of any call `x - c` was passed to (sieve's `flags[i - 1]`
        // held its counter in two registers, with copies in its loops).
        if let (BinOp::Sub, Some(c)) = (op, const_int(rhs)) {
            return Ok(self.builder.ins().iadd_imm_s(x, c.wrapping_neg()));
        }
        let ins = self.builder.ins();
        Ok(match op {
            BinOp::Add => ins.iadd(x, y),
            BinOp::Sub => ins.isub(x, y),
            BinOp::Mul => ins.imul(x, y),
            // Cranelift takes shift amounts modulo the width, as PL does.
            BinOp::Shl => ins.ishl(x, y),
            BinOp::Shr => ins.sshr(x, y),
            BinOp::BitAnd => ins.band(x, y),
            BinOp::BitXor => ins.bxor(x, y),
            BinOp::BitOr => ins.bor(x, y),
            _ => return self.checked_div_rem(op, x, y, const_int(rhs)),
        })
    }

    fn float_binary(&mut self, op: BinOp, lhs: &Operand, rhs: &Operand) -> Result<Value> {
        let (x, y) = (self.operand(lhs)?, self.operand(rhs)?);
        if op == BinOp::Rem {
            return self.call_runtime(&runtime::FMOD, &[x, y]);
        }
        let ins = self.builder.ins();
        Ok(match op {
            BinOp::Add => ins.fadd(x, y),
            BinOp::Sub => ins.fsub(x, y),
            BinOp::Mul => ins.fmul(x, y),
            BinOp::Div => ins.fdiv(x, y),
            // `!=` is true when either side is NaN, the others false, as in C and Rust.
            BinOp::Eq => ins.fcmp(FloatCC::Equal, x, y),
            BinOp::Ne => ins.fcmp(FloatCC::NotEqual, x, y),
            BinOp::Lt => ins.fcmp(FloatCC::LessThan, x, y),
            BinOp::Le => ins.fcmp(FloatCC::LessThanOrEqual, x, y),
            BinOp::Gt => ins.fcmp(FloatCC::GreaterThan, x, y),
            BinOp::Ge => ins.fcmp(FloatCC::GreaterThanOrEqual, x, y),
            _ => return Err(unsupported(op, "float")),
        })
    }

    /// `s + t` of an append `s = s + t` (`mir/appends.rs`): `pcc_str_append`, told whether it
    /// may grow `s`'s string in place.
    fn str_append(&mut self, lhs: &Operand, rhs: &Operand, in_place: bool) -> Result<Value> {
        let (x, y) = (self.operand(lhs)?, self.operand(rhs)?);
        let in_place = self.builder.ins().iconst(types::I8, i64::from(in_place));
        let loc = self.location();
        self.call_runtime(&runtime::STR_APPEND, &[x, y, in_place, loc])
    }

    fn str_binary(&mut self, op: BinOp, lhs: &Operand, rhs: &Operand) -> Result<Value> {
        let (x, y) = (self.operand(lhs)?, self.operand(rhs)?);
        match op {
            BinOp::Add => {
                let loc = self.location();
                self.call_runtime(&runtime::STR_CONCAT, &[x, y, loc])
            }
            BinOp::Eq => self.call_runtime(&runtime::STR_EQ, &[x, y]),
            BinOp::Ne => {
                let eq = self.call_runtime(&runtime::STR_EQ, &[x, y])?;
                Ok(self.builder.ins().bxor_imm_u(eq, 1))
            }
            _ => {
                // `x op y` is `cmp(x, y) op 0`.
                let cc = signed_cc(op).ok_or_else(|| unsupported(op, "str"))?;
                let cmp = self.call_runtime(&runtime::STR_CMP, &[x, y])?;
                Ok(self.builder.ins().icmp_imm_s(cc, cmp, 0))
            }
        }
    }

    fn call_function(&mut self, callee: FnId, args: &[Operand]) -> Result<Option<Value>> {
        let args = self.operands(args)?;
        let id = self.cx.function(callee);
        let func_ref = self.func_ref(id);
        let call = self.builder.ins().call(func_ref, &args);
        Ok(self.builder.inst_results(call).first().copied())
    }

    /// A new block for the code of the MIR block being translated: cold if that block is.
    pub fn new_block(&mut self) -> Block {
        let block = self.builder.create_block();
        if self.cold {
            self.builder.set_cold_block(block);
        }
        block
    }

    /// Calls a runtime function and returns its result, if any. After a function that never
    /// returns, code goes on in a fresh block that nothing reaches.
    pub fn call_runtime_opt(&mut self, f: &RuntimeFn, args: &[Value]) -> Result<Option<Value>> {
        if f.ret == Ret::Never {
            self.call_never(f, args)?;
            let rest = self.new_block();
            self.builder.switch_to_block(rest);
            self.builder.seal_block(rest);
            return Ok(None);
        }
        let id = self.cx.runtime_fn(f)?;
        let func_ref = self.func_ref(id);
        let call = self.builder.ins().call(func_ref, args);
        Ok(self.builder.inst_results(call).first().copied())
    }

    /// Calls a runtime function that never returns, which ends the current block.
    pub fn call_never(&mut self, f: &RuntimeFn, args: &[Value]) -> Result<()> {
        let id = self.cx.runtime_fn(f)?;
        let func_ref = self.func_ref(id);
        self.builder.ins().call(func_ref, args);
        self.builder.ins().trap(UNREACHABLE);
        Ok(())
    }

    /// A new array of `len` elements of type `element` (`None`: of an empty literal), each
    /// `fill`: `[bool]` arrays have their own constructor, and an array of references says so.
    fn new_array(
        &mut self,
        element: Option<&Type>,
        len: Value,
        fill: Value,
        loc: Value,
    ) -> Result<Value> {
        if element.is_some_and(|ty| element_size(ty) != SLOT) {
            return self.call_runtime(&runtime::BOOL_ARRAY_NEW, &[len, fill, loc]);
        }
        let refs = element.is_some_and(Type::is_reference);
        let refs = self.builder.ins().iconst(types::I8, i64::from(refs));
        self.call_runtime(&runtime::ARRAY_NEW, &[len, fill, refs, loc])
    }

    /// Calls a runtime function that returns a value.
    pub fn call_runtime(&mut self, f: &RuntimeFn, args: &[Value]) -> Result<Value> {
        self.call_runtime_opt(f, args)?
            .ok_or_else(|| CodegenError::internal(format!("`{}` returns nothing", f.name)))
    }

    pub fn operand(&mut self, op: &Operand) -> Result<Value> {
        Ok(match op {
            Operand::Local(local) => match self.local(*local)? {
                Local::Var(var) => self.builder.use_var(var),
                Local::Value(value) => value.ok_or_else(|| {
                    CodegenError::internal(format!("local _{local} read before it is set"))
                })?,
            },
            Operand::Const(Const::Int(v)) => self.iconst(*v),
            Operand::Const(Const::Float(v)) => self.builder.ins().f64const(*v),
            Operand::Const(Const::Bool(v)) => self.builder.ins().iconst(types::I8, i64::from(*v)),
            Operand::Const(Const::Str(bytes)) => {
                let data = self.cx.string(bytes)?;
                let gv = match self.static_refs.get(&data) {
                    Some(&gv) => gv,
                    None => {
                        let gv = self.cx.static_object(data, self.builder.func);
                        *self.static_refs.entry(data).or_insert(gv)
                    }
                };
                self.builder.ins().symbol_value(PTR, gv)
            }
            Operand::Const(Const::Null) => self.builder.ins().iconst(PTR, 0),
        })
    }

    pub fn operands(&mut self, ops: &[Operand]) -> Result<Vec<Value>> {
        ops.iter().map(|op| self.operand(op)).collect()
    }

    pub fn iconst(&mut self, v: i64) -> Value {
        self.builder.ins().iconst(types::I64, v)
    }

    /// The id of the location of the current statement, as a value.
    pub fn location(&mut self) -> Value {
        self.location_at(self.span.lo)
    }

    /// The id of the location at byte `offset` of the source, as a value. The function named is
    /// the one whose source contains it (docs/CONVENTIONS.md): for code inlined from another
    /// function, that function; outside every function (global initializers), this one.
    pub fn location_at(&mut self, offset: u32) -> Value {
        let program = self.cx.program;
        let function = program
            .functions
            .iter()
            .find(|f| f.span.lo <= offset && offset < f.span.hi)
            .unwrap_or(self.mir);
        let id = self.cx.info.location(offset, &function.name);
        self.iconst(id)
    }

    pub fn data_address(&mut self, data: DataId) -> Value {
        let gv = self.data_ref(data);
        self.builder.ins().symbol_value(PTR, gv)
    }

    pub(super) fn data_ref(&mut self, data: DataId) -> GlobalValue {
        *self
            .data_refs
            .entry(data)
            .or_insert_with(|| self.cx.module.declare_data_in_func(data, self.builder.func))
    }

    fn globals_address(&mut self) -> Result<Value> {
        let globals = self
            .cx
            .globals
            .ok_or_else(|| CodegenError::internal("global access in a program without globals"))?;
        Ok(self.data_address(globals))
    }

    /// Flags for an access to `memory`, in its own alias region.
    pub fn memory_flags(&mut self, memory: Memory) -> MemFlagsData {
        let program = self.cx.program;
        let user_id = self.regions.len() as u32;
        let regions = &mut self.builder.func.dfg.alias_regions;
        let region = *self.regions.entry(memory).or_insert_with(|| {
            regions.insert(AliasRegionData {
                user_id,
                description: memory.describe(program).into(),
            })
        });
        access_flags().with_alias_region(Some(region))
    }

    /// The flags, machine type and size of an access to an element of `array`.
    fn element_access(&mut self, array: &Operand) -> Result<(MemFlagsData, types::Type, i32)> {
        match self.mir.operand_type(array) {
            Type::Array(elem) => {
                let flags = self.memory_flags(Memory::Elements(ElementClass::of(&elem)));
                Ok((flags, self.machine_type(&elem)?, element_size(&elem)))
            }
            _ => Err(CodegenError::internal(
                "indexing a value that is not an array",
            )),
        }
    }

    pub(super) fn func_ref(&mut self, id: FuncId) -> FuncRef {
        *self
            .func_refs
            .entry(id)
            .or_insert_with(|| self.cx.module.declare_func_in_func(id, self.builder.func))
    }

    fn local(&self, local: LocalId) -> Result<Local> {
        self.vars
            .get(local)
            .copied()
            .flatten()
            .ok_or_else(|| CodegenError::internal(format!("local _{local} has no value")))
    }

    /// Gives each of `locals` a new SSA value, a copy of its current one, that the collector
    /// finds while the next statement runs if `rooted` (`roots.rs`). A copy of a value known
    /// non-null is.
    fn copy_locals(&mut self, locals: &[LocalId], rooted: bool) -> Result<()> {
        for &local in locals {
            let value = self.operand(&Operand::Local(local))?;
            let copy = self.builder.ins().iadd_imm_s(value, 0);
            if rooted {
                self.builder.declare_value_needs_stack_map(copy);
            }
            if self
                .non_null
                .contains(&self.builder.func.dfg.resolve_aliases(value))
            {
                self.non_null.insert(copy);
            }
            self.assign(local, copy)?;
        }
        Ok(())
    }

    fn assign(&mut self, local: LocalId, value: Value) -> Result<()> {
        match self.local(local)? {
            Local::Var(var) => self.builder.def_var(var, value),
            Local::Value(_) => self.vars[local] = Some(Local::Value(Some(value))),
        }
        Ok(())
    }

    pub fn machine_type(&self, ty: &Type) -> Result<types::Type> {
        clif_type(ty).ok_or_else(|| CodegenError::internal("a value of type void"))
    }
}

/// How a MIR local is translated.
#[derive(Clone, Copy)]
enum Local {
    /// A cranelift-frontend variable, which may be read in other blocks than it is set in.
    Var(Variable),
    /// A temporary set and read in one block only: its current SSA value. Making it a variable
    /// would cost the frontend a map over all the blocks up to this one per variable, which
    /// grows with the square of a function's size (one temporary per statement).
    Value(Option<Value>),
}

/// Which locals are temporaries of their blocks: not parameters, and never read in a block
/// before being set in it, so that no value flows into a block from another one or from an
/// earlier iteration. Copies of a block (tail duplication at -O2) each set their own.
fn block_local_temps(mir: &mir::Function) -> IdVec<LocalId, bool> {
    let mut temp = IdVec::from_elem(true, mir.locals.len());
    for &param in &mir.params {
        temp[param] = false;
    }
    // The block each local was last set in.
    let mut set_in = IdVec::from_elem(None, mir.locals.len());
    for (b, block) in mir.blocks.iter_enumerated() {
        let mut read = |op: &Operand, set_in: &IdVec<LocalId, Option<BlockId>>| {
            if let Operand::Local(local) = *op
                && set_in[local] != Some(b)
            {
                temp[local] = false;
            }
        };
        for stmt in &block.stmts {
            for op in stmt.kind.operands() {
                read(op, &set_in);
            }
            if let Some(dest) = stmt.kind.dest() {
                set_in[dest] = Some(b);
            }
        }
        if let Some(op) = block.term.kind.operand() {
            read(op, &set_in);
        }
    }
    temp
}

fn const_int(op: &Operand) -> Option<i64> {
    match op {
        Operand::Const(Const::Int(v)) => Some(*v),
        _ => None,
    }
}

fn signed_cc(op: BinOp) -> Option<IntCC> {
    Some(match op {
        BinOp::Eq => IntCC::Equal,
        BinOp::Ne => IntCC::NotEqual,
        BinOp::Lt => IntCC::SignedLessThan,
        BinOp::Le => IntCC::SignedLessThanOrEqual,
        BinOp::Gt => IntCC::SignedGreaterThan,
        BinOp::Ge => IntCC::SignedGreaterThanOrEqual,
        _ => return None,
    })
}

fn unsigned_cc(op: BinOp) -> Result<IntCC> {
    Ok(match op {
        BinOp::Eq => IntCC::Equal,
        BinOp::Ne => IntCC::NotEqual,
        BinOp::Lt => IntCC::UnsignedLessThan,
        BinOp::Le => IntCC::UnsignedLessThanOrEqual,
        BinOp::Gt => IntCC::UnsignedGreaterThan,
        BinOp::Ge => IntCC::UnsignedGreaterThanOrEqual,
        _ => return Err(unsupported(op, "bool or reference")),
    })
}

fn unsupported(op: BinOp, ty: &str) -> CodegenError {
    CodegenError::internal(format!("operator {op:?} on {ty} operands"))
}

/// The smallest case of a `match` whose cases (first-wins, as unsigned 64-bit values) are at
/// least [`MIN_JUMP_TABLE`] consecutive values, which [`FunctionTranslator::jump_table`] emits:
/// cranelift-frontend's `Switch` would test that the index fits in 32 bits, against a constant
/// in memory, before the jump table clamps it again (bytecode_vm 0.91 → 0.87 s).
fn dense(entries: &BTreeMap<u64, Block>) -> Option<u64> {
    let (&first, &last) = (entries.keys().next()?, entries.keys().next_back()?);
    (entries.len() >= MIN_JUMP_TABLE && last - first == entries.len() as u64 - 1).then_some(first)
}

/// Fewer cases are compared one by one (as cranelift-frontend's `Switch` does below 4).
const MIN_JUMP_TABLE: usize = 4;
