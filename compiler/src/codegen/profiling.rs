//! Profiling statements in Cranelift IR: counts in the counter arrays (plain, `kbl`'s keyed
//! windows, `tpp`'s cold counter, `ppp`'s checked slots), counts in the runtime's hash tables,
//! the `kbl`/`wpp` stream buffers, test traces, and the counts a failing check adds before the
//! program stops. The MIR's instrumentation (`profiler` crate) decides what is counted; this
//! file only says how.

use std::collections::HashMap;

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, StackSlotData, StackSlotKind, Value, types};
use cranelift_frontend::Variable;
use cranelift_module::DataId;
use pcc_profiler::mode::kbl;
use pcc_stdlib::stream;

use super::function::FunctionTranslator;
use super::layout::{Memory, PTR, SLOT};
use super::runtime::{self, RuntimeFn};
use super::{CodegenError, Result};
use crate::mir::{self, Operand, StatementKind, StreamEvent, TraceEvent};

/// What the translation of one function keeps for its profiling statements.
pub(super) struct Instrumentation<'m> {
    /// The address of the stack slot holding the address of each profile array read
    /// (`profile_array_address`).
    array_slots: HashMap<DataId, Value>,
    /// Whether a loop of the function calls the function (`profile_array_address`).
    recursive_loops: bool,
    /// `kbl`, `wpp`: each stream buffer the function appends to (`kbl`: its own, and those of
    /// the streaming functions inlined into it), and a variable with its number of used words,
    /// so that a loop appending to the buffer keeps it in a register rather than reloading what
    /// it just stored (the memory copy is still kept up to date, for the runtime).
    stream: Vec<(DataId, Variable)>,
    /// `edge`: the counter (table, index) a failing check of the statement being translated
    /// increments, set by the [`StatementKind::CountStop`] before it.
    pub stop_counter: Option<(usize, u64)>,
    /// The counts the loop of the block being translated keeps in locals, which a failing
    /// check adds to their counters (`-O 2`'s counter promotion).
    pub flush_at_stop: &'m [mir::StopFlush],
}

impl Instrumentation<'_> {
    pub fn new(recursive_loops: bool) -> Self {
        Instrumentation {
            array_slots: HashMap::new(),
            recursive_loops,
            stream: Vec::new(),
            stop_counter: None,
            flush_at_stop: &[],
        }
    }
}

impl FunctionTranslator<'_, '_> {
    /// Profiling: `table[index] += 1`, in place for an array table, through the runtime for a
    /// hashed one. Indices are in range by construction of the instrumentation.
    pub(super) fn count(&mut self, table: usize, index: Value) -> Result<()> {
        let data = *self
            .cx
            .counter_tables
            .get(table)
            .ok_or_else(|| CodegenError::internal(format!("no counter table {table}")))?;
        match data {
            Some(data) if self.cx.program.counter_tables[table].keyed => {
                self.count_keyed(table, data, index)?;
            }
            Some(_) => {
                let address = self.counter_address(table, index)?;
                self.increment_counter(address, 0);
            }
            None => {
                let table = self.iconst(table as i64);
                self.count_hashed(table, index)?;
            }
        }
        Ok(())
    }

    /// `table[index] += amount` (`-O 2`'s promoted counts, added after their loop).
    pub(super) fn count_by(
        &mut self,
        table: usize,
        index: &Operand,
        amount: &Operand,
    ) -> Result<()> {
        let (index, amount) = (self.operand(index)?, self.operand(amount)?);
        let address = self.counter_address(table, index)?;
        self.add_to_counter(address, 0, Some(amount));
        Ok(())
    }

    /// In the cold block of a failing check, before the program stops: counts the stop where
    /// the statement has a stop counter (`edge`), and adds the counts the block's loop keeps
    /// in locals.
    pub(super) fn count_stop(&mut self) -> Result<()> {
        if let Some((table, index)) = self.profiling.stop_counter {
            let index = self.iconst(index as i64);
            self.count(table, index)?;
        }
        self.flush_promoted_counts()
    }

    /// Before the program stops at a failing check: adds the counts the block's loop keeps in
    /// locals to their counters, the first (if any) of a count whose first iteration's index
    /// differs at that index.
    fn flush_promoted_counts(&mut self) -> Result<()> {
        let flushes = self.profiling.flush_at_stop;
        for flush in flushes {
            let amount = self.operand(&Operand::Local(flush.amount))?;
            let index = self.operand(&flush.index)?;
            let rest = match &flush.first {
                None => amount,
                Some(first) => {
                    let first = self.operand(first)?;
                    let ran = self.builder.ins().icmp_imm_s(IntCC::NotEqual, amount, 0);
                    let ran = self.builder.ins().uextend(types::I64, ran);
                    let address = self.counter_address(flush.table, first)?;
                    self.add_to_counter(address, 0, Some(ran));
                    self.builder.ins().isub(amount, ran)
                }
            };
            let address = self.counter_address(flush.table, index)?;
            self.add_to_counter(address, 0, Some(rest));
        }
        Ok(())
    }

