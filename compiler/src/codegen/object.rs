//! Compiling into a relocatable object file with cranelift-object, for a native executable
//! (`pcc build`): the program's functions and data as for the JIT, plus what the JIT driver
//! keeps in memory, put into the object: the program's description (`ProgramInfo`, with the
//! profile spec of an instrumented program) as JSON, and a C `main` that hands it, the entry
//! and `argc`/`argv` to the runtime's `pcc_aot_main`.

use cranelift_codegen::ir::{AbiParam, Function, InstBuilder, UserFuncName, types};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{DataDescription, FuncId, Linkage, Module, default_libcall_names};
use cranelift_object::{ObjectBuilder, ObjectModule};
use pcc_profiler::spec::ProfileSpec;
use pcc_stdlib::ProgramInfo;

use super::context::module_error;
use super::layout::PTR;
use super::program::{self, Listing};
use super::runtime;
use super::{CodegenError, Options, Result, host_isas};
use crate::mir::Program;

/// The object file of `program`, whose `main` runs it with `profile` as its profile spec.
pub fn compile(
    program: &Program,
    source: &str,
    options: &Options,
    profile: Option<ProfileSpec>,
) -> Result<Vec<u8>> {
    // Position-independent code, so that the object links into a position-independent
    // executable, the default of today's C compilers, as the runtime library's objects do.
    let (isa, large_isa) = host_isas(options, &[("is_pic", "true")])?;
    let builder = ObjectBuilder::new(isa, program.file_name.as_bytes(), default_libcall_names())
        .map_err(module_error)?;
    let mut module = ObjectModule::new(builder);
    let compiled = program::compile(
        &mut module,
        large_isa.as_deref(),
        program,
        source,
        Listing::None,
        None,
    )?;
    let info = ProgramInfo {
        profile,
        ..compiled.info
    };
    define_main(&mut module, compiled.entry, &info)?;
    module
        .finish()
        .emit()
        .map_err(|e| CodegenError::Cranelift(format!("cannot write the object file: {e}")))
}

/// `int main(int argc, char **argv)`: `return pcc_aot_main(info, info_len, entry, argc, argv);`.
fn define_main(module: &mut ObjectModule, entry: FuncId, info: &ProgramInfo) -> Result<()> {
    let json = serde_json::to_vec(info)
        .map_err(|e| CodegenError::internal(format!("cannot serialize the program: {e}")))?;
    let json_len = json.len() as i64;
    let data = module
        .declare_anonymous_data(false, false)
        .map_err(module_error)?;
    let mut description = DataDescription::new();
    description.define(json.into_boxed_slice());
    module
        .define_data(data, &description)
        .map_err(module_error)?;

    let call_conv = module.isa().default_call_conv();
    let aot_main = runtime::AOT_MAIN.signature(call_conv, PTR);
    let aot_main = module
        .declare_function(runtime::AOT_MAIN.name, Linkage::Import, &aot_main)
        .map_err(module_error)?;
    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(types::I32));
    sig.params.push(AbiParam::new(PTR));
    sig.returns.push(AbiParam::new(types::I32));
    let main = module
        .declare_function("main", Linkage::Export, &sig)
        .map_err(module_error)?;

    let mut ctx = module.make_context();
    ctx.func = Function::with_name_signature(UserFuncName::testcase("main"), sig);
    let mut builder_cx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut ctx.func, &mut builder_cx);
    let block = b.create_block();
    b.append_block_params_for_function_params(block);
    b.switch_to_block(block);
    b.seal_block(block);
    let (argc, argv) = (b.block_params(block)[0], b.block_params(block)[1]);
    let gv = module.declare_data_in_func(data, b.func);
    let info = b.ins().symbol_value(PTR, gv);
    let info_len = b.ins().iconst(types::I64, json_len);
    let entry = module.declare_func_in_func(entry, b.func);
    let entry = b.ins().func_addr(PTR, entry);
    let argc = b.ins().sextend(types::I64, argc);
    let aot_main = module.declare_func_in_func(aot_main, b.func);
    let call = b.ins().call(aot_main, &[info, info_len, entry, argc, argv]);
    let status = b.inst_results(call)[0];
    let status = b.ins().ireduce(types::I32, status);
    b.ins().return_(&[status]);
    b.finalize(module.target_config());
    module
        .define_function(main, &mut ctx)
        .map_err(|e| CodegenError::Cranelift(format!("cannot compile `main`: {e}")))
}
