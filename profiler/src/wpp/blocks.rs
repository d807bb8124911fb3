//! The block coder of the WPP runtime: a departure from [WPP] §3, which feeds every acyclic path
//! to SEQUITUR(1).
//!
//! SEQUITUR handles a symbol in 70–250 ns, while a loop can end an acyclic path every 3–5 ns, so
//! a grammar built path by path costs tens of times the program's own run time. Here the trace is
//! cut into top blocks of 256 paths, each split in halves down to first-level blocks of
//! [`BLOCK_LEN`] paths, and every distinct block of each level gets a number: a first-level block
//! by a hash-table lookup of its paths, a larger one by a lookup of its halves' numbers. SEQUITUR
//! gets, for each top block, the largest blocks seen before as one terminal each, and the paths
//! of the first-level blocks never seen. A trace that repeats thus costs SEQUITUR one symbol per
//! 256 paths, and one that varies (a data-dependent branch makes up to 2^n blocks of n paths)
//! still repeats in its shorter blocks.
//!
//! At the end each block number used becomes a rule that expands to the block's paths: a larger
//! block, the pair of its halves; a first-level block, its part of a second SEQUITUR grammar, of
//! the used first-level blocks' paths (each followed by a separator of its own, so that no rule
//! spans two blocks), so that blocks share their common parts as the paths of the trace would.
//! The result is an ordinary [`Grammar`] of the same trace: `pcc wpp expand` gives back the exact
//! trace, and the analyses (`wpp hot`, subpath frequencies) work on it unchanged, since they
//! price a subpath by its occurrences in the whole trace, whatever the rules look like. What the
//! departure costs: the grammar is somewhat larger than SEQUITUR's own (a block boundary cuts
//! digrams that SEQUITUR would have shared), and a rule may be used once.
//!
//! A run of one path (a loop repeating one acyclic path, the commonest hot trace) comes as one
//! *run* terminal ([`push_run`](BlockSequitur::push_run)), numbered per distinct (path, length)
//! like a block, which counts as one position of a block but stands for all its paths; at the end
//! it becomes a rule of doubled powers of its path (`p^800 = p^512 p^256 p^32`, with
//! `p^(2k) = p^k p^k` shared by all runs of `p`), so the grammar stays logarithmic in the run.
//!
//! Where SEQUITUR finds nothing to share (a data-dependent branch: the blocks of 16 paths are
//! known, their sequence is random), it costs ~100 ns a symbol for a grammar that is its input.
//! After a [`WINDOW`] of top blocks that shrank its grammar by less than 1/[`WORTHWHILE`] of what
//! they added, the coder leaves SEQUITUR out for a pause of as many top blocks, doubled each
//! time it happens again (up to [`MAX_PAUSE`]), and keeps the symbols as they are in a *literal*
//! segment, which the start rule holds in place of a terminal of its own; then it tries SEQUITUR
//! again. The grammar is the same trace's, larger only by digrams shared across the segments.
//!
//! Fixed-length blocks rather than content-defined ones: a loop that repeats one path, the
//! commonest hot trace, gives one block over and over, which content-defined cuts on a constant
//! input cannot do without a minimum length, which brings fixed lengths back; a loop of period
//! `p` gives at most `p` distinct phases of its blocks.

use super::grammar::{Grammar, Symbol};
use super::sequitur::Sequitur;
use super::trace::KeyHasher;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// Paths per block of the first level.
pub const BLOCK_LEN: usize = 8;

/// Levels of blocks: blocks of [`BLOCK_LEN`] paths, then pairs of them, pairs of pairs…: 8, 16,
/// 32, 64, 128 and 256 paths. Where the trace repeats, SEQUITUR sees one number per 256 paths;
/// where it varies (a data-dependent branch makes up to 2^n blocks of n paths), the shorter
/// blocks still repeat.
const LEVELS: usize = 6;

/// Paths per block of the top level.
pub const TOP_LEN: usize = BLOCK_LEN << (LEVELS - 1);

/// The most distinct blocks remembered per level: past this, a block not seen before goes to
/// SEQUITUR in parts, as every first occurrence does.
const MAX_BLOCKS: usize = 1 << 20;

/// Bits 28–31 of a terminal of SEQUITUR's input: 0 for a path symbol, `l + 1` for the number of
/// a block of level `l`, [`RUN`] for a run's.
const LEVEL_SHIFT: u32 = 28;

/// The kind of the terminals that stand for runs of one path.
const RUN: u32 = 0xe;

/// The kind of the terminals that stand for a literal segment in SEQUITUR's input.
const LITERAL: u32 = 0xd;

