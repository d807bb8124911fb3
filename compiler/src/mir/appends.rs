//! String appends: the concatenations of `s = s + t` and `s += t`, and whether each may grow the
//! string `s` holds in place (the runtime's `pcc_str_append`, docs/CONVENTIONS.md).
//!
//! Building a string by appending in a loop copies the whole string at every step when every `+`
//! makes a new string: quadratic. CPython avoids it where it can see that the left operand is the
//! only reference to its string, by resizing that string in place; pcc decides the same thing at
//! compile time, here, and code generation calls `pcc_str_append` for each append with a flag,
//! `in_place`, that promises the runtime that nothing else references the object `s` points to.
//! The runtime then grows an *appendable* string, one an earlier append made with spare room, in
//! place; any other string it copies into a new appendable one. Every append goes through
//! `pcc_str_append`, in place or not, so that the chain's strings stay appendable.
//!
//! **Which concatenations are appends.** Lowering makes `s = s + t` a concatenation into a
//! temporary and a copy back (`_8 = _1 + _7; _1 = _8`), `s += t` one statement (`_1 = _1 + t`),
//! `s = s + a + b` two concatenations through temporaries, and `-O 2`'s inlining adds copies
//! into parameters and out of results. So, within a block, a *chain* follows a string value from
//! local to local through copies `d = v` and concatenations `d = v + t` that each consume it (the
//! old value of `v` is dead after the statement: it is `d` itself, or not live there). Every
//! concatenation on the stretch of a chain between two visits of the same local is an append:
//! its string ends up back where it started. A concatenation whose result goes anywhere else is
//! a plain one (`pcc_str_concat`, which makes no spare room).
//!
//! **Which appends are in place.** A forward may-analysis over the CFG, one fact per string local
//! `v`, `shared(v)`: `v` may hold a reference to an appendable object that something else may
//! reference too. Merging is union. At the entry the parameters are shared (the caller keeps its
//! references), the other locals not. An append `d = s + t` is in place iff `s` is not shared
//! before it and `t` is not `s` itself; afterwards `d` is not shared (its string is new, or `s`'s
//! grown, whose old reference is dead). A copy `d = v` that consumes `v` moves the fact; any other
//! copy shares both. Every other use that can copy a reference somewhere shares the local: an
//! argument of a PL function, a value stored into a global, a field or an element, an element of
//! an array or struct literal, a returned value, an operand of a plain concatenation (which may
//! return one of its operands), an argument of a builtin not known to only read it (`substr` and
//! `str` may return their argument). Uses that only read leave the fact alone: `len`, indexing,
//! comparisons, `print`/`println`, `parse_int`/`parse_float`, `assert`'s message, the right
//! operand of an append. A local assigned a literal, or the result of `chr`, `fixed`, `str` of a
//! number or `read_line` (each a string no append made, so not appendable), is not shared; one
//! assigned anything else (a call's result, a load from a global, a field or an element, `arg`,
//! `substr`, a plain concatenation) is. Where in doubt, a local is shared: a wrong "not shared"
//! would let an append overwrite the string of another variable.

use std::collections::HashMap;
use std::marker::PhantomData;

use super::{
    BinOp, BlockId, Builtin, Callee, ENTRY, Function, IdVec, LocalId, Operand, Rvalue,
    StatementKind, Type,
};

/// The appends of a function: per statement `(block, index)` that is one, whether it is in place.
#[derive(Debug, Default)]
pub struct Appends {
    in_place: HashMap<(BlockId, usize), bool>,
}

impl Appends {
    /// The analysis of `func`, on its final MIR (after every pass, which can copy blocks).
    pub fn of(func: &Function) -> Appends {
        let has_concat =
            (func.blocks.iter().flat_map(|b| &b.stmts)).any(|s| concat(func, &s.kind).is_some());
        if !has_concat {
            return Appends::default();
        }
        let strings = Strings::of(func);
        let flows = flows(func, &strings);
        let appends = chains(func, &strings, &flows);
        let analysis = Analysis {
            func,
            strings: &strings,
            flows: &flows,
            appends: &appends,
        };
        let at_start = analysis.solve();
        let mut in_place = HashMap::new();
        for (b, block) in func.blocks.iter_enumerated() {
            let mut shared = at_start[b].clone();
            for (i, stmt) in block.stmts.iter().enumerate() {
                if let Some(flag) = analysis.transfer(b, i, &stmt.kind, &mut shared) {
                    in_place.insert((b, i), flag);
                }
            }
        }
        Appends { in_place }
    }

