//! Value layout (docs/CONVENTIONS.md): how PL values are machine values, how they sit in the
//! 8-byte slots of arrays, structs and globals (a `[bool]` array's elements are narrower), and
//! which memory accesses may alias.

use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Type as ClifType, Value, types};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::DataId;

use super::{CodegenError, Result};
use crate::mir::{GlobalId, Program, StructId, Type};

/// Pointers are 64-bit: `jit`/`emit_*` refuse other targets, so pointer arithmetic can mix
/// pointers with `int` indices and lengths freely.
pub const PTR: ClifType = types::I64;

/// Every array element but a bool, struct field and global occupies one slot.
pub const SLOT: i32 = 8;

/// Strings (and maps) start with their length (`i64`).
pub const LEN_OFFSET: i32 = 0;
/// A string's bytes follow its length.
pub const BYTES_OFFSET: i32 = 8;
/// An array's header (`pcc_stdlib::value`): a pointer to its elements (inline right after the
/// header in an array made at its size, in a buffer once it grew), its capacity and the length of
/// inline elements; the length is always the word before the elements.
pub const ARRAY_DATA: i32 = pcc_stdlib::ARRAY_DATA as i32;
pub const ARRAY_HEADER: i32 = pcc_stdlib::ARRAY_HEADER as i32;
/// The offset of an array's length from its data pointer.
const ARRAY_LEN: i32 = -(pcc_stdlib::ARRAY_LEN_BEFORE_DATA as i32);

/// The machine type of a value of type `ty`; `None` for `Void`, which has no values.
pub fn clif_type(ty: &Type) -> Option<ClifType> {
    match ty {
        Type::Int => Some(types::I64),
        Type::Float => Some(types::F64),
        Type::Bool => Some(types::I8),
        Type::Str | Type::Array(_) | Type::Map(..) | Type::Struct(_) | Type::Null => Some(PTR),
        Type::Void => None,
    }
}

/// The offset of slot `index` of a struct or of the globals.
pub fn slot_offset(index: usize) -> Result<i32> {
    i32::try_from(index)
        .ok()
        .and_then(|i| i.checked_mul(SLOT))
        .ok_or_else(|| CodegenError::internal("too many fields, elements or globals"))
}

/// Disjoint kinds of memory: an access of one kind never touches memory of another, which lets
/// Cranelift keep loaded values across stores of other kinds (type-based alias analysis). It
/// holds because PL has no casts: a struct field is only ever accessed as that field, an array
/// only at its own type, a global only by its id; the runtime's accesses are inside calls,
/// which Cranelift treats as touching everything.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Memory {
    Global(GlobalId),
    Field(StructId, usize),
    /// Array elements, by the class of the element type.
    Elements(ElementClass),
    /// Bytes of strings, which never change.
    StringBytes,
    /// The length and data pointer of arrays, in a function that may resize one (`push`,
    /// `pop`, `insert`, `remove`; see [`header_flags`]): only calls change them.
    ArrayHeader,
    /// The runtime's `pcc_stack_limit`.
    StackLimit,
    /// Profile counters and `kbl` stream buffers, which only instrumentation reads and writes.
    Counters,
    /// PPP slot tables (expected Ball-Larus ids), which never change.
    PppSlots,
    /// The stack slot holding the address of a profile array (`profile_array_address`): one
    /// region each, so that storing one address does not hide the others' stored values.
    ProfileArrayAddress(DataId),
    /// The stack area `print` lays its values out in.
    PrintArea,
    /// The runtime's `pcc_error_operands`.
    ErrorOperands,
}

/// Classes of array element types. Every reference type is one class: MIR may give an array
/// literal of `null`s the type `[null]` before it meets its struct type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementClass {
    Int,
    Float,
    Bool,
    Reference,
}

impl ElementClass {
    pub fn of(ty: &Type) -> ElementClass {
        match ty {
            Type::Int => ElementClass::Int,
            Type::Float => ElementClass::Float,
            Type::Bool => ElementClass::Bool,
            _ => ElementClass::Reference,
        }
    }
}

impl Memory {
    /// How `--emit clif` names the alias region.
    pub fn describe(self, program: &Program) -> String {
        match self {
            Memory::Global(g) => format!("global {}", program.globals[g].name),
            Memory::Field(s, f) => {
                let strukt = &program.structs[s];
                format!("{}.{}", strukt.name, strukt.fields[f].name)
            }
            Memory::Elements(class) => format!("{class:?} array elements").to_lowercase(),
            Memory::StringBytes => "string bytes".to_string(),
            Memory::ArrayHeader => "array headers".to_string(),
            Memory::StackLimit => "pcc_stack_limit".to_string(),
            Memory::Counters => "profile counters".to_string(),
            Memory::PppSlots => "PPP slot tables".to_string(),
            Memory::ProfileArrayAddress(data) => {
                format!("address of profile array {}", data.as_u32())
            }
            Memory::PrintArea => "print arguments".to_string(),
            Memory::ErrorOperands => "pcc_error_operands".to_string(),
        }
    }
}

