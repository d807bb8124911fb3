//! The grammar builder of the wpp runtime, the state of its background thread: each path event
//! of the stream becomes a terminal symbol ([WPP] §3.3) and goes to the block coder
//! ([`BlockSequitur`]), the markers keep the routine of each path.
//!
//! A run of one path comes as the path's word and a repeat marker ([`super::repeats`]); it goes
//! to the block coder as one run, which takes one position of a block.
//!
//! A trace that repeats takes a shortcut: at the start of each of the block coder's top blocks,
//! the stream words that hold the top block's [`TOP_LEN`] paths or runs (with the markers among
//! them), preceded by the current routine, are looked up among those of the top blocks seen before.
//! Those words determine the block's symbols, since the routine of each path is the current one
//! or one entered among them (words that leave the routine they start in are not looked up). When
//! they were seen, the block coder gets the block's number, which is what it would make of the
//! paths one by one, and the symbol table and the coder never see the paths: a loop that ends a
//! path every few ns costs a hash per [`TOP_LEN`] paths rather than a table lookup per path.

use super::repeats;
use crate::runs::Runs;
use crate::stream::{self, Event};
use pcc_profiler::wpp::blocks::TOP_LEN;
use pcc_profiler::wpp::{BlockSequitur, PathSymbols, WppTrace};

/// Distinct top blocks remembered with their words, at most (each up to a few hundred words).
const MAX_TOP_BLOCKS: usize = 1 << 12;
/// Top blocks in a row not found before lookups pause (a trace that does not repeat at this
/// scale, e.g. a loop with a data-dependent branch, would only pay for them).
const MISSES_BEFORE_PAUSE: u32 = 16;
/// The longest pause, in top blocks.
const MAX_PAUSE: u32 = 256;

pub(super) struct Builder {
    symbols: PathSymbols,
    grammar: BlockSequitur,
    /// The top blocks seen: the routine at their start, then their words.
    top_blocks: Runs,
    /// The block coder's number of each top block of `top_blocks` (`None`: it had no room).
    numbers: Vec<Option<u32>>,
    /// The key being looked up in `top_blocks`.
    key: Vec<u64>,
    /// Top blocks in a row not found, and top blocks still to code without a lookup.
    misses: u32,
    pause: u32,
    /// Testing: every symbol, when the raw trace is asked for.
    raw: Option<Vec<u32>>,
}

impl Builder {
    pub(super) fn new(raw: bool) -> Builder {
        Builder {
            symbols: PathSymbols::new(),
            grammar: BlockSequitur::new(),
            top_blocks: Runs::new(MAX_TOP_BLOCKS),
            numbers: Vec::new(),
            key: Vec::new(),
            misses: 0,
            pause: 0,
            raw: raw.then(Vec::new),
        }
    }

    /// Takes the words of a stream buffer (whole markers only).
    pub(super) fn consume(&mut self, mut words: &[u64]) {
        while !words.is_empty() {
            let top = match self.grammar.at_top_boundary() {
                true => top_block_words(words),
                false => None,
            };
            words = match top {
                Some((len, routines)) => {
                    self.top_block(&words[..len], routines);
                    &words[len..]
                }
                None => self.event(words, true),
            };
        }
    }

    /// The trace, and the raw one if it was asked for.
    pub(super) fn finish(self) -> (WppTrace, Option<Vec<u32>>) {
        (self.symbols.trace(self.grammar.finish()), self.raw)
    }

    /// The words of one top block, at a top boundary: its number if they were seen, else
    /// its paths one by one. `routines`: whether the words enter or leave routines.
    fn top_block(&mut self, words: &[u64], routines: bool) {
        if self.pause > 0 {
            self.pause -= 1;
            return self.events(words, true);
        }
        self.key.clear();
        self.key.push(u64::from(self.symbols.routine()));
        self.key.extend_from_slice(words);
        let found = self.top_blocks.number(&self.key);
        if let Some((seen, false)) = found
            && let Some(number) = self.numbers[seen]
        {
            self.misses = 0;
            self.grammar.push_top_block(number);
            // The markers still move the routine; the raw trace still wants every symbol.
            if routines || self.raw.is_some() {
                self.events(words, false);
            }
            return;
        }
        self.events(words, true);
        if let Some((_, true)) = found {
            self.numbers.push(self.grammar.last_top_block());
        }
        self.misses += 1;
        if self.misses >= MISSES_BEFORE_PAUSE {
            self.pause = self.misses.min(MAX_PAUSE);
        }
    }

