//! The runtime's description of the program (`pcc_stdlib::ProgramInfo`): the source locations
//! and value types that generated code passes to the runtime as ids.

use std::collections::HashMap;

use pcc_lang::LineIndex;
use pcc_stdlib::{FieldInfo, Location, ProgramInfo, StructInfo, TypeInfo};

use crate::mir::{Program, Type};

/// Collects locations and printed types while functions are translated, deduplicated.
pub struct InfoBuilder<'m> {
    lines: LineIndex,
    locations: Vec<Location>,
    location_ids: HashMap<(u32, &'m str), i64>,
    types: Vec<TypeInfo>,
    type_ids: HashMap<Type, i64>,
}

impl<'m> InfoBuilder<'m> {
    pub fn new(source: &str) -> InfoBuilder<'m> {
        InfoBuilder {
            lines: LineIndex::new(source),
            locations: Vec::new(),
            location_ids: HashMap::new(),
            types: Vec::new(),
            type_ids: HashMap::new(),
        }
    }

    /// The id of the location at byte `offset` of the source, in function `function`.
    pub fn location(&mut self, offset: u32, function: &'m str) -> i64 {
        *self
            .location_ids
            .entry((offset, function))
            .or_insert_with(|| {
                let (line, col) = self.lines.line_col(offset);
                self.locations.push(Location {
                    line,
                    col,
                    function: function.to_string(),
                });
                self.locations.len() as i64 - 1
            })
    }

    /// The id of `ty` for `pcc_print`'s value kinds.
    pub fn type_id(&mut self, ty: &Type) -> i64 {
        if let Some(&id) = self.type_ids.get(ty) {
            return id;
        }
        self.types.push(type_info(ty));
        let id = self.types.len() as i64 - 1;
        self.type_ids.insert(ty.clone(), id);
        id
    }

    pub fn finish(self, program: &Program) -> ProgramInfo {
        let structs = program
            .structs
            .iter()
            .map(|s| StructInfo {
                name: s.name.clone(),
                fields: s
                    .fields
                    .iter()
                    .map(|f| FieldInfo {
                        name: f.name.clone(),
                        ty: type_info(&f.ty),
                    })
                    .collect(),
            })
            .collect();
        ProgramInfo {
            file: program.file_name.clone(),
            structs,
            types: self.types,
            locations: self.locations,
            // The driver adds the profile spec of an instrumented program.
            profile: None,
            // `program::compile` adds the collector's roots once the code is compiled.
            gc: Default::default(),
        }
    }
}

fn type_info(ty: &Type) -> TypeInfo {
    match ty {
        Type::Int => TypeInfo::Int,
        Type::Float => TypeInfo::Float,
        Type::Bool => TypeInfo::Bool,
        Type::Str => TypeInfo::Str,
        Type::Array(elem) => TypeInfo::Array(Box::new(type_info(elem))),
        Type::Map(key, value) => {
            TypeInfo::Map(Box::new(type_info(key)), Box::new(type_info(value)))
        }
        Type::Struct(s) => TypeInfo::Struct(s.index()),
        // `Void` has no values, so none is printed; `Null` is the closest harmless answer.
        Type::Null | Type::Void => TypeInfo::Null,
    }
}