/// Flags of an access to memory the generated code has already checked (bounds, null) or owns
/// (globals, fresh objects): it cannot fault and is aligned.
pub fn access_flags() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// Reads the slot at `addr + offset` as a value of machine type `ty`.
pub fn load_slot(
    b: &mut FunctionBuilder,
    flags: MemFlagsData,
    ty: ClifType,
    addr: Value,
    offset: i32,
) -> Value {
    if ty == types::I8 {
        // A bool is the low byte of its slot; load the whole slot so byte order does not matter.
        let slot = b.ins().load(types::I64, flags, addr, offset);
        b.ins().ireduce(types::I8, slot)
    } else {
        b.ins().load(ty, flags, addr, offset)
    }
}

/// Writes `value` into the slot at `addr + offset`.
pub fn store_slot(
    b: &mut FunctionBuilder,
    flags: MemFlagsData,
    value: Value,
    addr: Value,
    offset: i32,
) {
    let value = if b.func.dfg.value_type(value) == types::I8 {
        b.ins().uextend(types::I64, value)
    } else {
        value
    };
    b.ins().store(flags, value, addr, offset);
}

/// The bytes an array element of type `elem` takes: a slot, except in a `[bool]` array
/// (`pcc_stdlib::BOOL_SIZE`, which says why).
pub fn element_size(elem: &Type) -> i32 {
    if *elem == Type::Bool {
        pcc_stdlib::BOOL_SIZE as i32
    } else {
        SLOT
    }
}

/// Reads the array element of `size` bytes (see [`element_size`]) at `addr + offset`, a value
/// of machine type `ty`.
pub fn load_element(
    b: &mut FunctionBuilder,
    flags: MemFlagsData,
    ty: ClifType,
    size: i32,
    addr: Value,
    offset: i32,
) -> Value {
    match stored_type(size) {
        Some(stored) => {
            let value = b.ins().load(stored, flags, addr, offset);
            b.ins().ireduce(ty, value)
        }
        None => load_slot(b, flags, ty, addr, offset),
    }
}

/// Writes `value` into the array element of `size` bytes at `addr + offset`.
pub fn store_element(
    b: &mut FunctionBuilder,
    flags: MemFlagsData,
    size: i32,
    value: Value,
    addr: Value,
    offset: i32,
) {
    match stored_type(size) {
        Some(stored) => {
            let value = b.ins().uextend(stored, value);
            b.ins().store(flags, value, addr, offset);
        }
        None => store_slot(b, flags, value, addr, offset),
    }
}

/// The int type an element narrower than a slot is stored as (`None` for a slot).
fn stored_type(size: i32) -> Option<ClifType> {
    (size != SLOT).then(|| ClifType::int_with_byte_size(size as u16).expect("an int's size"))
}

/// The 64 bits of a slot holding `value` (also `pcc_array_new`'s fill argument).
pub fn slot_bits(b: &mut FunctionBuilder, value: Value) -> Value {
    match b.func.dfg.value_type(value) {
        types::I8 => b.ins().uextend(types::I64, value),
        types::F64 => b.ins().bitcast(types::I64, MemFlagsData::new(), value),
        _ => value,
    }
}

/// The flags of a load of a length or an array's data pointer that nothing changes while the
/// function runs (a string's, or an array's in a function that resizes none, directly or not:
/// `Program::resizing`): Cranelift may share the load between accesses; where `movable`, it may
/// also place it anywhere its operand is available, hoisting it out of loops. The collector does
/// not move objects, so a data pointer stays valid until its array is resized.
pub fn fixed_flags(movable: bool) -> MemFlagsData {
    let flags = access_flags().with_readonly();
    if movable {
        flags.with_can_move()
    } else {
        flags
    }
}

/// The length of a string, never null, read with `flags` ([`fixed_flags`]).
pub fn load_len(b: &mut FunctionBuilder, string: Value, flags: MemFlagsData) -> Value {
    b.ins().load(types::I64, flags, string, LEN_OFFSET)
}

/// The address of an array's element 0, read with `flags` ([`fixed_flags`], or the
/// [`Memory::ArrayHeader`] region's where it may change).
pub fn load_data(b: &mut FunctionBuilder, array: Value, flags: MemFlagsData) -> Value {
    b.ins().load(PTR, flags, array, ARRAY_DATA)
}

/// The length of the array whose data pointer is `data`, read with `flags` (as for
/// [`load_data`]).
pub fn load_array_len(b: &mut FunctionBuilder, data: Value, flags: MemFlagsData) -> Value {
    b.ins().load(types::I64, flags, data, ARRAY_LEN)
}
