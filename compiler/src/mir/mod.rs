//! MIR: the control-flow-graph IR every pass works on (ARCHITECTURE.md).
//!
//! A function is a list of basic blocks over typed, mutable locals (not SSA). Every source-level
//! decision — `if`, loops, `match`, each operand of `&&`/`||` — is an explicit edge, so profiling
//! instrumentation is "split an edge, insert statements", and a path's source lines are the spans
//! of its blocks. Checks that can fail at run time (bounds, null, division) stay inside statements:
//! they are not MIR edges, because a runtime error ends the program rather than a path.

pub mod appends;
mod cfg;
pub mod clone;
pub mod copies;
mod display;
mod dominators;
mod loops;
pub mod non_null;
pub mod poly;
pub mod verify;

use std::collections::BTreeSet;

use pcc_lang::Span;
use pcc_lang::define_id;
pub use pcc_lang::id::IdVec;
pub use pcc_lang::typed::{BinOp, Builtin, FnId, GlobalId, StructDef, StructId, Type, UnOp};
pub use pcc_profiler::spec::MergedCounter;
use smallvec::SmallVec;

pub use dominators::Dominators;
pub use loops::{Loop, natural_loop};

define_id!(
    /// Index into [`Function::blocks`]; printed `bbN`.
    BlockId
);
define_id!(
    /// Index into [`Function::locals`]; printed `_N`.
    LocalId
);

#[derive(Clone, Debug)]
pub struct Program {
    pub file_name: String,
    pub structs: IdVec<StructId, StructDef>,
    pub globals: IdVec<GlobalId, GlobalDecl>,
    /// User functions first (same ids as in the typed program), then [`Program::init`].
    pub functions: IdVec<FnId, Function>,
    pub main: FnId,
    /// Synthesized function that runs the global initializers in source order.
    pub init: FnId,
    /// Profiling counter tables, used by `Count` statements; empty without profiling.
    pub counter_tables: Vec<CounterTable>,
    /// Counters `-O 2` made of several counts that run together (`opt/merge_counts.rs`), which
    /// the profile spec carries so that the program hands their counts to their members.
    pub merged_counters: Vec<MergedCounter>,
    /// Which runtime the `Stream` statements report to.
    pub stream: PathStream,
}

/// The runtime sink of the `Stream` statements of a program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PathStream {
    /// `kbl` ([KBLPP]): the k-slab forests.
    #[default]
    Kbl,
    /// `wpp` ([WPP]): the whole-program-path trace (EnterRoutine / NewPath / LeaveRoutine).
    Wpp,
}

/// A table of 64-bit profile counters (docs/CONVENTIONS.md, profiling).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CounterTable {
    /// How many counters (valid indices are `0..len`).
    pub len: u64,
    /// Kept in the runtime's hash table instead of an array in the program's memory.
    pub hashed: bool,
    /// `kbl` (`Sequences::KeyedWindows`): an array of `len / 2` slots keyed by window, each the
    /// window plus one (0: empty) and its count; a count finds its window at the home slot
    /// (`pcc_profiler::mode::kbl::keyed_home_slot`), or the runtime finds or adds it.
    pub keyed: bool,
    /// `ppp` (`CountPpp` statements): the Ball-Larus id expected for each PPP id below `len`
    /// (`u64::MAX` in a hole), a read-only array next to the counters. The residual paths of
    /// table `t` go to hashed table `counter_tables.len() + t`, keyed by Ball-Larus id.
    pub slots: Option<Vec<u64>>,
}

#[derive(Clone, Debug)]
pub struct GlobalDecl {
    pub name: String,
    pub ty: Type,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    /// The first `params.len()` locals, in order.
    pub params: Vec<LocalId>,
    /// `Type::Void` when the function returns nothing.
    pub ret: Type,
    pub locals: IdVec<LocalId, LocalDecl>,
    /// `blocks[ENTRY]` is the entry block.
    pub blocks: IdVec<BlockId, BasicBlock>,
    pub span: Span,
    pub name_span: Span,
    /// Where lowering dropped code that nothing can reach (`if false { … }`, statements after a
    /// `return` or after `while true`): the views show it as code that never ran. Not part of
    /// the function's code (its hash, its printing).
    pub dead_code: Vec<Span>,
    /// The functions called here that resize no array while they run, directly or not
    /// ([`Program::note_steady_callees`]): a call of any other may change the length of every
    /// array ([`Function::resizes_at`]). Empty, the safe default, until the optimizer fills it.
    pub steady_callees: BTreeSet<FnId>,
}

