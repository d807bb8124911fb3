//! Bounds-check elimination: clears `checked` on element accesses whose index is proven in
//! bounds, so codegen emits no compare-and-branch for them.
//!
//! A forward must-analysis over the CFG collects facts about locals that hold at each point:
//! `0 <= i`, `i < j`, `n == len(a)`, `0 <= i < len(a)`, and which comparison a bool local holds.
//! An access `a[i]` is in bounds when `0 <= i < len(a)` is known, directly (an earlier access
//! of `a[i]` succeeded, with neither local assigned since) or as `0 <= i`, `i < n` and
//! `n == len(a)`, e.g. in `for i in 0..len(a)`, or `while i < n` after `let n = len(a)` or
//! `let a = [0; n]`. A string's length never changes, and an array's only at a `push`, `pop`,
//! `insert` or `remove`, or a call of a function that may make one (`Function::resizes_at`),
//! which ends what was known of every array's length; otherwise only an assignment to a local
//! ends what was known about it. Comparisons are
//! signed, and only on ints: `i + 1` is known not to overflow only where `i < j` for some `j`.

use std::collections::BTreeSet;

use crate::mir::{
    BinOp, BlockId, Builtin, Callee, Const, ENTRY, Function, IdVec, LocalDecl, LocalId, Operand,
    Rvalue, StatementKind, TerminatorKind, Type,
};

