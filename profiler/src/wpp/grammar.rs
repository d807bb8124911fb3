//! A finished SEQUITUR grammar and the analyses that work on it without expanding it.
//!
//! Rule 0 is the start rule; every other rule is a non-terminal referenced from some right-hand
//! side. Seen as a graph whose nodes are rules and whose ordered edges are the non-terminal
//! occurrences of each right-hand side, the grammar is the *whole program path* DAG of [WPP] §3.3:
//! interior nodes are rules, leaves are terminals (acyclic paths), and a node's execution
//! frequency is the number of DAG paths from the start rule to it.
//!
//! A [`Grammar`] is always valid: every constructor (including deserialization) checks that rule
//! references are in range, that the start rule is not referenced, that no non-start rule is
//! empty, that the rules form no cycle, and that the expanded trace length fits in a `u64`. So
//! the analyses below never panic and never overflow, and all of them are iterative (a grammar
//! can be as deep as it has rules).

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::OnceCell;
use std::collections::HashMap;
use std::fmt;

/// One symbol of a right-hand side: a terminal (an acyclic-path symbol) or a reference to a rule.
///
/// In JSON a terminal is a number and a rule reference a string `"R<n>"`, so a rule reads like
/// `[ "R1", 4, "R1" ]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symbol {
    Terminal(u32),
    Rule(u32),
}

impl Serialize for Symbol {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            Symbol::Terminal(t) => serializer.serialize_u32(t),
            Symbol::Rule(r) => serializer.collect_str(&format_args!("R{r}")),
        }
    }
}

impl<'de> Deserialize<'de> for Symbol {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Symbol, D::Error> {
        struct SymbolVisitor;

        impl Visitor<'_> for SymbolVisitor {
            type Value = Symbol;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a terminal (a number below 2^32) or a rule reference \"R<n>\"")
            }

            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Symbol, E> {
                u32::try_from(v)
                    .map(Symbol::Terminal)
                    .map_err(|_| E::custom(format!("terminal {v} does not fit in 32 bits")))
            }

            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Symbol, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format!("negative terminal {v}")))
                    .and_then(|v| self.visit_u64(v))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Symbol, E> {
                v.strip_prefix('R')
                    .filter(|digits| {
                        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
                    })
                    .and_then(|digits| digits.parse::<u32>().ok())
                    .map(Symbol::Rule)
                    .ok_or_else(|| E::custom(format!("bad rule reference {v:?}")))
            }
        }

        deserializer.deserialize_any(SymbolVisitor)
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Symbol::Terminal(t) => write!(f, "{t}"),
            Symbol::Rule(r) => write!(f, "R{r}"),
        }
    }
}

/// Why a list of rules is not a usable grammar.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GrammarError {
    /// There is no start rule (the list of rules is empty).
    #[error("grammar has no start rule")]
    NoStartRule,
    /// `rules[rule][position]` names a rule that does not exist.
    #[error("rule R{rule}, symbol {position}: reference to R{target}, which does not exist")]
    UnknownRule {
        rule: u32,
        position: usize,
        target: u32,
    },
    /// `rules[rule][position]` refers to the start rule, which must be the root of the DAG.
    #[error("rule R{rule}, symbol {position}: the start rule R0 cannot be referenced")]
    StartReferenced { rule: u32, position: usize },
    /// A non-start rule has an empty right-hand side.
    #[error("rule R{rule} is empty")]
    EmptyRule { rule: u32 },
    /// The rules are not acyclic; `rule` lies on a cycle or below one.
    #[error("rules are cyclic (R{rule} is on or below a cycle)")]
    Cycle { rule: u32 },
    /// The expansion of `rule` would be longer than 2^64 - 1 symbols.
    #[error("rule R{rule} expands to more than 2^64 - 1 symbols")]
    TooLong { rule: u32 },
}

/// A validated context-free grammar generating exactly one string, the acyclic-path trace.
///
/// Serialized as the bare list of right-hand sides (`[[...], [...]]`, rule 0 first); reading one
/// back validates it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Vec<Vec<Symbol>>", into = "Vec<Vec<Symbol>>")]
pub struct Grammar {
    rules: Vec<Vec<Symbol>>,
    /// What validation computes anyway, kept: the analyses and the runtime's rejoining of
    /// pieces each need them, and a large grammar's rules are far apart in memory.
    order: Vec<u32>,
    lengths: Vec<u64>,
}

