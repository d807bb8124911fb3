//! A whole MIR program → definitions in a `cranelift_module::Module` (JIT or object file alike):
//! the PL functions, the data objects they use, and the synthesized entry `__pcc_entry`.

use cranelift_codegen::Context;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{AbiParam, Function, InstBuilder, Signature, types};
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::print_errors::pretty_error;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{
    DataDescription, DataId, FuncId, Linkage, Module, ModuleError, ModuleReloc,
};
use pcc_stdlib::{FrameMaps, GcInfo, ProgramInfo};

use super::context::{ProgramContext, module_error, trampoline_symbol};
use super::function;
use super::layout::{PTR, SLOT, access_flags, slot_offset, store_slot};
use super::loop_alignment;
use super::runtime::{self, RuntimeFn};
use super::{CodegenError, Result};
use crate::mir::verify::verify;
use crate::mir::{Program, Type, is_part_of, reachable};

/// The synthesized entry: sets the globals to their defaults, runs their initializers, then
/// `main`; returns `main`'s `int` result, or 0.
pub const ENTRY_SYMBOL: &str = "__pcc_entry";

/// What text to collect while compiling.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    None,
    /// Each function's Cranelift IR after optimization.
    Clif,
    /// Each function's machine code.
    Asm,
}

pub struct Compiled {
    pub entry: FuncId,
    pub info: ProgramInfo,
    /// The requested listing of each function, with the function's PL name (`__pcc_entry` for
    /// the entry); empty for `Listing::None`.
    pub listings: Vec<(String, String)>,
}

/// Functions with more Cranelift blocks than this are compiled by `large_isa` when given: the
/// module's instruction set as at -O0, whose time is linear in the function's size (see
/// `codegen::host_isas` for the quadratic passes it skips).
const LARGE_FUNCTION_BLOCKS: usize = 4096;

/// Defines the functions of `program` a call can reach from `main` or the initializer (the
/// others, never called or inlined at every call site, are not declared), or from the function
/// named `named` and its part if given (what `--emit --function` shows), and the entry, in `module`;
/// functions with many blocks are compiled by `large_isa` if given (see
/// [`LARGE_FUNCTION_BLOCKS`]).
pub fn compile(
    module: &mut dyn Module,
    large_isa: Option<&dyn TargetIsa>,
    program: &Program,
    source: &str,
    listing: Listing,
    named: Option<&str>,
) -> Result<Compiled> {
    if module.target_config().pointer_type() != PTR {
        return Err(CodegenError::Unsupported(
            "pcc generates code for 64-bit targets only".into(),
        ));
    }
    verify(program).map_err(|problem| CodegenError::internal(problem.0))?;
    let named = (program.functions.iter_enumerated())
        .filter(|(_, func)| named.is_some_and(|name| is_part_of(&func.name, name)))
        .map(|(id, _)| id);
    let roots = [program.main, program.init].into_iter().chain(named);
    let compiled = reachable(&program.callees(), roots.collect());
    let mut cx = ProgramContext::new(module, program, source, &compiled)?;
    let mut ctx = cx.module.make_context();
    let mut builder_cx = FunctionBuilderContext::new();
    let mut listings = Vec::new();
    for (id, func) in program.functions.iter_enumerated() {
        let Some(func_id) = cx.functions[id] else {
            continue;
        };
        ctx.func = cx.new_function(func_id);
        function::translate(&mut cx, id, &mut ctx.func, &mut builder_cx)?;
        let isa = large_isa.filter(|_| ctx.func.dfg.num_blocks() > LARGE_FUNCTION_BLOCKS);
        cx.collector_sees = Some(func_id);
        if let Some(text) = cx.define_with(func_id, &mut ctx, listing, isa)? {
            listings.push((func.name.clone(), text));
        }
    }
    cx.collector_sees = None;
    for (f, id) in cx.trampolines.clone() {
        ctx.func = cx.new_function(id);
        cx.build_trampoline(f, &mut ctx.func, &mut builder_cx)?;
        if let Some(text) = cx.define(id, &mut ctx, listing)? {
            listings.push((trampoline_symbol(f), text));
        }
    }
    let code_table = cx.code_table()?;
    let entry = cx.declare(ENTRY_SYMBOL, Linkage::Export, entry_signature(cx.module))?;
    ctx.func = cx.new_function(entry);
    cx.build_entry(&mut ctx.func, &mut builder_cx, code_table)?;
    if let Some(text) = cx.define(entry, &mut ctx, listing)? {
        listings.push((ENTRY_SYMBOL.to_string(), text));
    }
    let mut info = cx.info.finish(program);
    info.gc = GcInfo {
        globals: (program.globals.iter().enumerate())
            .filter(|(_, global)| global.ty.is_reference())
            .map(|(slot, _)| slot as u32)
            .collect(),
        functions: cx.frame_maps.into_iter().map(|(_, maps)| maps).collect(),
    };
    Ok(Compiled {
        entry,
        info,
        listings,
    })
}