pub const ENTRY: BlockId = BlockId(0);

#[derive(Clone, Debug)]
pub struct LocalDecl {
    pub ty: Type,
    /// The source name; `None` for temporaries.
    pub name: Option<String>,
}

#[derive(Clone, Debug)]
pub struct BasicBlock {
    pub stmts: Vec<Statement>,
    pub term: Terminator,
    /// Never executed in the profile of `--use-profile`: code generation moves it out of line
    /// (Cranelift's `set_cold_block`), so the hot blocks are laid out together.
    pub cold: bool,
    /// The callees whose calls here are hot call sites, which `-O 2` inlines with a larger
    /// budget: in the profile of `--use-profile`, the block ran more often than its function was
    /// entered, and each of these did little work per call.
    pub hot_callees: Vec<FnId>,
    /// Profiling, after `-O 2`'s counter promotion (`opt/counters.rs`): the counts the block's
    /// loop keeps in locals, which a failing check here adds to their counters before the
    /// program stops.
    pub flush_at_stop: Vec<StopFlush>,
}

/// A count kept in a local: `amount` executions of a count at `index` of array table `table`;
/// if `first` is set, the first of them (if any) counted at index `first` instead.
#[derive(Clone, Debug)]
pub struct StopFlush {
    pub table: usize,
    pub index: Operand,
    pub amount: LocalId,
    pub first: Option<Operand>,
}

impl BasicBlock {
    /// A block that is not known to be cold.
    pub fn new(stmts: Vec<Statement>, term: Terminator) -> BasicBlock {
        BasicBlock {
            stmts,
            term,
            cold: false,
            hot_callees: Vec::new(),
            flush_at_stop: Vec::new(),
        }
    }

    /// The operands each statement reads, then those the terminator reads: item `i` is
    /// statement `i`'s, the last the terminator's.
    pub fn reads(&self) -> impl Iterator<Item = Vec<&Operand>> {
        let statements = self.stmts.iter().map(|s| s.kind.operands());
        statements.chain(std::iter::once(
            self.term.kind.operand().into_iter().collect(),
        ))
    }

    /// The statements that are neither [profiling](StatementKind::is_profiling) ones nor
    /// assignments to the `profiling` locals ([`Function::profiling_locals`]).
    pub fn program_statements(&self, profiling: &IdVec<LocalId, bool>) -> usize {
        let stmts = self.stmts.iter();
        stmts.filter(|s| s.kind.is_program(profiling)).count()
    }
}