impl TryFrom<Vec<Vec<Symbol>>> for Grammar {
    type Error = GrammarError;

    fn try_from(rules: Vec<Vec<Symbol>>) -> Result<Grammar, GrammarError> {
        Grammar::new(rules)
    }
}

impl From<Grammar> for Vec<Vec<Symbol>> {
    fn from(g: Grammar) -> Vec<Vec<Symbol>> {
        g.rules
    }
}

impl Grammar {
    /// Checks `rules` (rule 0 is the start rule) and makes a grammar of them.
    pub fn new(rules: Vec<Vec<Symbol>>) -> Result<Grammar, GrammarError> {
        let (order, lengths) = validate(&rules)?;
        Ok(Grammar {
            rules,
            order,
            lengths,
        })
    }

    /// For builders that construct valid grammars by design (SEQUITUR, renumbering).
    pub(crate) fn from_valid(rules: Vec<Vec<Symbol>>) -> Grammar {
        Grammar::new(rules).expect("a valid grammar by construction")
    }

    /// The right-hand sides; index 0 is the start rule.
    pub fn rules(&self) -> &[Vec<Symbol>] {
        &self.rules
    }

    /// The right-hand side of the start rule.
    pub fn start(&self) -> &[Symbol] {
        &self.rules[0]
    }

    pub fn num_rules(&self) -> usize {
        self.rules.len()
    }

    /// Grammar size: the number of symbols on all right-hand sides. ([WPP] §3 counts one more
    /// symbol per rule for its left side; that is `size() + num_rules()`.)
    pub fn size(&self) -> u64 {
        self.rules.iter().map(|r| r.len() as u64).sum()
    }

    /// Length of the string the grammar generates (the number of acyclic paths in the trace).
    pub fn trace_length(&self) -> u64 {
        self.rule_lengths()[0]
    }

    /// `trace_length / size`, the compression the grammar achieves ([WPP] Table 1 uses file sizes).
    pub fn compression_ratio(&self) -> f64 {
        let size = self.size();
        if size == 0 {
            1.0
        } else {
            self.trace_length() as f64 / size as f64
        }
    }

    /// Expansion length of every rule.
    pub fn rule_lengths(&self) -> &[u64] {
        &self.lengths
    }

    /// All rules, each after every rule that references it (so the start rule first, and
    /// children after parents). Unreachable rules are included.
    pub fn topological_order(&self) -> &[u32] {
        &self.order
    }

    /// The whole trace, expanded iteratively.
    pub fn expand(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(usize::try_from(self.trace_length()).unwrap_or(0));
        out.extend(self.iter());
        out
    }

