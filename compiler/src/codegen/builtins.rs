//! The built-in functions of docs/LANGUAGE.md: inline where Cranelift has the instruction, otherwise
//! a call to the runtime.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    InstBuilder, MemFlagsData, StackSlot, StackSlotData, StackSlotKind, Value, types,
};
use pcc_stdlib::{
    PRINT_BOOL, PRINT_FLOAT, PRINT_INT, PRINT_STR, PRINT_VALUE, PrintArg, SORT_FLOATS, SORT_INTS,
    SORT_STRS,
};

use super::function::FunctionTranslator;
use super::layout::{
    LEN_OFFSET, Memory, PTR, access_flags, element_size, fixed_flags, load_len, slot_bits,
};
use super::runtime::{self, RuntimeFn};
use super::{CodegenError, Result};
use crate::mir::{Builtin, Callee, Operand, StatementKind, Type};

impl FunctionTranslator<'_, '_> {
    /// Translates a call of `builtin`; returns its result, if it has one.
    pub fn builtin(&mut self, builtin: Builtin, args: &[Operand]) -> Result<Option<Value>> {
        let ty = args.first().map(|a| self.mir.operand_type(a));
        let is_float = ty == Some(Type::Float);
        let values = self.operands(args)?;
        let arg = |i: usize| {
            values
                .get(i)
                .copied()
                .ok_or_else(|| CodegenError::internal(format!("{builtin:?} without argument {i}")))
        };
        let result = match builtin {
            Builtin::Print | Builtin::Println => {
                self.print(args, &values, builtin == Builtin::Println)?;
                return Ok(None);
            }
            Builtin::Assert => {
                self.assert(arg(0)?, args.get(1))?;
                return Ok(None);
            }
            Builtin::Exit => return self.call_runtime_opt(&runtime::EXIT, &values),
            Builtin::Len => {
                let movable = self.movable_lengths && self.quiet;
                match ty {
                    Some(Type::Str) => load_len(&mut self.builder, arg(0)?, fixed_flags(movable)),
                    _ => {
                        let data = self.array_data(arg(0)?);
                        self.array_len(data, movable)
                    }
                }
            }
            Builtin::Push | Builtin::Insert => {
                let element = array_element_type(ty.as_ref())?;
                let value = *values
                    .last()
                    .ok_or_else(|| CodegenError::internal("no element"))?;
                let bits = slot_bits(&mut self.builder, value);
                let size = self.iconst(i64::from(element_size(&element)));
                let location = self.location();
                let (f, args) = match builtin {
                    Builtin::Push => (&runtime::ARRAY_PUSH, vec![arg(0)?, bits, size, location]),
                    _ => (
                        &runtime::ARRAY_INSERT,
                        vec![arg(0)?, arg(1)?, bits, size, location],
                    ),
                };
                return self.call_runtime_opt(f, &args).map(|_| None);
            }
            Builtin::Pop | Builtin::Remove => {
                let element = array_element_type(ty.as_ref())?;
                let size = self.iconst(i64::from(element_size(&element)));
                let location = self.location();
                let bits = match builtin {
                    Builtin::Pop => {
                        self.call_runtime(&runtime::ARRAY_POP, &[arg(0)?, size, location])?
                    }
                    _ => self.call_runtime(
                        &runtime::ARRAY_REMOVE,
                        &[arg(0)?, arg(1)?, size, location],
                    )?,
                };
                self.value_of_bits(bits, &element)?
            }
            Builtin::ToFloat => self.builder.ins().fcvt_from_sint(types::F64, arg(0)?),
            // Saturating, with NaN → 0, like Rust's `as`.
            Builtin::ToInt => self.builder.ins().fcvt_to_sint_sat(types::I64, arg(0)?),
            Builtin::ToStr => match ty {
                Some(Type::Int) => self.call_located(&runtime::INT_TO_STR, values)?,
                Some(Type::Float) => self.call_located(&runtime::FLOAT_TO_STR, values)?,
                Some(Type::Bool) => self.call_located(&runtime::BOOL_TO_STR, values)?,
                _ => arg(0)?,
            },
            Builtin::Abs if is_float => self.builder.ins().fabs(arg(0)?),
            Builtin::Abs => self.builder.ins().iabs(arg(0)?),
            // Cranelift's `fmin`/`fmax` propagate NaN; PL's follow Rust's `f64::min`/`max`.
            Builtin::Min if is_float => self.call_located(&runtime::FMIN, values)?,
            Builtin::Max if is_float => self.call_located(&runtime::FMAX, values)?,
            Builtin::Min => self.builder.ins().smin(arg(0)?, arg(1)?),
            Builtin::Max => self.builder.ins().smax(arg(0)?, arg(1)?),
            // Not `load_len`: a map's count changes, so the load must stay where it is.
            Builtin::MapLen => {
                (self.builder.ins()).load(types::I64, access_flags(), arg(0)?, LEN_OFFSET)
            }
            Builtin::MapGet => {
                let value_type = map_value_type(ty.as_ref())?;
                let default = slot_bits(&mut self.builder, arg(2)?);
                let bits = self.call_runtime(&runtime::MAP_GET, &[arg(0)?, arg(1)?, default])?;
                self.value_of_bits(bits, &value_type)?
            }
            Builtin::MapSet => {
                let value = slot_bits(&mut self.builder, arg(2)?);
                let location = self.location();
                let args = [arg(0)?, arg(1)?, value, location];
                return self
                    .call_runtime_opt(&runtime::MAP_SET, &args)
                    .map(|_| None);
            }
            Builtin::MapHas => self.call_runtime(&runtime::MAP_HAS, &values)?,
            Builtin::MapDelete => {
                return self
                    .call_runtime_opt(&runtime::MAP_DELETE, &values)
                    .map(|_| None);
            }
            Builtin::MapKeys => self.call_located(&runtime::MAP_KEYS, values)?,
            Builtin::Sort => {
                let kind = match ty {
                    Some(Type::Array(elem)) => match *elem {
                        Type::Int => SORT_INTS,
                        Type::Float => SORT_FLOATS,
                        // The checker lets only `[str]` through besides.
                        _ => SORT_STRS,
                    },
                    _ => return Err(CodegenError::internal("sort of a value that is no array")),
                };
                let kind = self.iconst(kind);
                self.call_runtime_opt(&runtime::SORT, &[arg(0)?, kind])?;
                return Ok(None);
            }
            Builtin::Sqrt => self.builder.ins().sqrt(arg(0)?),
            Builtin::Floor => self.builder.ins().floor(arg(0)?),
            Builtin::Ceil => self.builder.ins().ceil(arg(0)?),
            _ => self.call_located(runtime_function(builtin)?, values)?,
        };
        Ok(Some(result))
    }

