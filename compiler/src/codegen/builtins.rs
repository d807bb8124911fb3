//! The built-in functions of docs/LANGUAGE.md: inline where Cranelift has the instruction, otherwise
//! a call to the runtime.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};

use super::function::FunctionTranslator;
use super::layout::{PTR, load_len};
use super::runtime::{self, RuntimeFn};
use super::{CodegenError, Result};
use crate::mir::{Builtin, Operand, Type};

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
            Builtin::Len => load_len(&mut self.builder, arg(0)?, self.movable_lengths),
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
            Builtin::Sqrt => self.builder.ins().sqrt(arg(0)?),
            Builtin::Floor => self.builder.ins().floor(arg(0)?),
            Builtin::Ceil => self.builder.ins().ceil(arg(0)?),
            _ => self.call_located(runtime_function(builtin)?, values)?,
        };
        Ok(Some(result))
    }

    /// Calls a runtime function that returns a value, adding the current location as the last
    /// argument when it takes one more parameter than `args`.
    fn call_located(&mut self, f: &RuntimeFn, mut args: Vec<Value>) -> Result<Value> {
        if f.params.len() == args.len() + 1 {
            args.push(self.location());
        }
        self.call_runtime(f, &args)
    }

    /// `print(args...)` or `println(args...)`: one runtime call per value, spaces between.
    fn print(&mut self, args: &[Operand], values: &[Value], newline: bool) -> Result<()> {
        for (i, (arg, &value)) in args.iter().zip(values).enumerate() {
            if i > 0 {
                self.call_runtime_opt(&runtime::PRINT_SPACE, &[])?;
            }
            match self.mir.operand_type(arg) {
                Type::Int => self.call_runtime_opt(&runtime::PRINT_INT, &[value])?,
                Type::Float => self.call_runtime_opt(&runtime::PRINT_FLOAT, &[value])?,
                Type::Bool => self.call_runtime_opt(&runtime::PRINT_BOOL, &[value])?,
                Type::Str => self.call_runtime_opt(&runtime::PRINT_STR, &[value])?,
                Type::Void => return Err(CodegenError::internal("printing a void value")),
                ty => {
                    let type_id = self.cx.info.type_id(&ty);
                    let type_id = self.iconst(type_id);
                    self.call_runtime_opt(&runtime::PRINT_VALUE, &[value, type_id])?
                }
            };
        }
        if newline {
            self.call_runtime_opt(&runtime::PRINT_NEWLINE, &[])?;
        }
        Ok(())
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
        other => {
            return Err(CodegenError::internal(format!(
                "builtin {other:?} is not a runtime call"
            )));
        }
    })
}