    /// The trace as a stream of terminals, without materializing it.
    pub fn iter(&self) -> Expansion<'_> {
        self.iter_rule(0)
    }

    /// The expansion of one rule as a stream. Panics if `rule` does not exist.
    pub fn iter_rule(&self, rule: u32) -> Expansion<'_> {
        assert!((rule as usize) < self.rules.len(), "no rule R{rule}");
        Expansion {
            rules: &self.rules,
            stack: vec![(rule, 0)],
        }
    }

    /// How many times each rule is referenced from right-hand sides (the quantity the rule
    /// utility property of [WPP] §3.1 keeps at two or more).
    pub fn use_counts(&self) -> Vec<u64> {
        let mut uses = vec![0u64; self.rules.len()];
        for rhs in &self.rules {
            for s in rhs {
                if let Symbol::Rule(r) = *s {
                    uses[r as usize] += 1;
                }
            }
        }
        uses
    }

    /// Execution frequency of every rule: the number of DAG paths from the start rule to it
    /// ([WPP] §3.3, the numbers in Fig. 5) — how many times its expansion occurs in the trace as that
    /// rule. Unreachable rules have frequency 0.
    pub fn frequencies(&self) -> Vec<u64> {
        let mut freq = vec![0u64; self.rules.len()];
        freq[0] = 1;
        for &r in self.topological_order() {
            let f = freq[r as usize];
            if f == 0 {
                continue;
            }
            for s in &self.rules[r as usize] {
                if let Symbol::Rule(c) = *s {
                    freq[c as usize] = freq[c as usize].saturating_add(f);
                }
            }
        }
        freq
    }

    /// How many times `pattern` occurs (overlaps included) in the trace: the execution frequency
    /// of a sequence of acyclic paths ([WPP] §3.3), computed on the DAG without expanding it.
    ///
    /// Each occurrence has a unique lowest rule instance containing it, so the count is a sum
    /// over the rules, each rule's share multiplied by its frequency; this generalizes §3.3's
    /// observation that a sequence with a least common ancestor occurs as often as that node.
    /// [`Occurrences`] says how the shares are counted. An empty pattern occurs 0 times.
    pub fn occurrences(&self, pattern: &[u32]) -> Result<u64, IndexTooLarge> {
        Ok(Occurrences::new(self, pattern.len())?.count(pattern))
    }

    /// The first and last `limit` terminals of every rule's expansion (the whole expansion when
    /// it is shorter), computed children first.
    pub(crate) fn limited_ends(
        &self,
        order: &[u32],
        limit: usize,
    ) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
        let n = self.rules.len();
        let mut prefixes: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut suffixes: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &r in order.iter().rev() {
            let r = r as usize;
            let mut prefix = Vec::with_capacity(limit);
            for s in &self.rules[r] {
                if prefix.len() >= limit {
                    break;
                }
                match *s {
                    Symbol::Terminal(t) => prefix.push(t),
                    Symbol::Rule(c) => {
                        let take = (limit - prefix.len()).min(prefixes[c as usize].len());
                        prefix.extend_from_slice(&prefixes[c as usize][..take]);
                    }
                }
            }
            // Built backwards, then reversed.
            let mut suffix = Vec::with_capacity(limit);
            for s in self.rules[r].iter().rev() {
                if suffix.len() >= limit {
                    break;
                }
                match *s {
                    Symbol::Terminal(t) => suffix.push(t),
                    Symbol::Rule(c) => {
                        let child = &suffixes[c as usize];
                        let take = (limit - suffix.len()).min(child.len());
                        suffix.extend(child[child.len() - take..].iter().rev());
                    }
                }
            }
            suffix.reverse();
            prefixes[r] = prefix;
            suffixes[r] = suffix;
        }
        (prefixes, suffixes)
    }

    /// The same grammar with rules renumbered in order of first reference (breadth first from the
    /// start rule, left to right) and unreachable rules dropped. Two grammars that differ only in
    /// the names of their non-terminals have equal canonical forms.
    pub fn canonical(&self) -> Grammar {
        let mut new_id = vec![u32::MAX; self.rules.len()];
        let mut order = vec![0u32];
        new_id[0] = 0;
        let mut i = 0;
        while i < order.len() {
            for s in &self.rules[order[i] as usize] {
                if let Symbol::Rule(c) = *s
                    && new_id[c as usize] == u32::MAX
                {
                    new_id[c as usize] = order.len() as u32;
                    order.push(c);
                }
            }
            i += 1;
        }
        let rules = order
            .iter()
            .map(|&r| {
                self.rules[r as usize]
                    .iter()
                    .map(|s| match *s {
                        Symbol::Rule(c) => Symbol::Rule(new_id[c as usize]),
                        t => t,
                    })
                    .collect()
            })
            .collect();
        Grammar::from_valid(rules)
    }

    /// One past the largest terminal used (0 when there are none): the symbol table must be at
    /// least this long.
    pub fn terminal_bound(&self) -> u64 {
        self.rules
            .iter()
            .flatten()
            .filter_map(|s| match *s {
                Symbol::Terminal(t) => Some(u64::from(t) + 1),
                Symbol::Rule(_) => None,
            })
            .max()
            .unwrap_or(0)
    }
}