/// Blocks a level above the first numbers before it must find one again per
/// [`HITS_PER_BLOCK`] it holds to number more.
const TRIAL_BLOCKS: usize = 4096;
const HITS_PER_BLOCK: usize = 64;

/// Top blocks over which SEQUITUR's gain is measured, and its first pause.
const WINDOW: u32 = 16;
/// SEQUITUR is worth its time when its grammar grows by at most `1 - 1/WORTHWHILE` of what it
/// gets.
const WORTHWHILE: usize = 32;
/// The longest pause of SEQUITUR, in top blocks (a new try every 256 K paths at least).
const MAX_PAUSE: u32 = 1024;

/// Path symbols are below this.
pub const MAX_PATH_SYMBOLS: u32 = 1 << LEVEL_SHIFT;

/// The terminals that separate blocks in the grammar of their paths (see [`block_grammar`]).
const SEPARATOR: u32 = 0xf << LEVEL_SHIFT;

type Numbers<K> = HashMap<K, u32, BuildHasherDefault<KeyHasher>>;

/// A block of the top block being coded: its number (`None` when there was no room to remember
/// it) and whether it was seen before.
#[derive(Clone, Copy, Debug)]
struct Node {
    number: Option<u32>,
    seen: bool,
}

/// SEQUITUR(1) over the trace, a repeated block at a time (see the module documentation).
#[derive(Clone, Debug)]
pub struct BlockSequitur {
    /// The top block being filled.
    paths: Vec<u32>,
    /// The number of each distinct first-level block seen: those of paths all below 256 packed
    /// a byte per path (hashed with one multiplication, no allocation), the others as they are.
    small_leaves: Numbers<u64>,
    leaves: Numbers<Box<[u32]>>,
    /// The number of each distinct run seen: (path symbol, length).
    runs: Numbers<(u32, u64)>,
    /// Paths in the top block being filled, and in each top block numbered (by number).
    top_block_paths: u64,
    top_paths: Vec<u64>,
    /// Per level above the first, the number of each distinct pair of lower blocks seen, and
    /// how often one was seen again.
    pairs: [Numbers<(u32, u32)>; LEVELS - 1],
    hits: [usize; LEVELS - 1],
    /// The blocks of the top block being coded, per level.
    nodes: [Vec<Node>; LEVELS],
    /// The grammar of path symbols and block numbers.
    grammar: Sequitur,
    /// Stretches of SEQUITUR's input kept out of it, in order (see the module documentation).
    literals: Vec<Vec<u32>>,
    /// Top blocks left to keep out of SEQUITUR, and the next pause.
    literal_blocks: u32,
    pause: u32,
    /// The current window: top blocks, and SEQUITUR's input and grammar size at its start.
    window: (u32, u64, usize),
    pushed: u64,
    /// The most distinct blocks remembered per level.
    max_blocks: usize,
}

impl Default for BlockSequitur {
    fn default() -> Self {
        BlockSequitur::new()
    }
}

impl BlockSequitur {
    pub fn new() -> BlockSequitur {
        BlockSequitur::with_max_blocks(MAX_BLOCKS)
    }

    fn with_max_blocks(max_blocks: usize) -> BlockSequitur {
        BlockSequitur {
            paths: Vec::with_capacity(TOP_LEN),
            small_leaves: Numbers::default(),
            leaves: Numbers::default(),
            runs: Numbers::default(),
            top_block_paths: 0,
            top_paths: Vec::new(),
            pairs: Default::default(),
            hits: Default::default(),
            nodes: Default::default(),
            grammar: Sequitur::new(),
            literals: Vec::new(),
            literal_blocks: 0,
            pause: WINDOW,
            window: (0, 0, 0),
            pushed: 0,
            max_blocks,
        }
    }

    /// Appends one terminal (an acyclic path's symbol, below [`MAX_PATH_SYMBOLS`]) to the trace.
    #[inline]
    pub fn push(&mut self, symbol: u32) {
        debug_assert!(symbol < MAX_PATH_SYMBOLS);
        self.push_terminal(symbol, 1);
    }

    /// Appends `len` times the path of `symbol`: one run terminal, or (when there is no room to
    /// number another run) the paths one by one.
    pub fn push_run(&mut self, symbol: u32, len: u64) {
        debug_assert!(symbol < MAX_PATH_SYMBOLS);
        let run = match len {
            0 | 1 => None,
            _ => {
                let next = self.runs.len();
                remember(
                    &mut self.runs,
                    &(symbol, len),
                    |&key| key,
                    next,
                    self.max_blocks,
                )
                .number
            }
        };
        match run {
            Some(number) => self.push_terminal((RUN << LEVEL_SHIFT) | number, len),
            None => (0..len).for_each(|_| self.push(symbol)),
        }
    }