    /// `kbl`, `wpp`: after a call, whose activations may have used the stream buffers, reads
    /// their used words again.
    pub(super) fn reload_stream_positions(&mut self) {
        for (data, position) in self.profiling.stream.clone() {
            self.reload_stream_position(data, position);
        }
    }

    /// The address of counter `index` of array table `table`.
    fn counter_address(&mut self, table: usize, index: Value) -> Result<Value> {
        let Some(Some(data)) = self.cx.counter_tables.get(table).copied() else {
            return Err(CodegenError::internal(format!("no counter array {table}")));
        };
        let base = self.profile_array_address(data);
        let offset = self.builder.ins().ishl_imm_u(index, 3);
        Ok(self.builder.ins().iadd(base, offset))
    }

    /// Profiling, `kbl` keyed windows (`mir::CounterTable::keyed`): adds one to the count of
    /// `window` in table `table` (array `data`) where its home slot holds it; the runtime finds
    /// or adds the other windows, the first count of each among them.
    fn count_keyed(&mut self, table: usize, data: DataId, window: Value) -> Result<()> {
        let hit = self.new_block();
        let miss = self.new_block();
        let done = self.new_block();
        self.builder.set_cold_block(miss);
        let product = self.builder.ins().imul_imm_s(window, kbl::FIBONACCI as i64);
        let home = (self.builder.ins()).ushr_imm_u(product, i64::from(64 - kbl::KEYED_SLOTS_LOG2));
        let offset = self.builder.ins().ishl_imm_u(home, 4);
        let base = self.profile_array_address(data);
        let slot = self.builder.ins().iadd(base, offset);
        let flags = self.memory_flags(Memory::Counters);
        let key = self.builder.ins().load(types::I64, flags, slot, 0);
        let tag = self.builder.ins().iadd_imm_s(window, 1);
        let found = self.builder.ins().icmp(IntCC::Equal, key, tag);
        self.builder.ins().brif(found, hit, &[], miss, &[]);
        self.builder.seal_block(hit);
        self.builder.seal_block(miss);

        self.builder.switch_to_block(hit);
        self.increment_counter(slot, 8);
        self.builder.ins().jump(done, &[]);

        self.builder.switch_to_block(miss);
        let table = self.iconst(table as i64);
        self.count_in_runtime(&runtime::PROFILE_COUNT_KEYED, table, window)?;
        self.builder.ins().jump(done, &[]);
        self.builder.seal_block(done);
        self.builder.switch_to_block(done);
        Ok(())
    }

    /// Profiling, `tpp` ([TPP] Appendix A.1): `table[min(index, len - 1)] += 1`. One `umin` (a
    /// compare and a conditional move) sends a poisoned id (≥ 2^63, unsigned) to the cold
    /// counter at the end of the table: no branch, and no second register.
    pub(super) fn count_or_cold(&mut self, table: usize, index: &Operand) -> Result<()> {
        let index = self.operand(index)?;
        let len = self
            .cx
            .program
            .counter_tables
            .get(table)
            .ok_or_else(|| CodegenError::internal(format!("no counter table {table}")))?
            .len;
        let cold = self.iconst(len as i64 - 1);
        let index = self.builder.ins().umin(index, cold);
        self.count(table, index)
    }

    /// Profiling, `ppp` ([PPP] §5 "Additional checks"): `if (ppp as u64) < len && slots[ppp] ==
    /// bl { counts[ppp] += 1 } else { residual(bl) }`, the residual paths going to the runtime's
    /// hash table `counter_tables.len() + table`, keyed by Ball-Larus id. The residual branch is
    /// cold: the interesting paths are expected to be the frequent ones.
    pub(super) fn count_ppp(&mut self, table: usize, ppp: &Operand, bl: &Operand) -> Result<()> {
        let ppp = self.operand(ppp)?;
        let bl = self.operand(bl)?;
        let program = self.cx.program;
        let len = program
            .counter_tables
            .get(table)
            .ok_or_else(|| CodegenError::internal(format!("no counter table {table}")))?
            .len;
        let residual_table = (program.counter_tables.len() + table) as i64;
        let arrays = (
            self.cx.counter_tables.get(table).copied().flatten(),
            self.cx.slot_tables.get(table).copied().flatten(),
        );
        let (counts, slots) = match arrays {
            (Some(counts), Some(slots)) => (counts, slots),
            // No interesting path: every path is residual.
            _ => {
                let table = self.iconst(residual_table);
                self.count_hashed(table, bl)?;
                return Ok(());
            }
        };
        let check = self.new_block();
        let hit = self.new_block();
        let miss = self.new_block();
        let done = self.new_block();
        self.builder.set_cold_block(miss);
        // One unsigned comparison also sends negative (wrapped) ids to the residual table.
        let in_range = self
            .builder
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, ppp, len as i64);
        self.builder.ins().brif(in_range, check, &[], miss, &[]);
        self.builder.seal_block(check);
        self.builder.switch_to_block(check);
        let offset = self.builder.ins().ishl_imm_u(ppp, 3);
        let slots = self.profile_array_address(slots);
        let slot = self.builder.ins().iadd(slots, offset);
        let flags = self.memory_flags(Memory::PppSlots).with_readonly();
        let expected = self.builder.ins().load(types::I64, flags, slot, 0);
        let matches = self.builder.ins().icmp(IntCC::Equal, expected, bl);
        self.builder.ins().brif(matches, hit, &[], miss, &[]);
        self.builder.seal_block(hit);
        self.builder.seal_block(miss);