    /// Every event of `words`; paths go to the block coder if `code`.
    fn events(&mut self, mut words: &[u64], code: bool) {
        while !words.is_empty() {
            // The paths before the next marker at once, but for the last, whose run it may be.
            let paths = match words.iter().position(|&w| w == stream::MARKER) {
                Some(marker) => marker.saturating_sub(1),
                None => words.len(),
            };
            words = match paths {
                0 => self.event(words, code),
                _ => {
                    self.paths(&words[..paths], code);
                    &words[paths..]
                }
            };
        }
    }

    /// Path events of the current routine; they go to the block coder if `code`.
    fn paths(&mut self, ids: &[u64], code: bool) {
        let routine = self.symbols.routine();
        for &id in ids {
            let symbol = self.symbols.path(routine, id);
            if code {
                self.grammar.push(symbol);
            }
            if let Some(raw) = self.raw.as_mut() {
                raw.push(symbol);
            }
        }
    }

    /// The first event of `words` (not empty); returns the words after it.
    fn event<'w>(&mut self, words: &'w [u64], code: bool) -> &'w [u64] {
        match *words {
            [stream::MARKER, kind, ref rest @ ..] => {
                match stream::marker(kind) {
                    // A repeat marker comes with its path (below).
                    _ if repeats::run_length(kind).is_some() => {}
                    Event::Enter(table) => self.symbols.enter_routine(table),
                    _ => self.symbols.leave_routine(),
                }
                rest
            }
            [id, stream::MARKER, kind, ref rest @ ..] if repeats::run_length(kind).is_some() => {
                let run = repeats::run_length(kind).unwrap_or(1);
                let symbol = self.symbols.new_path(id);
                if code {
                    self.grammar.push_run(symbol, run);
                }
                if let Some(raw) = self.raw.as_mut() {
                    raw.extend(std::iter::repeat_n(symbol, run as usize));
                }
                rest
            }
            [id, ref rest @ ..] if id != stream::MARKER => {
                self.paths(&words[..1], code);
                rest
            }
            // A marker cut off: a buffer holds whole ones.
            _ => &[],
        }
    }
}