    /// Appends a terminal that stands for `paths` paths.
    #[inline]
    fn push_terminal(&mut self, terminal: u32, paths: u64) {
        self.paths.push(terminal);
        self.pushed += paths;
        self.top_block_paths += paths;
        if self.paths.len() == TOP_LEN {
            self.code_top_block();
            self.paths.clear();
            self.top_block_paths = 0;
        }
    }

    /// Whether the next path pushed starts a top block.
    #[inline]
    pub fn at_top_boundary(&self) -> bool {
        self.paths.is_empty()
    }

    /// The number of the top block the last push completed, if it has one (the dictionary had
    /// room for it); to be given back to [`push_top_block`](Self::push_top_block).
    pub fn last_top_block(&self) -> Option<u32> {
        debug_assert!(self.at_top_boundary());
        self.nodes[LEVELS - 1].first().and_then(|node| node.number)
    }

    /// Appends the [`TOP_LEN`] terminals of top block `number` (from
    /// [`last_top_block`](Self::last_top_block)) at a top boundary: what pushing them one by one
    /// would do, since that block was seen before, without looking at them again.
    pub fn push_top_block(&mut self, number: u32) {
        debug_assert!(self.at_top_boundary());
        self.output(block_terminal(LEVELS - 1, number));
        self.pushed += self.top_paths[number as usize];
        self.top_block_done();
    }

    /// Number of symbols pushed so far (the trace length).
    pub fn len(&self) -> u64 {
        self.pushed
    }

    pub fn is_empty(&self) -> bool {
        self.pushed == 0
    }

    /// Numbers the blocks of the full top block, level by level, then hands SEQUITUR the
    /// largest blocks seen before, and the paths of first-level blocks that were not.
    fn code_top_block(&mut self) {
        let [leaves, upper @ ..] = &mut self.nodes;
        leaves.clear();
        for block in self.paths.chunks(BLOCK_LEN) {
            let next = self.small_leaves.len() + self.leaves.len();
            leaves.push(match packed(block) {
                Some(key) => remember(&mut self.small_leaves, &key, |&k| k, next, self.max_blocks),
                None => remember(&mut self.leaves, block, |b| b.into(), next, self.max_blocks),
            });
        }
        let mut lower: &[Node] = leaves;
        for ((nodes, pairs), hits) in upper.iter_mut().zip(&mut self.pairs).zip(&mut self.hits) {
            nodes.clear();
            // A level whose blocks do not repeat (those of 32 paths and more, under a random
            // branch) stops numbering new ones: it would only fill its table.
            let max_blocks =
                match pairs.len() < TRIAL_BLOCKS || *hits * HITS_PER_BLOCK >= pairs.len() {
                    true => self.max_blocks,
                    false => pairs.len(),
                };
            for pair in lower.chunks(2) {
                let node = match (pair[0].number, pair[1].number) {
                    (Some(a), Some(b)) => {
                        let next = pairs.len();
                        remember(pairs, &(a, b), |&key| key, next, max_blocks)
                    }
                    _ => Node {
                        number: None,
                        seen: false,
                    },
                };
                *hits += usize::from(node.seen);
                nodes.push(node);
            }
            lower = nodes;
        }
        if let [
            Node {
                number: Some(number),
                seen: false,
            },
        ] = *lower
        {
            debug_assert_eq!(number as usize, self.top_paths.len());
            self.top_paths.push(self.top_block_paths);
        }
        self.emit(LEVELS - 1, 0);
        self.top_block_done();
    }

    /// Appends a terminal to SEQUITUR's input, or to the literal segment.
    #[inline]
    fn output(&mut self, terminal: u32) {
        match self.literal_blocks {
            0 => self.grammar.push(terminal),
            _ => self
                .literals
                .last_mut()
                .expect("a literal segment")
                .push(terminal),
        }
    }

    /// Counts a top block coded, and leaves SEQUITUR out or takes it back in.
    fn top_block_done(&mut self) {
        if self.literal_blocks > 0 {
            self.literal_blocks -= 1;
            return;
        }
        let (blocks, input, size) = &mut self.window;
        *blocks += 1;
        if *blocks < WINDOW {
            return;
        }
        let added = (self.grammar.len() - *input) as i64;
        let grown = self.grammar.size() as i64 - *size as i64;
        if added > 0 && grown * WORTHWHILE as i64 > added * (WORTHWHILE as i64 - 1) {
            self.grammar
                .push((LITERAL << LEVEL_SHIFT) | self.literals.len() as u32);
            self.literals.push(Vec::new());
            self.literal_blocks = self.pause;
            self.pause = (self.pause * 2).min(MAX_PAUSE);
        } else {
            self.pause = WINDOW;
        }
        self.window = (0, self.grammar.len(), self.grammar.size());
    }

