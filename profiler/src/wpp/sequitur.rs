//! Online SEQUITUR(1): builds, one terminal at a time, a grammar that generates exactly the input
//! ([WPP] §3.1, Fig. 3, with the one-symbol look-ahead of §3.2).
//!
//! Each input symbol is appended to the start rule, and then two properties are restored:
//! - *digram uniqueness*: no pair of adjacent symbols occurs twice (without overlapping) in the
//!   right-hand sides. A repeated digram is replaced by the non-terminal of a rule whose whole
//!   right-hand side it is — an existing one when one of the two occurrences already is such a
//!   rule, otherwise a new rule.
//! - *rule utility*: every rule but the start rule is referenced at least twice; a rule left with
//!   one reference is inlined there and deleted.
//!
//! **SEQUITUR(1)** (§3.2): when the repeated digram `x y` is the last two symbols of the start rule
//! and eliminating it would create a new rule, the builder first looks at the next input symbol
//! `l`. If `y l` is already the entire right-hand side of a rule, no rule is created: `l` is read,
//! that rule replaces `y l`, and `x y` no longer exists. Because [`Sequitur::push`] is online, the
//! look-ahead is implemented by leaving such a tail digram pending until the next `push` (or
//! [`Sequitur::finish`]) supplies `l`. Between pushes the only permitted violation of digram
//! uniqueness is that pending pair at the end of the start rule.
//!
//! Representation: an arena of 16-byte symbol nodes addressed by `u32` indices (no pointers, no
//! `unsafe`). Each rule is a circular doubly-linked list through a guard node. The digram index
//! (`digrams.rs`) is a hash table from a pair of symbol values to the node starting the
//! registered occurrence — the hash table that [WPP] §3.1's footnote says the linear-time bound
//! assumes. A flag on each node says whether the index points at it, so most removals need no
//! lookup.

use super::digrams::{DigramTable, Key};
use super::grammar::{Grammar, Symbol};
use std::collections::HashMap;

/// No node.
const NIL: u32 = u32::MAX;
/// Value tag of a non-terminal node (the low 32 bits are the rule).
const NT: u64 = 1 << 32;
/// Value tag of a rule's guard node (the low 32 bits are the rule).
const GUARD: u64 = 1 << 33;
/// Value of a node on the free list.
const FREE: u64 = 1 << 34;
/// Flag: the digram index points at this node.
const REG: u64 = 1 << 63;
/// The start rule is rule 0, and its guard is node 0.
const START: u32 = 0;

#[derive(Copy, Clone, Debug)]
struct Node {
    /// Symbol value (terminal, `NT | rule`, `GUARD | rule` or `FREE`), plus the `REG` flag.
    val: u64,
    prev: u32,
    next: u32,
}

#[derive(Copy, Clone, Debug)]
struct RuleSlot {
    /// The guard node, or `NIL` when the slot is free.
    guard: u32,
    uses: u32,
}

/// What is known about the next input symbol (§3.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum LookAhead {
    /// Not read yet: a tail digram that would need a new rule is left pending.
    Unknown,
    /// The next symbol is this terminal.
    Next(u64),
    /// There is no next symbol.
    End,
}

/// An online SEQUITUR(1) grammar builder over `u32` terminals.
///
/// ```
/// use pcc_profiler::wpp::Sequitur;
/// let mut s = Sequitur::new();
/// for c in "abcabcabcabc".bytes() {
///     s.push(u32::from(c));
/// }
/// let g = s.finish();
/// assert_eq!(g.expand(), "abcabcabcabc".bytes().map(u32::from).collect::<Vec<_>>());
/// assert_eq!(g.num_rules(), 3); // S -> A A, A -> B B, B -> a b c
/// ```
#[derive(Clone, Debug)]
pub struct Sequitur {
    nodes: Vec<Node>,
    free_nodes: Vec<u32>,
    rules: Vec<RuleSlot>,
    free_rules: Vec<u32>,
    index: DigramTable,
    /// Rules whose use count fell to one, each with its remaining reference (see `drop_use`).
    underused: Vec<(u32, u32)>,
    /// The rule whose reference `substitute` is putting in place of a digram.
    substituting: u32,
    /// The last two symbols of the start rule may be a repeated digram awaiting the look-ahead.
    tail_pending: bool,
    lookahead: LookAhead,
    pushed: u64,
}