    /// Whether statement `index` of block `b` is an append, and if so whether it is in place.
    pub fn get(&self, b: BlockId, index: usize) -> Option<bool> {
        self.in_place.get(&(b, index)).copied()
    }
}

/// The appends of a function, by the address of their rvalue, for code generation: it borrows the
/// function for as long as these, and meets each of its rvalues by reference, without knowing
/// which statement of which block it is translating.
pub struct AppendRvalues<'m> {
    in_place: HashMap<*const Rvalue, bool>,
    function: PhantomData<&'m Function>,
}

impl<'m> AppendRvalues<'m> {
    pub fn of(func: &'m Function) -> AppendRvalues<'m> {
        let appends = Appends::of(func);
        let mut in_place = HashMap::new();
        for (&(b, i), &flag) in &appends.in_place {
            if let StatementKind::Assign(_, rvalue) = &func.blocks[b].stmts[i].kind {
                in_place.insert(std::ptr::from_ref(rvalue), flag);
            }
        }
        AppendRvalues {
            in_place,
            function: PhantomData,
        }
    }

    /// Whether `rvalue`, one of the function's, is an append, and if so whether it is in place.
    pub fn get(&self, rvalue: &Rvalue) -> Option<bool> {
        self.in_place.get(&std::ptr::from_ref(rvalue)).copied()
    }
}

/// The string concatenation `dest = lhs + rhs` of a statement: `(dest, lhs, rhs)`.
fn concat<'a>(
    func: &Function,
    kind: &'a StatementKind,
) -> Option<(LocalId, &'a Operand, &'a Operand)> {
    match kind {
        StatementKind::Assign(dest, Rvalue::Binary(BinOp::Add, lhs, rhs))
            if func.locals[*dest].ty == Type::Str =>
        {
            Some((*dest, lhs, rhs))
        }
        _ => None,
    }
}

/// The string locals of a function, numbered densely: the facts are vectors over them.
struct Strings {
    index: IdVec<LocalId, Option<usize>>,
    count: usize,
}

impl Strings {
    fn of(func: &Function) -> Strings {
        let mut count = 0;
        let index = (func.locals.iter())
            .map(|local| {
                (local.ty == Type::Str).then(|| {
                    count += 1;
                    count - 1
                })
            })
            .collect();
        Strings { index, count }
    }

    /// The number of local `l`, if it is a string.
    fn of_local(&self, l: LocalId) -> Option<usize> {
        self.index[l]
    }

    /// The number of the string local an operand reads, if it reads one.
    fn of_operand(&self, op: &Operand) -> Option<usize> {
        op.local().and_then(|l| self.of_local(l))
    }
}

/// A statement that hands a string value on from one local to another and consumes it there:
/// `dest = source` or `dest = source + t`, where the old value of `source` is dead afterwards.
#[derive(Clone, Copy)]
struct Flow {
    source: LocalId,
    dest: LocalId,
    concat: bool,
}

