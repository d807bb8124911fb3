//! Runtime library of `pcc`: the `extern "C"` functions that compiled PL programs call, and the host API
//! that starts a compiled program.
//!
//! The calling convention and value layout are specified in `docs/CONVENTIONS.md`; in short, every PL value is
//! one machine word (`i64`, `f64`, `i8` bool, or a pointer to an object of the garbage-collected heap, [`gc`]):
//! - `str`: `[len: i64][bytes...]`;
//! - `[T]`: `[len: i64][slot 0][slot 1]...`, 8-byte slots;
//! - struct: `[field 0][field 1]...`, 8-byte slots, `null` is 0.
//!
//! Host API: [`run_program`] runs a compiled `main` with the process-wide state it needs, [`symbols`] lists the
//! runtime's symbols for a JIT, [`register_exit_hook`] lets the profiler save its data at every kind of exit,
//! and [`pcc_aot_main`] starts a native executable (whose `main` the compiler generates) through
//! [`run_program`].
//!
//! The runtime is single-program: one [`run_program`] at a time per process (the state it sets is global so
//! that a native executable, whose `main` calls into this library, uses the same code path).

mod activations;
mod aot;
mod arrays;
mod errors;
mod format;
mod gc;
mod input;
mod interrupt;
pub mod kbl;
mod map;
mod math;
mod output;
mod profile;
mod program;
mod runs;
mod sort;
pub mod stream;
mod strings;
mod text;
pub mod trace;
mod value;
mod wpp;

pub use aot::{PROFILE_OUT_VAR, pcc_aot_main};
pub use errors::pcc_error_operands;
pub use output::{PRINT_BOOL, PRINT_FLOAT, PRINT_INT, PRINT_STR, PRINT_VALUE, PrintArg};
pub use program::{
    FieldInfo, FrameMaps, GcInfo, Location, ProgramInfo, STACK_SAFETY_MARGIN, STACK_SIZE,
    StructInfo, TypeInfo, pcc_stack_limit, register_exit_hook, run_program,
};
pub use sort::{SORT_FLOATS, SORT_INTS, SORT_STRS};
pub use trace::install_block_trace;
pub use value::{ARRAY_CAP, ARRAY_DATA, ARRAY_HEADER, ARRAY_LEN_BEFORE_DATA, BOOL_SIZE};

/// Every program's allocator, also `pcc`'s own (a profiled `pcc run` is a program): the system's,
/// made safe to stop the program's thread in (`interrupt`).
#[global_allocator]
static ALLOCATOR: interrupt::Allocator = interrupt::Allocator;

/// For the compiler's reference interpreter (`pcc run --engine interp`), which must print, read
/// and fail exactly as compiled code does: the same formatting, input reader, error messages,
/// stdout buffer and profile writer.
pub mod interp_support {
    pub use crate::errors::{ERROR_EXIT_CODE, RuntimeError, report};
    pub use crate::format::{Printable, Shape, Sink, put_bool, put_float, put_int, put_shown};
    pub use crate::gc::object_fits;
    pub use crate::input::Input;
    pub use crate::output::{flush, print_bytes, print_newline};
    pub use crate::profile::write_profile_file;
    pub use crate::strings::{fixed, parse_float, parse_int, substr_range};
    pub use crate::text::{find, join, replace, split, trim};
    pub use crate::value::HEADER;
    pub use crate::value::{BOOL_SIZE, array_size};
}