impl fmt::Display for Grammar {
    /// One rule per line: `R0 -> R1 7 R1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (r, rhs) in self.rules.iter().enumerate() {
            write!(f, "R{r} ->")?;
            for s in rhs {
                write!(f, " {s}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Streams a rule's expansion with an explicit stack (no recursion). A frame whose last symbol
/// is a rule is replaced by that rule's frame, so a right-recursive chain needs O(1) stack.
#[derive(Clone, Debug)]
pub struct Expansion<'a> {
    rules: &'a [Vec<Symbol>],
    stack: Vec<(u32, usize)>,
}

impl Iterator for Expansion<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        loop {
            let (rule, pos) = self.stack.last_mut()?;
            let rhs = &self.rules[*rule as usize];
            let Some(&sym) = rhs.get(*pos) else {
                self.stack.pop();
                continue;
            };
            *pos += 1;
            let last = *pos == rhs.len();
            match sym {
                Symbol::Terminal(t) => {
                    if last {
                        self.stack.pop();
                    }
                    return Some(t);
                }
                Symbol::Rule(c) => {
                    if last {
                        self.stack.pop();
                    }
                    self.stack.push((c, 0));
                }
            }
        }
    }
}

/// Checks `rules`; returns their topological order and the length of each rule's expansion.
fn validate(rules: &[Vec<Symbol>]) -> Result<(Vec<u32>, Vec<u64>), GrammarError> {
    if rules.is_empty() {
        return Err(GrammarError::NoStartRule);
    }
    for (r, rhs) in rules.iter().enumerate() {
        if r != 0 && rhs.is_empty() {
            return Err(GrammarError::EmptyRule { rule: r as u32 });
        }
        for (position, s) in rhs.iter().enumerate() {
            if let Symbol::Rule(target) = *s {
                if target as usize >= rules.len() {
                    return Err(GrammarError::UnknownRule {
                        rule: r as u32,
                        position,
                        target,
                    });
                }
                if target == 0 {
                    return Err(GrammarError::StartReferenced {
                        rule: r as u32,
                        position,
                    });
                }
            }
        }
    }
    let order = topological_order(rules)?;
    let lengths = lengths(rules, &order)?;
    Ok((order, lengths))
}

/// Kahn's algorithm over all rules (references already known to be in range).
fn topological_order(rules: &[Vec<Symbol>]) -> Result<Vec<u32>, GrammarError> {
    let n = rules.len();
    let mut indegree = vec![0u64; n];
    for rhs in rules {
        for s in rhs {
            if let Symbol::Rule(c) = *s {
                indegree[c as usize] += 1;
            }
        }
    }
    let mut order: Vec<u32> = (0..n as u32)
        .filter(|&r| indegree[r as usize] == 0)
        .collect();
    let mut i = 0;
    while i < order.len() {
        let r = order[i] as usize;
        for s in &rules[r] {
            if let Symbol::Rule(c) = *s {
                indegree[c as usize] -= 1;
                if indegree[c as usize] == 0 {
                    order.push(c);
                }
            }
        }
        i += 1;
    }
    if order.len() < n {
        let rule = (0..n).find(|&r| indegree[r] > 0).unwrap_or(0) as u32;
        return Err(GrammarError::Cycle { rule });
    }
    Ok(order)
}

fn lengths(rules: &[Vec<Symbol>], order: &[u32]) -> Result<Vec<u64>, GrammarError> {
    let mut len = vec![0u64; rules.len()];
    for &r in order.iter().rev() {
        let mut total = 0u64;
        for s in &rules[r as usize] {
            let add = match *s {
                Symbol::Terminal(_) => 1,
                Symbol::Rule(c) => len[c as usize],
            };
            total = total
                .checked_add(add)
                .ok_or(GrammarError::TooLong { rule: r })?;
        }
        len[r as usize] = total;
    }
    Ok(len)
}