    /// Hands SEQUITUR block `i` of level `level` of the top block: its number if it was seen
    /// before, else its two halves (first-level blocks: their paths).
    fn emit(&mut self, level: usize, i: usize) {
        let node = self.nodes[level][i];
        match node.number.filter(|_| node.seen) {
            Some(number) => self.output(block_terminal(level, number)),
            None if level == 0 => {
                for j in i * BLOCK_LEN..(i + 1) * BLOCK_LEN {
                    self.output(self.paths[j]);
                }
            }
            None => {
                self.emit(level - 1, 2 * i);
                self.emit(level - 1, 2 * i + 1);
            }
        }
    }

    /// Ends the trace and returns its grammar: SEQUITUR's, in which each block number stands for
    /// a rule that expands to the block's paths.
    pub fn finish(mut self) -> Grammar {
        // A last, partial top block goes path by path.
        for i in 0..self.paths.len() {
            self.output(self.paths[i]);
        }
        let mut rules: Vec<Vec<Symbol>> = self.grammar.finish().into();
        // The literal segments in place of their terminals (which, used once, are in the start
        // rule).
        if !self.literals.is_empty() {
            let mut literals = self.literals.into_iter();
            let mut start = Vec::new();
            for symbol in std::mem::take(&mut rules[0]) {
                match symbol {
                    Symbol::Terminal(t) if t >> LEVEL_SHIFT == LITERAL => {
                        let literal = literals.next().expect("a literal segment per terminal");
                        start.extend(literal.into_iter().map(Symbol::Terminal));
                    }
                    symbol => start.push(symbol),
                }
            }
            rules[0] = start;
        }
        // The contents of each block, by level and number.
        let mut leaves = vec![Box::default(); self.small_leaves.len() + self.leaves.len()];
        for (key, number) in self.small_leaves {
            leaves[number as usize] = unpacked(key);
        }
        for (block, number) in self.leaves {
            leaves[number as usize] = block;
        }
        let halves: Vec<Vec<(u32, u32)>> = self.pairs.into_iter().map(by_number).collect();
        // The blocks the grammar uses, directly or as halves of larger ones.
        let mut used: Vec<Vec<bool>> = std::iter::once(leaves.len())
            .chain(halves.iter().map(Vec::len))
            .map(|n| vec![false; n])
            .collect();
        for symbol in rules.iter().flatten() {
            if let Some((level, number)) = block_of(*symbol) {
                used[level][number] = true;
            }
        }
        for level in (1..LEVELS).rev() {
            for number in 0..used[level].len() {
                if used[level][number] {
                    let (a, b) = halves[level - 1][number];
                    used[level - 1][a as usize] = true;
                    used[level - 1][b as usize] = true;
                }
            }
        }
        // The symbol of each block used: first-level blocks from a grammar of their paths, the
        // others a rule of their halves.
        let used_leaves = (leaves.iter().zip(&used[0])).filter(|(_, used)| **used);
        let mut leaf_symbols =
            block_grammar(used_leaves.map(|(b, _)| &**b), &mut rules).into_iter();
        let mut symbols: Vec<Vec<Option<Symbol>>> =
            used.iter().map(|level| vec![None; level.len()]).collect();
        for (number, _) in used[0].iter().enumerate().filter(|(_, used)| **used) {
            symbols[0][number] = leaf_symbols.next();
        }
        for level in 1..LEVELS {
            for (number, _) in used[level].iter().enumerate().filter(|(_, used)| **used) {
                let (a, b) = halves[level - 1][number];
                let (below, this) = symbols.split_at_mut(level);
                let half = |n: u32| below[level - 1][n as usize].expect("a used half has a symbol");
                rules.push(vec![half(a), half(b)]);
                this[0][number] = Some(Symbol::Rule((rules.len() - 1) as u32));
            }
        }
        let runs = run_rules(self.runs, &mut rules);
        for symbol in rules.iter_mut().flatten() {
            if let Some((level, number)) = block_of(*symbol) {
                *symbol = symbols[level][number].expect("a used block has a symbol");
            } else if let Some(number) = run_of(*symbol) {
                *symbol = runs[number].expect("a used run has a symbol");
            }
        }
        // Valid by construction: the rules of two SEQUITUR grammars and of the blocks, each of
        // which refers only to rules of the second and to smaller blocks.
        Grammar::new(rules).expect("a block grammar is a valid grammar")
    }
}