        self.builder.switch_to_block(hit);
        let counts = self.profile_array_address(counts);
        let address = self.builder.ins().iadd(counts, offset);
        self.increment_counter(address, 0);
        self.builder.ins().jump(done, &[]);

        self.builder.switch_to_block(miss);
        let table = self.iconst(residual_table);
        self.count_hashed(table, bl)?;
        self.builder.ins().jump(done, &[]);
        self.builder.seal_block(done);
        self.builder.switch_to_block(done);
        Ok(())
    }

    /// Testing: `pcc_trace_event(kind, function, block)` (0 enter, 1 block, 2 leave).
    pub(super) fn trace(&mut self, event: TraceEvent) -> Result<()> {
        let (kind, function, block) = match event {
            TraceEvent::Enter(f) => (0, f, 0),
            TraceEvent::Block(f, b) => (1, f, b.index()),
            TraceEvent::Leave(f) => (2, f, 0),
        };
        let args = [kind, function.index() as i64, block as i64].map(|v| self.iconst(v));
        self.call_runtime_opt(&runtime::TRACE_EVENT, &args)?;
        Ok(())
    }

    /// Profiling, `kbl` and `wpp`: appends an event to the stream buffer (`pcc_stdlib::stream`;
    /// `kbl`: the function's, `wpp`: the program's): `buffer[1 + used..] = words; used +=
    /// words.len()`, and when the buffer is full, a call to the mode's flush function in a cold
    /// block, through the `preserve_all` trampoline, so the hot loops around it spill nothing.
    pub(super) fn stream(&mut self, event: &StreamEvent) -> Result<()> {
        let marker =
            |t: &mut Self, kind: u64| vec![t.iconst(stream::MARKER as i64), t.iconst(kind as i64)];
        let (table, words) = match event {
            StreamEvent::Enter { table } => (*table, marker(self, stream::ENTER + *table as u64)),
            StreamEvent::Leave { table } => (*table, marker(self, stream::LEAVE)),
            StreamEvent::Path { table, id } => (*table, vec![self.operand(id)?]),
        };
        let data = self.cx.stream_buffer(table)?;
        let position = self
            .profiling
            .stream
            .iter()
            .find_map(|&(d, position)| (d == data).then_some(position))
            .ok_or_else(|| {
                CodegenError::internal(format!("no stream position for table {table}"))
            })?;
        let buffer = self.data_address(data);
        let flags = self.memory_flags(Memory::Counters);
        let used = self.builder.use_var(position);
        let offset = self.builder.ins().ishl_imm_u(used, 3);
        let next = self.builder.ins().iadd(buffer, offset);
        for (i, &word) in words.iter().enumerate() {
            self.builder
                .ins()
                .store(flags, word, next, SLOT * (1 + i as i32));
        }
        let used = self.builder.ins().iadd_imm_s(used, words.len() as i64);
        self.builder.ins().store(flags, used, buffer, 0);
        self.builder.def_var(position, used);
        let full = self.builder.ins().icmp_imm_u(
            IntCC::UnsignedGreaterThanOrEqual,
            used,
            stream::BUFFER_CAPACITY as i64,
        );
        let flush = self.new_block();
        let done = self.new_block();
        self.builder.set_cold_block(flush);
        self.builder.ins().brif(full, flush, &[], done, &[]);
        self.builder.seal_block(flush);
        self.builder.switch_to_block(flush);
        let id = self
            .cx
            .trampoline(runtime::stream_functions(self.cx.program.stream).1)?;
        let func_ref = self.func_ref(id);
        let table = self.iconst(table as i64);
        self.builder.ins().call(func_ref, &[table]);
        self.reload_stream_position(data, position);
        self.builder.ins().jump(done, &[]);
        self.builder.seal_block(done);
        self.builder.switch_to_block(done);
        Ok(())
    }

    /// `kbl`, `wpp`: a variable for the used words of each stream buffer the function's
    /// statements append to, read at entry, so that it is defined on every path to them.
    pub(super) fn stream_positions(&mut self) -> Result<()> {
        let tables = self
            .mir
            .blocks
            .iter()
            .flat_map(|b| &b.stmts)
            .filter_map(|stmt| match stmt.kind {
                StatementKind::Stream(
                    StreamEvent::Enter { table }
                    | StreamEvent::Leave { table }
                    | StreamEvent::Path { table, .. },
                ) => Some(table),
                _ => None,
            });
        for table in tables.collect::<Vec<_>>() {
            let data = self.cx.stream_buffer(table)?;
            if self.profiling.stream.iter().all(|&(d, _)| d != data) {
                let position = self.builder.declare_var(types::I64);
                self.profiling.stream.push((data, position));
                self.reload_stream_position(data, position);
            }
        }
        Ok(())
    }

    /// `kbl`, `wpp`: reads the used words of stream buffer `data` into its variable `position`,
    /// where they may have changed: at entry, and after a call or a flush.
    fn reload_stream_position(&mut self, data: DataId, position: Variable) {
        let buffer = self.data_address(data);
        let flags = self.memory_flags(Memory::Counters);
        let used = self.builder.ins().load(types::I64, flags, buffer, 0);
        self.builder.def_var(position, used);
    }

    /// The address of profile array `data` (counters, PPP slots). A data address has no
    /// operands, so Cranelift computes it once, before the loops. In a loop that calls the
    /// function it is in, the address is then one more value held across the call, whose every
    /// level saves and restores the callee-saved registers it uses: Queens' search loop, under
    /// `edge` and `bl`, kept it in a stack slot that regalloc2 stored back in every iteration.
    /// In such a function the prologue stores the address in a stack slot of its own instead,
    /// read where it is used. Cranelift's alias analysis forwards the stored address to the
    /// reads that no call separates from the prologue, so only a count after a call reads it.
    /// Not in other functions: Richards' scheduler loop, which calls other functions, ran 12%
    /// slower under `edge` with the same number of instructions.
    fn profile_array_address(&mut self, data: DataId) -> Value {
        if !self.profiling.recursive_loops {
            return self.data_address(data);
        }
        let flags = self.memory_flags(Memory::ProfileArrayAddress(data));
        let slot = match self.profiling.array_slots.get(&data) {
            Some(&slot) => slot,
            None => {
                let gv = self.data_ref(data);
                let slot = self.builder.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    SLOT as u32,
                    3,
                ));
                // Before the prologue's terminator; one address of the slot for every access,
                // so that the alias analysis sees the same location.
                let func = &mut *self.builder.func;
                let terminator = func.layout.last_inst(self.entry);
                let mut pos = FuncCursor::new(func);
                match terminator {
                    Some(inst) => pos.goto_inst(inst),
                    None => pos.goto_bottom(self.entry),
                }
                let address = pos.ins().symbol_value(PTR, gv);
                let slot = pos.ins().stack_addr(PTR, slot, 0);
                pos.ins().store(flags, address, slot, 0);
                self.profiling.array_slots.insert(data, slot);
                slot
            }
        };
        self.builder.ins().load(PTR, flags, slot, 0)
    }

    /// Counts `key` in the runtime's hash table `table`, through the `preserve_all` trampoline.
    fn count_hashed(&mut self, table: Value, key: Value) -> Result<()> {
        self.count_in_runtime(&runtime::PROFILE_COUNT_HASHED, table, key)
    }

    /// Calls the runtime's counting function `f` with `table` and `key`. Counting in the runtime
    /// happens inside hot loops: through the `preserve_all` trampoline the call clobbers no
    /// register, so the loop's values are not spilled.
    fn count_in_runtime(&mut self, f: &'static RuntimeFn, table: Value, key: Value) -> Result<()> {
        let id = self.cx.trampoline(f)?;
        let func_ref = self.func_ref(id);
        self.builder.ins().call(func_ref, &[table, key]);
        Ok(())
    }

    /// Adds one to the 64-bit counter at `address + offset`.
    fn increment_counter(&mut self, address: Value, offset: i32) {
        self.add_to_counter(address, offset, None);
    }

    /// Adds `amount` (one if `None`) to the counter at `address + offset`.
    pub(super) fn add_to_counter(&mut self, address: Value, offset: i32, amount: Option<Value>) {
        let flags = self.memory_flags(Memory::Counters);
        let count = self.builder.ins().load(types::I64, flags, address, offset);
        let count = match amount {
            Some(amount) => self.builder.ins().iadd(count, amount),
            None => self.builder.ins().iadd_imm_s(count, 1),
        };
        self.builder.ins().store(flags, count, address, offset);
    }
}