/// Compiles `ctx`'s function with `isa` (the module's own when `None`) and defines the code as
/// function `id` of `module`, at a line boundary and after the no-ops that align its loops
/// ([`loop_alignment`]); returns how many bytes of no-ops, and the function's safepoints as the
/// collector reads them (from Cranelift's user stack maps).
fn define_compiled_by(
    module: &mut dyn Module,
    isa: Option<&dyn TargetIsa>,
    id: FuncId,
    ctx: &mut Context,
) -> Result<(u32, FrameMaps), Box<ModuleError>> {
    let isa = isa.unwrap_or(module.isa());
    // The no-ops are x86-64's: other hosts keep Cranelift's placement.
    let x64 = isa.name() == "x64";
    if x64 {
        loop_alignment::mark_blocks(ctx);
    }
    ctx.compile(isa, &mut ControlPlane::default())
        .map_err(|e| Box::new(ModuleError::Compilation(e.inner)))?;
    // The constant pool's alignment holds only if the padding keeps it.
    let granule = ctx.compiled_code().expect("just compiled").buffer.alignment;
    let placement = x64.then(|| loop_alignment::padding(ctx, granule)).flatten();
    let pad = placement.unwrap_or(0);
    let alignment = u64::from(granule)
        .max(u64::from(isa.function_alignment().minimum))
        .max(isa.symbol_alignment())
        .max(placement.map_or(1, |_| u64::from(loop_alignment::LINE)));
    let code = ctx.compiled_code().expect("just compiled");
    let relocs: Vec<ModuleReloc> = code
        .buffer
        .relocs()
        .iter()
        .map(|reloc| {
            let mut reloc = ModuleReloc::from_mach_reloc(reloc, &ctx.func, id);
            reloc.offset += pad;
            reloc
        })
        .collect();
    let safepoints = (code.buffer.user_stack_maps().iter())
        .map(|(offset, _, map)| {
            let mut slots: Vec<u32> = map.entries().map(|(_, slot)| slot).collect();
            slots.sort_unstable();
            (offset + pad, slots)
        })
        .collect();
    let mut padded = loop_alignment::nops(pad);
    padded.extend_from_slice(code.code_buffer());
    module
        .define_function_bytes(id, alignment, &padded, &relocs)
        .map_err(Box::new)?;
    let maps = FrameMaps {
        len: padded.len() as u32,
        safepoints,
    };
    Ok((pad, maps))
}

fn entry_signature(module: &dyn Module) -> Signature {
    let mut sig = module.make_signature();
    sig.returns.push(AbiParam::new(types::I64));
    sig
}

