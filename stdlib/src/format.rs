//! How values print (docs/LANGUAGE.md, `print`): the text of `print(x)` and of `str(x)`.
//!
//! - `int`: decimal; `bool`: `true`/`false`; `str`: raw bytes; `null`: `null`;
//! - `float`: Rust's `{:?}` (`1.0`, `0.1`, `1e20`, `NaN`, `inf`, `-0.0`);
//! - array: `[1, 2]`, elements printed the same way (strings raw);
//! - map: `{apple: 3, pear: 1}`, its entries in insertion order, keys and values printed the same way;
//! - struct: `Node{key: 1, left: Node{...}, right: null}`: a struct shows its fields, but a struct inside a
//!   struct (directly or through arrays) is abbreviated `Name{...}`. This also makes printing finite: only
//!   structs can make a value cyclic.

use std::fmt;

use crate::program::{ProgramInfo, TypeInfo};
use crate::value;

/// Where formatted text goes: the stdout buffer or a byte vector. Infallible: the stdout buffer handles its
/// own write errors.
pub trait Sink {
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Adapts a [`Sink`] to `fmt::Write`, for the float formatting of `core`.
struct FmtSink<'a, S: Sink + ?Sized>(&'a mut S);

impl<S: Sink + ?Sized> fmt::Write for FmtSink<'_, S> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        self.0.put(text.as_bytes());
        Ok(())
    }
}

/// Decimal digits of `v`, written at the end of `buf` (20 bytes fit `i64::MIN`). Hand-written because
/// programs print integers in hot loops and this avoids the `fmt` machinery.
pub fn int_digits(v: i64, buf: &mut [u8; 20]) -> &[u8] {
    let mut n = v.unsigned_abs();
    let mut start = buf.len();
    loop {
        start -= 1;
        buf[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        start -= 1;
        buf[start] = b'-';
    }
    &buf[start..]
}

pub fn put_int(out: &mut (impl Sink + ?Sized), v: i64) {
    out.put(int_digits(v, &mut [0; 20]));
}

pub fn put_float(out: &mut (impl Sink + ?Sized), v: f64) {
    // The sink never fails, so neither does formatting.
    let _ = fmt::Write::write_fmt(&mut FmtSink(out), format_args!("{v:?}"));
}

pub fn put_bool(out: &mut (impl Sink + ?Sized), v: bool) {
    out.put(if v { b"true" } else { b"false" });
}

/// A value as printing sees it: what [`put_shown`] needs of the runtime's slots (here) and of the
/// reference interpreter's values (in the compiler), so both print the same text.
pub enum Shape<'a> {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(&'a [u8]),
    /// `null`, also a null struct reference.
    Null,
    Array,
    Map,
    /// A non-null struct, with its declaration's name.
    Struct(&'a str),
}

/// A printable value: its [`Shape`], and for arrays and structs their parts.
pub trait Printable: Sized {
    fn shape(&self) -> Shape<'_>;
    /// An array's elements (empty for other shapes).
    fn elements(&self) -> Vec<Self>;
    /// A map's keys and values, in insertion order (empty for other shapes).
    fn entries(&self) -> Vec<(Self, Self)>;
    /// A struct's fields with their names, in declaration order (empty for other shapes).
    fn fields(&self) -> Vec<(&str, Self)>;
}

/// Prints `value`; `in_struct` tells whether it is part of a struct being printed (then structs
/// are abbreviated).
pub fn put_shown(out: &mut (impl Sink + ?Sized), value: &impl Printable, in_struct: bool) {
    match value.shape() {
        Shape::Int(v) => put_int(out, v),
        Shape::Float(v) => put_float(out, v),
        Shape::Bool(v) => put_bool(out, v),
        Shape::Str(bytes) => out.put(bytes),
        Shape::Null => out.put(b"null"),
        Shape::Array => {
            out.put(b"[");
            for (i, element) in value.elements().iter().enumerate() {
                if i > 0 {
                    out.put(b", ");
                }
                put_shown(out, element, in_struct);
            }
            out.put(b"]");
        }
        Shape::Map => {
            out.put(b"{");
            for (i, (key, v)) in value.entries().iter().enumerate() {
                if i > 0 {
                    out.put(b", ");
                }
                put_shown(out, key, in_struct);
                out.put(b": ");
                put_shown(out, v, in_struct);
            }
            out.put(b"}");
        }
        Shape::Struct(name) => {
            out.put(name.as_bytes());
            if in_struct {
                out.put(b"{...}");
                return;
            }
            out.put(b"{");
            for (i, (field, v)) in value.fields().iter().enumerate() {
                if i > 0 {
                    out.put(b", ");
                }
                out.put(field.as_bytes());
                out.put(b": ");
                put_shown(out, v, true);
            }
            out.put(b"}");
        }
    }
}