/// [`Grammar::occurrences`] for many patterns of at most `max_len` terminals, each counted in
/// O(`max_len` · log N) once an index of N = O(|G| · `max_len`) entries is made, in
/// O(N · log `max_len`).
///
/// Every occurrence of a pattern of `k ≥ 2` terminals lies lowest in one rule instance, where it
/// spans two or more right-hand-side symbols. Write each rule's right-hand side out as a *text*:
/// its terminals, and for each child the child's *ends* (its first `max_len - 1` terminals, and,
/// when the child is longer, a cut and its last `max_len - 1`). The matches in a rule's text are
/// the spanning ones plus those inside one child's ends, so
///
/// ```text
/// occurrences(p) = Σ_rules freq(r) · matches(p, text(r)) − Σ_children freq(c) · matches(p, ends(c))
/// ```
///
/// since a child is entered `freq(c)` times in all from its parents' texts. That makes the count
/// one weighted count over a fixed collection of texts, whatever the pattern: the positions of all
/// texts are sorted by the `max_len` terminals that start there (a suffix array cut at `max_len`),
/// a pattern's matches are one range of that order, and prefix sums of the weights give the range's
/// total. Matches starting in a long child's first terminals end before its cut, so they cancel
/// out; those positions are left out of the order, and a child's ends keep only its last terminals.
/// A single terminal is counted without the index: the sum of the frequencies of the rules it is
/// on the right-hand side of.
pub struct Occurrences<'g> {
    grammar: &'g Grammar,
    max_len: usize,
    /// The rules' frequencies, the weights of their texts.
    freq: Vec<u64>,
    /// The rank of each terminal, by which the index knows it.
    rank: HashMap<u32, u32>,
    /// Occurrences of each single terminal, by rank.
    terminals: Vec<u64>,
    /// Made at the first count of a pattern of two or more terminals: a walk that finds only
    /// single paths hot, or prices no window exactly, never needs it.
    index: OnceCell<Index>,
}

/// The most entries (text positions) the index of [`Occurrences`] may have; each takes about 32
/// bytes while it is made.
pub const MAX_INDEX_ENTRIES: u64 = 1 << 26;

/// Counting subpaths of up to `max_len` paths on a grammar would need more than
/// [`MAX_INDEX_ENTRIES`] entries (about `max_len` per rule reference, twice).
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "counting subpaths of up to {max_len} acyclic paths in this grammar needs an index of \
     {entries} entries, more than the {MAX_INDEX_ENTRIES} allowed: use a smaller maximum length"
)]
pub struct IndexTooLarge {
    pub max_len: usize,
    pub entries: u64,
}

/// The texts' positions sorted by the terminals from each, and the weights' prefix sums.
struct Index {
    /// All texts one after another, terminals as their rank, with [`CUT`] after each and inside
    /// long ends.
    text: Vec<u32>,
    /// The positions where a counted match may start, in the order of the `max_len` symbols
    /// from each.
    sorted: Vec<u32>,
    /// `weight_before[i]`: the sum of the weights of `sorted[..i]`, wrapping (the weights of a
    /// child's ends are negative; every range's total is a count, so it fits).
    weight_before: Vec<u64>,
}

/// Ends a text, and separates a long child's first terminals from its last.
const CUT: u32 = u32::MAX;