#[derive(Clone, Debug)]
pub struct Statement {
    pub kind: StatementKind,
    /// For a statement that can fail at run time, `span.lo` is the error's location.
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum StatementKind {
    Assign(LocalId, Rvalue),
    SetGlobal(GlobalId, Operand),
    /// `array[index] = value`, bounds-checked unless `checked` is false (the index is proven in
    /// bounds).
    SetIndex {
        array: Operand,
        index: Operand,
        value: Operand,
        checked: bool,
    },
    /// `object.field = value`, null-checked.
    SetField {
        object: Operand,
        strukt: StructId,
        field: usize,
        value: Operand,
    },
    /// A call whose result is stored in `dest` (if any).
    Call {
        dest: Option<LocalId>,
        callee: Callee,
        args: Vec<Operand>,
    },
    /// Profiling: adds one to counter `index` of counter table `table` (an int operand).
    Count {
        table: usize,
        index: Operand,
    },
    /// Profiling, after `-O 2`'s counter promotion (`opt/counters.rs`): adds `amount` (an int
    /// operand) to counter `index` of array table `table`: the counts a loop kept in a local.
    CountBy {
        table: usize,
        index: Operand,
        amount: Operand,
    },
    /// Profiling (`edge`): if a check of the next statement fails, adds one to counter `index`
    /// of table `table` before the error is reported, counting the activation as stopped in
    /// its block.
    CountStop {
        table: usize,
        index: u64,
    },
    /// Profiling (`tpp`, [TPP] Appendix A.1): adds one to counter `min(index, len - 1)` (an
    /// unsigned minimum) of table `table`, whose last counter is the cold counter: a poisoned
    /// path register (≥ 2^63) lands there without a branch.
    CountOrCold {
        table: usize,
        index: Operand,
    },
    /// Profiling (`ppp`, [PPP] §5): a path ends with PPP id `ppp` and Ball-Larus id `bl` (int
    /// operands). If `ppp < len` (unsigned) and `slots[ppp] == bl`, adds one to counter `ppp`
    /// of table `table`; otherwise counts `bl` in the table's residual hash table.
    CountPpp {
        table: usize,
        ppp: Operand,
        bl: Operand,
    },
    /// Testing (`pcc run --trace-blocks`): records an event in the runtime's block trace.
    Trace(TraceEvent),
    /// Profiling (`kbl`, [KBLPP]; `wpp`, [WPP]): reports an event of the stream of Ball-Larus path ids
    /// to the runtime ([`Program::stream`]).
    Stream(StreamEvent),
}

/// An event of the stream of path ids `kbl` feeds to the runtime ([KBLPP] §"Ball-Larus Path
/// Tracing Algorithm"), appended to the stream buffer of counter table `table` (function).
/// The runtime keeps one k-slab forest per function and a cursor per activation, so a call
/// never breaks the caller's sequence.
/// `wpp` sends the same events to its trace ([WPP] §2: EnterRoutine, NewPath, LeaveRoutine).
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEvent {
    /// An activation of the function starts: `*`, a fresh cursor.
    Enter { table: usize },
    /// A path of the function ends with Ball-Larus id `id` (an int operand).
    Path { table: usize, id: Operand },
    /// The innermost activation of the function returns: the caller's cursor is current again.
    Leave { table: usize },
}

/// An event of the block trace, the independent oracle of the profiling tests (docs/TESTING.md).
/// Block ids are those of the MIR as lowered, before instrumentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    /// An activation of the function starts (before its entry block).
    Enter(FnId),
    /// Control enters a block of the function.
    Block(FnId, BlockId),
    /// The activation ends: at a `return`, or just before `exit()` in a block that calls it.
    Leave(FnId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    Function(FnId),
    Builtin(Builtin),
}

#[derive(Clone, Debug)]
pub enum Rvalue {
    Use(Operand),
    Unary(UnOp, Operand),
    /// Operands have the same type, except `==`/`!=` between a struct and null. `Div`/`Rem` on
    /// ints check for zero; `Add` on strings concatenates; comparisons on strings compare contents.
    Binary(BinOp, Operand, Operand),
    Global(GlobalId),
    /// Array element or string byte, bounds-checked unless `checked` is false (the index is
    /// proven in bounds). `readonly` (only where unchecked): nothing writes the array while the
    /// value is in use, which is in the same iteration of the loop whose induction variable the
    /// index depends on, so code generation may move the read anywhere in that iteration after
    /// the index is known (`opt/version.rs`).
    Index {
        base: Operand,
        index: Operand,
        checked: bool,
        readonly: bool,
    },
    /// Null-checked field read.
    Field {
        object: Operand,
        strukt: StructId,
        field: usize,
    },
    ArrayLit(Vec<Operand>),
    /// `[value; count]`; a negative count is a runtime error.
    ArrayRepeat {
        value: Operand,
        count: Operand,
    },
    /// A new struct; `fields` in declaration order.
    New {
        strukt: StructId,
        fields: Vec<Operand>,
    },
    /// Profiling (`kbl`): `((window << bits) + id) & mask`, the window of the last ids with `id`
    /// shifted in (`pcc_profiler::mode::kbl::Sequences::Windows`); an int.
    Window {
        window: Operand,
        id: Operand,
        bits: u32,
        mask: u64,
    },
}

/// The body of [`Rvalue::operands`] and [`Rvalue::operands_mut`], which differ only in
/// borrowing (`$iter` is `iter` or `iter_mut`).
macro_rules! rvalue_operands {
    ($value:expr, $iter:ident) => {
        match $value {
            Rvalue::Use(a) | Rvalue::Unary(_, a) => vec![a],
            Rvalue::Binary(_, a, b) => vec![a, b],
            Rvalue::Global(_) => Vec::new(),
            Rvalue::Index { base, index, .. } => vec![base, index],
            Rvalue::Field { object, .. } => vec![object],
            Rvalue::ArrayLit(ops) | Rvalue::New { fields: ops, .. } => ops.$iter().collect(),
            Rvalue::ArrayRepeat { value, count } => vec![value, count],
            Rvalue::Window { window, id, .. } => vec![window, id],
        }
    };
}

/// The body of [`StatementKind::operands`] and [`StatementKind::operands_mut`] (`$operands`
/// and `$iter` name the borrowing methods).
macro_rules! statement_operands {
    ($value:expr, $operands:ident, $iter:ident) => {
        match $value {
            StatementKind::Assign(_, rvalue) => rvalue.$operands(),
            StatementKind::SetGlobal(_, op)
            | StatementKind::Count { index: op, .. }
            | StatementKind::CountOrCold { index: op, .. }
            | StatementKind::Stream(StreamEvent::Path { id: op, .. }) => vec![op],
            StatementKind::CountBy { index, amount, .. } => vec![index, amount],
            StatementKind::SetIndex {
                array,
                index,
                value,
                ..
            } => vec![array, index, value],
            StatementKind::SetField { object, value, .. } => vec![object, value],
            StatementKind::Call { args, .. } => args.$iter().collect(),
            StatementKind::CountPpp { ppp, bl, .. } => vec![ppp, bl],
            StatementKind::CountStop { .. }
            | StatementKind::Trace(_)
            | StatementKind::Stream(_) => Vec::new(),
        }
    };
}

impl Rvalue {
    /// Whether evaluating it makes a new array or struct.
    pub fn makes_object(&self) -> bool {
        matches!(
            self,
            Rvalue::ArrayLit(_) | Rvalue::ArrayRepeat { .. } | Rvalue::New { .. }
        )
    }

