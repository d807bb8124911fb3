//! The two-level coder of the WPP runtime: a departure from [WPP] §3, which feeds every acyclic
//! path to SEQUITUR(1).
//!
//! SEQUITUR handles a symbol in 70–250 ns, while a loop can end an acyclic path every 3–5 ns, so
//! a grammar built path by path costs tens of times the program's own run time. Here a first
//! level cuts the trace into blocks of [`BLOCK_LEN`] consecutive paths and remembers each
//! distinct block, with one hash-table lookup per block. A block seen before reaches SEQUITUR(1)
//! as one terminal, its number; a new one, path by path. At the end each block number used is
//! replaced by a rule that expands to the block's paths: the rules of a second SEQUITUR grammar,
//! of the used blocks' paths (each block followed by a separator of its own, so no rule spans
//! two blocks), so that blocks share their common parts as the paths of the trace would have.
//!
//! The result is an ordinary [`Grammar`] of the same trace: `pcc wpp expand` gives back the exact
//! trace, and the analyses (`wpp hot`, subpath frequencies) work on it unchanged; they price a
//! subpath by its occurrences in the whole trace, whatever the rules look like. What the
//! departure costs: the grammar is somewhat larger than SEQUITUR's own (a block boundary cuts
//! digrams that SEQUITUR would have shared), and a rule may be used once.
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

/// Paths per block. Longer blocks send fewer symbols to SEQUITUR where the trace repeats, but
/// repeat less where the paths vary (a data-dependent branch makes up to 2^`BLOCK_LEN` blocks).
pub const BLOCK_LEN: usize = 16;

/// The most distinct blocks remembered (4 bytes per path each): past this, a block not seen
/// before goes to SEQUITUR path by path, as every first occurrence does.
const MAX_BLOCKS: usize = 1 << 20;

/// The bit that marks a terminal of SEQUITUR's input as a block number, not a path symbol.
const BLOCK: u32 = 1 << 31;

/// SEQUITUR(1) over the trace, a repeated block at a time (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct BlockSequitur {
    /// The block being filled.
    block: Vec<u32>,
    /// The number of each distinct block seen.
    numbers: HashMap<Box<[u32]>, u32, BuildHasherDefault<KeyHasher>>,
    /// The grammar of path symbols and block numbers (`BLOCK | number`).
    grammar: Sequitur,
    pushed: u64,
}

impl BlockSequitur {
    pub fn new() -> BlockSequitur {
        BlockSequitur {
            block: Vec::with_capacity(BLOCK_LEN),
            ..BlockSequitur::default()
        }
    }

    /// Appends one terminal (an acyclic path's symbol, below 2^31) to the trace.
    #[inline]
    pub fn push(&mut self, symbol: u32) {
        debug_assert!(symbol < BLOCK);
        self.block.push(symbol);
        self.pushed += 1;
        if self.block.len() == BLOCK_LEN {
            self.end_block();
        }
    }

    /// Number of symbols pushed so far (the trace length).
    pub fn len(&self) -> u64 {
        self.pushed
    }

    pub fn is_empty(&self) -> bool {
        self.pushed == 0
    }

    /// Hands the filled block to SEQUITUR: as its number when it was seen before, else path by
    /// path (and it is remembered, while there is room).
    fn end_block(&mut self) {
        match self.numbers.get(self.block.as_slice()) {
            Some(&number) => self.grammar.push(BLOCK | number),
            None => {
                if self.numbers.len() < MAX_BLOCKS {
                    let number = self.numbers.len() as u32;
                    (self.numbers).insert(self.block.clone().into_boxed_slice(), number);
                }
                self.grammar.extend(self.block.iter().copied());
            }
        }
        self.block.clear();
    }

    /// Ends the trace and returns its grammar: SEQUITUR's, in which each block number stands for
    /// a rule that expands to the block's paths.
    pub fn finish(mut self) -> Grammar {
        // A last, partial block goes path by path.
        self.grammar.extend(self.block.iter().copied());
        let mut rules: Vec<Vec<Symbol>> = self.grammar.finish().into();
        let mut blocks = vec![Box::default(); self.numbers.len()];
        for (block, number) in self.numbers {
            blocks[number as usize] = block;
        }
        // The blocks used, in order of first use, each given its place in that order.
        let mut place: Vec<Option<u32>> = vec![None; blocks.len()];
        let mut used = Vec::new();
        for symbol in rules.iter_mut().flatten() {
            if let Symbol::Terminal(t) = *symbol
                && t & BLOCK != 0
            {
                let number = (t & !BLOCK) as usize;
                let at = *place[number].get_or_insert_with(|| {
                    used.push(number);
                    (used.len() - 1) as u32
                });
                *symbol = Symbol::Terminal(BLOCK | at);
            }
        }
        let used_blocks = used.iter().map(|&number| &*blocks[number]);
        let block_symbols = block_grammar(used_blocks, &mut rules);
        for symbol in rules.iter_mut().flatten() {
            if let Symbol::Terminal(t) = *symbol
                && t & BLOCK != 0
            {
                *symbol = block_symbols[(t & !BLOCK) as usize];
            }
        }
        // Valid by construction: the rules of two SEQUITUR grammars and of the blocks, which
        // refer only to rules of the second.
        Grammar::new(rules).expect("a block grammar is a valid grammar")
    }
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
        grammar.push(BLOCK | count);
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
    let segments = start.split(|s| matches!(*s, Symbol::Terminal(t) if t & BLOCK != 0));
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
    use crate::wpp::{HotParams, hot_subpaths};

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

    #[test]
    fn a_repeated_path_makes_a_logarithmic_grammar() {
        let g = grammar(&vec![7; 1_000_000]);
        assert_eq!(g.trace_length(), 1_000_000);
        assert!(g.size() < 200, "grammar of {} symbols", g.size());
        assert!(g.iter().all(|t| t == 7));
    }

    #[test]
    fn a_block_seen_once_stays_paths() {
        // Blocks of different paths, then a partial one: nothing repeats, so no block rule.
        let mut trace: Vec<u32> = (0..3 * BLOCK_LEN as u32).collect();
        trace.push(2);
        let g = grammar(&trace);
        assert_eq!(g.expand(), trace);
        assert_eq!(g.rules().len(), 1);
    }

    /// The analyses price a subpath by its occurrences in the trace, so they agree with those of
    /// SEQUITUR's own grammar of the same trace.
    #[test]
    fn frequencies_and_hot_subpaths_agree_with_sequitur() {
        for seed in 1..8 {
            let trace = loop_trace(20_000, 5, seed);
            let blocks = grammar(&trace);
            let mut s = Sequitur::new();
            s.extend(trace.iter().copied());
            let sequitur = s.finish();
            for pattern in [&trace[..1], &trace[10..13], &trace[100..108]] {
                assert_eq!(blocks.occurrences(pattern), sequitur.occurrences(pattern));
            }
            for params in [
                HotParams::new(2_000, 6),
                HotParams::new(300, 3),
                HotParams::new(1_000, 12),
            ] {
                let hot = |g: &Grammar| {
                    let mut found: Vec<(Vec<u32>, u64)> = hot_subpaths(g, |_| 1, &params)
                        .into_iter()
                        .map(|h| (h.path, h.frequency))
                        .collect();
                    found.sort();
                    found
                };
                assert!(!hot(&sequitur).is_empty(), "seed {seed}, {params:?}");
                assert_eq!(hot(&blocks), hot(&sequitur), "seed {seed}, {params:?}");
            }
        }
    }
}