impl<'g> Occurrences<'g> {
    /// Counts for patterns of at most `max_len` terminals (more than the trace has are never
    /// needed), or the error that their index would be too large.
    pub fn new(grammar: &'g Grammar, max_len: usize) -> Result<Occurrences<'g>, IndexTooLarge> {
        let trace = usize::try_from(grammar.trace_length()).unwrap_or(usize::MAX);
        let max_len = max_len.min(trace).max(1);
        let freq = grammar.frequencies();
        let entries = index_entries(grammar, &freq, max_len);
        if entries > MAX_INDEX_ENTRIES {
            return Err(IndexTooLarge { max_len, entries });
        }
        let mut rank: HashMap<u32, u32> = HashMap::new();
        let mut terminals: Vec<u64> = Vec::new();
        for (r, rhs) in grammar.rules.iter().enumerate() {
            for s in rhs {
                if let Symbol::Terminal(t) = *s {
                    let next = rank.len() as u32;
                    let i = *rank.entry(t).or_insert(next) as usize;
                    if i == terminals.len() {
                        terminals.push(0);
                    }
                    terminals[i] = terminals[i].saturating_add(freq[r]);
                }
            }
        }
        Ok(Occurrences {
            grammar,
            max_len,
            freq,
            rank,
            terminals,
            index: OnceCell::new(),
        })
    }

    /// How many times terminal `t` occurs in the trace.
    pub fn of_terminal(&self, t: u32) -> u64 {
        self.rank.get(&t).map_or(0, |&i| self.terminals[i as usize])
    }

    /// How many times `pattern` (at most `max_len` terminals, unless longer than the trace)
    /// occurs in the trace, overlaps included; see [`Grammar::occurrences`].
    pub fn count(&self, pattern: &[u32]) -> u64 {
        match pattern {
            [] => 0,
            [t] => self.of_terminal(*t),
            _ if pattern.len() as u64 > self.grammar.trace_length() => 0,
            _ => {
                assert!(pattern.len() <= self.max_len, "pattern longer than max_len");
                let Some(pattern) = (pattern.iter())
                    .map(|t| self.rank.get(t).copied())
                    .collect::<Option<Vec<u32>>>()
                else {
                    return 0;
                };
                let index = self.index.get_or_init(|| self.build());
                let text = &index.text;
                let head = |i: u32| &text[i as usize..text.len().min(i as usize + pattern.len())];
                let lo = index.sorted.partition_point(|&i| head(i) < &pattern[..]);
                let hi = lo + index.sorted[lo..].partition_point(|&i| head(i) == &pattern[..]);
                index.weight_before[hi].wrapping_sub(index.weight_before[lo])
            }
        }
    }

    fn build(&self) -> Index {
        let grammar = self.grammar;
        let (max_len, rank, freq) = (self.max_len, &self.rank, &self.freq);
        let lens = grammar.rule_lengths();
        let limit = max_len - 1;
        // The ends by rank, looked up once per rule rather than once per use.
        let (mut prefixes, mut suffixes) = grammar.limited_ends(grammar.topological_order(), limit);
        for t in prefixes.iter_mut().chain(&mut suffixes).flatten() {
            *t = rank[t];
        }
        let mut texts = Texts::default();
        for (r, rhs) in grammar.rules.iter().enumerate() {
            if freq[r] == 0 {
                continue;
            }
            for s in rhs {
                match *s {
                    Symbol::Terminal(t) => texts.push([rank[&t]], true),
                    Symbol::Rule(c) => {
                        let c = c as usize;
                        let long = lens[c] > limit as u64;
                        // Windows starting in a long child's prefix end before the cut: none
                        // spans, so none is a match of this rule's and none is a start.
                        texts.push(prefixes[c].iter().copied(), !long);
                        if long {
                            texts.push([CUT], false);
                            texts.push(suffixes[c].iter().copied(), true);
                        }
                    }
                }
            }
            texts.end(freq[r]);
            if r != 0 {
                // The child's own ends, as its parents' texts hold them, with the starts
                // those have.
                let long = lens[r] > limit as u64;
                let ends = if long { &suffixes[r] } else { &prefixes[r] };
                texts.push(ends.iter().copied(), true);
                texts.end(freq[r].wrapping_neg());
            }
        }
        let Texts {
            text,
            starts,
            segments,
        } = texts;
        let sorted = sort_by_heads(&text, &starts, rank.len(), max_len);
        let mut weight_before = Vec::with_capacity(sorted.len() + 1);
        let mut total = 0u64;
        weight_before.push(total);
        for &i in &sorted {
            let (_, weight) = segments[segments.partition_point(|&(end, _)| end <= i as usize)];
            total = total.wrapping_add(weight);
            weight_before.push(total);
        }
        Index {
            text,
            sorted,
            weight_before,
        }
    }
}

/// The number of positions [`Occurrences`]'s texts have for patterns of `max_len` terminals,
/// computed from the rules' lengths without writing them out.
fn index_entries(grammar: &Grammar, freq: &[u64], max_len: usize) -> u64 {
    let limit = (max_len - 1) as u64;
    let lens = grammar.rule_lengths();
    let ends = |c: usize| match lens[c] > limit {
        true => 2 * limit + 1,
        false => lens[c],
    };
    let mut entries = 0u64;
    for (r, rhs) in grammar.rules.iter().enumerate() {
        if freq[r] == 0 {
            continue;
        }
        for s in rhs {
            entries = entries.saturating_add(match *s {
                Symbol::Terminal(_) => 1,
                Symbol::Rule(c) => ends(c as usize),
            });
        }
        entries = entries.saturating_add(1);
        if r != 0 {
            entries = entries.saturating_add(lens[r].min(limit) + 1);
        }
    }
    entries
}

/// The texts of [`Occurrences`] as they are written out.
#[derive(Default)]
struct Texts {
    text: Vec<u32>,
    /// The positions where a counted match may start.
    starts: Vec<u32>,
    /// Where each text ends, and the weight of its matches.
    segments: Vec<(usize, u64)>,
}

impl Texts {
    fn push(&mut self, symbols: impl IntoIterator<Item = u32>, starts: bool) {
        let from = self.text.len();
        self.text.extend(symbols);
        if starts {
            // Fewer than `MAX_INDEX_ENTRIES` positions in all.
            self.starts.extend(from as u32..self.text.len() as u32);
        }
    }