    /// The operands the rvalue reads, in evaluation order.
    pub fn operands(&self) -> Vec<&Operand> {
        rvalue_operands!(self, iter)
    }

    /// The operands, for rewriting.
    pub fn operands_mut(&mut self) -> Vec<&mut Operand> {
        rvalue_operands!(self, iter_mut)
    }
}

impl StatementKind {
    /// The array and index of a bounds-checked element access.
    pub fn checked_access(&self) -> Option<(&Operand, &Operand)> {
        match self {
            StatementKind::Assign(
                _,
                Rvalue::Index {
                    base,
                    index,
                    checked: true,
                    ..
                },
            ) => Some((base, index)),
            StatementKind::SetIndex {
                array,
                index,
                checked: true,
                ..
            } => Some((array, index)),
            _ => None,
        }
    }

    /// The operands the statement reads, in evaluation order.
    pub fn operands(&self) -> Vec<&Operand> {
        statement_operands!(self, operands, iter)
    }

    /// The operands, for rewriting.
    pub fn operands_mut(&mut self) -> Vec<&mut Operand> {
        statement_operands!(self, operands_mut, iter_mut)
    }

    /// Whether the statement only counts or reports for a profile or a trace: the optimizer's
    /// size limits leave these out, so that instrumenting a function changes no decision.
    pub fn is_profiling(&self) -> bool {
        matches!(
            self,
            StatementKind::Assign(_, Rvalue::Window { .. })
                | StatementKind::Count { .. }
                | StatementKind::CountBy { .. }
                | StatementKind::CountOrCold { .. }
                | StatementKind::CountPpp { .. }
                | StatementKind::CountStop { .. }
                | StatementKind::Trace(_)
                | StatementKind::Stream(_)
        )
    }

    /// Whether the statement is the program's own: neither a profiling statement nor an
    /// assignment to one of the `profiling` locals ([`Function::profiling_locals`]).
    pub fn is_program(&self, profiling: &IdVec<LocalId, bool>) -> bool {
        match *self {
            StatementKind::Assign(l, _) if profiling.get(l) == Some(&true) => false,
            ref kind => !kind.is_profiling(),
        }
    }

    /// Drops the bounds check of an element access that a guard proved in bounds.
    pub fn uncheck(&mut self) {
        match self {
            StatementKind::Assign(_, Rvalue::Index { checked, .. })
            | StatementKind::SetIndex { checked, .. } => *checked = false,
            _ => unreachable!("only element accesses are covered"),
        }
    }

    /// Marks an unchecked element read `readonly` (`Rvalue::Index`), or no longer.
    pub fn set_readonly(&mut self, value: bool) {
        if let StatementKind::Assign(_, Rvalue::Index { readonly, .. }) = self {
            *readonly = value;
        }
    }

    /// The PL function the statement calls, if it is such a call.
    pub fn called_function(&self) -> Option<FnId> {
        match self {
            StatementKind::Call {
                callee: Callee::Function(f),
                ..
            } => Some(*f),
            _ => None,
        }
    }

    /// The local the statement assigns, if any.
    pub fn dest(&self) -> Option<LocalId> {
        match self {
            StatementKind::Assign(dest, _) => Some(*dest),
            StatementKind::Call { dest, .. } => *dest,
            _ => None,
        }
    }