    /// `new map[K]V`, of type `ty`: the runtime needs to know whether its keys are strings and
    /// its values references.
    pub fn map_new(&mut self, ty: Option<Type>) -> Result<Value> {
        let Some(Type::Map(key, value)) = ty else {
            return Err(CodegenError::internal("a new map of another type"));
        };
        let str_keys = (self.builder.ins()).iconst(types::I8, i64::from(*key == Type::Str));
        let refs = value.is_reference();
        let ref_values = self.builder.ins().iconst(types::I8, i64::from(refs));
        let location = self.location();
        self.call_runtime(&runtime::MAP_NEW, &[str_keys, ref_values, location])
    }

    /// The value of type `ty` whose slot bits are `bits` (the inverse of `slot_bits`).
    fn value_of_bits(&mut self, bits: Value, ty: &Type) -> Result<Value> {
        let ins = self.builder.ins();
        Ok(match ty {
            Type::Float => ins.bitcast(types::F64, MemFlagsData::new(), bits),
            Type::Bool => ins.ireduce(types::I8, bits),
            Type::Void => return Err(CodegenError::internal("a map of void values")),
            _ => bits,
        })
    }

    /// Calls a runtime function that returns a value, adding the current location as the last
    /// argument when it takes one more parameter than `args`.
    fn call_located(&mut self, f: &RuntimeFn, mut args: Vec<Value>) -> Result<Value> {
        if f.params.len() == args.len() + 1 {
            args.push(self.location());
        }
        self.call_runtime(f, &args)
    }