/// A value in the runtime's layout: slot bits and their type.
struct Slot<'a> {
    info: &'a ProgramInfo,
    ty: &'a TypeInfo,
    bits: u64,
}

impl Printable for Slot<'_> {
    fn shape(&self) -> Shape<'_> {
        match self.ty {
            TypeInfo::Int => Shape::Int(self.bits as i64),
            TypeInfo::Float => Shape::Float(f64::from_bits(self.bits)),
            // A bool occupies the low byte of its slot.
            TypeInfo::Bool => Shape::Bool(self.bits as u8 != 0),
            // SAFETY: a `Slot` holds a valid value of its type ([`put_value`]'s contract).
            TypeInfo::Str => Shape::Str(unsafe { value::str_bytes(self.bits as *const u8) }),
            TypeInfo::Null => Shape::Null,
            TypeInfo::Array(_) => Shape::Array,
            TypeInfo::Map(..) => Shape::Map,
            TypeInfo::Struct(_) if self.bits == 0 => Shape::Null,
            TypeInfo::Struct(id) => Shape::Struct(&self.info.structs[*id].name),
        }
    }

    fn elements(&self) -> Vec<Self> {
        let TypeInfo::Array(element) = self.ty else {
            return Vec::new();
        };
        let array = self.bits as *const u8;
        // SAFETY: an array slot holds an array pointer; its slots hold `element` values.
        unsafe {
            (0..value::array_len(array))
                .map(|i| Slot {
                    info: self.info,
                    ty: element,
                    bits: match **element {
                        // `[bool]` arrays hold a `u32` per element.
                        TypeInfo::Bool => value::array_bool(array, i).into(),
                        _ => value::array_slot(array, i),
                    },
                })
                .collect()
        }
    }

    fn entries(&self) -> Vec<(Self, Self)> {
        let TypeInfo::Map(key, value) = self.ty else {
            return Vec::new();
        };
        let slot = |ty, bits| Slot {
            info: self.info,
            ty,
            bits,
        };
        // SAFETY: a map slot holds a map, whose entries hold `key` and `value` values.
        unsafe { crate::map::entries(self.bits as *const u8) }
            .map(|(k, v)| (slot(key, k), slot(value, v)))
            .collect()
    }

    fn fields(&self) -> Vec<(&str, Self)> {
        let (TypeInfo::Struct(id), false) = (self.ty, self.bits == 0) else {
            return Vec::new();
        };
        let object = self.bits as *const u8;
        (self.info.structs[*id].fields.iter().enumerate())
            .map(|(i, field)| {
                // SAFETY: a non-null struct slot points to a struct with these fields.
                let bits = unsafe { value::struct_field(object, i) };
                let slot = Slot {
                    info: self.info,
                    ty: &field.ty,
                    bits,
                };
                (field.name.as_str(), slot)
            })
            .collect()
    }
}

