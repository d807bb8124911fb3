//! What the translation of every function shares: the module, the symbols and data objects
//! declared so far (PL functions, runtime functions and data, trampolines, strings, counter
//! tables, stream buffers) and the program description being built. `program.rs` drives the
//! compilation; `function.rs` declares what a function's code refers to through this.

use std::collections::{BTreeSet, HashMap};

use cranelift_codegen::ir::immediates::Imm64;
use cranelift_codegen::ir::{
    AbiParam, Function, GlobalValue, GlobalValueData, Signature, UserFuncName,
};
use cranelift_codegen::isa::CallConv;
use cranelift_module::{DataDescription, DataId, FuncId, Linkage, Module, ModuleError};
use pcc_stdlib::{FrameMaps, stream};

use super::info::InfoBuilder;
use super::layout::{PTR, SLOT, clif_type};
use super::runtime::{self, RuntimeFn, abi_param};
use super::{CodegenError, Result};
use crate::mir::non_null::non_null_params;
use crate::mir::{FnId, IdVec, LocalId, PathStream, Program};

/// Symbol of the `preserve_all` trampoline to runtime function `f`.
pub(super) fn trampoline_symbol(f: &RuntimeFn) -> String {
    format!("__{}", f.name)
}

/// Symbol of a PL function: prefixed, so that it clashes with no runtime or C symbol.
fn symbol(program: &Program, id: FnId) -> String {
    if id == program.init {
        "__pcc_init".to_string()
    } else {
        format!("__pl_{}", program.functions[id].name)
    }
}

/// What the translation of every function shares: the module, the declared symbols and data,
/// and the program description being built.
pub struct ProgramContext<'m> {
    pub module: &'m mut dyn Module,
    pub program: &'m Program,
    /// The PL functions compiled, by `FnId` (every function a call of a compiled one names).
    pub functions: IdVec<FnId, Option<FuncId>>,
    /// Per PL function, whether a collection may happen while it runs (`Program::collecting`).
    pub collects: IdVec<FnId, bool>,
    /// Per function, whether it may resize an array while it runs (`Program::resizing`).
    pub resizing: IdVec<FnId, bool>,
    /// Per function, the struct parameters every call passes non-null
    /// (`mir::non_null::non_null_params`), whose null checks it leaves out.
    pub non_null_params: IdVec<FnId, BTreeSet<LocalId>>,
    /// The writable data object holding one slot per global; `None` without globals.
    pub globals: Option<DataId>,
    /// The zeroed data object of each array counter table; `None` for hashed tables.
    pub counter_tables: Vec<Option<DataId>>,
    /// The read-only slot table of each PPP counter table (`None` for other tables).
    pub slot_tables: Vec<Option<DataId>>,
    pub info: InfoBuilder<'m>,
    /// `preserve_all` trampolines to runtime functions, declared on first use (in that order).
    pub(super) trampolines: Vec<(&'static RuntimeFn, FuncId)>,
    /// `kbl`, `wpp`: the stream buffer of each counter table that streams path ids (`wpp`: one
    /// for the whole program, under table 0), declared on first use (in that order).
    pub(super) stream_buffers: Vec<(usize, DataId)>,
    runtime: HashMap<&'static str, FuncId>,
    pub(super) strings: HashMap<Vec<u8>, DataId>,
    pub(super) empty_array: Option<DataId>,
    /// The PL functions compiled so far, with their safepoints: the collector walks their frames.
    pub(super) frame_maps: Vec<(FuncId, FrameMaps)>,
    /// The PL function being defined, whose safepoints go to `frame_maps`.
    pub(super) collector_sees: Option<FuncId>,
    /// The runtime's data symbols (`runtime::STACK_LIMIT`, `runtime::ERROR_OPERANDS`), declared
    /// on first use.
    runtime_data: HashMap<&'static str, DataId>,
}

impl<'m> ProgramContext<'m> {
    /// The compiled function `f`: a call reaches it.
    pub fn function(&self, f: FnId) -> FuncId {
        self.functions[f].expect("every function a compiled function calls is compiled")
    }

