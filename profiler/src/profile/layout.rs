//! How a profile is laid out as JSON text: objects, and arrays of objects or arrays, one member
//! per line as `serde_json`'s pretty printer writes them; arrays of numbers and strings on one
//! line (`"lines": [5, 6, 9]`, a WPP rule). A whole program path's grammar of a million symbols
//! is then a line per rule rather than per symbol: half the bytes, and quicker to write.

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, Serializer};
use std::io::{self, Write};

/// `value` as JSON text laid out as the module documentation says.
pub(super) fn to_string<T: Serialize>(value: &T) -> serde_json::Result<String> {
    let mut text = Vec::new();
    value.serialize(&mut Serializer::with_formatter(
        &mut text,
        Layout::default(),
    ))?;
    Ok(String::from_utf8(text).expect("serde_json writes UTF-8"))
}

/// An array's layout, decided by its first element.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lines {
    Undecided,
    /// Elements on the array's line.
    One,
    /// An element per line.
    Each,
}

enum Open {
    /// An object, and whether it has a member yet.
    Object(bool),
    /// An array, and whether an element is about to start (and is its first).
    Array(Lines, Option<bool>),
}

#[derive(Default)]
struct Layout {
    open: Vec<Open>,
}

impl Layout {
    /// Before a value: its separator, when it is an element of an array (the first element
    /// decides the array's layout: a container goes on lines of its own).
    fn element<W: ?Sized + Write>(&mut self, writer: &mut W, container: bool) -> io::Result<()> {
        let depth = self.open.len();
        let Some(Open::Array(lines, starting @ Some(_))) = self.open.last_mut() else {
            return Ok(());
        };
        let first = starting.take() == Some(true);
        if *lines == Lines::Undecided {
            *lines = if container { Lines::Each } else { Lines::One };
        }
        match (*lines, first) {
            (Lines::Each, _) => {
                if !first {
                    writer.write_all(b",")?;
                }
                new_line(writer, depth)
            }
            (_, true) => Ok(()),
            (_, false) => writer.write_all(b", "),
        }
    }
}

fn new_line<W: ?Sized + Write>(writer: &mut W, depth: usize) -> io::Result<()> {
    writer.write_all(b"\n")?;
    (0..depth).try_for_each(|_| writer.write_all(b"  "))
}

/// Scalar writers: the element's separator, then the value as compact JSON.
macro_rules! scalars {
    ($($name:ident($($value:ident: $type:ty),*);)*) => {
        $(
            fn $name<W: ?Sized + Write>(
                &mut self,
                writer: &mut W
                $(, $value: $type)*
            ) -> io::Result<()> {
                self.element(writer, false)?;
                CompactFormatter.$name(writer $(, $value)*)
            }
        )*
    };
}

impl Formatter for Layout {
    scalars! {
        write_null();
        write_bool(value: bool);
        write_i8(value: i8);
        write_i16(value: i16);
        write_i32(value: i32);
        write_i64(value: i64);
        write_i128(value: i128);
        write_u8(value: u8);
        write_u16(value: u16);
        write_u32(value: u32);
        write_u64(value: u64);
        write_u128(value: u128);
        write_f32(value: f32);
        write_f64(value: f64);
        write_number_str(value: &str);
        begin_string();
        write_byte_array(value: &[u8]);
        write_raw_fragment(fragment: &str);
    }

    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.element(writer, true)?;
        self.open.push(Open::Array(Lines::Undecided, None));
        writer.write_all(b"[")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, _: &mut W, first: bool) -> io::Result<()> {
        if let Some(Open::Array(_, starting)) = self.open.last_mut() {
            *starting = Some(first);
        }
        Ok(())
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        if let Some(Open::Array(Lines::Each, _)) = self.open.pop() {
            new_line(writer, self.open.len())?;
        }
        writer.write_all(b"]")
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.element(writer, true)?;
        self.open.push(Open::Object(false));
        writer.write_all(b"{")
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if let Some(Open::Object(members)) = self.open.last_mut() {
            *members = true;
        }
        if !first {
            writer.write_all(b",")?;
        }
        new_line(writer, self.open.len())
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        if let Some(Open::Object(true)) = self.open.pop() {
            new_line(writer, self.open.len())?;
        }
        writer.write_all(b"}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scalars_share_a_line_and_containers_take_their_own() {
        let value = json!({
            "format": "pcc-profile",
            "args": ["4000", "a \"quoted\" one"],
            "empty": [],
            "nothing": {},
            "functions": [
                {"name": "main", "paths": [{"id": 0, "lines": [5, 6, 9]}], "ratio": 0.5}
            ],
            "rules": [[0, 1, "R1"], [2, "R9"], []],
            "flag": true,
            "none": null
        });
        let text = to_string(&value).unwrap();
        let expected = r#"{
  "args": ["4000", "a \"quoted\" one"],
  "empty": [],
  "flag": true,
  "format": "pcc-profile",
  "functions": [
    {
      "name": "main",
      "paths": [
        {
          "id": 0,
          "lines": [5, 6, 9]
        }
      ],
      "ratio": 0.5
    }
  ],
  "none": null,
  "nothing": {},
  "rules": [
    [0, 1, "R1"],
    [2, "R9"],
    []
  ]
}"#;
        assert_eq!(text, expected);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            value
        );
    }
}
