//! Run-length coding of the wpp stream, a departure from [WPP] §3 like the block coder: a loop
//! that repeats one acyclic path (sieve's marking loop, mandelbrot's escape loop) ends a path every
//! few ns, and the grammar builder would handle each one. When the recorder gathers a stream buffer
//! into a chunk ([`compress`]), a run of [`MIN_RUN`] or more equal path words becomes the path word
//! followed by a *repeat marker*, `MARKER, REPEAT + (n - 1)` for a run of `n`, which the builder
//! hands the block coder as one run (`BlockSequitur::push_run`). The trace is unchanged: `pcc wpp
//! expand` gives back every path.

use crate::stream::MARKER;

/// The second word of a repeat marker is this plus the number of repeats (stream markers'
/// second words, `LEAVE` and `ENTER + table`, are below it).
pub(super) const REPEAT: u64 = 1 << 62;

/// Shortest run written as a repeat: shorter ones cost the builder little path by path.
pub(super) const MIN_RUN: usize = 16;

/// Positions looked at: any run of [`MIN_RUN`] words holds the `STRIDE + 1` words from a
/// multiple of `STRIDE`, so a scan tests one window per `STRIDE` words, without a branch per
/// word (a random choice between two paths passes one test in 256).
const STRIDE: usize = MIN_RUN / 2;

/// Appends `words` (a stream buffer's contents: whole markers) to `out`, each run of
/// [`MIN_RUN`] or more equal path words written as the word and a repeat marker.
pub(super) fn compress(words: &[u64], out: &mut Vec<u64>) {
    // `words[..copied]` are in `out`.
    let mut copied = 0;
    let mut i = 0;
    while i + STRIDE < words.len() {
        let word = words[i];
        let window = &words[i + 1..=i + STRIDE];
        if word == MARKER || window.iter().fold(0, |differ, &w| differ | (w ^ word)) != 0 {
            i += STRIDE;
            continue;
        }
        let mut start = i;
        while start > copied && words[start - 1] == word {
            start -= 1;
        }
        // A marker's second word is not a path (only the first word of a run can be one: the
        // others follow a word that is not a marker).
        if start > 0 && words[start - 1] == MARKER {
            start += 1;
        }
        let mut end = i + STRIDE + 1;
        while end < words.len() && words[end] == word {
            end += 1;
        }
        if end - start < MIN_RUN {
            i += STRIDE;
            continue;
        }
        out.extend_from_slice(&words[copied..start]);
        out.extend([word, MARKER, REPEAT + (end - start - 1) as u64]);
        copied = end;
        i = end;
    }
    out.extend_from_slice(&words[copied..]);
}

/// The length of the run that the second word of a marker, `kind`, writes, if it is a repeat
/// marker.
#[inline]
pub(super) fn run_length(kind: u64) -> Option<u64> {
    kind.checked_sub(REPEAT).map(|repeats| repeats + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::{ENTER, LEAVE};

    /// The words `compressed` stands for.
    fn expand(compressed: &[u64]) -> Vec<u64> {
        let mut words = Vec::new();
        let mut i = 0;
        while i < compressed.len() {
            match compressed[i..] {
                [MARKER, kind, ..] if run_length(kind).is_some() => {
                    let last = *words.last().unwrap();
                    words.extend(std::iter::repeat_n(
                        last,
                        run_length(kind).unwrap() as usize - 1,
                    ));
                    i += 2;
                }
                [MARKER, kind, ..] => {
                    words.extend([MARKER, kind]);
                    i += 2;
                }
                [word, ..] => {
                    words.push(word);
                    i += 1;
                }
                [] => unreachable!(),
            }
        }
        words
    }

    /// The lengths of the runs of MIN_RUN or more equal path words, one word at a time.
    fn path_runs(words: &[u64]) -> Vec<u64> {
        let mut runs = Vec::new();
        let (mut run, mut last, mut i) = (0, None, 0);
        while i <= words.len() {
            let path = match words.get(i) {
                Some(&MARKER) => None,
                word => word.copied(),
            };
            if path.is_none() || path != last {
                if run >= MIN_RUN as u64 {
                    runs.push(run);
                }
                run = 0;
            }
            run += u64::from(path.is_some());
            last = path;
            // A marker's second word is skipped with it.
            i += if path.is_none() { 2 } else { 1 };
        }
        runs
    }

    #[test]
    fn runs_become_repeats_and_nothing_else_changes() {
        let cases: Vec<Vec<u64>> = vec![
            vec![],
            vec![3; MIN_RUN - 1],
            vec![3; MIN_RUN],
            vec![3; 100],
            [vec![1, 2], vec![5; MIN_RUN + 1], vec![1], vec![5; 40]].concat(),
            // A marker's second word equal to the path after it is not part of its run.
            [
                vec![MARKER, LEAVE],
                vec![LEAVE; MIN_RUN],
                vec![MARKER, ENTER + 4],
            ]
            .concat(),
            [
                vec![MARKER, ENTER + 4],
                vec![ENTER + 4; MIN_RUN - 1],
                vec![2],
            ]
            .concat(),
            // Runs of markers are not runs of paths.
            [[MARKER, LEAVE].repeat(10), vec![9; 3]].concat(),
            (0..1000).map(|i| i / 13 % 4).collect(),
            (0..1000).map(|i| i % 3).collect(),
            // Equal words STRIDE apart around other ones.
            [1, 1, 1, 0, 2].repeat(20),
            [
                vec![1; STRIDE],
                vec![0],
                vec![1; MIN_RUN - 1],
                vec![0],
                vec![1; MIN_RUN],
            ]
            .concat(),
        ];
        // Pseudo-random runs of paths and markers.
        let mut x = 7u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut cases = cases;
        for _ in 0..200 {
            let mut words = Vec::new();
            while words.len() < 300 {
                match next() % 6 {
                    0 => words.extend([MARKER, next() % 3]),
                    _ => words.extend(std::iter::repeat_n(next() % 3, (next() % 24) as usize)),
                }
            }
            cases.push(words);
        }
        for words in cases {
            let mut out = vec![42];
            compress(&words, &mut out);
            assert_eq!(out[0], 42);
            assert_eq!(expand(&out[1..]), words);
            // Each run of MIN_RUN or more paths, and only those, became a repeat.
            assert!(out.len() <= words.len() + 1);
            let repeats: Vec<u64> = (out[1..].windows(2))
                .filter(|w| w[0] == MARKER)
                .filter_map(|w| run_length(w[1]))
                .collect();
            assert_eq!(repeats, path_runs(&words));
        }
    }
}