/// Per block and statement, the flow the statement is, if it is one: string liveness (a backward
/// dataflow over the string locals) tells which sources are dead after their statement.
fn flows(func: &Function, strings: &Strings) -> IdVec<BlockId, Vec<Option<Flow>>> {
    let flow_of = |kind: &StatementKind| match kind {
        StatementKind::Assign(dest, Rvalue::Use(Operand::Local(source)))
            if strings.of_local(*dest).is_some() && source != dest =>
        {
            Some(Flow {
                source: *source,
                dest: *dest,
                concat: false,
            })
        }
        _ => match concat(func, kind) {
            Some((dest, Operand::Local(source), _)) => Some(Flow {
                source: *source,
                dest,
                concat: true,
            }),
            _ => None,
        },
    };
    // Per block, the string locals it reads before assigning them, and those it assigns.
    let n = strings.count;
    let mut gen_ = IdVec::from_elem(vec![false; n], func.blocks.len());
    let mut kill = IdVec::from_elem(vec![false; n], func.blocks.len());
    for (b, block) in func.blocks.iter_enumerated() {
        for (i, operands) in block.reads().enumerate() {
            for s in operands.into_iter().filter_map(|op| strings.of_operand(op)) {
                if !kill[b][s] {
                    gen_[b][s] = true;
                }
            }
            let dest = block.stmts.get(i).and_then(|stmt| stmt.kind.dest());
            if let Some(s) = dest.and_then(|d| strings.of_local(d)) {
                kill[b][s] = true;
            }
        }
    }
    let mut live_in = gen_.clone();
    let order: Vec<BlockId> = func.reverse_postorder().into_iter().rev().collect();
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &order {
            for succ in func.blocks[b].term.kind.successors() {
                for s in 0..n {
                    if live_in[succ][s] && !kill[b][s] && !live_in[b][s] {
                        live_in[b][s] = true;
                        changed = true;
                    }
                }
            }
        }
    }
    let mut flows = IdVec::from_elem(Vec::new(), func.blocks.len());
    for (b, block) in func.blocks.iter_enumerated() {
        let mut live = vec![false; n];
        for succ in block.term.kind.successors() {
            for s in 0..n {
                live[s] |= live_in[succ][s];
            }
        }
        for s in (block.term.kind.operand().iter()).filter_map(|op| strings.of_operand(op)) {
            live[s] = true;
        }
        let mut block_flows = vec![None; block.stmts.len()];
        for (i, stmt) in block.stmts.iter().enumerate().rev() {
            // `live` holds after statement `i`.
            if let Some(flow) = flow_of(&stmt.kind) {
                let source = strings.of_local(flow.source);
                if flow.source == flow.dest || source.is_some_and(|s| !live[s]) {
                    block_flows[i] = Some(flow);
                }
            }
            if let Some(s) = stmt.kind.dest().and_then(|d| strings.of_local(d)) {
                live[s] = false;
            }
            for s in (stmt.kind.operands().into_iter()).filter_map(|op| strings.of_operand(op)) {
                live[s] = true;
            }
        }
        flows[b] = block_flows;
    }
    flows
}

/// The statements that are appends: the concatenations of each chain of flows (`Flow`, in one
/// block) between two visits of the same local.
fn chains(
    func: &Function,
    strings: &Strings,
    flows: &IdVec<BlockId, Vec<Option<Flow>>>,
) -> IdVec<BlockId, Vec<bool>> {
    let mut appends = IdVec::from_elem(Vec::new(), func.blocks.len());
    for (b, block) in func.blocks.iter_enumerated() {
        let flows = &flows[b];
        // Per string local, the statements that read or assign it, in order: a chain jumps from
        // one to the next, so that a block of many short chains is not walked once per chain.
        let mut mentions: HashMap<LocalId, Vec<usize>> = HashMap::new();
        for (i, stmt) in block.stmts.iter().enumerate() {
            let reads = stmt.kind.operands().into_iter().filter_map(Operand::local);
            for l in reads.chain(stmt.kind.dest()) {
                if strings.of_local(l).is_some() {
                    let at = mentions.entry(l).or_default();
                    if at.last() != Some(&i) {
                        at.push(i);
                    }
                }
            }
        }
        let next_mention = |l: LocalId, after: usize| {
            let at = mentions.get(&l)?;
            at.get(at.partition_point(|&i| i <= after)).copied()
        };
        let mut is_append = vec![false; block.stmts.len()];
        // A flow some chain went through already does not start one.
        let mut followed = vec![false; block.stmts.len()];
        for start in 0..block.stmts.len() {
            let Some(first) = flows[start].filter(|_| !followed[start]) else {
                continue;
            };
            // The locals the chain's value went through, each with the concatenation that put
            // it there (if one did).
            let mut path: Vec<(LocalId, Option<usize>)> = vec![(first.source, None)];
            let (mut flow, mut at) = (first, start);
            loop {
                let back = path.iter().position(|&(l, _)| l == flow.dest);
                path.push((flow.dest, flow.concat.then_some(at)));
                if let Some(p) = back {
                    for c in path[p + 1..].iter().filter_map(|&(_, c)| c) {
                        is_append[c] = true;
                    }
                }
                // The chain goes on at the next statement that mentions its value, if that
                // statement is a flow of it that reads it once.
                let Some(j) = next_mention(flow.dest, at) else {
                    break;
                };
                let operands = block.stmts[j].kind.operands();
                let reads = operands.iter().filter(|op| op.local() == Some(flow.dest));
                match flows[j] {
                    Some(next) if next.source == flow.dest && reads.count() == 1 => {
                        followed[j] = true;
                        (flow, at) = (next, j);
                    }
                    _ => break,
                }
            }
        }
        appends[b] = is_append;
    }
    appends
}