impl ProgramContext<'_> {
    /// Compiles `ctx.func` as the definition of `id`; returns the listing asked for.
    fn define(
        &mut self,
        id: FuncId,
        ctx: &mut Context,
        listing: Listing,
    ) -> Result<Option<String>> {
        self.define_with(id, ctx, listing, None)
    }

    /// [`ProgramContext::define`], compiled by `isa` instead of the module's when given.
    fn define_with(
        &mut self,
        id: FuncId,
        ctx: &mut Context,
        listing: Listing,
        isa: Option<&dyn TargetIsa>,
    ) -> Result<Option<String>> {
        ctx.set_disasm(listing == Listing::Asm);
        let pad = match define_compiled_by(self.module, isa, id, ctx) {
            Ok((pad, maps)) => {
                if self.collector_sees == Some(id) {
                    self.frame_maps.push((id, maps));
                }
                pad
            }
            Err(error) => {
                let name = self
                    .module
                    .declarations()
                    .get_function_decl(id)
                    .linkage_name(id);
                let message = match *error {
                    ModuleError::Compilation(error) => pretty_error(&ctx.func, error),
                    error => error.to_string(),
                };
                return Err(CodegenError::Cranelift(format!(
                    "cannot compile `{name}`: {message}"
                )));
            }
        };
        // Both listings refer to symbols as `userextnameN`: the legend names them.
        let text = match listing {
            Listing::None => None,
            Listing::Clif => {
                // The source locations are the blocks themselves (`mark_blocks`): noise here.
                ctx.func.stencil.srclocs.clear();
                Some(format!(
                    "{}{}",
                    self.symbol_legend(&ctx.func),
                    ctx.func.display()
                ))
            }
            Listing::Asm => {
                let code = ctx.compiled_code().and_then(|c| c.vcode.as_deref());
                let padding = match pad {
                    0 => String::new(),
                    n => {
                        format!("  ; {n} bytes of no-ops before the code, which align its loops\n")
                    }
                };
                Some(format!(
                    "{}{}:\n{padding}{}",
                    self.symbol_legend(&ctx.func),
                    ctx.func.name,
                    code.unwrap_or("")
                ))
            }
        };
        self.module.clear_context(ctx);
        Ok(text)
    }

    /// `; userextname0 = u0:3 = __pl_fib` lines naming the symbols `func` refers to, for the CLIF listing.
    fn symbol_legend(&self, func: &Function) -> String {
        let declarations = self.module.declarations();
        let mut legend = String::new();
        for (reference, name) in func.params.user_named_funcs().iter() {
            let what = if name.namespace == 0 {
                let id = FuncId::from_u32(name.index);
                declarations
                    .get_function_decl(id)
                    .linkage_name(id)
                    .into_owned()
            } else {
                let id = DataId::from_u32(name.index);
                match self.strings.iter().find(|&(_, &data)| data == id) {
                    Some((bytes, _)) => format!("{:?}", String::from_utf8_lossy(bytes)),
                    None if Some(id) == self.globals => "the globals".to_string(),
                    None if Some(id) == self.empty_array => "the empty array".to_string(),
                    None => declarations.get_data_decl(id).linkage_name(id).into_owned(),
                }
            };
            legend.push_str(&format!("; {reference} = {name} = {what}\n"));
        }
        legend
    }

    /// Fills `func` with the body of the trampoline to `f`: a call with the same arguments.
    fn build_trampoline(
        &mut self,
        f: &RuntimeFn,
        func: &mut Function,
        builder_cx: &mut FunctionBuilderContext,
    ) -> Result<()> {
        let target = self.runtime_fn(f)?;
        let mut b = FunctionBuilder::new(func, builder_cx);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        b.seal_block(block);
        let args = b.block_params(block).to_vec();
        let target = self.module.declare_func_in_func(target, b.func);
        b.ins().call(target, &args);
        b.ins().return_(&[]);
        b.finalize(self.module.target_config());
        Ok(())
    }

    /// The table of the PL functions' addresses, in the order of the collector's
    /// [`GcInfo::functions`], which the entry passes to `pcc_gc_start`.
    fn code_table(&mut self) -> Result<DataId> {
        let id = (self.module)
            .declare_anonymous_data(false, false)
            .map_err(module_error)?;
        let mut data = DataDescription::new();
        // Not `define_zeroinit`: an object file puts that in `.bss`, with no relocations.
        let bytes = vec![0; self.frame_maps.len().max(1) * SLOT as usize];
        data.define(bytes.into_boxed_slice());
        data.set_align(SLOT as u64);
        for (i, &(function, _)) in self.frame_maps.iter().enumerate() {
            let function = self.module.declare_func_in_data(function, &mut data);
            data.write_function_addr((i * SLOT as usize) as u32, function);
        }
        self.module.define_data(id, &data).map_err(module_error)?;
        Ok(id)
    }

    /// Fills `func` with the body of `__pcc_entry`, which registers the collector's roots
    /// (`code_table`, the globals) once the globals hold their defaults.
    fn build_entry(
        &mut self,
        func: &mut Function,
        builder_cx: &mut FunctionBuilderContext,
        code_table: DataId,
    ) -> Result<()> {
        let program = self.program;
        let mut b = FunctionBuilder::new(func, builder_cx);
        let block = b.create_block();
        b.switch_to_block(block);
        b.seal_block(block);
        let mut globals_address = None;
        if let Some(globals) = self.globals {
            let gv = self.module.declare_data_in_func(globals, b.func);
            let globals = b.ins().symbol_value(PTR, gv);
            globals_address = Some(globals);
            for (i, global) in program.globals.iter().enumerate() {
                let default = match &global.ty {
                    Type::Int => b.ins().iconst(types::I64, 0),
                    Type::Float => b.ins().f64const(0.0),
                    Type::Bool => b.ins().iconst(types::I8, 0),
                    Type::Str | Type::Array(_) => {
                        let data = if global.ty == Type::Str {
                            self.string(b"")?
                        } else {
                            self.empty_array()?
                        };
                        let gv = self.static_object(data, b.func);
                        b.ins().symbol_value(PTR, gv)
                    }
                    // The globals' initializer gives every map global its map first.
                    Type::Struct(_) | Type::Map(..) | Type::Null => b.ins().iconst(PTR, 0),
                    Type::Void => return Err(CodegenError::internal("a void global")),
                };
                store_slot(&mut b, access_flags(), default, globals, slot_offset(i)?);
            }
        }
        let start = self.runtime_fn(&runtime::GC_START)?;
        let start = self.module.declare_func_in_func(start, b.func);
        let globals = match globals_address {
            Some(globals) => globals,
            None => b.ins().iconst(PTR, 0),
        };
        let gv = self.module.declare_data_in_func(code_table, b.func);
        let code = b.ins().symbol_value(PTR, gv);
        b.ins().call(start, &[globals, code]);
        // The runtime reads the array counter tables when the program ends.
        for (table, data) in self.counter_tables.clone().into_iter().enumerate() {
            if let Some(data) = data {
                let register = self.runtime_fn(if program.counter_tables[table].keyed {
                    &runtime::PROFILE_KEYED_TABLE
                } else {
                    &runtime::PROFILE_TABLE
                })?;
                let register = self.module.declare_func_in_func(register, b.func);
                let gv = self.module.declare_data_in_func(data, b.func);
                let address = b.ins().symbol_value(PTR, gv);
                let index = b.ins().iconst(types::I64, table as i64);
                let len = b
                    .ins()
                    .iconst(types::I64, program.counter_tables[table].len as i64);
                b.ins().call(register, &[index, address, len]);
            }
        }
        // ... and the stream buffers, also while the program runs.
        for (table, data) in self.stream_buffers.clone() {
            let register = self.runtime_fn(runtime::stream_functions(self.program.stream).0)?;
            let register = self.module.declare_func_in_func(register, b.func);
            let gv = self.module.declare_data_in_func(data, b.func);
            let address = b.ins().symbol_value(PTR, gv);
            let index = b.ins().iconst(types::I64, table as i64);
            b.ins().call(register, &[index, address]);
        }
        let init = self
            .module
            .declare_func_in_func(self.function(program.init), b.func);
        b.ins().call(init, &[]);
        let main = self
            .module
            .declare_func_in_func(self.function(program.main), b.func);
        let call = b.ins().call(main, &[]);
        let result = match (
            b.inst_results(call).first(),
            &program.functions[program.main].ret,
        ) {
            (Some(&result), Type::Int) => result,
            _ => b.ins().iconst(types::I64, 0),
        };
        b.ins().return_(&[result]);
        b.finalize(self.module.target_config());
        Ok(())
    }
}