/// How many of `words` hold the next [`TOP_LEN`] paths or runs (with the markers among them, up
/// to the last path's), if they all do and leave no routine entered before them; and whether
/// they enter or leave a routine.
fn top_block_words(words: &[u64]) -> Option<(usize, bool)> {
    // The common case: a loop's paths, no marker.
    if words.len() >= TOP_LEN
        && !words[..TOP_LEN].contains(&stream::MARKER)
        && words.get(TOP_LEN) != Some(&stream::MARKER)
    {
        return Some((TOP_LEN, false));
    }
    let (mut paths, mut depth, mut routines, mut i) = (0, 0usize, false, 0);
    while paths < TOP_LEN {
        if *words.get(i)? != stream::MARKER {
            paths += 1;
            i += 1;
            // The path's run, if it has one.
            if words.get(i) == Some(&stream::MARKER)
                && repeats::run_length(*words.get(i + 1)?).is_some()
            {
                i += 2;
            }
            continue;
        }
        match stream::marker(*words.get(i + 1)?) {
            Event::Enter(_) => depth += 1,
            _ => depth = depth.checked_sub(1)?,
        }
        routines = true;
        i += 2;
    }
    Some((i, routines))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::{ENTER, LEAVE, MARKER};

    /// The events of a program whose loops repeat with calls among them, as stream words.
    fn stream_words(len: usize, seed: u64) -> Vec<u64> {
        let mut x = seed;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut words = vec![MARKER, ENTER];
        let mut depth = 1;
        while words.len() < len {
            let body: Vec<u64> = (0..1 + next() % 5).map(|_| next() % 3).collect();
            for _ in 0..next() % 90 {
                words.extend(&body);
            }
            match next() % 4 {
                0 => {
                    words.extend([MARKER, ENTER + 1 + next() % 2]);
                    depth += 1;
                }
                1 if depth > 1 => {
                    words.extend([MARKER, LEAVE]);
                    depth -= 1;
                }
                _ => {}
            }
        }
        words
    }

    /// The symbols of `words`, one event at a time, with no shortcut.
    fn symbols(words: &[u64]) -> Vec<u32> {
        let mut table = PathSymbols::new();
        stream::events(words)
            .filter_map(|event| match event {
                Event::Path(id) => Some(table.new_path(id)),
                Event::Enter(t) => {
                    table.enter_routine(t);
                    None
                }
                Event::Leave => {
                    table.leave_routine();
                    None
                }
            })
            .collect()
    }

    /// Builds the grammar of `words` given in buffers of `buffer` words, run-length coded as the
    /// recorder does if `compressed`.
    fn build(words: &[u64], buffer: usize, compressed: bool) -> Builder {
        let mut builder = Builder::new(true);
        let mut rest = words;
        while !rest.is_empty() {
            let mut len = rest.len().min(buffer);
            // A buffer ends with a whole marker.
            len += usize::from(rest[len - 1] == MARKER);
            let mut chunk = Vec::new();
            match compressed {
                true => repeats::compress(&rest[..len], &mut chunk),
                false => chunk.extend_from_slice(&rest[..len]),
            }
            builder.consume(&chunk);
            rest = &rest[len..];
        }
        builder
    }

    #[test]
    fn the_shortcut_keeps_the_exact_trace() {
        for seed in 1..8 {
            let words = stream_words(30_000, seed);
            for compressed in [false, true] {
                // In buffers of several sizes, so that top blocks also straddle two of them.
                let builder = build(&words, 997 + seed as usize * 64, compressed);
                let shortcuts = builder.numbers.len();
                let (trace, raw) = builder.finish();
                let expected = symbols(&words);
                assert_eq!(raw.as_deref(), Some(&expected[..]), "seed {seed}");
                assert_eq!(trace.grammar.expand(), expected, "seed {seed}");
                assert!(shortcuts > 0, "seed {seed}: no top block looked up");
            }
        }
    }

    /// Runs of one path whose lengths cycle (an escape-time loop): the top blocks of runs repeat
    /// and are found by their words.
    #[test]
    fn runs_are_coded_as_runs_and_repeated_top_blocks_of_them_found() {
        let mut words = vec![MARKER, ENTER];
        for pixel in 0..3000u64 {
            words.extend(std::iter::repeat_n(1, 5 + (pixel % 7) as usize * 40));
            words.push(2);
        }
        let builder = build(&words, 2048, true);
        assert!(
            builder.numbers.len() < 20,
            "{} top blocks",
            builder.numbers.len()
        );
        assert_eq!(builder.grammar.len(), symbols(&words).len() as u64);
        let (trace, raw) = builder.finish();
        let expected = symbols(&words);
        assert_eq!(raw.as_deref(), Some(&expected[..]));
        assert_eq!(trace.grammar.expand(), expected);
        // 375,000 paths.
        assert!(
            trace.grammar.size() < 5_000,
            "{} symbols",
            trace.grammar.size()
        );
    }

    /// A periodic stream with calls: every top block after the first few is found by its words.
    #[test]
    fn a_periodic_stream_is_coded_by_top_blocks() {
        let period = [0, 1, MARKER, ENTER + 1, 2, MARKER, LEAVE, 1];
        let words: Vec<u64> = [MARKER, ENTER]
            .into_iter()
            .chain(
                period
                    .iter()
                    .copied()
                    .cycle()
                    .take(period.len() * 40 * TOP_LEN),
            )
            .collect();
        let mut builder = Builder::new(false);
        builder.consume(&words);
        // Four paths per period: every top block but the first (which also enters `main`) has
        // the same words.
        assert_eq!(builder.numbers.len(), 2);
        assert_eq!(builder.grammar.len(), 4 * 40 * TOP_LEN as u64);
        let (trace, _) = builder.finish();
        assert_eq!(trace.grammar.expand(), symbols(&words));
    }

    #[test]
    fn top_blocks_end_at_their_last_path_and_stay_in_their_routine() {
        let loop_paths = vec![4; TOP_LEN + 3];
        assert_eq!(top_block_words(&loop_paths), Some((TOP_LEN, false)));
        assert_eq!(top_block_words(&loop_paths[..TOP_LEN - 1]), None);
        // A run counts once, and the last path's run belongs to the block.
        let mut runs = vec![3; TOP_LEN];
        runs.extend([MARKER, repeats::REPEAT + 9, 4]);
        assert_eq!(top_block_words(&runs), Some((TOP_LEN + 2, false)));
        runs.splice(0..0, [5, MARKER, repeats::REPEAT + 20]);
        assert_eq!(top_block_words(&runs), Some((TOP_LEN + 2, false)));
        let mut call = vec![1, MARKER, ENTER + 2, 5, MARKER, LEAVE];
        call.extend(vec![0; TOP_LEN]);
        assert_eq!(top_block_words(&call), Some((TOP_LEN + 4, true)));
        let leaving = [vec![1, MARKER, LEAVE], vec![0; TOP_LEN]].concat();
        assert_eq!(top_block_words(&leaving), None);
    }
}