/// The `shared` analysis (module comment).
struct Analysis<'a> {
    func: &'a Function,
    strings: &'a Strings,
    flows: &'a IdVec<BlockId, Vec<Option<Flow>>>,
    /// Per block and statement, whether it is an append (`chains`).
    appends: &'a IdVec<BlockId, Vec<bool>>,
}

impl Analysis<'_> {
    /// The facts at the start of each block: the least fixed point from "nothing shared" but
    /// the parameters at the entry; an unreachable block's are all shared.
    fn solve(&self) -> IdVec<BlockId, Vec<bool>> {
        let func = self.func;
        let n = self.strings.count;
        let mut at_entry = vec![false; n];
        for s in func.params.iter().filter_map(|&p| self.strings.of_local(p)) {
            at_entry[s] = true;
        }
        let order = func.reverse_postorder();
        let mut reachable = IdVec::from_elem(false, func.blocks.len());
        for &b in &order {
            reachable[b] = true;
        }
        let predecessors = func.predecessors();
        let mut at_start: IdVec<BlockId, Vec<bool>> = (func.blocks.ids())
            .map(|b| vec![!reachable[b]; n])
            .collect();
        let mut at_end = IdVec::from_elem(vec![false; n], func.blocks.len());
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &order {
                let mut shared = if b == ENTRY {
                    at_entry.clone()
                } else {
                    vec![false; n]
                };
                for &p in predecessors[b].iter().filter(|&&p| reachable[p]) {
                    for s in 0..n {
                        shared[s] |= at_end[p][s];
                    }
                }
                at_start[b] = shared.clone();
                for (i, stmt) in func.blocks[b].stmts.iter().enumerate() {
                    self.transfer(b, i, &stmt.kind, &mut shared);
                }
                if shared != at_end[b] {
                    at_end[b] = shared;
                    changed = true;
                }
            }
        }
        at_start
    }

    /// Applies statement `i` of block `b` to the facts; for an append, returns whether it is in
    /// place. (Terminators need nothing: a branch or a switch reads no string, and after a
    /// `return` nothing of the function runs.)
    fn transfer(
        &self,
        b: BlockId,
        i: usize,
        kind: &StatementKind,
        shared: &mut [bool],
    ) -> Option<bool> {
        let strings = self.strings;
        let set = |l: Option<LocalId>, value: bool, shared: &mut [bool]| {
            if let Some(s) = l.and_then(|l| strings.of_local(l)) {
                shared[s] = value;
            }
        };
        // Every string operand of the statement may be copied somewhere.
        let escape = |operands: Vec<&Operand>, shared: &mut [bool]| {
            for s in operands.into_iter().filter_map(|op| strings.of_operand(op)) {
                shared[s] = true;
            }
        };
        match kind {
            StatementKind::Assign(dest, rvalue) if strings.of_local(*dest).is_some() => {
                // The string local an append or a copy takes its value from.
                let source = match rvalue {
                    Rvalue::Binary(BinOp::Add, Operand::Local(l), _)
                    | Rvalue::Use(Operand::Local(l)) => strings.of_local(*l).map(|s| (*l, s)),
                    _ => None,
                };
                match (rvalue, source) {
                    (Rvalue::Binary(_, _, rhs), Some((l, s))) if self.appends[b][i] => {
                        let in_place = !shared[s] && rhs.local() != Some(l);
                        // The old reference of `l` is dead (the append consumes it).
                        shared[s] = true;
                        set(Some(*dest), false, shared);
                        return Some(in_place);
                    }
                    (Rvalue::Use(_), Some((l, _))) if l == *dest => {}
                    (Rvalue::Use(_), Some((_, s))) => {
                        let moved = self.consumes(b, i).then_some(shared[s]);
                        shared[s] = true;
                        set(Some(*dest), moved.unwrap_or(true), shared);
                    }
                    // A literal: a string of the program's data, which no append made.
                    (Rvalue::Use(Operand::Const(_)), _) => set(Some(*dest), false, shared),
                    // A plain concatenation, or a load from a global, a field or an element.
                    _ => {
                        escape(rvalue.operands(), shared);
                        set(Some(*dest), true, shared);
                    }
                }
            }
            // Comparisons of strings and `s[i]` (a byte) only read them; array and struct
            // literals keep them.
            StatementKind::Assign(_, rvalue) => match rvalue {
                Rvalue::Binary(op, ..) if op.is_comparison() => {}
                Rvalue::Index { .. } => {}
                _ => escape(rvalue.operands(), shared),
            },
            StatementKind::Call {
                dest,
                callee: Callee::Builtin(builtin),
                args,
            } => {
                if !reads_only(*builtin) {
                    escape(args.iter().collect(), shared);
                }
                let fresh = makes_unappendable(*builtin, args, self.func);
                set(*dest, !fresh, shared);
            }
            // A PL function's arguments and result, a store, profiling.
            _ => {
                escape(kind.operands(), shared);
                set(kind.dest(), true, shared);
            }
        }
        None
    }

    /// Whether statement `i` of block `b`, a copy, consumes its source (`Flow`).
    fn consumes(&self, b: BlockId, i: usize) -> bool {
        self.flows[b][i].is_some_and(|flow| !flow.concat)
    }
}

