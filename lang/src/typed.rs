//! The typed program: the front end's output and the compiler's input.
//!
//! Every name is resolved (locals, globals, functions, struct fields are indices), every
//! expression carries its type, and compound assignments, `else if` chains and negative
//! literals are already in their simplest form, so lowering never has to look anything up.

use crate::define_id;
use crate::id::IdVec;
use crate::span::Span;

define_id!(
    /// Index into [`Program::structs`].
    StructId
);
define_id!(
    /// Index into [`Program::globals`].
    GlobalId
);
define_id!(
    /// Index into [`Program::functions`].
    FnId
);
define_id!(
    /// Index into [`Function::locals`].
    LocalId
);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Int,
    Float,
    Bool,
    Str,
    Array(Box<Type>),
    /// `map[K]V`: keys `int` or `str`.
    Map(Box<Type>, Box<Type>),
    Struct(StructId),
    /// The type of the `null` literal before it meets a struct type.
    Null,
    /// The "result" of a function without a return type (and of calls to it).
    Void,
}

impl Type {
    /// Reference types are represented by a pointer at run time.
    pub fn is_reference(&self) -> bool {
        matches!(
            self,
            Type::Str | Type::Array(_) | Type::Map(..) | Type::Struct(_) | Type::Null
        )
    }
}

#[derive(Clone, Debug)]
pub struct Program {
    pub file_name: String,
    pub structs: IdVec<StructId, StructDef>,
    /// In source order: initializers run in this order before `main`.
    pub globals: IdVec<GlobalId, Global>,
    pub functions: IdVec<FnId, Function>,
    pub main: FnId,
    /// What the checker warns about in a program it accepts.
    pub warnings: crate::Diagnostics,
}

#[derive(Clone, Debug)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<Field>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: Type,
}

#[derive(Clone, Debug)]
pub struct Global {
    pub name: String,
    pub ty: Type,
    pub init: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    /// The first `params.len()` locals are the parameters, in order.
    pub params: Vec<LocalId>,
    /// `Type::Void` when the function declares no return type.
    pub ret: Type,
    pub locals: IdVec<LocalId, Local>,
    pub body: Block,
    /// The whole declaration.
    pub span: Span,
    /// Just the function's name in its declaration.
    pub name_span: Span,
}