/// An index: a local or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Index {
    Local(LocalId),
    Const(i64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fact {
    /// `0 <= x`.
    NonNegative(LocalId),
    /// `x < y`.
    Less(LocalId, LocalId),
    /// `n == len(a)`.
    Length(LocalId, LocalId),
    /// `0 <= i < len(a)`.
    InBounds(Index, LocalId),
    /// Bool `c` holds `lo < hi` (strict) or `lo <= hi`, a comparison of ints.
    Compares(LocalId, Index, Index, bool),
}

impl Fact {
    fn locals(self) -> impl Iterator<Item = LocalId> {
        let index = |i: Index| match i {
            Index::Local(l) => Some(l),
            Index::Const(_) => None,
        };
        let (a, b, c) = match self {
            Fact::NonNegative(x) => (Some(x), None, None),
            Fact::Less(x, y) | Fact::Length(x, y) => (Some(x), Some(y), None),
            Fact::InBounds(i, a) => (index(i), Some(a), None),
            Fact::Compares(c, lo, hi, _) => (Some(c), index(lo), index(hi)),
        };
        [a, b, c].into_iter().flatten()
    }

    /// The same fact about `to` instead of `from`.
    fn renamed(self, from: LocalId, to: LocalId) -> Fact {
        let l = |x: LocalId| if x == from { to } else { x };
        let i = |x: Index| match x {
            Index::Local(x) => Index::Local(l(x)),
            c => c,
        };
        match self {
            Fact::NonNegative(x) => Fact::NonNegative(l(x)),
            Fact::Less(x, y) => Fact::Less(l(x), l(y)),
            Fact::Length(n, a) => Fact::Length(l(n), l(a)),
            Fact::InBounds(x, a) => Fact::InBounds(i(x), l(a)),
            Fact::Compares(c, lo, hi, strict) => Fact::Compares(l(c), i(lo), i(hi), strict),
        }
    }
}

type Facts = BTreeSet<Fact>;

pub fn remove_bounds_checks(func: &mut Function) {
    let relevant = relevant_locals(func);
    let entry_facts = analyze(func, &relevant);
    let resizing: Vec<Vec<bool>> = (func.blocks.iter())
        .map(|b| b.stmts.iter().map(|s| func.resizes_at(&s.kind)).collect())
        .collect();
    let locals = &func.locals;
    for ((block, facts), resizes) in func.blocks.iter_mut().zip(entry_facts).zip(resizing) {
        // `None`: the block is unreachable.
        let Some(mut facts) = facts else { continue };
        for (s, stmt) in block.stmts.iter_mut().enumerate() {
            let access = match &mut stmt.kind {
                StatementKind::Assign(
                    _,
                    Rvalue::Index {
                        base,
                        index,
                        checked,
                        ..
                    },
                ) => Some((&*base, &*index, checked)),
                StatementKind::SetIndex {
                    array,
                    index,
                    checked,
                    ..
                } => Some((&*array, &*index, checked)),
                _ => None,
            };
            if let Some((Operand::Local(array), index, checked)) = access
                && let Some(index) = as_index(index)
                && in_bounds(&facts, index, *array)
            {
                *checked = false;
            }
            transfer(locals, &relevant, &mut facts, &stmt.kind, resizes[s]);
        }
    }
}

/// Forgets what was known of arrays' lengths, which a statement may have changed.
fn forget_array_lengths(locals: &IdVec<LocalId, LocalDecl>, facts: &mut Facts) {
    let array = |a: &LocalId| matches!(locals[*a].ty, Type::Array(_));
    facts.retain(|f| match f {
        Fact::Length(_, a) | Fact::InBounds(_, a) => !array(a),
        _ => true,
    });
}

/// The locals a fact about which may help prove an access in bounds: indices, arrays, the
/// operands of comparisons and the conditions branches test, and whatever is assigned to one of
/// those. Facts about the others are not kept: in a function of thousands of constants that no
/// access or comparison reads, every block would know each of them non-negative.
fn relevant_locals(func: &Function) -> IdVec<LocalId, bool> {
    let mut relevant = IdVec::from_elem(false, func.locals.len());
    let mark = |op: &Operand, relevant: &mut IdVec<LocalId, bool>| {
        if let Operand::Local(l) = op {
            relevant[*l] = true;
        }
    };
    for block in &func.blocks {
        for stmt in &block.stmts {
            if let Some((array, index)) = stmt.kind.checked_access() {
                mark(array, &mut relevant);
                mark(index, &mut relevant);
            }
            if let StatementKind::Assign(_, Rvalue::Binary(op, x, y)) = &stmt.kind
                && matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
            {
                mark(x, &mut relevant);
                mark(y, &mut relevant);
            }
        }
        if let TerminatorKind::Branch { cond, .. } = &block.term.kind {
            mark(cond, &mut relevant);
        }
    }
    // What a relevant local is computed from is relevant too.
    let mut changed = true;
    while changed {
        changed = false;
        for stmt in func.blocks.iter().flat_map(|b| &b.stmts) {
            let Some(dest) = stmt.kind.dest() else {
                continue;
            };
            if !relevant[dest] {
                continue;
            }
            for op in stmt.kind.operands() {
                if let Operand::Local(l) = op
                    && !relevant[*l]
                {
                    relevant[*l] = true;
                    changed = true;
                }
            }
        }
    }
    relevant
}

/// The facts of `facts` that can still prove an access in bounds where the locals `live` are
/// the live ones: those about live locals, and a length `n == len(a)` of a live array that a
/// fact about a live local compares with (`i < n`, where `n` is not read again). Dropping the
/// others loses nothing, since a local that is not live is assigned before it is read, which
/// would end what is known about it; keeping them made a function of a thousand loops carry
/// every loop's facts into all the blocks after it.
fn useful(facts: Facts, live: &BTreeSet<LocalId>) -> Facts {
    let is_live = |i: Index| match i {
        Index::Local(l) => live.contains(&l),
        Index::Const(_) => true,
    };
    let keep = |f: &Fact| match *f {
        Fact::NonNegative(x) | Fact::Less(x, _) | Fact::Compares(x, ..) => live.contains(&x),
        Fact::InBounds(i, a) => is_live(i) && live.contains(&a),
        Fact::Length(..) => false,
    };
    let compared: BTreeSet<LocalId> = (facts.iter().filter(|f| keep(f)))
        .filter(|f| matches!(f, Fact::Less(..) | Fact::Compares(..)))
        .flat_map(|f| f.locals())
        .collect();
    (facts.into_iter())
        .filter(|f| match *f {
            Fact::Length(n, a) => live.contains(&a) && (live.contains(&n) || compared.contains(&n)),
            _ => keep(f),
        })
        .collect()
}

/// The facts known on entry to each block; `None` for a block no path reaches.
fn analyze(func: &Function, relevant: &IdVec<LocalId, bool>) -> IdVec<BlockId, Option<Facts>> {
    let live_in = func.live_in();
    let mut entry = IdVec::from_elem(None, func.blocks.len());
    entry[ENTRY] = Some(Facts::new());
    // Optimistic: a block is visited once some predecessor is, and what it knows only shrinks
    // (facts on a back edge are intersected in when it is reached), down to the fixed point.
    let mut work = vec![ENTRY];
    while let Some(b) = work.pop() {
        let Some(mut facts) = entry[b].clone() else {
            continue;
        };
        let block = &func.blocks[b];
        for stmt in &block.stmts {
            let resizes = func.resizes_at(&stmt.kind);
            transfer(&func.locals, relevant, &mut facts, &stmt.kind, resizes);
        }
        for (succ, facts) in edge_facts(&facts, &block.term.kind) {
            let facts = useful(facts, &live_in[succ]);
            let merged = match &entry[succ] {
                None => facts,
                Some(known) => known.intersection(&facts).copied().collect(),
            };
            if entry[succ].as_ref() != Some(&merged) {
                entry[succ] = Some(merged);
                work.push(succ);
            }
        }
    }
    entry
}

/// The facts on each edge out of a block that ends with `facts`: a branch on a comparison adds
/// what the comparison's outcome says.
fn edge_facts(facts: &Facts, term: &TerminatorKind) -> Vec<(BlockId, Facts)> {
    let TerminatorKind::Branch {
        cond: Operand::Local(c),
        then_bb,
        else_bb,
    } = *term
    else {
        return term
            .successors()
            .into_iter()
            .map(|s| (s, facts.clone()))
            .collect();
    };
    if then_bb == else_bb {
        return vec![(then_bb, facts.clone())];
    }
    let mut then_facts = facts.clone();
    let mut else_facts = facts.clone();
    for fact in facts {
        if let Fact::Compares(cond, lo, hi, strict) = *fact
            && cond == c
        {
            assume(&mut then_facts, lo, hi, strict);
            // The negation of `lo < hi` is `hi <= lo`.
            assume(&mut else_facts, hi, lo, !strict);
        }
    }
    vec![(then_bb, then_facts), (else_bb, else_facts)]
}

/// Adds what `lo < hi` (strict) or `lo <= hi` being true says about the locals.
fn assume(facts: &mut Facts, lo: Index, hi: Index, strict: bool) {
    if let Index::Local(hi) = hi {
        let lo_non_negative = match lo {
            Index::Const(v) => v >= 0 || (strict && v == -1),
            Index::Local(lo) => facts.contains(&Fact::NonNegative(lo)),
        };
        if lo_non_negative {
            facts.insert(Fact::NonNegative(hi));
        }
        if let (Index::Local(lo), true) = (lo, strict) {
            facts.insert(Fact::Less(lo, hi));
        }
    }
}

/// Whether `0 <= index < len(array)` follows from `facts`.
fn in_bounds(facts: &Facts, index: Index, array: LocalId) -> bool {
    if facts.contains(&Fact::InBounds(index, array)) {
        return true;
    }
    match index {
        // Some index is in bounds, so the array is at least that long.
        Index::Const(v) => facts.iter().any(|f| match *f {
            Fact::InBounds(Index::Const(w), a) => a == array && (0..=w).contains(&v),
            Fact::InBounds(Index::Local(_), a) => a == array && v == 0,
            _ => false,
        }),
        Index::Local(i) => {
            facts.contains(&Fact::NonNegative(i))
                && facts.iter().any(|f| match *f {
                    Fact::Less(x, n) => x == i && facts.contains(&Fact::Length(n, array)),
                    _ => false,
                })
        }
    }
}

fn as_index(op: &Operand) -> Option<Index> {
    match op {
        Operand::Local(l) => Some(Index::Local(*l)),
        Operand::Const(Const::Int(v)) => Some(Index::Const(*v)),
        Operand::Const(_) => None,
    }
}

/// Updates `facts` across a statement, which may change arrays' lengths if `resizes`.
fn transfer(
    locals: &IdVec<LocalId, LocalDecl>,
    relevant: &IdVec<LocalId, bool>,
    facts: &mut Facts,
    kind: &StatementKind,
    resizes: bool,
) {
    if resizes {
        forget_array_lengths(locals, facts);
    }
    match kind {
        StatementKind::Assign(dest, rvalue) => {
            let new = assigned(locals, facts, *dest, rvalue);
            kill(facts, *dest);
            facts.extend(new.into_iter().filter(|f| f.locals().all(|l| relevant[l])));
        }
        StatementKind::SetIndex {
            array: Operand::Local(array),
            index,
            ..
        } => {
            // Past the access, its check passed.
            if let Some(index) = as_index(index) {
                facts.insert(Fact::InBounds(index, *array));
            }
        }
        StatementKind::Call {
            dest: Some(dest),
            callee,
            args,
        } => {
            kill(facts, *dest);
            if let (Callee::Builtin(Builtin::Len), [Operand::Local(a)]) = (callee, &args[..])
                && relevant[*dest]
            {
                facts.insert(Fact::Length(*dest, *a));
                facts.insert(Fact::NonNegative(*dest));
            }
        }
        _ => {}
    }
}

/// What holds after `dest = rvalue`, from what held before.
fn assigned(
    locals: &IdVec<LocalId, LocalDecl>,
    facts: &Facts,
    dest: LocalId,
    rvalue: &Rvalue,
) -> Vec<Fact> {
    let is_int = |op: &Operand| match op {
        Operand::Local(l) => locals[*l].ty == Type::Int,
        Operand::Const(c) => c.ty() == Type::Int,
    };
    let non_negative = |op: &Operand| match op {
        Operand::Local(l) => facts.contains(&Fact::NonNegative(*l)),
        Operand::Const(c) => matches!(c, Const::Int(v) if *v >= 0),
    };
    match rvalue {
        // A copy knows what its source knows (but not what the old value of `dest` did).
        Rvalue::Use(Operand::Local(src)) if *src != dest => facts
            .iter()
            .filter(|f| f.locals().any(|l| l == *src) && f.locals().all(|l| l != dest))
            .map(|f| f.renamed(*src, dest))
            .collect(),
        Rvalue::Use(op) if is_int(op) && non_negative(op) => vec![Fact::NonNegative(dest)],
        // `x + 1` does not overflow when `x < y` for some `y`.
        Rvalue::Binary(BinOp::Add, Operand::Local(x), Operand::Const(Const::Int(1)))
            if facts.contains(&Fact::NonNegative(*x))
                && facts
                    .iter()
                    .any(|f| matches!(f, Fact::Less(l, _) if l == x)) =>
        {
            vec![Fact::NonNegative(dest)]
        }
        // A mask with a non-negative int clears the sign bit.
        Rvalue::Binary(BinOp::BitAnd, x, y)
            if is_int(x) && (non_negative(x) || non_negative(y)) =>
        {
            vec![Fact::NonNegative(dest)]
        }
        Rvalue::Binary(op @ (BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge), x, y) if is_int(x) => {
            let (x, y) = match (as_index(x), as_index(y)) {
                (Some(x), Some(y)) if ![x, y].contains(&Index::Local(dest)) => (x, y),
                _ => return Vec::new(),
            };
            vec![match op {
                BinOp::Lt => Fact::Compares(dest, x, y, true),
                BinOp::Le => Fact::Compares(dest, x, y, false),
                BinOp::Gt => Fact::Compares(dest, y, x, true),
                _ => Fact::Compares(dest, y, x, false),
            }]
        }
        // Past the access, its check passed.
        Rvalue::Index {
            base: Operand::Local(array),
            index,
            ..
        } => as_index(index)
            .filter(|i| *i != Index::Local(dest) && dest != *array)
            .map(|i| Fact::InBounds(i, *array))
            .into_iter()
            .collect(),
        // A negative count fails, so past it the count is the length.
        Rvalue::ArrayRepeat {
            count: Operand::Local(n),
            ..
        } if *n != dest => vec![Fact::Length(*n, dest), Fact::NonNegative(*n)],
        _ => Vec::new(),
    }
}

/// Forgets every fact about `local`, which is being assigned.
fn kill(facts: &mut Facts, local: LocalId) {
    facts.retain(|f| f.locals().all(|l| l != local));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opt::testing::lower;

    /// Facts are kept about indices, arrays, compared locals and what they are computed from,
    /// not about a sum no access or comparison reads.
    #[test]
    fn facts_are_kept_only_about_what_an_access_or_comparison_reads() {
        let program = lower(
            "fn main() { let a = [1, 2, 3]; let s = 0; let v = 5; s += v; let k = 1; let i = k; \
             while i < 3 { s += a[i]; i += 1; } println(s); }",
        );
        let main = &program.functions[program.main];
        let relevant = relevant_locals(main);
        let named = |name: &str| {
            let l = main
                .locals
                .position(|d| d.name.as_deref() == Some(name))
                .unwrap();
            relevant[l]
        };
        let names = ["a", "i", "k", "s", "v"];
        assert_eq!(names.map(named), [true, true, true, false, false]);
    }

    /// A chain of `if`s does not carry each condition's comparison into the blocks after it.
    #[test]
    fn comparisons_do_not_outlive_their_branch() {
        let ifs: String = (0..50)
            .map(|i| format!("if x > {i} {{ x += 1; }} else {{ x -= 1; }} "))
            .collect();
        let program = lower(&main_with(&ifs));
        let main = &program.functions[program.main];
        let entry = analyze(main, &relevant_locals(main));
        let most = (entry.iter().flatten())
            .map(|facts| {
                facts
                    .iter()
                    .filter(|f| matches!(f, Fact::Compares(..)))
                    .count()
            })
            .max();
        assert_eq!(most, Some(0));
    }

    /// Loops in a row over one array: what each knew about its index ends with it, so no block
    /// knows more than a loop's worth of facts, and every access is still proved in bounds.
    #[test]
    fn facts_end_where_their_locals_die() {
        let loops = "for i in 0..len(a) { x += a[i]; } ".repeat(40);
        let source = main_with(&loops);
        let program = lower(&source);
        let main = &program.functions[program.main];
        let entry = analyze(main, &relevant_locals(main));
        let most = entry.iter().flatten().map(|facts| facts.len()).max();
        assert!(most.is_some_and(|m| m < 10), "{most:?}");
        assert!(checks(&source).iter().all(|&checked| !checked));
    }

    /// `n` is not read after `i < n`, but its length fact proves `a[i]` in the branch.
    #[test]
    fn a_length_compared_with_a_live_index_is_kept() {
        assert_eq!(
            checks(&main_with(
                "let n = len(a); let i = x; if i >= 0 && i < n { x = a[i]; }"
            )),
            [false]
        );
    }

    /// What is known of an array's length ends at a `push`, `pop`, `insert` or `remove`, and
    /// at a call of a function that may make one; not at a call of one that makes none.
    #[test]
    fn resizing_ends_what_is_known_of_lengths() {
        let source = "fn main() { let a = [1, 2, 3]; let x = 0;              for i in 0..len(a) { x += a[i]; pop(a); }              let n = len(a); let i = 0; while i < n { push(a, i); x += a[i]; i += 1; }              for i in 0..len(a) { x += a[i] + reads(a); }              for i in 0..len(a) { x += a[i] + grows(a); }              for i in 0..len(a) { x += a[i]; x += a[i]; } }
             fn reads(a: [int]) -> int { return a[0]; }
             fn grows(a: [int]) -> int { insert(a, 0, 1); return 0; }";
        expect_test::expect![[r#"
            [
                true,
                true,
                false,
                true,
                false,
                false,
            ]
        "#]]
        .assert_debug_eq(&checks(source));
    }

    /// Per element access of `main` in `source`, in block order, whether it keeps its check.
    fn checks(source: &str) -> Vec<bool> {
        let mut program = lower(source);
        program.note_steady_callees();
        let main = program.main;
        remove_bounds_checks(&mut program.functions[main]);
        program.functions[main]
            .blocks
            .iter()
            .flat_map(|b| &b.stmts)
            .filter_map(|s| match s.kind {
                StatementKind::Assign(_, Rvalue::Index { checked, .. })
                | StatementKind::SetIndex { checked, .. } => Some(checked),
                _ => None,
            })
            .collect()
    }

    fn main_with(body: &str) -> String {
        format!(
            "fn main() {{ let a = [1, 2, 3]; let b = [4, 5]; let s = \"pl\"; let x = 0; {body} }}"
        )
    }

    #[test]
    fn loops_bounded_by_the_length_need_no_check() {
        let for_loop = main_with("for i in 0..len(a) { x += a[i]; }");
        assert_eq!(checks(&for_loop), [false]);
        let while_loop = main_with("let n = len(s); let i = 0; while i < n { x += s[i]; i += 1; }");
        assert_eq!(checks(&while_loop), [false]);
        let reversed = main_with("let i = 0; while len(a) > i { a[i] = 0; i = i + 1; }");
        assert_eq!(checks(&reversed), [false]);
        let same_length = main_with("let n = x + 2; let c = [0; n]; for i in 0..n { c[i] = i; }");
        assert_eq!(checks(&same_length), [false]);
    }

    #[test]
    fn an_access_that_passed_covers_the_same_index_and_index_zero() {
        let twice = main_with("let p = x + 1; a[p] = (a[p] + 1) & 255; b[p] = a[0];");
        assert_eq!(checks(&twice), [true, false, false, true]);
        let guarded = main_with("let i = x * 7; if i < 0 || i >= len(b) { return; } x = b[i];");
        assert_eq!(checks(&guarded), [false]);
    }

    #[test]
    fn keeps_checks_it_cannot_prove() {
        for body in [
            // Another array, a start below zero, a bound past the end, a step that may overflow.
            "for i in 0..len(a) { x += b[i]; }",
            "for i in -1..len(a) { x += a[i]; }",
            "let i = 0; while i <= len(a) { x += a[i]; i += 1; }",
            "let i = 0; while i < len(a) { x += a[i]; i += 2; }",
            // The array or the index changes after the bound is known.
            "for i in 0..len(a) { a = b; x += a[i]; }",
            "let i = 0; while i < len(a) { i = x; x += a[i]; }",
            // Only one side of a comparison is known.
            "let i = x - 1; if i < len(a) { x += a[i]; }",
            "let n = x + 2; let c = [0; n]; n = 9; for i in 0..n { c[i] = i; }",
            "let i = x; if i >= 0 { x += a[i]; }",
        ] {
            assert!(checks(&main_with(body)).iter().all(|&c| c), "{body}");
        }
    }

    /// The pass on a whole function, as `--emit mir` shows it (`UPDATE_EXPECT=1` rewrites the
    /// snapshot): the loop's `a[i]` loses its check, `i < len(a)` proves it.
    #[test]
    fn snapshot() {
        let source = "fn f(a: [int]) -> int { let s = 0; let i = 0; \
                      while i < len(a) { s += a[i]; i += 1; } return s; }\nfn main() { println(f([1, 2])); }";
        expect_test::expect![[r#"
            before:
            fn f(_0: [int]) -> int {
                let _1: int;
                let _2: int;
                let _3: int;
                let _4: bool;
                let _5: int;
              bb0:
                _1 = 0
                _2 = 0
                goto bb1
              bb1:
                _3 = len(_0)
                _4 = _2 < _3
                branch _4 ? bb2 : bb3
              bb2:
                _5 = _0[_2]
                _1 = _1 + _5
                _2 = _2 + 1
                goto bb1
              bb3:
                return _1
            }
            after:
            fn f(_0: [int]) -> int {
                let _1: int;
                let _2: int;
                let _3: int;
                let _4: bool;
                let _5: int;
              bb0:
                _1 = 0
                _2 = 0
                goto bb1
              bb1:
                _3 = len(_0)
                _4 = _2 < _3
                branch _4 ? bb2 : bb3
              bb2:
                _5 = unchecked _0[_2]
                _1 = _1 + _5
                _2 = _2 + 1
                goto bb1
              bb3:
                return _1
            }
        "#]]
        .assert_eq(&crate::opt::testing::before_and_after(
            source,
            "f",
            remove_bounds_checks,
        ));
    }
}