    pub(super) fn new(
        module: &'m mut dyn Module,
        program: &'m Program,
        source: &str,
        compiled: &IdVec<FnId, bool>,
    ) -> Result<ProgramContext<'m>> {
        let mut cx = ProgramContext {
            module,
            program,
            functions: IdVec::new(),
            collects: program.collecting(),
            resizing: program.resizing(),
            non_null_params: non_null_params(program),
            globals: None,
            counter_tables: Vec::new(),
            slot_tables: Vec::new(),
            info: InfoBuilder::new(source),
            trampolines: Vec::new(),
            stream_buffers: Vec::new(),
            runtime: HashMap::new(),
            strings: HashMap::new(),
            empty_array: None,
            frame_maps: Vec::new(),
            collector_sees: None,
            runtime_data: HashMap::new(),
        };
        for (id, func) in program.functions.iter_enumerated() {
            if !compiled[id] {
                cx.functions.push(None);
                continue;
            }
            let mut sig = cx.module.make_signature();
            for &param in &func.params {
                let ty = clif_type(&func.locals[param].ty)
                    .ok_or_else(|| CodegenError::internal("a void parameter"))?;
                sig.params.push(abi_param(ty));
            }
            sig.returns.extend(clif_type(&func.ret).map(AbiParam::new));
            let func_id = cx.declare(&symbol(program, id), Linkage::Local, sig)?;
            cx.functions.push(Some(func_id));
        }
        if !program.globals.is_empty() {
            let id = cx
                .module
                .declare_anonymous_data(true, false)
                .map_err(module_error)?;
            let mut data = DataDescription::new();
            data.define_zeroinit(program.globals.len() * SLOT as usize);
            data.set_align(SLOT as u64);
            cx.module.define_data(id, &data).map_err(module_error)?;
            cx.globals = Some(id);
        }
        for table in &program.counter_tables {
            // An empty PPP table counts every path as residual: it needs no arrays.
            let data = if table.hashed || table.len == 0 {
                None
            } else {
                let size = usize::try_from(table.len)
                    .ok()
                    .and_then(|len| len.checked_mul(SLOT as usize))
                    .ok_or_else(|| CodegenError::internal("counter table too large"))?;
                let id = cx
                    .module
                    .declare_anonymous_data(true, false)
                    .map_err(module_error)?;
                let mut data = DataDescription::new();
                data.define_zeroinit(size);
                data.set_align(SLOT as u64);
                cx.module.define_data(id, &data).map_err(module_error)?;
                Some(id)
            };
            cx.counter_tables.push(data);
            let slots = match &table.slots {
                Some(slots) if !slots.is_empty() => {
                    let id = cx
                        .module
                        .declare_anonymous_data(false, false)
                        .map_err(module_error)?;
                    let mut data = DataDescription::new();
                    let bytes: Vec<u8> = slots.iter().flat_map(|s| s.to_le_bytes()).collect();
                    data.define(bytes.into_boxed_slice());
                    data.set_align(SLOT as u64);
                    cx.module.define_data(id, &data).map_err(module_error)?;
                    Some(id)
                }
                _ => None,
            };
            cx.slot_tables.push(slots);
        }
        Ok(cx)
    }

    pub(super) fn declare(
        &mut self,
        name: &str,
        linkage: Linkage,
        sig: Signature,
    ) -> Result<FuncId> {
        self.module
            .declare_function(name, linkage, &sig)
            .map_err(module_error)
    }

    /// A fresh Cranelift function with the declared signature of `id`.
    pub(super) fn new_function(&self, id: FuncId) -> Function {
        let decl = self.module.declarations().get_function_decl(id);
        let name = decl.linkage_name(id).into_owned();
        Function::with_name_signature(UserFuncName::testcase(name), decl.signature.clone())
    }

    /// The runtime function `f`, declared as an import on first use.
    pub fn runtime_fn(&mut self, f: &RuntimeFn) -> Result<FuncId> {
        if let Some(&id) = self.runtime.get(f.name) {
            return Ok(id);
        }
        let sig = f.signature(self.module.isa().default_call_conv(), PTR);
        let id = self.declare(f.name, Linkage::Import, sig)?;
        self.runtime.insert(f.name, id);
        Ok(id)
    }

    /// A `preserve_all` trampoline to runtime function `f` (which must return nothing),
    /// declared on first use and defined after the PL functions: the generated code calls it
    /// where a plain call would make it spill every live register around the call.
    pub fn trampoline(&mut self, f: &'static RuntimeFn) -> Result<FuncId> {
        if let Some(&(_, id)) = self.trampolines.iter().find(|(g, _)| g.name == f.name) {
            return Ok(id);
        }
        if f.ret != runtime::Ret::Void {
            return Err(CodegenError::internal(format!(
                "a trampoline to `{}`, which returns",
                f.name
            )));
        }
        let mut sig = f.signature(CallConv::PreserveAll, PTR);
        sig.returns.clear();
        let id = self.declare(&trampoline_symbol(f), Linkage::Local, sig)?;
        self.trampolines.push((f, id));
        Ok(id)
    }

    /// `kbl`, `wpp`: the stream buffer of counter table `table` (`pcc_stdlib::stream`; `wpp`
    /// has one for all tables), a zeroed data object declared on first use, which the entry
    /// registers with the runtime.
    pub fn stream_buffer(&mut self, table: usize) -> Result<DataId> {
        let table = match self.program.stream {
            PathStream::Kbl => table,
            PathStream::Wpp => 0,
        };
        if let Some(&(_, id)) = self.stream_buffers.iter().find(|&&(t, _)| t == table) {
            return Ok(id);
        }
        let id = self
            .module
            .declare_anonymous_data(true, false)
            .map_err(module_error)?;
        let mut data = DataDescription::new();
        data.define_zeroinit(stream::BUFFER_WORDS as usize * SLOT as usize);
        data.set_align(SLOT as u64);
        self.module.define_data(id, &data).map_err(module_error)?;
        self.stream_buffers.push((table, id));
        Ok(id)
    }

    /// The string constant `bytes` (`[header][len][bytes]`, a static object: see
    /// [`static_object`]), one data object per distinct string.
    pub fn string(&mut self, bytes: &[u8]) -> Result<DataId> {
        if let Some(&id) = self.strings.get(bytes) {
            return Ok(id);
        }
        let mut contents = STATIC_HEADER.to_le_bytes().to_vec();
        contents.extend_from_slice(&(bytes.len() as i64).to_le_bytes());
        contents.extend_from_slice(bytes);
        let id = self.constant(contents)?;
        self.strings.insert(bytes.to_vec(), id);
        Ok(id)
    }

    /// The array of length 0 that array globals hold before their initializer runs, a static
    /// object.
    pub(super) fn empty_array(&mut self) -> Result<DataId> {
        match self.empty_array {
            Some(id) => Ok(id),
            None => {
                // Capacity and length 0, its data pointer right after its header (the length
                // is the word before it): it holds no elements, and the globals' initializer
                // gives each array global an array of its own before any code could push
                // into it.
                let mut contents = STATIC_HEADER.to_le_bytes().to_vec();
                let end = SLOT as usize + pcc_stdlib::ARRAY_HEADER;
                contents.resize(end, 0);
                let pointer = SLOT as usize + pcc_stdlib::ARRAY_DATA;
                let id = self.constant_pointing_into_itself(contents, Some((pointer, end)))?;
                self.empty_array = Some(id);
                Ok(id)
            }
        }
    }

    /// A read-only, slot-aligned data object.
    fn constant(&mut self, contents: Vec<u8>) -> Result<DataId> {
        self.constant_pointing_into_itself(contents, None)
    }

    /// A read-only, slot-aligned data object; with `Some((at, to))`, the word at byte `at`
    /// holds the address of its byte `to`.
    fn constant_pointing_into_itself(
        &mut self,
        contents: Vec<u8>,
        pointer: Option<(usize, usize)>,
    ) -> Result<DataId> {
        let id = self
            .module
            .declare_anonymous_data(false, false)
            .map_err(module_error)?;
        let mut data = DataDescription::new();
        data.define(contents.into_boxed_slice());
        data.set_align(SLOT as u64);
        if let Some((at, to)) = pointer {
            let itself = self.module.declare_data_in_data(id, &mut data);
            data.write_data_addr(at as u32, itself, to as i64);
        }
        self.module.define_data(id, &data).map_err(module_error)?;
        Ok(id)
    }

    /// The runtime's data symbol `name`, declared on first use.
    pub fn runtime_data(&mut self, name: &'static str) -> Result<DataId> {
        if let Some(&id) = self.runtime_data.get(name) {
            return Ok(id);
        }
        let id = self
            .module
            .declare_data(name, Linkage::Import, true, false)
            .map_err(module_error)?;
        self.runtime_data.insert(name, id);
        Ok(id)
    }

    /// The address of the static object in `data` (a string constant, the empty array), which
    /// starts after its header, as a symbol of `func`.
    pub fn static_object(&mut self, data: DataId, func: &mut Function) -> GlobalValue {
        let gv = self.module.declare_data_in_func(data, func);
        let mut symbol = func.global_values[gv].clone();
        if let GlobalValueData::Symbol { offset, .. } = &mut symbol {
            *offset = Imm64::new(SLOT as i64);
        }
        func.create_global_value(symbol)
    }
}

pub fn module_error(error: ModuleError) -> CodegenError {
    CodegenError::Cranelift(error.to_string())
}

/// The header of a static object (`pcc_stdlib`'s `gc::header`): never collected.
const STATIC_HEADER: u64 = 1;
