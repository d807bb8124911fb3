//! The untyped syntax tree the parser builds: names are still strings, nothing is checked.
//!
//! Expressions, statements, blocks and types record their nesting `depth` (height of the
//! subtree). The parser refuses trees deeper than [`MAX_DEPTH`], so every recursive pass over
//! them (checking, lowering, even `Drop`) has a bounded recursion depth.

use crate::span::Span;
pub use crate::typed::{BinOp, UnOp};

/// The deepest nesting of expressions, statements and types accepted in one function body or
/// initializer.
pub const MAX_DEPTH: u32 = 512;

#[derive(Clone, Debug)]
pub struct Program {
    pub items: Vec<Item>,
}

#[derive(Clone, Debug)]
pub enum Item {
    Struct(StructDecl),
    Global(GlobalDecl),
    Const(ConstDecl),
    Fn(FnDecl),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct TypeExpr {
    pub kind: TypeKind,
    pub span: Span,
    pub depth: u32,
}

#[derive(Clone, Debug)]
pub enum TypeKind {
    /// `int`, `float`, `bool`, `str` or a struct name.
    Named(String),
    Array(Box<TypeExpr>),
    /// `map[K]V`.
    Map(Box<TypeExpr>, Box<TypeExpr>),
    /// Stands for a subtree refused by the parser (already reported).
    Error,
}

#[derive(Clone, Debug)]
pub struct StructDecl {
    pub name: Ident,
    pub fields: Vec<(Ident, TypeExpr)>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct GlobalDecl {
    pub name: Ident,
    pub ty: Option<TypeExpr>,
    pub init: Expr,
    pub span: Span,
}

/// `const NAME: T = e;`: `e` is evaluated by the checker.
#[derive(Clone, Debug)]
pub struct ConstDecl {
    pub name: Ident,
    pub ty: Option<TypeExpr>,
    pub init: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct FnDecl {
    pub name: Ident,
    pub params: Vec<(Ident, TypeExpr)>,
    /// The span of the parentheses and what is between them.
    pub params_span: Span,
    pub ret: Option<TypeExpr>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
    pub depth: u32,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
    pub depth: u32,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    Let {
        name: Ident,
        ty: Option<TypeExpr>,
        init: Expr,
    },
    /// `target = value`, or `target op= value` when `op` is set.
    Assign {
        target: Expr,
        op: Option<BinOp>,
        value: Expr,
    },
    If {
        cond: Expr,
        then_block: Block,
        else_branch: Option<Else>,
    },
    While {
        cond: Expr,
        body: Block,
    },
    For {
        var: Ident,
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
    },
    Expr(Expr),
    Block(Block),
    /// Stands for a subtree refused by the parser (already reported).
    Error,
}

#[derive(Clone, Debug)]
pub enum Else {
    Block(Block),
    /// `else if ...`: always a `StmtKind::If`.
    If(Box<Stmt>),
}

#[derive(Clone, Debug)]
pub struct MatchArm {
    pub patterns: Vec<Pattern>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Pattern {
    /// An integer literal, `-` included when `negative`.
    Int {
        magnitude: u64,
        negative: bool,
        span: Span,
    },
    /// A named constant (of type `int`).
    Const(Ident),
    Wildcard(Span),
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    pub depth: u32,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    /// The magnitude of an integer literal; `-` is a separate `Unary`.
    Int(u64),
    Float(f64),
    Str(Vec<u8>),
    Bool(bool),
    Null,
    Name(String),
    Call {
        callee: Ident,
        args: Vec<Expr>,
    },
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    Field {
        base: Box<Expr>,
        field: Ident,
    },
    /// `receiver.method(args)`: not PL, parsed to explain what PL writes instead.
    MethodCall {
        receiver: Box<Expr>,
        method: Ident,
        args: Vec<Expr>,
    },
    Unary {
        op: UnOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    /// Kept so that `(a < b) == c` is not taken for a chained comparison, and `-(9223372036854775808)`
    /// not for a negative literal.
    Paren(Box<Expr>),
    ArrayLit(Vec<Expr>),
    ArrayRepeat {
        value: Box<Expr>,
        count: Box<Expr>,
    },
    New {
        strukt: Ident,
        fields: Vec<(Ident, Expr)>,
    },
    /// `new map[K]V`: a new empty map.
    NewMap(TypeExpr),
    /// Stands for a subtree refused by the parser (already reported).
    Error,
}

impl Expr {
    /// The expression without any enclosing parentheses.
    pub fn unparen(&self) -> &Expr {
        match &self.kind {
            ExprKind::Paren(inner) => inner.unparen(),
            _ => self,
        }
    }
}

impl ExprKind {
    /// The depth of the deepest direct subexpression (0 for leaves).
    pub fn child_depth(&self) -> u32 {
        let max = |exprs: &mut dyn Iterator<Item = &Expr>| exprs.map(|e| e.depth).max();
        match self {
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Bool(_)
            | ExprKind::Null
            | ExprKind::Name(_)
            | ExprKind::NewMap(_)
            | ExprKind::Error => None,
            ExprKind::Call { args, .. } | ExprKind::ArrayLit(args) => max(&mut args.iter()),
            ExprKind::MethodCall { receiver, args, .. } => {
                max(&mut std::iter::once(&**receiver).chain(args))
            }
            ExprKind::Index { base: a, index: b }
            | ExprKind::Binary { lhs: a, rhs: b, .. }
            | ExprKind::And(a, b)
            | ExprKind::Or(a, b)
            | ExprKind::ArrayRepeat { value: a, count: b } => Some(a.depth.max(b.depth)),
            ExprKind::Field { base: e, .. }
            | ExprKind::Unary { operand: e, .. }
            | ExprKind::Paren(e) => Some(e.depth),
            ExprKind::New { fields, .. } => max(&mut fields.iter().map(|(_, e)| e)),
        }
        .unwrap_or(0)
    }
}

impl StmtKind {
    /// The depth of the deepest direct child (expression, block or `else if`).
    pub fn child_depth(&self) -> u32 {
        match self {
            StmtKind::Let { init, .. } => init.depth,
            StmtKind::Assign { target, value, .. } => target.depth.max(value.depth),
            StmtKind::If {
                cond,
                then_block,
                else_branch,
            } => {
                let else_depth = match else_branch {
                    None => 0,
                    Some(Else::Block(block)) => block.depth,
                    Some(Else::If(stmt)) => stmt.depth,
                };
                cond.depth.max(then_block.depth).max(else_depth)
            }
            StmtKind::While { cond, body } => cond.depth.max(body.depth),
            StmtKind::For { lo, hi, body, .. } => lo.depth.max(hi.depth).max(body.depth),
            StmtKind::Return(Some(e)) | StmtKind::Expr(e) => e.depth,
            StmtKind::Match { scrutinee, arms } => arms
                .iter()
                .map(|arm| arm.body.depth)
                .fold(scrutinee.depth, u32::max),
            StmtKind::Block(block) => block.depth,
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(None) | StmtKind::Error => 0,
        }
    }
}
