//! Runtime checks: bounds, null, division and stack depth. Each is an explicit compare and branch
//! to a cold block that calls the runtime's error function, never a Cranelift trap: a runtime
//! error must print its message and exit with status 101, not die of a signal.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, InstructionData, Opcode, Value, ValueDef, types};

use super::Result;
use super::function::FunctionTranslator;
use super::layout::{
    BYTES_OFFSET, Memory, PTR, SLOT, fixed_flags, load_array_len, load_data, load_len,
};
use super::runtime::{self, RuntimeFn};
use crate::mir::{BinOp, StructId};

impl FunctionTranslator<'_, '_> {
    /// When `fails` (an `i8` condition) holds, stores the operands `operands` makes (at most
    /// three) in `pcc_error_operands` and calls `error`, in a cold block, after counting the stop
    /// if the statement has a stop counter (`edge`); code goes on in a new block where it does not.
    pub fn fail_if(
        &mut self,
        fails: Value,
        error: &RuntimeFn,
        operands: impl FnOnce(&mut Self) -> Result<Vec<Value>>,
    ) -> Result<()> {
        let cold = self.builder.create_block();
        let ok = self.new_block();
        self.builder.set_cold_block(cold);
        self.builder.ins().brif(fails, cold, &[], ok, &[]);
        self.builder.seal_block(cold);
        self.builder.seal_block(ok);
        self.builder.switch_to_block(cold);
        self.count_stop()?;
        // The operands go through memory, not argument registers: an argument register is a
        // fixed register, and regalloc2 would hold a loop counter or a length in it for the
        // whole loop (or split it with copies in the hot path), and a constant (a location)
        // in a register across the function, for the sake of a call that never happens
        // (dijkstra and brainfuck executed 22% more instructions with the index in a register).
        let operands = operands(self)?;
        let area = self.cx.runtime_data(runtime::ERROR_OPERANDS)?;
        let area = self.data_address(area);
        let flags = self.memory_flags(Memory::ErrorOperands);
        for (i, &operand) in operands.iter().enumerate() {
            let offset = i as i32 * SLOT;
            self.builder.ins().store(flags, operand, area, offset);
        }
        self.call_never(error, &[])?;
        self.builder.switch_to_block(ok);
        Ok(())
    }

    /// Stops with a stack overflow error, located at the function's name, when the stack pointer
    /// is below the limit the runtime set for the thread running the program.
    pub fn stack_check(&mut self) -> Result<()> {
        let sp = self.builder.ins().get_stack_pointer(PTR);
        let limit = self.cx.runtime_data(runtime::STACK_LIMIT)?;
        let limit_address = self.data_address(limit);
        let flags = self.memory_flags(Memory::StackLimit);
        let limit = self.builder.ins().load(PTR, flags, limit_address, 0);
        let overflows = self.builder.ins().icmp(IntCC::UnsignedLessThan, sp, limit);
        let name = self.mir.name_span.lo;
        self.fail_if(overflows, &runtime::ERR_STACK_OVERFLOW, |t| {
            Ok(vec![t.location_at(name)])
        })
    }

    /// Stops with an error when `object`, a struct of type `strukt` whose `field` is accessed,
    /// is null. A value known non-null there (`non_null`: already checked) is not checked again.
    pub fn null_check(&mut self, object: Value, strukt: StructId, field: usize) -> Result<()> {
        // The frontend may have made `object` an alias of a value that was checked.
        if !self
            .non_null
            .insert(self.builder.func.dfg.resolve_aliases(object))
        {
            return Ok(());
        }
        let is_null = self.builder.ins().icmp_imm_s(IntCC::Equal, object, 0);
        self.fail_if(is_null, &runtime::ERR_NULL, |t| {
            Ok(vec![
                t.iconst(strukt.index() as i64),
                t.iconst(field as i64),
                t.location(),
            ])
        })
    }