    /// `print(args...)` or `println(args...)`: the values are laid out in the function's print
    /// area (kind and bits, `pcc_stdlib::PrintArg`) and printed by one runtime call, so none of
    /// them is live across a call (one call per value kept bytecode_vm's opcode, printed by its
    /// error arm, in a callee-saved register, and pushed its register file to the stack).
    fn print(&mut self, args: &[Operand], values: &[Value], newline: bool) -> Result<()> {
        if values.is_empty() && !newline {
            return Ok(());
        }
        let area = self.print_area();
        let address = self.builder.ins().stack_addr(PTR, area, 0);
        let flags = self.memory_flags(Memory::PrintArea);
        let width = size_of::<PrintArg>() as i32;
        for (i, (arg, &value)) in args.iter().zip(values).enumerate() {
            let (kind, bits) = match self.mir.operand_type(arg) {
                Type::Int => (PRINT_INT, value),
                Type::Float => (PRINT_FLOAT, value),
                Type::Bool => (PRINT_BOOL, self.builder.ins().uextend(types::I64, value)),
                Type::Str => (PRINT_STR, value),
                Type::Void => return Err(CodegenError::internal("printing a void value")),
                ty => (PRINT_VALUE + self.cx.info.type_id(&ty), value),
            };
            let kind = self.iconst(kind);
            let offset = i as i32 * width;
            self.builder.ins().store(flags, kind, address, offset);
            (self.builder.ins()).store(flags, bits, address, offset + width / 2);
        }
        let count = self.iconst(values.len() as i64);
        let newline = self.builder.ins().iconst(types::I8, i64::from(newline));
        let location = self.location();
        self.call_runtime_opt(&runtime::PRINT, &[address, count, newline, location])?;
        Ok(())
    }

    /// The stack area `print` lays its values out in: one per function, as large as its
    /// largest `print` needs, made at the first.
    fn print_area(&mut self) -> StackSlot {
        if let Some(area) = self.print_area {
            return area;
        }
        let most = (self.mir.blocks.iter().flat_map(|b| &b.stmts))
            .filter_map(|stmt| match &stmt.kind {
                StatementKind::Call {
                    callee: Callee::Builtin(Builtin::Print | Builtin::Println),
                    args,
                    ..
                } => Some(args.len()),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let size = (most * size_of::<PrintArg>()) as u32;
        let area = (self.builder).create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            size,
            3,
        ));
        self.print_area = Some(area);
        area
    }

    /// `assert(cond)` or `assert(cond, message)`.
    fn assert(&mut self, cond: Value, message: Option<&Operand>) -> Result<()> {
        let fails = self.builder.ins().icmp_imm_s(IntCC::Equal, cond, 0);
        self.fail_if(fails, &runtime::ASSERT_FAIL, |t| {
            let message = match message {
                Some(m) => t.operand(m)?,
                None => t.builder.ins().iconst(PTR, 0),
            };
            Ok(vec![message, t.location()])
        })
    }
}

/// The value type of a map whose type is `ty`.
fn map_value_type(ty: Option<&Type>) -> Result<Type> {
    match ty {
        Some(Type::Map(_, value)) => Ok((**value).clone()),
        _ => Err(CodegenError::internal("a map operation on another type")),
    }
}

/// The element type of an array whose type is `ty`.
fn array_element_type(ty: Option<&Type>) -> Result<Type> {
    match ty {
        Some(Type::Array(element)) => Ok((**element).clone()),
        _ => Err(CodegenError::internal("an array operation on another type")),
    }
}

/// The runtime function implementing a builtin that is a plain call.
fn runtime_function(builtin: Builtin) -> Result<&'static RuntimeFn> {
    Ok(match builtin {
        Builtin::Fixed => &runtime::FIXED,
        Builtin::Chr => &runtime::CHR,
        Builtin::Substr => &runtime::SUBSTR,
        Builtin::ParseInt => &runtime::PARSE_INT,
        Builtin::ParseFloat => &runtime::PARSE_FLOAT,
        Builtin::Sin => &runtime::SIN,
        Builtin::Cos => &runtime::COS,
        Builtin::Tan => &runtime::TAN,
        Builtin::Atan => &runtime::ATAN,
        Builtin::Exp => &runtime::EXP,
        Builtin::Log => &runtime::LOG,
        Builtin::Pow => &runtime::POW,
        Builtin::Atan2 => &runtime::ATAN2,
        Builtin::Argc => &runtime::ARGC,
        Builtin::Arg => &runtime::ARG,
        Builtin::ReadLine => &runtime::READ_LINE,
        Builtin::Eof => &runtime::EOF,
        Builtin::ReadInt => &runtime::READ_INT,
        Builtin::ClockNs => &runtime::CLOCK_NS,
        Builtin::Split => &runtime::SPLIT,
        Builtin::Join => &runtime::JOIN,
        Builtin::Find => &runtime::FIND,
        Builtin::Replace => &runtime::REPLACE,
        Builtin::Trim => &runtime::TRIM,
        Builtin::StartsWith => &runtime::STARTS_WITH,
        Builtin::EndsWith => &runtime::ENDS_WITH,
        Builtin::ToUpper => &runtime::TO_UPPER,
        Builtin::ToLower => &runtime::TO_LOWER,
        other => {
            return Err(CodegenError::internal(format!(
                "builtin {other:?} is not a runtime call"
            )));
        }
    })
}