    fn end(&mut self, weight: u64) {
        self.text.push(CUT);
        self.segments.push((self.text.len(), weight));
    }
}

/// `starts` in the lexicographic order of the `len` symbols of `text` from each (or of more: a
/// finer order is that order too), by prefix doubling (Manber and Myers' suffix sorting, stopped
/// at `len`): one counting pass orders every position by its first `h` symbols (as many as keep
/// the buckets at most 2^16), then each round doubles `h`, since a position's first `2h` symbols
/// are its first `h` and the first `h` of the position `h` further on, whose order is known. A cut
/// sorts after every terminal, reading past the end gives a cut too, and what follows a cut does
/// not matter to a pattern, which has none.
fn sort_by_heads(text: &[u32], starts: &[u32], ranks: usize, len: usize) -> Vec<u32> {
    let n = text.len();
    let base = ranks + 1;
    let digit = |i: usize| match text.get(i) {
        Some(&t) if t != CUT => t as usize,
        _ => ranks,
    };
    let mut h = 1;
    while h < len && base.saturating_pow(h as u32 + 1) <= 1 << 16 {
        h += 1;
    }
    // `group[i]`: where the positions whose first `h` symbols are those of `i` begin in `order`.
    let mut group: Vec<u32> = (0..n)
        .map(|i| (i..i + h).fold(0, |k, j| k * base + digit(j)) as u32)
        .collect();
    let mut first = vec![0u32; base.saturating_pow(h as u32) + 1];
    for &k in &group {
        first[k as usize + 1] += 1;
    }
    for k in 1..first.len() {
        first[k] += first[k - 1];
    }
    let mut order = vec![0u32; n];
    let mut slot = first.clone();
    for (i, g) in group.iter_mut().enumerate() {
        let k = *g as usize;
        // Fewer than `MAX_INDEX_ENTRIES` positions in all.
        order[slot[k] as usize] = i as u32;
        slot[k] += 1;
        *g = first[k];
    }
    let (mut next_group, mut next_order) = (vec![0u32; n], vec![0u32; n]);
    let mut groups = 0;
    while h < len && groups < n {
        // Within a group, by the group of the position `h` further on (none first); the next
        // groups' array holds each group's next free place meanwhile.
        for (g, s) in next_group.iter_mut().enumerate() {
            *s = g as u32;
        }
        let mut place = |p: usize| {
            let s = &mut next_group[group[p] as usize];
            next_order[*s as usize] = p as u32;
            *s += 1;
        };
        (n.saturating_sub(h)..n).for_each(&mut place);
        for &q in &order {
            if let Some(p) = (q as usize).checked_sub(h) {
                place(p);
            }
        }
        let second = |p: usize| group.get(p + h);
        groups = 0;
        for j in 0..n {
            let p = next_order[j] as usize;
            let q = j.checked_sub(1).map(|k| next_order[k] as usize);
            next_group[p] = match q {
                Some(q) if group[p] == group[q] && second(p) == second(q) => next_group[q],
                _ => {
                    groups += 1;
                    j as u32
                }
            };
        }
        std::mem::swap(&mut order, &mut next_order);
        std::mem::swap(&mut group, &mut next_group);
        h *= 2;
    }
    let mut is_start = vec![false; n];
    for &i in starts {
        is_start[i as usize] = true;
    }
    order.retain(|&i| is_start[i as usize]);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(x: u32) -> Symbol {
        Symbol::Terminal(x)
    }
    fn r(x: u32) -> Symbol {
        Symbol::Rule(x)
    }

    #[test]
    fn validation_errors() {
        assert_eq!(Grammar::new(vec![]), Err(GrammarError::NoStartRule));
        assert_eq!(
            Grammar::new(vec![vec![r(3)]]),
            Err(GrammarError::UnknownRule {
                rule: 0,
                position: 0,
                target: 3
            })
        );
        assert_eq!(
            Grammar::new(vec![vec![r(1)], vec![t(1), r(0)]]),
            Err(GrammarError::StartReferenced {
                rule: 1,
                position: 1
            })
        );
        assert_eq!(
            Grammar::new(vec![vec![r(1)], vec![]]),
            Err(GrammarError::EmptyRule { rule: 1 })
        );
        assert!(matches!(
            Grammar::new(vec![vec![r(1)], vec![r(2)], vec![t(0), r(1)]]),
            Err(GrammarError::Cycle { .. })
        ));
        // R_i -> R_{i+1} R_{i+1}: 2^70 symbols.
        let mut rules: Vec<Vec<Symbol>> = (1..=70).map(|i| vec![r(i), r(i)]).collect();
        rules.push(vec![t(0)]);
        assert!(matches!(
            Grammar::new(rules),
            Err(GrammarError::TooLong { .. })
        ));
        assert!(Grammar::new(vec![vec![]]).is_ok());
    }

    /// Pricing subpaths of a length beyond the trace's costs what the trace's length does; an
    /// index that would be too large is an error, found before anything is allocated.
    #[test]
    fn the_index_is_bounded() {
        let g = Grammar::new(vec![vec![r(1), t(2), r(1)], vec![t(0), t(1)]]).unwrap();
        let occurrences = Occurrences::new(&g, usize::MAX).unwrap();
        assert_eq!(occurrences.count(&[0, 1, 2, 0, 1]), 1);
        assert_eq!(occurrences.count(&[0, 1, 2, 0, 1, 2]), 0);
        // R0 -> R1 R1, R1 -> R2 R2, ..., R30 -> 0 0: a trace of 2^31 paths.
        let mut rules: Vec<Vec<Symbol>> = (1..=30).map(|i| vec![r(i), r(i)]).collect();
        rules.push(vec![t(0), t(0)]);
        let g = Grammar::new(rules).unwrap();
        assert!(Occurrences::new(&g, 1 << 16).is_ok());
        let error = Occurrences::new(&g, 1 << 26).err().unwrap();
        assert_eq!(error.max_len, 1 << 26);
        assert!(error.entries > MAX_INDEX_ENTRIES);
        assert!(error.to_string().contains("use a smaller maximum length"));
    }

    #[test]
    fn json_shape_and_round_trip() {
        let g = Grammar::new(vec![vec![r(1), t(2), r(1)], vec![t(0), t(1)]]).unwrap();
        let json = serde_json::to_string(&g).unwrap();
        assert_eq!(json, r#"[["R1",2,"R1"],[0,1]]"#);
        let back: Grammar = serde_json::from_str(&json).unwrap();
        assert_eq!(back, g);
        for bad in [
            r#"[["R2"],[0]]"#,
            r#"[["R1"],["R0"]]"#,
            r#"[["R1"],["R1"]]"#,
            r#"[[-1]]"#,
            r#"[[4294967296]]"#,
            r#"[["X1"]]"#,
            r#"[["R"]]"#,
            r#"[[1.5]]"#,
            r#"[]"#,
            r#"{}"#,
        ] {
            assert!(serde_json::from_str::<Grammar>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn expansion_counts_and_frequencies() {
        // S -> A 9 A, A -> B B 1, B -> 1 1   ([WPP] §3.2, 11111211111 with 9 for "2")
        let g = Grammar::new(vec![
            vec![r(1), t(9), r(1)],
            vec![r(2), r(2), t(1)],
            vec![t(1), t(1)],
        ])
        .unwrap();
        assert_eq!(g.expand(), [1, 1, 1, 1, 1, 9, 1, 1, 1, 1, 1]);
        assert_eq!(g.trace_length(), 11);
        assert_eq!(g.size(), 8);
        assert_eq!(g.use_counts(), [0, 2, 2]);
        assert_eq!(g.frequencies(), [1, 2, 4]);
        assert_eq!(g.occurrences(&[1]).unwrap(), 10);
        assert_eq!(g.occurrences(&[1, 1]).unwrap(), 8);
        assert_eq!(g.occurrences(&[1, 9, 1]).unwrap(), 1);
        assert_eq!(g.occurrences(&[1, 1, 1, 1, 1]).unwrap(), 2);
        assert_eq!(g.occurrences(&[9, 9]).unwrap(), 0);
        assert_eq!(g.occurrences(&[]).unwrap(), 0);
        assert_eq!(g.terminal_bound(), 10);
    }
}