/// Whether the builtin only reads its string arguments (keeps no reference to them, returns none
/// of them).
fn reads_only(builtin: Builtin) -> bool {
    use Builtin::*;
    matches!(
        builtin,
        Print | Println | Len | ParseInt | ParseFloat | Assert | Find | StartsWith | EndsWith
    )
}

/// Whether the builtin's result is a string no append made (so not an appendable one): `chr`'s
/// (the runtime's table), `fixed`'s, `str` of a number's, `read_line`'s (new strings, or the
/// runtime's empty string). Not `substr`'s (the argument itself when the range is all of it), nor
/// `str` of a string's (the argument), nor `arg`'s (strings the runtime keeps).
fn makes_unappendable(builtin: Builtin, args: &[Operand], func: &Function) -> bool {
    match builtin {
        Builtin::Chr | Builtin::Fixed | Builtin::ReadLine => true,
        Builtin::ToStr => args
            .first()
            .is_some_and(|a| matches!(func.operand_type(a), Type::Int | Type::Float | Type::Bool)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use pcc_lang::LineIndex;

    use super::*;
    use crate::mir::Program;
    use crate::opt::testing::lower;

    /// The appends of function `name`, each as (line, in place), in line order (and, within a
    /// line, in the order of the blocks and statements).
    fn appends_in(program: &Program, source: &str, name: &str) -> Vec<(u32, bool)> {
        let lines = LineIndex::new(source);
        let func = (program.functions.iter())
            .find(|f| f.name == name)
            .expect("the function exists");
        let appends = Appends::of(func);
        let mut found = Vec::new();
        for (b, block) in func.blocks.iter_enumerated() {
            for (i, stmt) in block.stmts.iter().enumerate() {
                if let Some(in_place) = appends.get(b, i) {
                    found.push((lines.line(stmt.span.lo), in_place));
                }
            }
        }
        found.sort_by_key(|&(line, _)| line);
        found
    }

    /// The appends of `name` as lowered (`-O 0` and `-O 1` translate that MIR).
    fn lowered(source: &str, name: &str) -> Vec<(u32, bool)> {
        appends_in(&lower(source), source, name)
    }

    /// The appends of `name` after `-O 2`'s passes.
    fn optimized(source: &str, name: &str) -> Vec<(u32, bool)> {
        let mut program = lower(source);
        crate::opt::optimize(&mut program);
        appends_in(&program, source, name)
    }

    /// Every append of the loop is in place: `s = s + c` (a temporary and a copy back) and
    /// `s += c` (one statement), from a literal, at every level.
    #[test]
    fn a_loop_of_appends_is_in_place() {
        let source = "\
fn build(n: int) -> str {
    let s = \"\";
    for i in 0..n {
        s = s + chr(97 + i % 26);
        s += \"-\";
    }
    return s;
}
fn main() { println(build(3)); }
";
        assert_eq!(lowered(source, "build"), [(4, true), (5, true)]);
        assert_eq!(optimized(source, "build"), [(4, true), (5, true)]);
        // Inlined into `main`, where it runs in a loop of its own.
        assert_eq!(optimized(source, "main"), [(4, true), (5, true)]);
    }

    /// `s = s + a + b` is two appends through a temporary; `s = s + (a + b)` one append, the
    /// inner `+` a plain concatenation.
    #[test]
    fn chains_of_concatenations_are_appends() {
        let source = "\
fn main() {
    let s = \"\";
    let a = \"a\";
    for i in 0..3 {
        s = s + a + \"b\";
        s = s + (a + \"c\");
    }
    println(s, a);
}
";
        assert_eq!(lowered(source, "main"), [(5, true), (5, true), (6, true)]);
        let program = lower(source);
        let main = &program.functions[program.main];
        let concats = (main.blocks.iter().flat_map(|b| &b.stmts))
            .filter(|s| concat(main, &s.kind).is_some())
            .count();
        assert_eq!(concats, 4);
    }

    /// After `u = s`, `u` references `s`'s string: the next append copies it, the one after
    /// grows the copy.
    #[test]
    fn a_copy_shares_the_string() {
        let source = "\
fn main() {
    let s = \"ab\";
    s += \"c\";
    let u = s;
    s += \"d\";
    s += \"e\";
    u += \"f\";
    println(s, u);
}
";
        let expected = [(3, true), (5, false), (6, true), (7, false)];
        assert_eq!(lowered(source, "main"), expected);
        assert_eq!(optimized(source, "main"), expected);
    }

    /// A string passed to a PL function, or stored into an array, a field or a global, or put
    /// into an array or struct literal, may be referenced from there.
    #[test]
    fn escaping_uses_share_the_string() {
        let source = "\
struct Box { s: str }
let keep = \"\";
fn look(s: str) -> int { return len(s); }
fn main() {
    let b = new Box { s: \"\" };
    let a = [\"\"];
    let s = \"\";
    s += \"1\";
    look(s);
    s += \"2\";
    s += \"3\";
    a[0] = s;
    s += \"4\";
    b.s = s;
    s += \"5\";
    keep = s;
    s += \"6\";
    let c = [s, \"x\"];
    s += \"7\";
    let d = new Box { s: s };
    s += \"8\";
    s += \"9\";
    println(a, b.s, keep, c, d.s, s);
}
";
        let expected = [
            (8, true),
            (10, false),
            (11, true),
            (13, false),
            (15, false),
            (17, false),
            (19, false),
            (21, false),
            (22, true),
        ];
        assert_eq!(lowered(source, "main"), expected);
    }

    /// Reading a string (length, bytes, comparisons, printing, parsing, the right operand of an
    /// append) leaves it unshared.
    #[test]
    fn reads_do_not_share_the_string() {
        let source = "\
fn main() {
    let s = \"1\";
    let t = \"\";
    s += \"2\";
    let n = len(s) + s[0] + parse_int(s);
    if s == \"12\" && s < \"2\" { println(s); }
    print(s, \"\\n\");
    assert(len(s) > 0, s);
    t += s;
    s += t;
    println(s, t, n);
}
";
        assert_eq!(lowered(source, "main"), [(4, true), (9, true), (10, true)]);
    }

    /// `x = \"\" + s` is a plain concatenation, which may return `s` itself: both are shared, and
    /// neither's next append is in place.
    #[test]
    fn a_plain_concatenation_shares_its_operands() {
        let source = "\
fn main() {
    let s = \"\";
    s += \"a\";
    let x = \"\" + s;
    s += \"b\";
    x += \"c\";
    let y = s + \"d\";
    s += \"e\";
    println(s, x, y);
}
";
        assert_eq!(
            lowered(source, "main"),
            [(3, true), (5, false), (6, false), (8, false)]
        );
    }

    /// A parameter's string is the caller's too: the first append copies it, the next grows the
    /// copy. Likewise a call's result, and `substr`'s and `arg`'s.
    #[test]
    fn parameters_and_results_are_shared() {
        let source = "\
fn f(s: str) -> str {
    s += \"a\";
    s += \"b\";
    return s;
}
fn main() {
    let t = f(\"x\");
    t += \"c\";
    t += \"d\";
    let u = substr(t, 0, len(t));
    t += \"e\";
    u += \"f\";
    let v = arg(0);
    v += \"g\";
    let w = str(5);
    w += \"h\";
    let z = read_line();
    z += chr(65);
    println(t, u, v, w, z);
}
";
        assert_eq!(lowered(source, "f"), [(2, false), (3, true)]);
        assert_eq!(
            lowered(source, "main"),
            [
                (8, false),
                (9, true),
                (11, false),
                (12, false),
                (14, false),
                (16, true),
                (18, true)
            ]
        );
    }

    /// `s = s + s` reads `s` as its right operand: not in place.
    #[test]
    fn doubling_is_not_in_place() {
        let source = "\
fn main() {
    let s = \"a\";
    for i in 0..3 { s = s + s; s += \"b\"; }
    println(s);
}
";
        assert_eq!(lowered(source, "main"), [(3, false), (3, true)]);
    }

    /// Appends in both arms of an `if`, then after it at the join: all in place.
    #[test]
    fn appends_in_both_arms() {
        let source = "\
fn main() {
    let s = \"\";
    for i in 0..4 {
        if i % 2 == 0 { s += \"e\"; } else { s = s + \"o\"; }
        s += \",\";
    }
    println(s);
}
";
        assert_eq!(lowered(source, "main"), [(4, true), (4, true), (5, true)]);
        // `-O 2` copies the join's append into both arms.
        let optimized = optimized(source, "main");
        assert_eq!(optimized.len(), 4);
        assert!(optimized.iter().all(|&(_, in_place)| in_place));
    }

    /// A string that escapes in one branch of a loop is shared on the back edge, so the
    /// loop's append copies it, and so does the one after the loop; once it is grown again
    /// without escaping, appends are in place again.
    #[test]
    fn an_escape_in_one_branch_of_a_loop() {
        let source = "\
fn main() {
    let s = \"\";
    let keep = \"\";
    for i in 0..5 {
        s += \"x\";
        if i == 2 { keep = s; }
    }
    s += \"y\";
    s += \"z\";
    println(keep, s);
}
";
        let expected = [(5, false), (8, false), (9, true)];
        assert_eq!(lowered(source, "main"), expected);
        assert_eq!(optimized(source, "main"), expected);
    }

    /// A string that lives on past the concatenation is not appended to: `t = s + \"!\"`
    /// while `s` is still read.
    #[test]
    fn a_concatenation_whose_left_operand_lives_on_is_plain() {
        let source = "\
fn main() {
    let s = \"a\";
    let t = s + \"!\";
    s += \"b\";
    println(s, t);
}
";
        assert_eq!(lowered(source, "main"), [(4, false)]);
    }

    /// Inlined at `-O 2`, a function that appends to its parameter receives the caller's
    /// string by a copy that consumes it: the appends stay in place across the call.
    #[test]
    fn inlining_moves_the_string_into_the_callee() {
        let source = "\
fn add(s: str, c: str) -> str { s += c; return s; }
fn main() {
    let s = \"\";
    for i in 0..4 { s = add(s, \"ab\"); }
    let u = s;
    s = add(s, \"c\");
    println(s, u);
}
";
        assert_eq!(lowered(source, "add"), [(1, false)]);
        assert_eq!(optimized(source, "main"), [(1, true), (1, false)]);
    }

    /// Code generation calls `pcc_str_append` for appends and `pcc_str_concat` for the rest.
    #[test]
    fn code_generation_calls_the_append_entry_point() {
        let source = "\
fn main() {
    let s = \"\";
    for i in 0..3 { s += \"x\"; }
    let t = s + \"!\";
    println(s, t);
}
";
        let program = lower(source);
        let options = crate::codegen::Options { opt_level: 0 };
        let clif =
            crate::codegen::emit_clif(&program, source, &options, Some("main")).expect("compiles");
        assert!(clif.contains("pcc_str_append"), "{clif}");
        assert!(clif.contains("pcc_str_concat"), "{clif}");
        assert!(clif.contains("iconst.i8 1"), "{clif}");
    }
}