    /// The local the statement assigns, if any, for rewriting.
    pub fn dest_mut(&mut self) -> Option<&mut LocalId> {
        match self {
            StatementKind::Assign(dest, _) => Some(dest),
            StatementKind::Call { dest, .. } => dest.as_mut(),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Local(LocalId),
    Const(Const),
}

impl Operand {
    /// The local read, unless the operand is a constant.
    pub fn local(&self) -> Option<LocalId> {
        match self {
            Operand::Local(l) => Some(*l),
            Operand::Const(_) => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Const {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(Vec<u8>),
    Null,
}

impl Const {
    pub fn ty(&self) -> Type {
        match self {
            Const::Int(_) => Type::Int,
            Const::Float(_) => Type::Float,
            Const::Bool(_) => Type::Bool,
            Const::Str(_) => Type::Str,
            Const::Null => Type::Null,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Terminator {
    pub kind: TerminatorKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum TerminatorKind {
    Goto(BlockId),
    Branch {
        cond: Operand,
        then_bb: BlockId,
        else_bb: BlockId,
    },
    /// `match` on an int: the first case with an equal value wins, else `default`.
    Switch {
        value: Operand,
        cases: Vec<(i64, BlockId)>,
        default: BlockId,
    },
    Return(Option<Operand>),
    /// Control never gets here (after `exit()`, or the end of a function that always returns).
    Unreachable,
}

impl TerminatorKind {
    /// Distinct successor blocks, in first-mention order. Two `match` patterns leading to the
    /// same arm are one edge: the arm, not the literal, is the source-level decision.
    pub fn successors(&self) -> SmallVec<[BlockId; 2]> {
        let mut succs = SmallVec::new();
        let mut push = |b: BlockId| {
            if !succs.contains(&b) {
                succs.push(b);
            }
        };
        match self {
            TerminatorKind::Goto(b) => push(*b),
            TerminatorKind::Branch {
                then_bb, else_bb, ..
            } => {
                push(*then_bb);
                push(*else_bb);
            }
            TerminatorKind::Switch { cases, default, .. } => {
                for &(_, b) in cases {
                    push(b);
                }
                push(*default);
            }
            TerminatorKind::Return(_) | TerminatorKind::Unreachable => {}
        }
        succs
    }

    /// Whether `target` is a successor ([`TerminatorKind::successors`], without allocating).
    pub fn jumps_to(&self, target: BlockId) -> bool {
        match self {
            TerminatorKind::Goto(b) => *b == target,
            TerminatorKind::Branch {
                then_bb, else_bb, ..
            } => *then_bb == target || *else_bb == target,
            TerminatorKind::Switch { cases, default, .. } => {
                *default == target || cases.iter().any(|&(_, b)| b == target)
            }
            TerminatorKind::Return(_) | TerminatorKind::Unreachable => false,
        }
    }

    /// Every block this terminator can jump to, once per mention, for rewriting.
    pub fn targets_mut(&mut self) -> Vec<&mut BlockId> {
        match self {
            TerminatorKind::Goto(b) => vec![b],
            TerminatorKind::Branch {
                then_bb, else_bb, ..
            } => vec![then_bb, else_bb],
            TerminatorKind::Switch { cases, default, .. } => {
                let mut targets: Vec<&mut BlockId> = cases.iter_mut().map(|(_, b)| b).collect();
                targets.push(default);
                targets
            }
            TerminatorKind::Return(_) | TerminatorKind::Unreachable => Vec::new(),
        }
    }

    /// The operand the terminator reads, if any.
    pub fn operand(&self) -> Option<&Operand> {
        match self {
            TerminatorKind::Branch { cond: op, .. }
            | TerminatorKind::Switch { value: op, .. }
            | TerminatorKind::Return(Some(op)) => Some(op),
            _ => None,
        }
    }

    /// The operand, for rewriting.
    pub fn operand_mut(&mut self) -> Option<&mut Operand> {
        match self {
            TerminatorKind::Branch { cond: op, .. }
            | TerminatorKind::Switch { value: op, .. }
            | TerminatorKind::Return(Some(op)) => Some(op),
            _ => None,
        }
    }

    /// Redirects every edge to `from` so that it goes to `to` instead.
    pub fn retarget(&mut self, from: BlockId, to: BlockId) {
        for b in self.targets_mut() {
            if *b == from {
                *b = to;
            }
        }
    }
}

impl Program {
    /// Per function, whether a collection may happen while it runs: it allocates, or calls a
    /// function that may collect.
    pub fn collecting(&self) -> IdVec<FnId, bool> {
        self.or_callees(self.functions.iter().map(Function::allocates).collect())
    }

    /// Per function, whether an array's length may change while it runs: it calls `push`, `pop`,
    /// `insert` or `remove` ([`Builtin::resizes`]), or a function that may (PL has no indirect
    /// calls).
    pub fn resizing(&self) -> IdVec<FnId, bool> {
        self.or_callees(
            (self.functions.iter())
                .map(|f| {
                    (f.blocks.iter().flat_map(|b| &b.stmts)).any(|s| {
                        matches!(s.kind, StatementKind::Call { callee: Callee::Builtin(b), .. } if b.resizes())
                    })
                })
                .collect(),
        )
    }

    /// `holds[f]`, a property of what function `f` does itself, extended to what it may do
    /// while it runs: true also where `f` calls a function for which it is true (to a fixed
    /// point over the call graph).
    fn or_callees(&self, mut holds: IdVec<FnId, bool>) -> IdVec<FnId, bool> {
        let callees = self.callees();
        let mut changed = true;
        while changed {
            changed = false;
            for (f, called) in callees.iter_enumerated() {
                if !holds[f] && called.iter().any(|&g| holds[g]) {
                    holds[f] = true;
                    changed = true;
                }
            }
        }
        holds
    }

    /// Fills each function's [`Function::steady_callees`] from [`Program::resizing`], for the
    /// passes that keep what they know of lengths across calls.
    pub fn note_steady_callees(&mut self) {
        let resizing = self.resizing();
        for func in self.functions.iter_mut() {
            let called = (func.blocks.iter().flat_map(|b| &b.stmts))
                .filter_map(|s| s.kind.called_function());
            func.steady_callees = called.filter(|&g| !resizing[g]).collect();
        }
    }

    /// Per function, the PL functions it calls (once per call site).
    pub fn callees(&self) -> IdVec<FnId, Vec<FnId>> {
        (self.functions.iter())
            .map(|func| {
                (func.blocks.iter())
                    .flat_map(|b| &b.stmts)
                    .filter_map(|stmt| stmt.kind.called_function())
                    .collect()
            })
            .collect()
    }
}

/// What `-O 2`'s partial inlining names the rest of a function it splits (`opt/split.rs`).
pub const PART_SUFFIX: &str = ".part";

/// Whether the compiled function `compiled` is, or is part of, the source function `name`: what
/// `--emit --function NAME` shows.
pub fn is_part_of(compiled: &str, name: &str) -> bool {
    compiled == name || compiled.strip_suffix(PART_SUFFIX) == Some(name)
}

/// Whether a call of `from` can lead to a call of `to` (`from` calls it, or calls a function
/// that can), in the call graph `callees` ([`Program::callees`]).
pub fn reaches(callees: &IdVec<FnId, Vec<FnId>>, from: FnId, to: FnId) -> bool {
    reachable(callees, callees[from].clone())[to]
}

/// Per function, whether it is one of `roots` or one of them can call it, directly or not, in
/// the call graph `callees`: from `main` and the initializer, the functions that can run (the
/// others, never called or inlined at every call site, are not compiled).
pub fn reachable(callees: &IdVec<FnId, Vec<FnId>>, mut roots: Vec<FnId>) -> IdVec<FnId, bool> {
    let mut seen = IdVec::from_elem(false, callees.len());
    while let Some(f) = roots.pop() {
        if !std::mem::replace(&mut seen[f], true) {
            roots.extend(&callees[f]);
        }
    }
    seen
}

impl Function {
    pub fn operand_type(&self, op: &Operand) -> Type {
        match op {
            Operand::Local(l) => self.locals[*l].ty.clone(),
            Operand::Const(c) => c.ty(),
        }
    }

    /// Whether the function calls a PL function (it is not a leaf).
    pub fn calls_functions(&self) -> bool {
        self.blocks
            .iter()
            .flat_map(|b| &b.stmts)
            .any(|s| s.kind.called_function().is_some())
    }

    /// Whether the function itself allocates (a string, an array, a struct), where the
    /// collector may run.
    pub fn allocates(&self) -> bool {
        (self.blocks.iter().flat_map(|b| &b.stmts)).any(|s| self.allocates_at(s))
    }

    /// Whether statement `s` of the function allocates (calls of PL functions aside).
    pub fn allocates_at(&self, s: &Statement) -> bool {
        match &s.kind {
            StatementKind::Call { callee, .. } => match callee {
                Callee::Function(_) => false,
                Callee::Builtin(b) => matches!(
                    b,
                    Builtin::ToStr
                        | Builtin::Fixed
                        | Builtin::Substr
                        | Builtin::ReadLine
                        | Builtin::MapNew
                        | Builtin::MapSet
                        | Builtin::MapKeys
                        | Builtin::Push
                        | Builtin::Insert
                        | Builtin::Split
                        | Builtin::Join
                        | Builtin::Replace
                        | Builtin::Trim
                        | Builtin::ToUpper
                        | Builtin::ToLower
                ),
            },
            StatementKind::Assign(_, rvalue) => match rvalue {
                Rvalue::ArrayLit(_) | Rvalue::ArrayRepeat { .. } | Rvalue::New { .. } => true,
                Rvalue::Binary(BinOp::Add, lhs, _) => self.operand_type(lhs) == Type::Str,
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether statement `kind` may change an array's length: a resizing built-in, or a call
    /// of a function not known to be steady ([`Function::steady_callees`]).
    pub fn resizes_at(&self, kind: &StatementKind) -> bool {
        match kind {
            StatementKind::Call { callee, .. } => match callee {
                Callee::Builtin(b) => b.resizes(),
                Callee::Function(g) => !self.steady_callees.contains(g),
            },
            _ => false,
        }
    }

    /// Whether a statement of the blocks `body` (a loop's) may change an array's length.
    pub fn resizes_in(&self, body: &[BlockId]) -> bool {
        (body.iter().flat_map(|&b| &self.blocks[b].stmts)).any(|s| self.resizes_at(&s.kind))
    }

    /// Whether the function records block trace events (`--trace-blocks`): the passes that copy
    /// its code into others leave it alone.
    pub fn traces_blocks(&self) -> bool {
        (self.blocks.iter())
            .flat_map(|b| &b.stmts)
            .any(|s| matches!(s.kind, StatementKind::Trace(_)))
    }

    /// Whether a statement of the blocks `body` (a loop's) calls function `callee`.
    pub fn calls_in(&self, body: &[BlockId], callee: FnId) -> bool {
        (body.iter().flat_map(|&b| &self.blocks[b].stmts))
            .any(|stmt| stmt.kind.called_function() == Some(callee))
    }

    /// Whether a profiling pass instrumented the function (it has a profiling statement).
    pub fn is_instrumented(&self) -> bool {
        (self.blocks.iter().flat_map(|b| &b.stmts)).any(|s| s.kind.is_profiling())
    }

    /// The locals only instrumentation reads: ints set only by arithmetic that cannot fail and
    /// read by profiling statements and by each other's assignments, never by the program (a
    /// path register, a counter's index, a count kept in a local). Their assignments are
    /// instrumentation as much as the counts are, so size limits leave them out too:
    /// instrumenting a function then changes no decision of the passes that use them. A local
    /// nothing reads is dead, not instrumentation.
    pub fn profiling_locals(&self) -> IdVec<LocalId, bool> {
        let arithmetic = |rvalue: &Rvalue| match rvalue {
            Rvalue::Use(_) => true,
            Rvalue::Binary(op, ..) => matches!(
                op,
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
            ),
            _ => false,
        };
        let stmts = || self.blocks.iter().flat_map(|b| &b.stmts);
        if !self.is_instrumented() {
            return IdVec::from_elem(false, self.locals.len());
        }
        let mut candidate: IdVec<LocalId, bool> =
            IdVec::from_vec(self.locals.iter().map(|l| l.ty == Type::Int).collect());
        for stmt in stmts() {
            match &stmt.kind {
                // A profiling statement's own result (`kbl`'s window) stays a candidate.
                kind if kind.is_profiling() => {}
                StatementKind::Assign(l, rvalue) if !arithmetic(rvalue) => candidate[*l] = false,
                StatementKind::Call { dest: Some(l), .. } => candidate[*l] = false,
                _ => {}
            }
        }
        // What the program's statements and terminators read, what profiling statements read,
        // and per candidate what its assignments read.
        let (mut program, mut instrumentation) = (Vec::new(), Vec::new());
        let mut feeds = IdVec::from_elem(Vec::new(), self.locals.len());
        for block in &self.blocks {
            for stmt in &block.stmts {
                let reads = stmt.kind.operands().into_iter().filter_map(|op| op.local());
                match &stmt.kind {
                    kind if kind.is_profiling() => instrumentation.extend(reads),
                    StatementKind::Assign(l, _) if candidate[*l] => feeds[*l].extend(reads),
                    _ => program.extend(reads),
                }
            }
            program.extend(block.term.kind.operand().and_then(|op| op.local()));
        }
        // A local is read by what reads it, and by what reads a candidate assigned from it.
        let read_from = |mut todo: Vec<LocalId>| {
            let mut read = IdVec::from_elem(false, self.locals.len());
            while let Some(l) = todo.pop() {
                if !std::mem::replace(&mut read[l], true) {
                    todo.extend(&feeds[l]);
                }
            }
            read
        };
        let (by_program, by_instrumentation) = (read_from(program), read_from(instrumentation));
        (candidate.iter_enumerated())
            .map(|(l, &c)| c && by_instrumentation[l] && !by_program[l])
            .collect()
    }

    /// Adds a temporary local of type `ty`.
    pub fn new_temp(&mut self, ty: Type) -> LocalId {
        self.locals.push(LocalDecl { ty, name: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dominators_of_a_loop_with_a_diamond_and_an_unreachable_block() {
        // bb0 → bb1 (loop header) → bb2 | bb5 (exit); bb2 → bb3 | bb4 → bb6 → bb1; bb7 is
        // unreachable and jumps into the loop.
        let source = "fn main() {}";
        let typed = pcc_lang::check_bytes("t.pl", source.as_bytes()).expect("a valid program");
        let mut func = crate::lower::lower_program(&typed)
            .functions
            .into_vec()
            .remove(0);
        let goto = |b| Terminator {
            kind: TerminatorKind::Goto(BlockId::new(b)),
            span: Span::default(),
        };
        let branch = |then_bb, else_bb| Terminator {
            kind: TerminatorKind::Branch {
                cond: Operand::Const(Const::Bool(true)),
                then_bb: BlockId::new(then_bb),
                else_bb: BlockId::new(else_bb),
            },
            span: Span::default(),
        };
        let ret = Terminator {
            kind: TerminatorKind::Return(None),
            span: Span::default(),
        };
        let terms = [
            goto(1),
            branch(2, 5),
            branch(3, 4),
            goto(6),
            goto(6),
            ret,
            goto(1),
            goto(6),
        ];
        func.blocks = terms
            .into_iter()
            .map(|term| BasicBlock::new(Vec::new(), term))
            .collect();
        let rpo = func.reverse_postorder();
        assert_eq!(rpo.len(), 7);
        assert_eq!(rpo[..2], [0, 1].map(BlockId::new));
        let idom: Vec<Option<usize>> = func
            .immediate_dominators()
            .iter()
            .map(|d| d.map(BlockId::index))
            .collect();
        assert_eq!(
            idom,
            [
                None,
                Some(0),
                Some(1),
                Some(2),
                Some(2),
                Some(1),
                Some(2),
                None
            ]
        );
        // The interval numbering answers as the walk up the immediate dominators does.
        let idom = func.immediate_dominators();
        let doms = func.dominators();
        let walk = |a: BlockId, mut b: BlockId| loop {
            if a == b {
                return true;
            }
            match idom[b] {
                Some(d) => b = d,
                None => return false,
            }
        };
        for a in func.blocks.ids() {
            for b in func.blocks.ids() {
                assert_eq!(doms.dominates(a, b), walk(a, b), "bb{a} dominates bb{b}");
            }
        }
        assert!(!doms.reachable(BlockId::new(7)) && doms.reachable(BlockId::new(6)));
        let loops = func.natural_loops();
        assert_eq!(loops.len(), 1);
        let body: Vec<usize> = loops[0].body.iter().map(|b| b.index()).collect();
        assert_eq!(body[0], 1);
        let mut sorted = body.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [1, 2, 3, 4, 6]);
    }

    /// A path register is instrumentation; the program's locals, and a dead one, are not.
    #[test]
    fn profiling_locals_are_those_only_instrumentation_reads() {
        let source = "fn f(n: int) -> int { let s = 0; let dead = 0; \
                      for i in 0..n { if i % 3 == 0 { s += i; } dead = dead + 1; } return s; }\n\
                      fn main() { println(f(10)); }\n";
        let f = |program: Program| {
            let func = program.functions.into_vec().remove(0);
            let profiling = func.profiling_locals();
            let named: Vec<bool> = (func.locals.iter_enumerated())
                .filter(|(_, decl)| decl.name.is_some())
                .map(|(l, _)| profiling[l])
                .collect();
            (profiling.iter().filter(|&&p| p).count(), named)
        };
        let (none, named) = f(crate::opt::testing::lower(source));
        assert_eq!(none, 0);
        assert!(named.iter().all(|&p| !p));
        let mode = pcc_profiler::profile::Mode::Bl;
        let (some, named) = f(crate::opt::testing::instrumented(source, mode));
        assert!(some > 0);
        assert!(named.iter().all(|&p| !p));
    }
}