/// Prints the value whose slot bits are `bits` and whose type is `ty`; `in_struct` tells whether it is part of
/// a struct being printed (then structs are abbreviated).
///
/// # Safety
/// `bits` must be a valid value of type `ty` in the documented layout, and `info` the program's description.
pub unsafe fn put_value(
    out: &mut (impl Sink + ?Sized),
    info: &ProgramInfo,
    ty: &TypeInfo,
    bits: u64,
    in_struct: bool,
) {
    put_shown(out, &Slot { info, ty, bits }, in_struct);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{FieldInfo, StructInfo};
    use crate::value::testing::*;

    fn text(write: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        write(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn ints_print_in_decimal() {
        for v in [0, 7, -7, 10, 1234567890, i64::MAX, i64::MIN, -1_000_000] {
            assert_eq!(text(|o| put_int(o, v)), v.to_string());
        }
    }

    #[test]
    fn floats_print_like_rust_debug() {
        let cases = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e20, "1e20"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e16"),
            (1e-5, "1e-5"),
            (2.5, "2.5"),
            (-3.0, "-3.0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e308"),
        ];
        for (v, expected) in cases {
            assert_eq!(text(|o| put_float(o, v)), expected);
        }
    }

    #[test]
    fn bools_print_as_words() {
        assert_eq!(text(|o| put_bool(o, true)), "true");
        assert_eq!(text(|o| put_bool(o, false)), "false");
    }

    fn node_info() -> ProgramInfo {
        // struct Node { key: int, left: Node, right: Node }
        // struct Bag { name: str, weights: [float], flags: [bool], nodes: [Node], ok: bool }
        let field = |name: &str, ty| FieldInfo {
            name: name.into(),
            ty,
        };
        ProgramInfo {
            structs: vec![
                StructInfo {
                    name: "Node".into(),
                    fields: vec![
                        field("key", TypeInfo::Int),
                        field("left", TypeInfo::Struct(0)),
                        field("right", TypeInfo::Struct(0)),
                    ],
                },
                StructInfo {
                    name: "Bag".into(),
                    fields: vec![
                        field("name", TypeInfo::Str),
                        field("weights", TypeInfo::Array(Box::new(TypeInfo::Float))),
                        field("flags", TypeInfo::Array(Box::new(TypeInfo::Bool))),
                        field("nodes", TypeInfo::Array(Box::new(TypeInfo::Struct(0)))),
                        field("ok", TypeInfo::Bool),
                    ],
                },
                StructInfo {
                    name: "Empty".into(),
                    fields: vec![],
                },
            ],
            ..ProgramInfo::default()
        }
    }

    fn show(info: &ProgramInfo, ty: &TypeInfo, value: *const u8) -> String {
        // SAFETY: the tests build values that match `ty`.
        text(|o| unsafe { put_value(o, info, ty, value as u64, false) })
    }

    #[test]
    fn structs_show_fields_and_abbreviate_nested_structs() {
        let info = node_info();
        let leaf = struct_value(&[2, 0, 0]);
        let root = struct_value(&[1, leaf as u64, 0]);
        let node = TypeInfo::Struct(0);
        assert_eq!(
            show(&info, &node, root),
            "Node{key: 1, left: Node{...}, right: null}"
        );
        assert_eq!(
            show(&info, &node, leaf),
            "Node{key: 2, left: null, right: null}"
        );
        assert_eq!(show(&info, &node, std::ptr::null()), "null");
        assert_eq!(
            show(&info, &TypeInfo::Struct(2), struct_value(&[0])),
            "Empty{}"
        );
        // A cycle prints finitely.
        let cycle = struct_value(&[5, 0, 0]).cast_mut().cast::<u64>();
        // SAFETY: `cycle` points to three leaked words.
        unsafe { cycle.add(1).write(cycle as u64) };
        assert_eq!(
            show(&info, &node, cycle.cast()),
            "Node{key: 5, left: Node{...}, right: null}"
        );
    }

    #[test]
    fn arrays_print_elements_like_print() {
        let info = node_info();
        let array = |ty| TypeInfo::Array(Box::new(ty));
        let ints = array_value(&[1, (-2i64) as u64, 3]);
        assert_eq!(show(&info, &array(TypeInfo::Int), ints), "[1, -2, 3]");
        assert_eq!(show(&info, &array(TypeInfo::Int), array_value(&[])), "[]");
        let floats = array_value(&[1.0f64.to_bits(), 0.5f64.to_bits(), f64::NAN.to_bits()]);
        assert_eq!(
            show(&info, &array(TypeInfo::Float), floats),
            "[1.0, 0.5, NaN]"
        );
        let bools = bool_array_value(&[true, false, false, true, true, false, true, false, true]);
        assert_eq!(
            show(&info, &array(TypeInfo::Bool), bools),
            "[true, false, false, true, true, false, true, false, true]"
        );
        let strs = array_value(&[str_value("a b") as u64, str_value("") as u64]);
        assert_eq!(show(&info, &array(TypeInfo::Str), strs), "[a b, ]");
        let nested = array_value(&[ints as u64, array_value(&[]) as u64]);
        assert_eq!(
            show(&info, &array(array(TypeInfo::Int)), nested),
            "[[1, -2, 3], []]"
        );
        // Structs directly in an array are not inside a struct: they show their fields.
        let leaf = struct_value(&[2, 0, 0]);
        let root = struct_value(&[1, leaf as u64, leaf as u64]);
        let nodes = array_value(&[root as u64, 0]);
        assert_eq!(
            show(&info, &array(TypeInfo::Struct(0)), nodes),
            "[Node{key: 1, left: Node{...}, right: Node{...}}, null]"
        );
    }

    #[test]
    fn struct_fields_of_every_type() {
        let info = node_info();
        let leaf = struct_value(&[2, 0, 0]);
        let bag = struct_value(&[
            str_value("box") as u64,
            array_value(&[1e20f64.to_bits()]) as u64,
            bool_array_value(&[false, true]) as u64,
            array_value(&[leaf as u64, 0]) as u64,
            1,
        ]);
        assert_eq!(
            show(&info, &TypeInfo::Struct(1), bag),
            "Bag{name: box, weights: [1e20], flags: [false, true], nodes: [Node{...}, null], ok: true}"
        );
    }

    #[test]
    fn null_and_scalars_through_put_value() {
        let info = ProgramInfo::default();
        // SAFETY: scalar types carry their value in the bits.
        let scalar = |ty, bits| text(|o| unsafe { put_value(o, &info, &ty, bits, false) });
        assert_eq!(scalar(TypeInfo::Null, 0), "null");
        assert_eq!(scalar(TypeInfo::Int, (-5i64) as u64), "-5");
        assert_eq!(scalar(TypeInfo::Float, (-0.0f64).to_bits()), "-0.0");
        assert_eq!(scalar(TypeInfo::Bool, 1), "true");
    }
}