#[derive(Clone, Debug)]
pub struct Local {
    pub name: String,
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Let {
        local: LocalId,
        init: Expr,
    },
    /// `target = value`.
    Assign {
        target: Place,
        value: Expr,
    },
    /// `target op= value`: the place's base and index are evaluated once.
    CompoundAssign {
        target: Place,
        op: BinOp,
        value: Expr,
    },
    /// `else if` is an `If` alone in the else block.
    If {
        cond: Expr,
        then_block: Block,
        else_block: Option<Block>,
    },
    While {
        cond: Expr,
        body: Block,
    },
    /// `for var in lo..hi`: bounds evaluated once, `var` is a fresh local.
    For {
        var: LocalId,
        lo: Expr,
        hi: Expr,
        body: Block,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    Match {
        scrutinee: Expr,
        arms: Vec<MatchArm>,
        /// The `_` arm.
        default: Block,
    },
    /// An expression statement (always a call).
    Expr(Expr),
    Block(Block),
}

#[derive(Clone, Debug)]
pub struct MatchArm {
    /// The literal values of `1 | 2 | -3`, with the span of each.
    pub patterns: Vec<(i64, Span)>,
    pub body: Block,
    pub span: Span,
}

/// An assignable location.
#[derive(Clone, Debug)]
pub enum Place {
    Local(LocalId),
    Global(GlobalId),
    /// `base[index]` where base is an array.
    Index {
        base: Expr,
        index: Expr,
    },
    /// `base.field` where base is a struct.
    Field {
        base: Expr,
        field: usize,
    },
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(Vec<u8>),
    Null,
    Local(LocalId),
    Global(GlobalId),
    Call {
        func: FnId,
        args: Vec<Expr>,
    },
    Builtin {
        builtin: Builtin,
        args: Vec<Expr>,
    },
    /// `base[index]`: array element, or byte of a string (then the type is `int`).
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    Field {
        base: Box<Expr>,
        field: usize,
    },
    Unary {
        op: UnOp,
        operand: Box<Expr>,
    },
    /// Both operands have the same type (that of `lhs`), except for `Add` on strings, which
    /// concatenates, and comparisons between a struct and `null`.
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// Short-circuit `&&`.
    And(Box<Expr>, Box<Expr>),
    /// Short-circuit `||`.
    Or(Box<Expr>, Box<Expr>),
    ArrayLit(Vec<Expr>),
    /// `[value; count]`.
    ArrayRepeat {
        value: Box<Expr>,
        count: Box<Expr>,
    },
    /// `new S { ... }`: field initializers in source order (evaluated in that order), each
    /// with the index of the field it sets. Every field appears exactly once.
    New {
        strukt: StructId,
        fields: Vec<(usize, Expr)>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-` on int (wrapping) or float.
    Neg,
    /// `!` on bool.
    Not,
    /// `~` on int.
    BitNot,
}

impl UnOp {
    /// The operator as the source spells it.
    pub fn symbol(self) -> &'static str {
        match self {
            UnOp::Neg => "-",
            UnOp::Not => "!",
            UnOp::BitNot => "~",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitXor,
    BitOr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    /// The operator as the source spells it.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::BitAnd => "&",
            BinOp::BitXor => "^",
            BinOp::BitOr => "|",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
}

/// The built-in functions of docs/LANGUAGE.md. The checker has verified argument counts and types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Print,
    Println,
    Len,
    /// `float(i)`.
    ToFloat,
    /// `int(f)`.
    ToInt,
    /// `str(x)`.
    ToStr,
    Fixed,
    Chr,
    Substr,
    ParseInt,
    ParseFloat,
    Abs,
    Min,
    Max,
    Sqrt,
    Sin,
    Cos,
    Tan,
    Atan,
    Exp,
    Log,
    Floor,
    Ceil,
    Pow,
    Atan2,
    Argc,
    Arg,
    ReadLine,
    Eof,
    ReadInt,
    Assert,
    Exit,
    ClockNs,
    /// `new map[K]V` (the result's type says which).
    MapNew,
    /// `len(m)` of a map: unlike an array's, it changes.
    MapLen,
    MapGet,
    MapSet,
    MapHas,
    MapDelete,
    MapKeys,
    /// `push(a, v)`: appends to an array.
    Push,
    /// `pop(a)`: removes and returns an array's last element.
    Pop,
    /// `insert(a, i, v)`: inserts at position `i`, the rest moved right.
    Insert,
    /// `remove(a, i)`: removes and returns element `i`, the rest moved left.
    Remove,
    Split,
    Join,
    Find,
    Replace,
    Trim,
    StartsWith,
    EndsWith,
    ToUpper,
    ToLower,
    /// `sort(a)` of an `[int]`, `[float]` or `[str]`: the one built-in that writes elements.
    Sort,
}

impl Builtin {
    /// Whether a call can end the program: a runtime error on a bad argument, an allocation,
    /// I/O, or `exit()`. The arithmetic builtins, `len`, `argc` and `clock_ns` cannot.
    pub fn may_stop(self) -> bool {
        use Builtin::*;
        !matches!(
            self,
            Len | ToFloat
                | ToInt
                | Abs
                | Min
                | Max
                | Sqrt
                | Sin
                | Cos
                | Tan
                | Atan
                | Exp
                | Log
                | Floor
                | Ceil
                | Pow
                | Atan2
                | Argc
                | ClockNs
                | MapLen
                | MapGet
                | MapHas
                | MapDelete
                | StartsWith
                | EndsWith
                | Sort
        )
    }

    /// Whether a call changes an array's length (and so may move its elements): then `len(a)`
    /// and the elements' address are not invariant across it. The one list of them, which
    /// code generation and every optimization that assumes an array's length fixed consult.
    pub fn resizes(self) -> bool {
        use Builtin::*;
        matches!(self, Push | Pop | Insert | Remove)
    }

    /// Whether a call may store into the elements of an array argument (the optimizer's
    /// read-only element loads must not move across it).
    pub fn writes_elements(self) -> bool {
        self == Builtin::Sort
    }

    /// The name programs call it by (`float` for [`Builtin::ToFloat`]).
    pub fn name(self) -> &'static str {
        // The two a program does not call by a name of their own.
        match self {
            Builtin::MapNew => return "new map",
            Builtin::MapLen => return "len",
            _ => {}
        }
        BUILTINS
            .iter()
            .find(|&&(_, b)| b == self)
            .map(|&(name, _)| name)
            .expect("every builtin has a name")
    }
}

/// Each built-in function by the name programs call it by.
pub const BUILTINS: &[(&str, Builtin)] = &[
    ("print", Builtin::Print),
    ("println", Builtin::Println),
    ("len", Builtin::Len),
    ("float", Builtin::ToFloat),
    ("int", Builtin::ToInt),
    ("str", Builtin::ToStr),
    ("fixed", Builtin::Fixed),
    ("chr", Builtin::Chr),
    ("substr", Builtin::Substr),
    ("parse_int", Builtin::ParseInt),
    ("parse_float", Builtin::ParseFloat),
    ("abs", Builtin::Abs),
    ("min", Builtin::Min),
    ("max", Builtin::Max),
    ("sqrt", Builtin::Sqrt),
    ("sin", Builtin::Sin),
    ("cos", Builtin::Cos),
    ("tan", Builtin::Tan),
    ("atan", Builtin::Atan),
    ("exp", Builtin::Exp),
    ("log", Builtin::Log),
    ("floor", Builtin::Floor),
    ("ceil", Builtin::Ceil),
    ("pow", Builtin::Pow),
    ("atan2", Builtin::Atan2),
    ("argc", Builtin::Argc),
    ("arg", Builtin::Arg),
    ("read_line", Builtin::ReadLine),
    ("eof", Builtin::Eof),
    ("read_int", Builtin::ReadInt),
    ("assert", Builtin::Assert),
    ("exit", Builtin::Exit),
    ("clock_ns", Builtin::ClockNs),
    ("get", Builtin::MapGet),
    ("set", Builtin::MapSet),
    ("has", Builtin::MapHas),
    ("delete", Builtin::MapDelete),
    ("keys", Builtin::MapKeys),
    ("push", Builtin::Push),
    ("pop", Builtin::Pop),
    ("insert", Builtin::Insert),
    ("remove", Builtin::Remove),
    ("split", Builtin::Split),
    ("join", Builtin::Join),
    ("find", Builtin::Find),
    ("replace", Builtin::Replace),
    ("trim", Builtin::Trim),
    ("starts_with", Builtin::StartsWith),
    ("ends_with", Builtin::EndsWith),
    ("to_upper", Builtin::ToUpper),
    ("to_lower", Builtin::ToLower),
    ("sort", Builtin::Sort),
];