impl Default for Sequitur {
    fn default() -> Self {
        Sequitur::new()
    }
}

impl Sequitur {
    pub fn new() -> Sequitur {
        let mut s = Sequitur {
            nodes: Vec::new(),
            free_nodes: Vec::new(),
            rules: Vec::new(),
            free_rules: Vec::new(),
            index: DigramTable::new(),
            underused: Vec::new(),
            substituting: NIL,
            tail_pending: false,
            lookahead: LookAhead::Unknown,
            pushed: 0,
        };
        let start = s.new_rule();
        debug_assert_eq!((start, s.rules[0].guard), (0, START));
        s
    }

    /// Appends one terminal to the input (the per-event call of the WPP runtime).
    pub fn push(&mut self, symbol: u32) {
        let t = u64::from(symbol);
        if self.tail_pending {
            // Now that the look-ahead is known, settle the pending tail digram (§3.2): either it
            // is eliminated here, or `y t` is a rule and appending `t` below will remove `y`.
            self.lookahead = LookAhead::Next(t);
            let x = self.prev(self.prev(START));
            self.check(x);
            self.tail_pending = false;
        }
        self.lookahead = LookAhead::Unknown;
        let n = self.alloc(t);
        let last = self.prev(START);
        self.insert_after(last, n);
        self.check(last);
        self.pushed += 1;
        debug_assert!(self.underused.is_empty());
    }

    /// Appends every symbol of `symbols`.
    pub fn extend<I: IntoIterator<Item = u32>>(&mut self, symbols: I) {
        for s in symbols {
            self.push(s);
        }
    }

    /// Number of symbols pushed so far (the trace length).
    pub fn len(&self) -> u64 {
        self.pushed
    }

    pub fn is_empty(&self) -> bool {
        self.pushed == 0
    }

    /// Number of symbols on the rules' right-hand sides, plus one per rule: what the grammar
    /// holds, which grows by one per symbol pushed while no digram repeats.
    pub fn size(&self) -> usize {
        self.nodes.len() - self.free_nodes.len()
    }

    /// Number of live rules, the start rule included.
    pub fn num_rules(&self) -> usize {
        self.rules.len() - self.free_rules.len()
    }

    /// Ends the input (no look-ahead remains) and returns the grammar.
    pub fn finish(mut self) -> Grammar {
        self.settle();
        self.snapshot()
    }

    /// Settles a pending tail digram as if the input had ended. After this the grammar satisfies
    /// both properties with no exception.
    fn settle(&mut self) {
        if self.tail_pending {
            self.lookahead = LookAhead::End;
            let x = self.prev(self.prev(START));
            self.check(x);
            self.tail_pending = false;
            self.lookahead = LookAhead::Unknown;
        }
    }

    /// The current grammar (with a pending tail digram left as it is), rules numbered in order of
    /// first reference from the start rule.
    pub fn snapshot(&self) -> Grammar {
        let mut new_id = vec![NIL; self.rules.len()];
        let mut order = vec![0u32];
        new_id[0] = 0;
        let mut rules = Vec::new();
        let mut i = 0;
        while i < order.len() {
            let guard = self.rules[order[i] as usize].guard;
            let mut rhs = Vec::new();
            let mut n = self.next(guard);
            while n != guard {
                let v = self.val(n);
                if v & NT != 0 {
                    let r = v as u32;
                    if new_id[r as usize] == NIL {
                        new_id[r as usize] = order.len() as u32;
                        order.push(r);
                    }
                    rhs.push(Symbol::Rule(new_id[r as usize]));
                } else {
                    rhs.push(Symbol::Terminal(v as u32));
                }
                n = self.next(n);
            }
            rules.push(rhs);
            i += 1;
        }
        Grammar::from_valid(rules)
    }

    // ---- node and rule arena -------------------------------------------------------------

