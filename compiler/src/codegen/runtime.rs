//! The runtime ABI (docs/CONVENTIONS.md): every `extern "C"` function of `pcc-stdlib` the generated
//! code may call, with its signature, in one table.

use cranelift_codegen::ir::{AbiParam, Signature, Type, types};
use cranelift_codegen::isa::CallConv;

use crate::mir::PathStream;

/// A machine-level parameter or result type of the runtime ABI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abi {
    /// `i64` (also a source-location id).
    I,
    /// `f64`.
    F,
    /// `i8`, 0 or 1.
    B,
    /// A pointer.
    P,
}

impl Abi {
    pub fn clif_type(self, pointer: Type) -> Type {
        match self {
            Abi::I => types::I64,
            Abi::F => types::F64,
            Abi::B => types::I8,
            Abi::P => pointer,
        }
    }
}

/// Whether a runtime function returns, and what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ret {
    Void,
    Value(Abi),
    /// Ends the process (`!` in CONVENTIONS.md).
    Never,
}

#[derive(Debug)]
pub struct RuntimeFn {
    pub name: &'static str,
    pub params: &'static [Abi],
    pub ret: Ret,
}

impl RuntimeFn {
    pub fn signature(&self, call_conv: CallConv, pointer: Type) -> Signature {
        let mut sig = Signature::new(call_conv);
        sig.params
            .extend(self.params.iter().map(|&p| abi_param(p.clif_type(pointer))));
        if let Ret::Value(r) = self.ret {
            sig.returns.push(AbiParam::new(r.clif_type(pointer)));
        }
        sig
    }
}

/// A parameter of type `ty`; an `i8` is zero-extended by the caller because C callees may
/// assume a `bool` argument is (the C ABIs leave the upper bits unspecified otherwise).
pub fn abi_param(ty: Type) -> AbiParam {
    if ty == types::I8 {
        AbiParam::new(ty).uext()
    } else {
        AbiParam::new(ty)
    }
}

/// `pcc_aot_main(info, info_len, entry, argc, argv) -> status`: called by the `main` of a native
/// executable, not by PL code, so neither in `ALL` nor among the JIT's symbols.
pub const AOT_MAIN: RuntimeFn = RuntimeFn {
    name: "pcc_aot_main",
    params: &[Abi::P, Abi::I, Abi::P, Abi::I, Abi::P],
    ret: Ret::Value(Abi::I),
};

/// The data symbol (`usize`) holding the lowest stack address generated code may run at.
pub const STACK_LIMIT: &str = "pcc_stack_limit";

/// The data symbol (three `i64`s) a failing check stores its error's operands in before it
/// calls the error function (`pcc_err_*`, `pcc_assert_fail`), which takes no arguments.
pub const ERROR_OPERANDS: &str = "pcc_error_operands";

macro_rules! ret {
    () => {
        Ret::Void
    };
    (!) => {
        Ret::Never
    };
    ($r:ident) => {
        Ret::Value(Abi::$r)
    };
}

/// `NAME = "symbol"(PARAMS) [-> RESULT | -> !];` defines a constant per function and [`ALL`].
macro_rules! runtime_functions {
    ($($konst:ident = $name:literal ($($param:ident),*) $(-> $ret:tt)?;)*) => {
        $(pub const $konst: RuntimeFn = RuntimeFn {
            name: $name,
            params: &[$(Abi::$param),*],
            ret: ret!($($ret)?),
        };)*
        /// Every runtime function, for checking the table against the runtime's symbols.
        #[cfg(test)]
        pub const ALL: &[RuntimeFn] = &[$($konst),*];
    };
}

