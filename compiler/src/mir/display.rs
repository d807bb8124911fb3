//! Text form of MIR, printed by `--emit mir`. Without its comments (source lines, local names,
//! `cold`) it is the canonical text of a function that `cfg_hash` hashes
//! (docs/PROFILE-FORMAT.md, "Canonical CFG text"): it names types, operations, callees, structs
//! and globals as the source spells them, and nothing that depends on source positions.

use std::fmt::{self, Display, Formatter};

use super::*;

/// Writes a PL type the way the source spells it.
pub struct TypeName<'a>(pub &'a Type, pub &'a IdVec<StructId, StructDef>);

impl Display for TypeName<'_> {
    fn fmt(&self, f: &mut Formatter) -> fmt::Result {
        match self.0 {
            Type::Int => write!(f, "int"),
            Type::Float => write!(f, "float"),
            Type::Bool => write!(f, "bool"),
            Type::Str => write!(f, "str"),
            Type::Array(elem) => write!(f, "[{}]", TypeName(elem, self.1)),
            Type::Map(key, value) => {
                write!(
                    f,
                    "map[{}]{}",
                    TypeName(key, self.1),
                    TypeName(value, self.1)
                )
            }
            Type::Struct(s) => write!(f, "{}", self.1[*s].name),
            Type::Null => write!(f, "null"),
            Type::Void => write!(f, "void"),
        }
    }
}

impl Display for Const {
    fn fmt(&self, f: &mut Formatter) -> fmt::Result {
        match self {
            Const::Int(v) => write!(f, "{v}"),
            Const::Float(v) => write!(f, "{v:?}"),
            Const::Bool(v) => write!(f, "{v}"),
            Const::Str(bytes) => write!(f, "\"{}\"", escaped(bytes)),
            Const::Null => write!(f, "null"),
        }
    }
}

impl Display for Operand {
    fn fmt(&self, f: &mut Formatter) -> fmt::Result {
        match self {
            Operand::Local(l) => write!(f, "_{l}"),
            Operand::Const(c) => write!(f, "{c}"),
        }
    }
}

/// A string constant's bytes between quotes: printable ASCII as is but for `"` and `\`, which
/// are escaped, `\n`, `\t`, `\r`, and every other byte as `\xNN`.
fn escaped(bytes: &[u8]) -> String {
    let mut out = String::new();
    for &byte in bytes {
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            b' '..=b'~' => out.push(char::from(byte)),
            _ => out.push_str(&format!("\\x{byte:02x}")),
        }
    }
    out
}