    #[inline]
    fn val(&self, n: u32) -> u64 {
        self.nodes[n as usize].val & !REG
    }

    #[inline]
    fn next(&self, n: u32) -> u32 {
        self.nodes[n as usize].next
    }

    #[inline]
    fn prev(&self, n: u32) -> u32 {
        self.nodes[n as usize].prev
    }

    #[inline]
    fn is_guard(&self, n: u32) -> bool {
        self.nodes[n as usize].val & GUARD != 0
    }

    #[inline]
    fn link(&mut self, a: u32, b: u32) {
        self.nodes[a as usize].next = b;
        self.nodes[b as usize].prev = a;
    }

    fn alloc(&mut self, val: u64) -> u32 {
        let node = Node {
            val,
            prev: NIL,
            next: NIL,
        };
        match self.free_nodes.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                let i = u32::try_from(self.nodes.len())
                    .ok()
                    .filter(|&i| i != NIL)
                    .expect("SEQUITUR grammar exceeds 2^32 - 1 symbol nodes");
                self.nodes.push(node);
                i
            }
        }
    }

    fn release(&mut self, n: u32) {
        self.nodes[n as usize].val = FREE;
        self.free_nodes.push(n);
    }

    fn new_rule(&mut self) -> u32 {
        let r = match self.free_rules.pop() {
            Some(r) => r,
            None => {
                let r = u32::try_from(self.rules.len()).expect("too many rules");
                self.rules.push(RuleSlot {
                    guard: NIL,
                    uses: 0,
                });
                r
            }
        };
        let g = self.alloc(GUARD | u64::from(r));
        self.link(g, g);
        self.rules[r as usize] = RuleSlot { guard: g, uses: 0 };
        r
    }

    /// A new node for `val`; a non-terminal is counted as a use of its rule.
    fn new_symbol(&mut self, val: u64) -> u32 {
        if val & NT != 0 {
            self.rules[val as u32 as usize].uses += 1;
        }
        self.alloc(val)
    }

    /// Counts the removal of non-terminal node `n` (a symbol of a digram being replaced by
    /// `self.substituting`, or a rule reference being inlined).
    ///
    /// When this leaves the rule with one reference, that reference is in the right-hand side of
    /// `self.substituting`: that rule's right-hand side is, at this moment, exactly the digram
    /// being replaced, so it references the rule too. While the count stays at one the reference
    /// cannot move: replacing a digram that contains it would need a second reference, and
    /// inlining the rule around it moves nodes without copying them. So it is recorded here and
    /// inlined by `enforce_utility` without any search.
    fn drop_use(&mut self, n: u32) {
        let r = self.val(n) as u32;
        let slot = &mut self.rules[r as usize];
        slot.uses -= 1;
        if slot.uses == 1 {
            debug_assert_ne!(
                self.substituting, NIL,
                "only `substitute` can leave one use"
            );
            if self.substituting != NIL {
                let g = self.rules[self.substituting as usize].guard;
                let first = self.next(g);
                let remaining = if self.val(first) == NT | u64::from(r) {
                    first
                } else {
                    self.next(first)
                };
                debug_assert_eq!(self.val(remaining), NT | u64::from(r));
                self.underused.push((r, remaining));
            }
        }
    }

    /// Whether the digram starting at `m` is the whole right-hand side of a rule other than the
    /// start rule.
    #[inline]
    fn is_whole_rule(&self, m: u32) -> bool {
        let g = self.prev(m);
        g != START && self.is_guard(g) && self.is_guard(self.next(self.next(m)))
    }

    // ---- digram index --------------------------------------------------------------------

    /// The digram starting at node `n` (whose successor is not a guard).
    #[inline]
    fn key_of(nodes: &[Node], n: u32) -> Key {
        let node = &nodes[n as usize];
        (node.val & !REG, nodes[node.next as usize].val & !REG)
    }

    /// Looks `key` up: `Ok(slot)` where it is registered, or `Err(empty slot)`.
    #[inline]
    fn lookup(&self, key: Key, tag: u32) -> Result<usize, usize> {
        let nodes = &self.nodes;
        self.index.find(key, tag, |n| Self::key_of(nodes, n))
    }

    /// The node registered for `key`, if any.
    fn registered(&self, key: Key) -> Option<u32> {
        self.lookup(key, DigramTable::tag(key))
            .ok()
            .map(|slot| self.index.node(slot))
    }

    /// Points the index at `n` for `key`, clearing the flag of the node it pointed at before.
    fn register(&mut self, key: Key, n: u32) {
        let tag = DigramTable::tag(key);
        match self.lookup(key, tag) {
            Ok(slot) => {
                let old = self.index.node(slot);
                self.nodes[old as usize].val &= !REG;
                self.index.set_node(slot, n);
            }
            Err(slot) => self.index.insert_at(slot, tag, n),
        }
        self.nodes[n as usize].val |= REG;
    }

    /// Removes the index entry of the digram starting at `n` if it points at `n`; returns its key.
    #[inline]
    fn forget(&mut self, n: u32) -> Option<Key> {
        if self.nodes[n as usize].val & REG == 0 {
            return None;
        }
        self.nodes[n as usize].val &= !REG;
        let key = Self::key_of(&self.nodes, n);
        let removed = self.index.remove(DigramTable::tag(key), n);
        debug_assert!(removed);
        Some(key)
    }

    /// After the registered occurrence of `key` disappeared: the digram at `n` is intact and may
    /// have gone unregistered only because it overlapped that occurrence (a run `a a a`), so it
    /// takes its place when it has the same key.
    fn reregister_if_same(&mut self, n: u32, key: Key) {
        if n == NIL || self.is_guard(n) || self.nodes[n as usize].val & FREE != 0 {
            return;
        }
        let r = self.next(n);
        if self.is_guard(r) || (self.val(n), self.val(r)) != key {
            return;
        }
        let tag = DigramTable::tag(key);
        if let Err(slot) = self.lookup(key, tag) {
            self.index.insert_at(slot, tag, n);
            self.nodes[n as usize].val |= REG;
        }
    }

    // ---- structural edits ----------------------------------------------------------------

    /// Links the unlinked node `x` after `pos`. The new digrams are left for the caller to check.
    fn insert_after(&mut self, pos: u32, x: u32) {
        let right = self.next(pos);
        let broken = self.forget(pos);
        self.link(x, right);
        self.link(pos, x);
        if let Some(key) = broken {
            let before = self.prev(pos);
            self.reregister_if_same(before, key);
            self.reregister_if_same(right, key);
        }
    }

    /// Unlinks and frees `x`. The digram formed by its neighbours is left for the caller.
    fn remove_node(&mut self, x: u32) {
        let l = self.prev(x);
        let r = self.next(x);
        let left_key = self.forget(l);
        let right_key = self.forget(x);
        self.link(l, r);
        if let Some(key) = left_key {
            let before = self.prev(l);
            self.reregister_if_same(before, key);
        }
        if let Some(key) = right_key {
            self.reregister_if_same(r, key);
        }
        if self.val(x) & NT != 0 {
            self.drop_use(x);
        }
        self.release(x);
    }

    /// Replaces the digram starting at `occ` with a reference to `rule`, then checks the two
    /// digrams this creates.
    fn substitute(&mut self, occ: u32, rule: u32) {
        let q = self.prev(occ);
        let second = self.next(occ);
        self.substituting = rule;
        self.remove_node(second);
        self.remove_node(occ);
        self.substituting = NIL;
        let nt = self.new_symbol(NT | u64::from(rule));
        self.insert_after(q, nt);
        if !self.check(q) {
            self.check(nt);
        }
    }

    /// Restores digram uniqueness for the digram starting at `n` (Fig. 3's inner loop). Returns
    /// whether the grammar changed. Safe on any live node: it registers an unregistered digram,
    /// ignores one already registered or overlapping its registered twin, and eliminates a repeat.
    fn check(&mut self, n: u32) -> bool {
        if self.nodes[n as usize].val & (GUARD | FREE) != 0 {
            return false;
        }
        let r = self.next(n);
        if self.is_guard(r) {
            return false;
        }
        let key = (self.val(n), self.val(r));
        let tag = DigramTable::tag(key);
        let m = match self.lookup(key, tag) {
            Err(slot) => {
                self.index.insert_at(slot, tag, n);
                self.nodes[n as usize].val |= REG;
                return false;
            }
            Ok(slot) => self.index.node(slot),
        };
        if m == n || self.next(m) == n || m == r {
            // The same occurrence, or two overlapping ones (`a a a`): no repetition.
            return false;
        }
        if self.next(r) == START && !self.is_whole_rule(m) && self.wait_for_lookahead(r) {
            self.tail_pending = true;
            return false;
        }
        self.match_digram(n, m);
        true
    }

    /// SEQUITUR(1) (§3.2): the repeated digram `x y` ends the start rule, `y` being node `y`, and
    /// eliminating it needs a new rule. Hold off when the look-ahead is unknown, or when `y l` is
    /// already a rule's whole right-hand side.
    fn wait_for_lookahead(&self, y: u32) -> bool {
        match self.lookahead {
            LookAhead::Unknown => true,
            LookAhead::End => false,
            LookAhead::Next(l) => self
                .registered((self.val(y), l))
                .is_some_and(|p| self.is_whole_rule(p)),
        }
    }

    /// Eliminates the repetition of the digram at `n` (new) and `m` (registered), Fig. 3.
    fn match_digram(&mut self, n: u32, m: u32) {
        if self.is_whole_rule(m) {
            let rule = self.val(self.prev(m)) as u32;
            self.substitute(n, rule);
        } else if self.is_whole_rule(n) {
            // "If one occurrence of D is the right side of rule R": either occurrence counts.
            let rule = self.val(self.prev(n)) as u32;
            let key = (self.val(n), self.val(self.next(n)));
            self.register(key, n);
            self.substitute(m, rule);
        } else {
            let rule = self.new_rule();
            let (a, b) = (self.val(n), self.val(self.next(n)));
            let first = self.new_symbol(a);
            let second = self.new_symbol(b);
            let g = self.rules[rule as usize].guard;
            self.link(g, first);
            self.link(first, second);
            self.link(second, g);
            // Registered before the substitutions so that any copy of `a b` created meanwhile
            // is recognized as this rule.
            self.register((a, b), first);
            // `rule` is new, so the digrams around it are new: this cannot cascade, and `n`
            // is untouched by it.
            self.substitute(m, rule);
            self.substitute(n, rule);
        }
        self.enforce_utility();
    }

    /// Rule utility: inlines every rule left with a single reference.
    fn enforce_utility(&mut self) {
        while let Some((r, reference)) = self.underused.pop() {
            let slot = self.rules[r as usize];
            if slot.guard != NIL && slot.uses == 1 {
                let reference = if self.nodes[reference as usize].val & !REG == NT | u64::from(r) {
                    reference
                } else {
                    // Unreachable by the argument in `drop_use`; kept as a safety net.
                    debug_assert!(false, "lost the last reference of rule {r}");
                    self.find_reference(r)
                };
                self.expand(reference);
            }
        }
    }

    /// A reference to rule `r`, by scanning the live nodes.
    fn find_reference(&self, r: u32) -> u32 {
        let want = NT | u64::from(r);
        (0..self.nodes.len() as u32)
            .find(|&n| self.nodes[n as usize].val & !REG == want)
            .unwrap_or_else(|| unreachable!("rule {r} has a use but no reference"))
    }

    /// Replaces the non-terminal node `o` by its rule's right-hand side (moving the nodes, so
    /// their index entries stay valid) and deletes the rule.
    fn expand(&mut self, o: u32) {
        let rule = self.val(o) as u32;
        let g = self.rules[rule as usize].guard;
        let (l, r) = (self.prev(o), self.next(o));
        let (first, last) = (self.next(g), self.prev(g));
        let left_key = self.forget(l);
        let right_key = self.forget(o);
        self.drop_use(o);
        self.release(o);
        self.link(l, first);
        self.link(last, r);
        self.release(g);
        self.rules[rule as usize].guard = NIL;
        self.free_rules.push(rule);
        if let Some(key) = left_key {
            let before = self.prev(l);
            self.reregister_if_same(before, key);
        }
        if let Some(key) = right_key {
            self.reregister_if_same(r, key);
        }
        self.check(last);
        if self.nodes[l as usize].val & FREE == 0 {
            self.check(l);
        }
    }

    // ---- invariants (for tests) ----------------------------------------------------------

    /// Verifies the data structure and both SEQUITUR properties, returning a description of
    /// the first violation. The only exception allowed is the pending tail digram of
    /// SEQUITUR(1)'s look-ahead. O(grammar size); meant for tests.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut seen_nodes = vec![false; self.nodes.len()];
        let mut uses = vec![0u32; self.rules.len()];
        let mut digrams: HashMap<Key, Vec<u32>> = HashMap::new();
        let mut live_rules = 0;
        for (r, slot) in self.rules.iter().enumerate() {
            if slot.guard == NIL {
                continue;
            }
            live_rules += 1;
            let g = slot.guard;
            if self.val(g) != GUARD | r as u64 {
                return Err(format!("rule {r}: bad guard"));
            }
            seen_nodes[g as usize] = true;
            let mut len = 0;
            let mut n = self.next(g);
            let mut p = g;
            while n != g {
                if seen_nodes[n as usize] {
                    return Err(format!("rule {r}: node {n} linked twice"));
                }
                seen_nodes[n as usize] = true;
                if self.prev(n) != p {
                    return Err(format!("rule {r}: broken back link at node {n}"));
                }
                let v = self.nodes[n as usize].val;
                if v & (GUARD | FREE) != 0 {
                    return Err(format!("rule {r}: node {n} is a guard or free"));
                }
                let v = v & !REG;
                if v & NT != 0 {
                    let c = v as u32 as usize;
                    if c >= self.rules.len() || self.rules[c].guard == NIL || c == 0 {
                        return Err(format!("rule {r}: reference to dead rule {c}"));
                    }
                    uses[c] += 1;
                }
                if !self.is_guard(self.next(n)) {
                    let key = (v, self.val(self.next(n)));
                    digrams.entry(key).or_default().push(n);
                }
                let registered = self.nodes[n as usize].val & REG != 0;
                let in_index = !self.is_guard(self.next(n))
                    && self.registered((v, self.val(self.next(n)))) == Some(n);
                if registered != in_index {
                    return Err(format!("node {n}: REG flag disagrees with the index"));
                }
                len += 1;
                p = n;
                n = self.next(n);
            }
            if self.prev(g) != p {
                return Err(format!("rule {r}: broken back link at guard"));
            }
            if r != 0 && len < 2 {
                return Err(format!("rule {r} has {len} symbols"));
            }
        }
        if live_rules != self.num_rules() {
            return Err("free-rule list disagrees with the rule slots".into());
        }
        for (r, slot) in self.rules.iter().enumerate() {
            if slot.guard == NIL {
                continue;
            }
            if slot.uses != uses[r] {
                return Err(format!(
                    "rule {r}: use count {} but {} references",
                    slot.uses, uses[r]
                ));
            }
            if r != 0 && uses[r] < 2 {
                return Err(format!(
                    "rule utility: rule {r} is used {} time(s)",
                    uses[r]
                ));
            }
        }
        for (i, node) in self.nodes.iter().enumerate() {
            if !seen_nodes[i] && node.val != FREE {
                return Err(format!("node {i} is neither linked nor free"));
            }
        }
        if self.free_nodes.len() != self.nodes.iter().filter(|n| n.val == FREE).count() {
            return Err("free-node list disagrees with the nodes".into());
        }
        for (tag, n) in self.index.entries() {
            if !seen_nodes[n as usize] || self.is_guard(n) || self.is_guard(self.next(n)) {
                return Err(format!("index entry -> {n} is stale"));
            }
            let key = Self::key_of(&self.nodes, n);
            if tag != DigramTable::tag(key) || self.registered(key) != Some(n) {
                return Err(format!("index entry {key:?} -> {n} is misplaced"));
            }
        }
        if self.index.len() != self.index.entries().count() {
            return Err("index length is wrong".into());
        }
        let pending_tail = if self.tail_pending && !self.is_guard(self.prev(START)) {
            Some(self.prev(self.prev(START))).filter(|&x| !self.is_guard(x))
        } else {
            None
        };
        for (key, occurrences) in &digrams {
            let registered = self.registered(*key);
            let rest: Vec<u32> = occurrences
                .iter()
                .copied()
                .filter(|&n| Some(n) != pending_tail)
                .collect();
            if rest.is_empty() {
                continue;
            }
            let Some(reg) = registered else {
                return Err(format!("digram {key:?} is not indexed"));
            };
            for &n in &rest {
                if n != reg && self.next(n) != reg && self.next(reg) != n {
                    return Err(format!(
                        "digram uniqueness: {key:?} occurs at nodes {reg} and {n}"
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses a grammar written as in the paper: `S` is the start rule, other capitals are
    /// rules, everything else is a terminal (its character code).
    fn paper(rules: &[&str]) -> Grammar {
        let names: Vec<char> = rules.iter().map(|r| r.chars().next().unwrap()).collect();
        assert_eq!(names[0], 'S');
        let rules = rules
            .iter()
            .map(|r| {
                let rhs = r.split("->").nth(1).unwrap();
                rhs.chars()
                    .filter(|c| !c.is_whitespace())
                    .map(|c| match names.iter().position(|&n| n == c) {
                        Some(i) => Symbol::Rule(i as u32),
                        None => Symbol::Terminal(c as u32),
                    })
                    .collect()
            })
            .collect();
        Grammar::new(rules).unwrap().canonical()
    }

    fn build(input: &str) -> Grammar {
        let mut s = Sequitur::new();
        for c in input.chars() {
            s.push(c as u32);
            s.check_invariants().unwrap();
        }
        let g = s.finish();
        assert_eq!(
            g.expand(),
            input.chars().map(|c| c as u32).collect::<Vec<_>>()
        );
        g
    }

    #[test]
    fn section_3_abc() {
        // §3 prints S -> AAB, A -> BB, B -> abc (11 symbols against 15), which generates five
        // copies of abc; for the four copies printed, S -> AA.
        assert_eq!(
            build("abcabcabcabc"),
            paper(&["S -> AA", "A -> BB", "B -> abc"])
        );
        let five = build("abcabcabcabcabc");
        assert_eq!(five, paper(&["S -> AAB", "A -> BB", "B -> abc"]));
        assert_eq!(five.size() + five.num_rules() as u64, 11);
    }

    #[test]
    fn section_3_1_examples() {
        // S -> abca + b: both "ab" become a new rule A.
        assert_eq!(build("abcab"), paper(&["S -> AcA", "A -> ab"]));
        // The paper then shows S -> BCBA, A -> ab, B -> Ac, C -> Ad for abcabdabcab as an
        // illustration; it is not a state SEQUITUR reaches (C is used once, and Ad never
        // repeats). The algorithm gives:
        assert_eq!(
            build("abcabdabcab"),
            paper(&["S -> CdC", "C -> AcA", "A -> ab"])
        );
        // A final d gives the paper's end result: S -> DD with B and C inlined into D.
        assert_eq!(
            build("abcabdabcabd"),
            paper(&["S -> DD", "A -> ab", "D -> AcAd"])
        );
    }

    #[test]
    fn section_3_2_sequitur_1() {
        // SEQUITUR(1) on 11111211111: S -> C2C, A -> 11, C -> AA1.
        assert_eq!(
            build("11111211111"),
            paper(&["S -> C2C", "A -> 11", "C -> AA1"])
        );
    }

    #[test]
    fn runs_and_small_cases() {
        for input in [
            "",
            "a",
            "aa",
            "aaa",
            "aaaa",
            "aaaaa",
            "abab",
            "aabaab",
            "abbbabcbb",
        ] {
            build(input);
        }
        assert_eq!(build("aaaa"), paper(&["S -> AA", "A -> aa"]));
    }
}