    /// Stops with an error unless `0 <= index < len`.
    fn bounds_check(&mut self, len: Value, index: Value) -> Result<()> {
        // One unsigned comparison also catches negative indices.
        let outside = self
            .builder
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, index, len);
        self.fail_if(outside, &runtime::ERR_INDEX, |t| {
            Ok(vec![index, len, t.location()])
        })
    }

    /// The address of element `index` of `array`, whose elements take `size` bytes (a power of
    /// two), as a base and a displacement, after a bounds check if `checked` (MIR clears it
    /// where the index is proven in bounds).
    pub fn element_slot(
        &mut self,
        array: Value,
        index: Value,
        checked: bool,
        size: i32,
    ) -> Result<(Value, i32)> {
        let data = self.array_data(array);
        if checked {
            let len = self.array_len(data, self.movable_lengths);
            self.bounds_check(len, index)?;
        }
        let (index, displacement) = self.displaced(index, size.into(), checked, 0);
        let scaled = match size.trailing_zeros() {
            0 => index,
            shift => self.builder.ins().ishl_imm_u(index, i64::from(shift)),
        };
        Ok((self.builder.ins().iadd(data, scaled), displacement))
    }

    /// The data pointer of `array`. Where the function resizes no array, Cranelift may move its
    /// load anywhere `array` is available: each use of the pointer is an access that reads
    /// `array` itself in MIR, so a collection before that use finds `array` live and keeps
    /// its object (which the collector does not move). Then, in a loop, the pointer alone is
    /// live, as the array was (its length is read through it: [`Self::array_len`]).
    pub fn array_data(&mut self, array: Value) -> Value {
        let flags = self.header_flags(true);
        load_data(&mut self.builder, array, flags)
    }

    /// The length of the array whose data pointer is `data` (see [`Self::header_flags`] for
    /// `movable`).
    pub fn array_len(&mut self, data: Value, movable: bool) -> Value {
        let flags = self.header_flags(movable);
        load_array_len(&mut self.builder, data, flags)
    }

    /// The flags of a load of an array's length or data pointer: fixed ones ([`fixed_flags`],
    /// `movable` or not) where the function resizes no array, else the array header region's,
    /// which only calls clobber.
    pub fn header_flags(&mut self, movable: bool) -> cranelift_codegen::ir::MemFlagsData {
        if self.resizes {
            self.memory_flags(Memory::ArrayHeader)
        } else {
            fixed_flags(movable)
        }
    }

    /// `index` as `x + c` with the constant in the access's displacement (`base + c * size`,
    /// `base` the offset of element 0), where `index` was computed by adding or subtracting a constant and that fits:
    /// `a[k - 1]` then costs one addressing mode rather than a subtraction and a copy. The
    /// addresses are equal for every `x`, since both wrap modulo 2^64.
    ///
    /// A `checked` access compares `index` itself, so the address and the check then read
    /// different values. Cranelift recomputes `x + c` for the check in each block where it is
    /// used, so `x` is the one value kept, which pays where `x` is a sum or difference of two
    /// values: awfy_queens' `free_mins[c - r + 7]` is read and written before and after its
    /// recursive call, and with `c - r` alone crossing the call its loop keeps `c` in a
    /// callee-saved register rather than on the stack (3.5% fewer instructions). Not otherwise:
    /// a loop variable's old value (`k += 1; a[k]`) would stay live beside the new one, with a
    /// copy on the back edge (sort's partition loops), and `2 * k + 1` is one `lea` that both
    /// the check and the address use (sort's `sift_down`).
    fn displaced(&self, index: Value, size: i64, checked: bool, base: i32) -> (Value, i32) {
        let dfg = &self.builder.func.dfg;
        let constant = |v: Value| match dfg.value_def(v) {
            ValueDef::Result(inst, 0) => match dfg.insts[inst] {
                InstructionData::UnaryImm {
                    opcode: Opcode::Iconst,
                    imm,
                } => Some(imm.bits()),
                _ => None,
            },
            _ => None,
        };
        let split = |index: Value| match dfg.value_def(index) {
            ValueDef::Result(inst, 0) => match dfg.insts[inst] {
                InstructionData::Binary {
                    opcode: Opcode::Iadd,
                    args: [x, y],
                } => (constant(y).map(|c| (x, c))).or_else(|| constant(x).map(|c| (y, c))),
                InstructionData::Binary {
                    opcode: Opcode::Isub,
                    args: [x, y],
                } => constant(y).and_then(|c| Some((x, c.checked_neg()?))),
                _ => None,
            },
            _ => None,
        };
        let combines_two = |x: Value| match dfg.value_def(x) {
            ValueDef::Result(inst, 0) => matches!(
                dfg.insts[inst],
                InstructionData::Binary { opcode: Opcode::Iadd | Opcode::Isub, args: [a, b] }
                    if a != b && constant(a).is_none() && constant(b).is_none()
            ),
            _ => false,
        };
        split(index)
            .filter(|&(x, _)| !checked || combines_two(x))
            .and_then(|(x, c)| {
                let displacement = c.checked_mul(size)?.checked_add(base.into())?;
                Some((x, i32::try_from(displacement).ok()?))
            })
            .unwrap_or((index, base))
    }

    /// Byte `index` of `string`, zero-extended to an `int`, after a bounds check if `checked`.
    pub fn string_byte(&mut self, string: Value, index: Value, checked: bool) -> Result<Value> {
        if checked {
            let len = load_len(&mut self.builder, string, fixed_flags(self.movable_lengths));
            self.bounds_check(len, index)?;
        }
        let (index, displacement) = self.displaced(index, 1, checked, BYTES_OFFSET);
        let address = self.builder.ins().iadd(string, index);
        let flags = self.memory_flags(Memory::StringBytes).with_readonly();
        Ok(self
            .builder
            .ins()
            .uload8(types::I64, flags, address, displacement))
    }

    /// `x / y` or `x % y` on ints (`op` is `Div` or `Rem`); `divisor` is `y` if it is a
    /// constant. Division by zero is an error; `MIN / -1` wraps to `MIN` and `MIN % -1` is 0.
    pub fn checked_div_rem(
        &mut self,
        op: BinOp,
        x: Value,
        y: Value,
        divisor: Option<i64>,
    ) -> Result<Value> {
        let is_div = op == BinOp::Div;
        match divisor {
            Some(-1) if is_div => return Ok(self.builder.ins().ineg(x)),
            Some(-1) => return Ok(self.iconst(0)),
            Some(d) if d != 0 => {
                let ins = self.builder.ins();
                return Ok(if is_div {
                    ins.sdiv(x, y)
                } else {
                    ins.srem(x, y)
                });
            }
            _ => {}
        }
        let is_zero = self.builder.ins().icmp_imm_s(IntCC::Equal, y, 0);
        let error = if is_div {
            &runtime::ERR_DIV_ZERO
        } else {
            &runtime::ERR_REM_ZERO
        };
        self.fail_if(is_zero, error, |t| Ok(vec![t.location()]))?;
        // Cranelift's `sdiv` and `srem` trap on `MIN / -1`: divide by 1 instead, then negate the
        // quotient (`x % 1` is already the 0 that `x % -1` must be).
        let is_minus_one = self.builder.ins().icmp_imm_s(IntCC::Equal, y, -1);
        let one = self.iconst(1);
        let safe_y = self.builder.ins().select(is_minus_one, one, y);
        if is_div {
            let quotient = self.builder.ins().sdiv(x, safe_y);
            let negated = self.builder.ins().ineg(x);
            Ok(self.builder.ins().select(is_minus_one, negated, quotient))
        } else {
            Ok(self.builder.ins().srem(x, safe_y))
        }
    }
}