/// The number of `key` in `numbers` and whether it was there; else the new number `next`, if
/// it is below `max_blocks`.
fn remember<K: std::hash::Hash + Eq + ?Sized, O: std::hash::Hash + Eq + std::borrow::Borrow<K>>(
    numbers: &mut Numbers<O>,
    key: &K,
    owned: impl Fn(&K) -> O,
    next: usize,
    max_blocks: usize,
) -> Node {
    if let Some(&number) = numbers.get(key) {
        return Node {
            number: Some(number),
            seen: true,
        };
    }
    let number = (next < max_blocks).then(|| {
        numbers.insert(owned(key), next as u32);
        next as u32
    });
    Node {
        number,
        seen: false,
    }
}

/// The keys of `numbers` in the order of their numbers (which are `0..numbers.len()`).
fn by_number<K: Copy + Default>(numbers: Numbers<K>) -> Vec<K> {
    let mut keys = vec![K::default(); numbers.len()];
    for (key, number) in numbers {
        keys[number as usize] = key;
    }
    keys
}

/// A first-level block's paths a byte each, if they are all below 256.
fn packed(block: &[u32]) -> Option<u64> {
    let all_small = block.len() == BLOCK_LEN && block.iter().fold(0, |high, &p| high | p) < 256;
    all_small.then(|| (block.iter()).fold(0, |key, &path| key << 8 | u64::from(path)))
}

/// The paths of a first-level block packed by [`packed`].
fn unpacked(key: u64) -> Box<[u32]> {
    (0..BLOCK_LEN)
        .rev()
        .map(|i| (key >> (8 * i)) as u32 & 0xff)
        .collect()
}

/// The terminal of SEQUITUR's input that stands for block `number` of level `level`.
fn block_terminal(level: usize, number: u32) -> u32 {
    ((level as u32 + 1) << LEVEL_SHIFT) | number
}

/// The (level, number) of a block's terminal in SEQUITUR's input.
fn block_of(symbol: Symbol) -> Option<(usize, usize)> {
    match symbol {
        Symbol::Terminal(t) if (1..=LEVELS as u32).contains(&(t >> LEVEL_SHIFT)) => Some((
            (t >> LEVEL_SHIFT) as usize - 1,
            (t & (MAX_PATH_SYMBOLS - 1)) as usize,
        )),
        _ => None,
    }
}

/// The number of a run's terminal in SEQUITUR's input.
fn run_of(symbol: Symbol) -> Option<usize> {
    match symbol {
        Symbol::Terminal(t) if t >> LEVEL_SHIFT == RUN => {
            Some((t & (MAX_PATH_SYMBOLS - 1)) as usize)
        }
        _ => None,
    }
}

/// Appends to `rules` a rule for each run that they use and returns the symbol of each run
/// number used: a run of path `p` and length `n` is the powers `p^(2^i)` of the bits of `n`,
/// highest first, each power a rule of two halves shared by every run of `p`.
fn run_rules(runs: Numbers<(u32, u64)>, rules: &mut Vec<Vec<Symbol>>) -> Vec<Option<Symbol>> {
    let of_number = by_number(runs);
    let mut used = vec![false; of_number.len()];
    for number in rules.iter().flatten().filter_map(|&s| run_of(s)) {
        used[number] = true;
    }
    // Per path, its powers p^(2^i) made so far, for i = 0, 1, ….
    let mut powers: HashMap<u32, Vec<Symbol>> = HashMap::new();
    let mut symbols = vec![None; used.len()];
    for (number, &(path, len)) in of_number.iter().enumerate().filter(|(n, _)| used[*n]) {
        let powers = powers
            .entry(path)
            .or_insert_with(|| vec![Symbol::Terminal(path)]);
        let highest = 63 - len.leading_zeros() as usize;
        while powers.len() <= highest {
            let half = powers[powers.len() - 1];
            rules.push(vec![half, half]);
            powers.push(Symbol::Rule((rules.len() - 1) as u32));
        }
        let parts: Vec<Symbol> = (0..=highest)
            .rev()
            .filter(|&bit| len >> bit & 1 == 1)
            .map(|bit| powers[bit])
            .collect();
        symbols[number] = Some(match *parts {
            [one] => one,
            _ => {
                rules.push(parts);
                Symbol::Rule((rules.len() - 1) as u32)
            }
        });
    }
    symbols
}