fn list(ops: &[Operand]) -> String {
    ops.iter()
        .map(|o| o.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Marks an element access without a bounds check.
fn unchecked(checked: bool) -> &'static str {
    if checked { "" } else { "unchecked " }
}

impl Program {
    fn callee_name(&self, callee: Callee) -> String {
        match callee {
            Callee::Function(id) => self.functions[id].name.clone(),
            Callee::Builtin(b) => b.name().to_string(),
        }
    }

    fn rvalue(&self, rv: &Rvalue) -> String {
        let field_name = |s: StructId, i: usize| &self.structs[s].fields[i].name;
        match rv {
            Rvalue::Use(op) => op.to_string(),
            Rvalue::Unary(op, a) => format!("{}{a}", op.symbol()),
            Rvalue::Binary(op, a, b) => format!("{a} {} {b}", op.symbol()),
            Rvalue::Global(g) => format!("@{}", self.globals[*g].name),
            Rvalue::Index {
                base,
                index,
                checked,
                readonly,
            } => {
                let readonly = if *readonly { "readonly " } else { "" };
                format!("{}{readonly}{base}[{index}]", unchecked(*checked))
            }
            Rvalue::Field {
                object,
                strukt,
                field,
            } => format!("{object}.{}", field_name(*strukt, *field)),
            Rvalue::ArrayLit(ops) => format!("[{}]", list(ops)),
            Rvalue::ArrayRepeat { value, count } => format!("[{value}; {count}]"),
            Rvalue::Window {
                window,
                id,
                bits,
                mask,
            } => format!("(({window} << {bits}) + {id}) & {mask}"),
            Rvalue::New { strukt, fields } => {
                let def = &self.structs[*strukt];
                let inits: Vec<String> = def
                    .fields
                    .iter()
                    .zip(fields)
                    .map(|(fd, op)| format!("{}: {op}", fd.name))
                    .collect();
                format!("new {} {{ {} }}", def.name, inits.join(", "))
            }
        }
    }

    fn statement(&self, stmt: &StatementKind) -> String {
        match stmt {
            StatementKind::Assign(l, rv) => format!("_{l} = {}", self.rvalue(rv)),
            StatementKind::SetGlobal(g, op) => format!("@{} = {op}", self.globals[*g].name),
            StatementKind::SetIndex {
                array,
                index,
                value,
                checked,
            } => format!("{}{array}[{index}] = {value}", unchecked(*checked)),
            StatementKind::SetField {
                object,
                strukt,
                field,
                value,
            } => format!(
                "{object}.{} = {value}",
                self.structs[*strukt].fields[*field].name
            ),
            StatementKind::Count { table, index } => {
                let merged = (self.merged_counters.iter()).find(|m| {
                    m.table == *table
                        && matches!(index, Operand::Const(Const::Int(i)) if *i as u64 == m.index)
                });
                match merged {
                    Some(m) => {
                        let members: Vec<String> = (m.members.iter())
                            .map(|&(t, i, times)| match times {
                                1 => format!("table{t}[{i}]"),
                                _ => format!("{times} × table{t}[{i}]"),
                            })
                            .collect();
                        format!(
                            "count table{table}[{index}] (merged: {})",
                            members.join(", ")
                        )
                    }
                    None => format!("count table{table}[{index}]"),
                }
            }
            StatementKind::CountBy {
                table,
                index,
                amount,
            } => format!("count table{table}[{index}] += {amount}"),
            StatementKind::CountOrCold { table, index } => {
                format!("count table{table}[min({index}, cold)]")
            }
            StatementKind::CountStop { table, index } => {
                format!("count table{table}[{index}] if the next statement stops")
            }
            StatementKind::CountPpp { table, ppp, bl } => {
                format!("count_ppp table{table}[{ppp}] expect {bl}")
            }
            StatementKind::Trace(TraceEvent::Enter(f)) => format!("trace enter f{f}"),
            StatementKind::Trace(TraceEvent::Block(f, b)) => format!("trace block f{f} bb{b}"),
            StatementKind::Trace(TraceEvent::Leave(f)) => format!("trace leave f{f}"),
            StatementKind::Stream(StreamEvent::Enter { table }) => {
                format!("stream enter table{table}")
            }
            StatementKind::Stream(StreamEvent::Path { table, id }) => {
                format!("stream path table{table}[{id}]")
            }
            StatementKind::Stream(StreamEvent::Leave { table }) => {
                format!("stream leave table{table}")
            }
            StatementKind::Call { dest, callee, args } => {
                let call = format!("{}({})", self.callee_name(*callee), list(args));
                match dest {
                    Some(l) => format!("_{l} = {call}"),
                    None => call,
                }
            }
        }
    }

    fn stop_flush(flush: &StopFlush) -> String {
        let StopFlush {
            table,
            index,
            amount,
            first,
        } = flush;
        match first {
            None => format!("count table{table}[{index}] += _{amount}"),
            Some(first) => format!(
                "count table{table}[{first}] += min(_{amount}, 1), \
                 count table{table}[{index}] += _{amount} - min(_{amount}, 1)"
            ),
        }
    }

    fn terminator(term: &TerminatorKind) -> String {
        match term {
            TerminatorKind::Goto(b) => format!("goto bb{b}"),
            TerminatorKind::Branch {
                cond,
                then_bb,
                else_bb,
            } => format!("branch {cond} ? bb{then_bb} : bb{else_bb}"),
            TerminatorKind::Switch {
                value,
                cases,
                default,
            } => {
                let arms: Vec<String> =
                    cases.iter().map(|(v, b)| format!("{v} => bb{b}")).collect();
                format!("switch {value} [{}, _ => bb{default}]", arms.join(", "))
            }
            TerminatorKind::Return(Some(op)) => format!("return {op}"),
            TerminatorKind::Return(None) => "return".to_string(),
            TerminatorKind::Unreachable => "unreachable".to_string(),
        }
    }

    /// The MIR of one function as text; `line_of` maps a span to its source line for comments.
    pub fn function_text(&self, id: FnId, line_of: &dyn Fn(Span) -> u32) -> String {
        self.write_function(&self.functions[id], Some(line_of))
    }

    /// The canonical text of `func` (a function of this program): its `--emit mir` text
    /// without comments.
    pub fn canonical_text(&self, func: &Function) -> String {
        self.write_function(func, None)
    }

    /// The text of `func`, with comments when `line_of` is given.
    fn write_function(&self, func: &Function, line_of: Option<&dyn Fn(Span) -> u32>) -> String {
        let mut out = String::new();
        let params: Vec<String> = func
            .params
            .iter()
            .map(|&p| format!("_{p}: {}", TypeName(&func.locals[p].ty, &self.structs)))
            .collect();
        out.push_str(&format!(
            "fn {}({}) -> {} {{\n",
            func.name,
            params.join(", "),
            TypeName(&func.ret, &self.structs)
        ));
        let comment = |text: String| match line_of {
            Some(_) => format!(" // {text}"),
            None => String::new(),
        };
        for (l, decl) in func.locals.iter_enumerated().skip(func.params.len()) {
            let name = decl.name.as_deref().unwrap_or("tmp");
            out.push_str(&format!(
                "    let _{l}: {};{}\n",
                TypeName(&decl.ty, &self.structs),
                comment(name.to_string())
            ));
        }
        // Code padded to the comment column, or bare.
        let line = |code: String, span: Span| match line_of {
            Some(line_of) => format!("    {code:<40} // line {}\n", line_of(span)),
            None => format!("    {code}\n"),
        };
        for (b, block) in func.blocks.iter_enumerated() {
            let cold = if block.cold {
                comment("cold".to_string())
            } else {
                String::new()
            };
            out.push_str(&format!("  bb{b}:{cold}\n"));
            for flush in &block.flush_at_stop {
                out.push_str(&format!("    at a stop: {}\n", Self::stop_flush(flush)));
            }
            for stmt in &block.stmts {
                out.push_str(&line(self.statement(&stmt.kind), stmt.span));
            }
            out.push_str(&line(Self::terminator(&block.term.kind), block.term.span));
        }
        out.push_str("}\n");
        out
    }
}