// `I` after the last real parameter is the source-location id (`L` in CONVENTIONS.md).
runtime_functions! {
    PRINT = "pcc_print"(P, I, B, I);
    STR_CONCAT = "pcc_str_concat"(P, P, I) -> P;
    STR_APPEND = "pcc_str_append"(P, P, B, I) -> P;
    STR_CMP = "pcc_str_cmp"(P, P) -> I;
    STR_EQ = "pcc_str_eq"(P, P) -> B;
    INT_TO_STR = "pcc_int_to_str"(I) -> P;
    FLOAT_TO_STR = "pcc_float_to_str"(F) -> P;
    BOOL_TO_STR = "pcc_bool_to_str"(B) -> P;
    FIXED = "pcc_fixed"(F, I, I) -> P;
    CHR = "pcc_chr"(I, I) -> P;
    SUBSTR = "pcc_substr"(P, I, I, I) -> P;
    PARSE_INT = "pcc_parse_int"(P, I) -> I;
    PARSE_FLOAT = "pcc_parse_float"(P, I) -> F;
    SPLIT = "pcc_split"(P, P, I) -> P;
    JOIN = "pcc_join"(P, P, I) -> P;
    FIND = "pcc_find"(P, P, I, I) -> I;
    REPLACE = "pcc_replace"(P, P, P, I) -> P;
    TRIM = "pcc_trim"(P, I) -> P;
    STARTS_WITH = "pcc_starts_with"(P, P) -> B;
    ENDS_WITH = "pcc_ends_with"(P, P) -> B;
    TO_UPPER = "pcc_to_upper"(P, I) -> P;
    TO_LOWER = "pcc_to_lower"(P, I) -> P;
    SORT = "pcc_sort"(P, I);
    ARRAY_NEW = "pcc_array_new"(I, I, B, I) -> P;
    BOOL_ARRAY_NEW = "pcc_bool_array_new"(I, I, I) -> P;
    STRUCT_NEW = "pcc_struct_new"(I, I, I) -> P;
    ARRAY_PUSH = "pcc_array_push"(P, I, I, I);
    ARRAY_INSERT = "pcc_array_insert"(P, I, I, I, I);
    ARRAY_POP = "pcc_array_pop"(P, I, I) -> I;
    ARRAY_REMOVE = "pcc_array_remove"(P, I, I, I) -> I;
    MAP_NEW = "pcc_map_new"(B, B, I) -> P;
    MAP_GET = "pcc_map_get"(P, I, I) -> I;
    MAP_SET = "pcc_map_set"(P, I, I, I);
    MAP_HAS = "pcc_map_has"(P, I) -> B;
    MAP_DELETE = "pcc_map_delete"(P, I);
    MAP_KEYS = "pcc_map_keys"(P, I) -> P;
    GC_START = "pcc_gc_start"(P, P);
    FMOD = "pcc_fmod"(F, F) -> F;
    POW = "pcc_pow"(F, F) -> F;
    ATAN2 = "pcc_atan2"(F, F) -> F;
    FMIN = "pcc_fmin"(F, F) -> F;
    FMAX = "pcc_fmax"(F, F) -> F;
    SIN = "pcc_sin"(F) -> F;
    COS = "pcc_cos"(F) -> F;
    TAN = "pcc_tan"(F) -> F;
    ATAN = "pcc_atan"(F) -> F;
    EXP = "pcc_exp"(F) -> F;
    LOG = "pcc_log"(F) -> F;
    ARGC = "pcc_argc"() -> I;
    ARG = "pcc_arg"(I, I) -> P;
    READ_LINE = "pcc_read_line"() -> P;
    EOF = "pcc_eof"() -> B;
    READ_INT = "pcc_read_int"(I) -> I;
    CLOCK_NS = "pcc_clock_ns"() -> I;
    EXIT = "pcc_exit"(I) -> !;
    // The error functions take their operands from `ERROR_OPERANDS` (`checks.rs`).
    ASSERT_FAIL = "pcc_assert_fail"() -> !;
    ERR_INDEX = "pcc_err_index"() -> !;
    ERR_NULL = "pcc_err_null"() -> !;
    ERR_DIV_ZERO = "pcc_err_div_zero"() -> !;
    ERR_REM_ZERO = "pcc_err_rem_zero"() -> !;
    ERR_STACK_OVERFLOW = "pcc_err_stack_overflow"() -> !;
    PROFILE_TABLE = "pcc_profile_table"(I, P, I);
    PROFILE_COUNT_HASHED = "pcc_profile_count_hashed"(I, I);
    PROFILE_KEYED_TABLE = "pcc_profile_keyed_table"(I, P, I);
    PROFILE_COUNT_KEYED = "pcc_profile_count_keyed"(I, I);
    TRACE_EVENT = "pcc_trace_event"(I, I, I);
    KBL_BUFFER = "pcc_kbl_buffer"(I, P);
    KBL_FLUSH = "pcc_kbl_flush"(I);
    WPP_BUFFER = "pcc_wpp_buffer"(I, P);
    WPP_FLUSH = "pcc_wpp_flush"(I);
}

/// The runtime functions of a path stream (`pcc_stdlib::stream`): the one that registers a
/// stream buffer, and the one that flushes a full buffer.
pub fn stream_functions(stream: PathStream) -> (&'static RuntimeFn, &'static RuntimeFn) {
    match stream {
        PathStream::Kbl => (&KBL_BUFFER, &KBL_FLUSH),
        PathStream::Wpp => (&WPP_BUFFER, &WPP_FLUSH),
    }
}