/// Every runtime symbol (functions and the data symbols `pcc_stack_limit` and
/// `pcc_error_operands`) by name, for
/// `cranelift_jit::JITBuilder::symbol`.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    macro_rules! symbols {
        ($($module:ident::$name:ident),* $(,)?) => {
            vec![$((stringify!($name), $module::$name as *const u8)),*]
        };
    }
    let mut list = symbols![
        output::pcc_print,
        strings::pcc_str_concat,
        strings::pcc_str_append,
        strings::pcc_str_cmp,
        strings::pcc_str_eq,
        strings::pcc_int_to_str,
        strings::pcc_float_to_str,
        strings::pcc_bool_to_str,
        strings::pcc_fixed,
        strings::pcc_chr,
        strings::pcc_substr,
        strings::pcc_parse_int,
        strings::pcc_parse_float,
        text::pcc_split,
        text::pcc_join,
        text::pcc_find,
        text::pcc_replace,
        text::pcc_trim,
        text::pcc_starts_with,
        text::pcc_ends_with,
        text::pcc_to_upper,
        text::pcc_to_lower,
        sort::pcc_sort,
        arrays::pcc_array_new,
        arrays::pcc_bool_array_new,
        arrays::pcc_struct_new,
        arrays::pcc_array_push,
        arrays::pcc_array_insert,
        arrays::pcc_array_pop,
        arrays::pcc_array_remove,
        map::pcc_map_new,
        map::pcc_map_get,
        map::pcc_map_set,
        map::pcc_map_has,
        map::pcc_map_delete,
        map::pcc_map_keys,
        gc::pcc_gc_start,
        math::pcc_fmod,
        math::pcc_pow,
        math::pcc_atan2,
        math::pcc_fmin,
        math::pcc_fmax,
        math::pcc_sin,
        math::pcc_cos,
        math::pcc_tan,
        math::pcc_atan,
        math::pcc_exp,
        math::pcc_log,
        program::pcc_argc,
        program::pcc_arg,
        input::pcc_read_line,
        input::pcc_eof,
        input::pcc_read_int,
        program::pcc_clock_ns,
        program::pcc_exit,
        errors::pcc_assert_fail,
        errors::pcc_err_index,
        errors::pcc_err_null,
        errors::pcc_err_div_zero,
        errors::pcc_err_rem_zero,
        errors::pcc_err_stack_overflow,
        profile::pcc_profile_table,
        profile::pcc_profile_count_hashed,
        profile::pcc_profile_keyed_table,
        profile::pcc_profile_count_keyed,
        kbl::pcc_kbl_buffer,
        kbl::pcc_kbl_flush,
        trace::pcc_trace_event,
        wpp::pcc_wpp_buffer,
        wpp::pcc_wpp_flush,
    ];
    list.push((
        "pcc_stack_limit",
        std::ptr::addr_of!(pcc_stack_limit).cast::<u8>(),
    ));
    list.push((
        "pcc_error_operands",
        std::ptr::addr_of!(pcc_error_operands).cast::<u8>(),
    ));
    list
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn symbols_are_unique_non_null_and_complete() {
        let list = symbols();
        let names: HashSet<&str> = list.iter().map(|(name, _)| *name).collect();
        assert_eq!(names.len(), list.len(), "duplicate symbol names");
        assert!(list.iter().all(|(_, ptr)| !ptr.is_null()));
        // The full list of CONVENTIONS.md.
        let expected = [
            "pcc_print",
            "pcc_str_concat",
            "pcc_str_append",
            "pcc_str_cmp",
            "pcc_str_eq",
            "pcc_int_to_str",
            "pcc_float_to_str",
            "pcc_bool_to_str",
            "pcc_fixed",
            "pcc_chr",
            "pcc_substr",
            "pcc_parse_int",
            "pcc_parse_float",
            "pcc_split",
            "pcc_join",
            "pcc_find",
            "pcc_replace",
            "pcc_trim",
            "pcc_starts_with",
            "pcc_ends_with",
            "pcc_to_upper",
            "pcc_to_lower",
            "pcc_sort",
            "pcc_array_new",
            "pcc_bool_array_new",
            "pcc_struct_new",
            "pcc_array_push",
            "pcc_array_insert",
            "pcc_array_pop",
            "pcc_array_remove",
            "pcc_map_new",
            "pcc_map_get",
            "pcc_map_set",
            "pcc_map_has",
            "pcc_map_delete",
            "pcc_map_keys",
            "pcc_gc_start",
            "pcc_fmod",
            "pcc_pow",
            "pcc_atan2",
            "pcc_fmin",
            "pcc_fmax",
            "pcc_sin",
            "pcc_cos",
            "pcc_tan",
            "pcc_atan",
            "pcc_exp",
            "pcc_log",
            "pcc_argc",
            "pcc_arg",
            "pcc_read_line",
            "pcc_eof",
            "pcc_read_int",
            "pcc_clock_ns",
            "pcc_exit",
            "pcc_assert_fail",
            "pcc_err_index",
            "pcc_err_null",
            "pcc_err_div_zero",
            "pcc_err_rem_zero",
            "pcc_err_stack_overflow",
            "pcc_profile_table",
            "pcc_profile_count_hashed",
            "pcc_profile_keyed_table",
            "pcc_profile_count_keyed",
            "pcc_kbl_buffer",
            "pcc_kbl_flush",
            "pcc_trace_event",
            "pcc_wpp_buffer",
            "pcc_wpp_flush",
            "pcc_stack_limit",
            "pcc_error_operands",
        ];
        assert_eq!(names, expected.into_iter().collect::<HashSet<_>>());
    }
}
