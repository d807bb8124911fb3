//! Text form of MIR, printed by `--emit mir`.

use std::fmt::{self, Display, Formatter};

use super::*;

/// Writes a PL type the way the source spells it.
pub struct TypeName<'a>(pub &'a Type, pub &'a [StructDef]);

impl Display for TypeName<'_> {
    fn fmt(&self, f: &mut Formatter) -> fmt::Result {
        match self.0 {
            Type::Int => write!(f, "int"),
            Type::Float => write!(f, "float"),
            Type::Bool => write!(f, "bool"),
            Type::Str => write!(f, "str"),
            Type::Array(elem) => write!(f, "[{}]", TypeName(elem, self.1)),
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
            Const::Str(bytes) => write!(f, "{:?}", String::from_utf8_lossy(bytes)),
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
            Callee::Builtin(b) => format!("{b:?}").to_lowercase(),
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
            } => format!("{}{base}[{index}]", unchecked(*checked)),
            Rvalue::Field {
                object,
                strukt,
                field,
            } => format!("{object}.{}", field_name(*strukt, *field)),
            Rvalue::ArrayLit(ops) => format!("[{}]", list(ops)),
            Rvalue::ArrayRepeat { value, count } => format!("[{value}; {count}]"),
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
            StatementKind::Count { table, index } => format!("count table{table}[{index}]"),
            StatementKind::CountOrCold { table, index } => {
                format!("count table{table}[min({index}, cold)]")
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
        let func = &self.functions[id];
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
        for (l, decl) in func.locals.iter().enumerate().skip(func.params.len()) {
            let name = decl.name.as_deref().unwrap_or("tmp");
            out.push_str(&format!(
                "    let _{l}: {}; // {name}\n",
                TypeName(&decl.ty, &self.structs)
            ));
        }
        for (b, block) in func.blocks.iter().enumerate() {
            let cold = if block.cold { " // cold" } else { "" };
            out.push_str(&format!("  bb{b}:{cold}\n"));
            for stmt in &block.stmts {
                out.push_str(&format!(
                    "    {:<40} // line {}\n",
                    self.statement(&stmt.kind),
                    line_of(stmt.span)
                ));
            }
            out.push_str(&format!(
                "    {:<40} // line {}\n",
                Self::terminator(&block.term.kind),
                line_of(block.term.span)
            ));
        }
        out.push_str("}\n");
        out
    }
}