/// Appends to `rules` a grammar of `blocks` (SEQUITUR's over their paths, each block followed
/// by a separator used nowhere else, so that no rule spans two blocks) and a rule per block
/// that expands to its paths; returns the symbol that stands for each block, its rule or, where
/// the block's paths are one rule of that grammar, that rule.
fn block_grammar<'a>(
    blocks: impl Iterator<Item = &'a [u32]>,
    rules: &mut Vec<Vec<Symbol>>,
) -> Vec<Symbol> {
    let mut grammar = Sequitur::new();
    let mut count = 0;
    for block in blocks {
        grammar.extend(block.iter().copied());
        grammar.push(SEPARATOR | count);
        count += 1;
    }
    let mut block_rules: Vec<Vec<Symbol>> = grammar.finish().into();
    // Rule r > 0 of this grammar becomes rule `first + r - 1` of the whole.
    let first = rules.len() as u32;
    let renumber = |symbol: Symbol| match symbol {
        Symbol::Rule(r) => Symbol::Rule(first + r - 1),
        terminal => terminal,
    };
    let start = std::mem::take(&mut block_rules[0]);
    rules.extend(
        block_rules
            .drain(1..)
            .map(|rule| rule.into_iter().map(renumber).collect()),
    );
    let mut symbols = Vec::new();
    // Each block's segment ends at its separator (the last one ends the start rule).
    let segments = start.split(|s| matches!(*s, Symbol::Terminal(t) if t & SEPARATOR == SEPARATOR));
    for segment in segments.take(count as usize) {
        let segment: Vec<Symbol> = segment.iter().copied().map(renumber).collect();
        symbols.push(match *segment {
            [one] => one,
            _ => {
                rules.push(segment);
                Symbol::Rule((rules.len() - 1) as u32)
            }
        });
    }
    symbols
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wpp::{HotParams, Occurrences, hot_subpaths};

    fn grammar(trace: &[u32]) -> Grammar {
        let mut coder = BlockSequitur::new();
        trace.iter().for_each(|&t| coder.push(t));
        assert_eq!(coder.len(), trace.len() as u64);
        coder.finish()
    }

    /// A pseudo-random trace over `alphabet` symbols with runs and repeats, as loops make.
    fn loop_trace(len: usize, alphabet: u32, seed: u64) -> Vec<u32> {
        let mut x = seed;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut trace = Vec::new();
        while trace.len() < len {
            let body: Vec<u32> = (0..1 + next() % 7)
                .map(|_| (next() % 64) as u32 % alphabet)
                .collect();
            for _ in 0..next() % 50 {
                trace.extend(&body);
            }
        }
        trace.truncate(len);
        trace
    }

    #[test]
    fn the_grammar_expands_to_the_exact_trace() {
        for (len, alphabet, seed) in [(0, 1, 1), (1, 1, 2), (31, 3, 3), (32, 3, 4), (33, 1, 5)]
            .into_iter()
            .chain((1..40).map(|s| (s * 97 % 5000, 1 + s as u32 % 9, s as u64)))
        {
            let trace = loop_trace(len, alphabet, seed);
            let g = grammar(&trace);
            assert_eq!(g.expand(), trace, "len {len}, alphabet {alphabet}");
            assert_eq!(g.trace_length(), len as u64);
        }
    }

    /// A top block seen before, pushed by its number, makes the grammar its paths make.
    #[test]
    fn a_known_top_block_pushed_whole_makes_the_same_grammar() {
        for seed in 1..6 {
            // Forty top blocks drawn from three, and a partial one.
            let blocks = loop_trace(3 * TOP_LEN, 3, seed);
            let trace: Vec<u32> = (0..40)
                .flat_map(|i| {
                    blocks
                        .chunks(TOP_LEN)
                        .nth((i * i + seed as usize) % 3)
                        .unwrap()
                })
                .chain(&blocks[..5])
                .copied()
                .collect();
            let mut known: HashMap<&[u32], u32> = HashMap::new();
            let mut whole = BlockSequitur::new();
            let mut rest = &trace[..];
            while !rest.is_empty() {
                let top = &rest[..TOP_LEN.min(rest.len())];
                match known.get(top) {
                    Some(&number) => whole.push_top_block(number),
                    None => {
                        top.iter().for_each(|&t| whole.push(t));
                        if top.len() == TOP_LEN
                            && let Some(number) = whole.last_top_block()
                        {
                            known.insert(top, number);
                        }
                    }
                }
                rest = &rest[top.len()..];
            }
            assert!(known.len() <= 3, "seed {seed}: {} top blocks", known.len());
            assert_eq!(whole.len(), trace.len() as u64);
            assert_eq!(whole.finish(), grammar(&trace), "seed {seed}");
        }
    }

    /// `trace` as runs: each maximal run of one path of `min_run` or more paths is pushed whole.
    fn grammar_of_runs(trace: &[u32], min_run: usize) -> Grammar {
        let mut coder = BlockSequitur::new();
        for run in trace.chunk_by(|a, b| a == b) {
            match run.len() >= min_run {
                true => coder.push_run(run[0], run.len() as u64),
                false => run.iter().for_each(|&t| coder.push(t)),
            }
        }
        assert_eq!(coder.len(), trace.len() as u64);
        coder.finish()
    }

    #[test]
    fn runs_expand_to_their_paths() {
        for seed in 1..30 {
            let trace = loop_trace(seed as usize * 397, 1 + seed as u32 % 4, seed);
            for min_run in [1, 2, 5] {
                let g = grammar_of_runs(&trace, min_run);
                assert_eq!(g.expand(), trace, "seed {seed}, runs of {min_run}");
            }
        }
        // Runs of every length up to 300, each twice: each run's rule is made of shared powers.
        let trace: Vec<u32> = (1..300)
            .flat_map(|n| [vec![1; n], vec![2], vec![1; n], vec![3]])
            .flatten()
            .collect();
        let g = grammar_of_runs(&trace, 2);
        assert_eq!(g.expand(), trace);
        assert!(g.size() < 3 * 300 * 6, "grammar of {} symbols", g.size());
    }

    /// A top block holding runs, pushed whole by its number, counts all their paths.
    #[test]
    fn a_known_top_block_of_runs_counts_its_paths() {
        let mut coder = BlockSequitur::new();
        let block = |coder: &mut BlockSequitur| {
            for i in 0..TOP_LEN as u64 {
                coder.push_run(i as u32 % 3, 2 + i % 5);
            }
        };
        block(&mut coder);
        let number = coder.last_top_block().unwrap();
        coder.push_top_block(number);
        block(&mut coder);
        let block_paths: u64 = (0..TOP_LEN as u64).map(|i| 2 + i % 5).sum();
        assert_eq!(coder.len(), 3 * block_paths);
        let g = coder.finish();
        assert_eq!(g.trace_length(), 3 * block_paths);
        let once: Vec<u32> = (0..TOP_LEN as u64)
            .flat_map(|i| vec![i as u32 % 3; 2 + i as usize % 5])
            .collect();
        assert_eq!(g.expand(), once.repeat(3));
    }

    #[test]
    fn a_full_table_sends_new_runs_as_paths() {
        let mut coder = BlockSequitur::with_max_blocks(10);
        let trace: Vec<u32> = (2..40).flat_map(|n| vec![n % 4; n as usize]).collect();
        for run in trace.chunk_by(|a, b| a == b) {
            coder.push_run(run[0], run.len() as u64);
        }
        assert_eq!(coder.runs.len(), 10);
        assert_eq!(coder.finish().expand(), trace);
    }

    /// Where SEQUITUR finds nothing to share, the symbols are kept out of it; where the trace
    /// repeats again, SEQUITUR takes them back; the trace comes back exactly.
    #[test]
    fn sequitur_is_left_out_where_it_finds_nothing() {
        let mut x = 5u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let random: Vec<u32> = (0..200 * TOP_LEN)
            .map(|_| (next() % 50_000) as u32)
            .collect();
        let periodic = loop_trace(600 * TOP_LEN, 3, 9);
        let trace = [&random[..], &periodic, &random[..5000]].concat();
        let mut coder = BlockSequitur::new();
        trace[..random.len()].iter().for_each(|&t| coder.push(t));
        let literal: usize = coder.literals.iter().map(Vec::len).sum();
        assert!(literal > random.len() / 2, "{literal} symbols kept out");
        // SEQUITUR is back in the periodic stretch.
        trace[random.len()..][..periodic.len()]
            .iter()
            .for_each(|&t| coder.push(t));
        assert_eq!((coder.literal_blocks, coder.pause), (0, WINDOW));
        trace[random.len() + periodic.len()..]
            .iter()
            .for_each(|&t| coder.push(t));
        let g = coder.finish();
        assert_eq!(g.expand(), trace);
        assert!(g.size() < trace.len() as u64 / 2, "grammar of {}", g.size());
        // The start rule holding the literal segments prices subpaths as SEQUITUR's grammar does.
        // (Which subpaths Fig. 7's walk reports follows the grammar's shape, which differs here.)
        let mut s = Sequitur::new();
        s.extend(trace.iter().copied());
        let sequitur = s.finish();
        let (mine, theirs) = (
            Occurrences::new(&g, 3).unwrap(),
            Occurrences::new(&sequitur, 3).unwrap(),
        );
        for pattern in trace.windows(3).step_by(997) {
            assert_eq!(mine.count(pattern), theirs.count(pattern));
        }
        let hot = hot_subpaths(&g, |_| 1, &HotParams::new(300, 3)).unwrap();
        assert!(hot.len() >= 3);
        for h in hot {
            assert_eq!(h.frequency, theirs.count(&h.path));
            assert!(h.cost >= 300);
        }
    }

    /// Under a random choice of two paths, the blocks of 16 paths repeat and those of 32 do not:
    /// that level stops numbering new ones after its trial.
    #[test]
    fn levels_whose_blocks_do_not_repeat_stop_numbering_them() {
        let mut x = 11u64;
        let trace: Vec<u32> = (0..300_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 20) as u32 & 1
            })
            .collect();
        let mut coder = BlockSequitur::new();
        trace.iter().for_each(|&t| coder.push(t));
        assert!(coder.pairs[0].len() > TRIAL_BLOCKS);
        assert_eq!(coder.pairs[1].len(), TRIAL_BLOCKS);
        assert_eq!(coder.finish().expand(), trace);
    }

    #[test]
    fn a_repeated_path_makes_a_logarithmic_grammar() {
        let g = grammar(&vec![7; 1_000_000]);
        assert_eq!(g.trace_length(), 1_000_000);
        assert!(g.size() < 200, "grammar of {} symbols", g.size());
        assert!(g.iter().all(|t| t == 7));
    }

    #[test]
    fn blocks_seen_once_stay_paths() {
        // Paths that never repeat, then a partial top block: no block rule.
        let trace: Vec<u32> = (0..2 * TOP_LEN as u32 + 3).collect();
        let g = grammar(&trace);
        assert_eq!(g.expand(), trace);
        assert_eq!(g.rules().len(), 1);
    }

    #[test]
    fn a_full_dictionary_sends_new_blocks_as_paths() {
        // More distinct first-level blocks than fit: the trace comes back all the same.
        let trace: Vec<u32> = (0..3000 * BLOCK_LEN)
            .map(|i| ((i / BLOCK_LEN) as u32 % 1000).wrapping_mul(2654435761) >> 8 & 0xff_ffff)
            .chain((0..3 * TOP_LEN as u32).map(|i| i % 3))
            .collect();
        let mut coder = BlockSequitur::with_max_blocks(100);
        trace.iter().for_each(|&t| coder.push(t));
        assert_eq!(coder.small_leaves.len() + coder.leaves.len(), 100);
        assert!(coder.pairs.iter().all(|level| level.len() <= 100));
        assert!(coder.finish().iter().eq(trace.iter().copied()));
    }

    /// The analyses price a subpath by its occurrences in the trace, so they agree with those of
    /// SEQUITUR's own grammar of the same trace.
    #[test]
    fn frequencies_and_hot_subpaths_agree_with_sequitur() {
        for seed in 1..8 {
            let trace = loop_trace(20_000, 5, seed);
            let mut s = Sequitur::new();
            s.extend(trace.iter().copied());
            let sequitur = s.finish();
            for blocks in [grammar(&trace), grammar_of_runs(&trace, 3)] {
                agree(&blocks, &sequitur, &trace, seed);
            }
        }
    }

    /// `blocks` and SEQUITUR's own grammar of `trace` agree on frequencies and hot subpaths.
    fn agree(blocks: &Grammar, sequitur: &Grammar, trace: &[u32], seed: u64) {
        for pattern in [&trace[..1], &trace[10..13], &trace[100..108]] {
            assert_eq!(
                blocks.occurrences(pattern).unwrap(),
                sequitur.occurrences(pattern).unwrap()
            );
        }
        for params in [
            HotParams::new(2_000, 6),
            HotParams::new(300, 3),
            HotParams::new(1_000, 12),
        ] {
            let hot = |g: &Grammar| {
                let mut found: Vec<(Vec<u32>, u64)> = hot_subpaths(g, |_| 1, &params)
                    .unwrap()
                    .into_iter()
                    .map(|h| (h.path, h.frequency))
                    .collect();
                found.sort();
                found
            };
            assert!(!hot(sequitur).is_empty(), "seed {seed}, {params:?}");
            assert_eq!(hot(blocks), hot(sequitur), "seed {seed}, {params:?}");
        }
    }
}
