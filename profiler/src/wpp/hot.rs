//! Minimal hot subpaths of a whole program path ([WPP] §4, Fig. 7).
//!
//! Definitions (§4.1–4.2): a *subpath* is a substring of the trace; its *cost* is its execution
//! frequency times the sum of its acyclic paths' costs; a *hot subpath* has at most `L` acyclic
//! paths and cost at least `C`; a *minimal* hot subpath is the shortest prefix of a subpath that is
//! hot. §5.2 additionally asks for at least a minimum number of paths (Fig. 9 uses 10); that is
//! [`HotParams::min_len`].
//!
//! The search is Fig. 7: one post-order walk of the grammar DAG, each rule visited once. While a
//! rule's right-hand side is scanned, a window of at most `L` terminals slides along the rule's
//! expansion, except that a child rule contributes only its `L`-limited prefix, after which the
//! window restarts from the child's `L`-limited suffix when the prefix did not cover the whole
//! child. So at each node only the subpaths crossing the boundaries between its children are
//! examined (`S1‖P2`, `S2‖P3`, `S1‖P2‖P3` of Fig. 6); those inside one child were found when the
//! child was visited. When a window becomes hot it is reported and emptied, so the rule's suffix
//! holds only what follows the last hot subpath, and the rule's prefix is cut back to end before
//! the first hot subpath and frozen. Work O(E·L) for E DAG edges, plus the pricing below.
//!
//! Frequencies are combined across rules. Fig. 7 prices a window with the frequency of the rule
//! being scanned (the number of DAG paths from the start rule to it), which counts only the
//! occurrences whose lowest enclosing rule is that one: a loop body path found under three rules
//! would be three subpaths of a third of the cost each, and none might reach `C`. Here a window
//! is priced with its total frequency in the trace, [`Grammar::occurrences`] ([WPP] §3.3: the sum,
//! over the rules, of its occurrences lowest in that rule times the rule's frequency), so the
//! walk decides hotness on the subpath's real cost. Each distinct subpath is reported once, at
//! the first rule where the walk found it hot. A window is counted exactly only when it could be
//! hot: its least frequent path bounds its frequency. Each count is a search in an index of the
//! grammar made once ([`Occurrences`]), not a pass over the grammar.
//!
//! Choices where Fig. 7 is loose, documented here because they affect results:
//! - a frozen prefix (cut before a hot subpath) does not cover its rule, so a parent switches to
//!   that rule's suffix after appending its prefix, and a parent's own prefix stops growing after a
//!   child whose prefix did not cover it (otherwise the parent's prefix would join non-adjacent
//!   symbols);
//! - the window is a sliding one: when full, its oldest terminal drops as a new one arrives, so a
//!   reported subpath is the shortest hot prefix of the subpath starting where the window starts.

use super::grammar::{Grammar, IndexTooLarge, Occurrences, Symbol};
use serde::Serialize;
use std::collections::{HashSet, VecDeque};

/// The thresholds of the search.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HotParams {
    /// `C`: a subpath is hot when its cost is at least this.
    pub min_cost: u64,
    /// `L`: the longest subpath considered, in acyclic paths.
    pub max_len: usize,
    /// The shortest subpath reported, in acyclic paths (Fig. 7's `MinStringLength`).
    pub min_len: usize,
}

impl HotParams {
    /// `pcc wpp hot --min-cost C --max-len L`: subpaths of 1 to `L` acyclic paths.
    pub fn new(min_cost: u64, max_len: usize) -> HotParams {
        HotParams {
            min_cost,
            max_len,
            min_len: 1,
        }
    }
}

/// One minimal hot subpath.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HotSubpath {
    /// The acyclic paths (terminal symbols), in execution order.
    pub path: Vec<u32>,
    /// The rule (DAG node) at which it was first found.
    pub rule: u32,
    /// How many times it occurs in the trace (in all rules).
    pub frequency: u64,
    /// Sum of the costs of `path`'s acyclic paths (saturating).
    pub path_cost: u64,
    /// `frequency × path_cost` (saturating).
    pub cost: u64,
}

/// The `L`-limited window of Fig. 7's `subPath`, with its running cost.
#[derive(Clone, Debug, Default)]
struct Window {
    syms: VecDeque<(u32, u64)>,
    cost: u128,
}

impl Window {
    fn push(&mut self, t: u32, c: u64, cap: usize) {
        if self.syms.len() == cap
            && let Some((_, old)) = self.syms.pop_front()
        {
            self.cost -= u128::from(old);
        }
        self.syms.push_back((t, c));
        self.cost += u128::from(c);
    }

    fn clear(&mut self) {
        self.syms.clear();
        self.cost = 0;
    }
}

/// What a finished rule hands to its parents.
#[derive(Clone, Debug)]
struct Summary {
    /// Up to `L` leading terminals, stopping before the first hot subpath.
    prefix: Vec<u32>,
    /// Whether `prefix` is the rule's whole expansion.
    covers: bool,
    /// The terminals after the last hot subpath, at most `L` of them.
    suffix: Window,
}

/// What prices the windows and collects the hot subpaths.
struct Search<'g, F> {
    params: HotParams,
    cost: F,
    occurrences: Occurrences<'g>,
    reported: HashSet<Vec<u32>>,
    out: Vec<HotSubpath>,
}

impl<F: Fn(u32) -> u64> Search<'_, F> {
    /// The window's total frequency if it is hot.
    fn hot_frequency(&mut self, window: &Window) -> Option<u64> {
        if window.syms.len() < self.params.min_len {
            return None;
        }
        let min_cost = u128::from(self.params.min_cost);
        let bound = window
            .syms
            .iter()
            .map(|&(t, _)| self.occurrences.of_terminal(t))
            .min()
            .unwrap_or(0);
        if window.cost.saturating_mul(u128::from(bound)) < min_cost {
            return None;
        }
        let path: Vec<u32> = window.syms.iter().map(|&(t, _)| t).collect();
        let frequency = self.occurrences.count(&path);
        (window.cost.saturating_mul(u128::from(frequency)) >= min_cost).then_some(frequency)
    }
}

/// A rule being scanned.
struct Frame {
    rule: u32,
    pos: usize,
    prefix: Vec<u32>,
    covers: bool,
    frozen: bool,
    /// Terminals of the expansion appended so far while the prefix was not frozen.
    seen: u64,
    window: Window,
}

impl Frame {
    fn new(rule: u32) -> Frame {
        Frame {
            rule,
            pos: 0,
            prefix: Vec::new(),
            covers: true,
            frozen: false,
            seen: 0,
            window: Window::default(),
        }
    }

    /// Fig. 7's `appendTerminal`: extend the rule's prefix and the subpath, report when hot.
    fn append<F: Fn(u32) -> u64>(&mut self, t: u32, search: &mut Search<'_, F>) {
        let max_len = search.params.max_len;
        if !self.frozen {
            self.seen += 1;
            if self.prefix.len() < max_len {
                self.prefix.push(t);
            } else {
                self.covers = false;
            }
        }
        self.window.push(t, (search.cost)(t), max_len);
        let Some(frequency) = search.hot_frequency(&self.window) else {
            return;
        };
        let path: Vec<u32> = self.window.syms.iter().map(|&(t, _)| t).collect();
        if search.reported.insert(path.clone()) {
            let cost = self.window.cost.saturating_mul(u128::from(frequency));
            search.out.push(HotSubpath {
                path,
                rule: self.rule,
                frequency,
                path_cost: saturate(self.window.cost),
                cost: saturate(cost),
            });
        }
        let len = self.window.syms.len();
        if !self.frozen {
            // Stop the prefix before the hot subpath.
            let before = self.seen.saturating_sub(len as u64);
            let keep =
                usize::try_from(before).map_or(self.prefix.len(), |b| b.min(self.prefix.len()));
            self.prefix.truncate(keep);
            self.frozen = true;
            self.covers = false;
        }
        self.window.clear();
    }
}

fn saturate(x: u128) -> u64 {
    u64::try_from(x).unwrap_or(u64::MAX)
}

/// Finds the minimal hot subpaths of `grammar` (Fig. 7), each once, in the order the walk first
/// reports them. `cost(t)` is the cost of acyclic path `t`, e.g. its instruction count (§5.2).
/// Iterative, so deep grammars are fine. An error if pricing subpaths of `max_len` paths would
/// need too large an index of the grammar.
pub fn hot_subpaths<F: Fn(u32) -> u64>(
    grammar: &Grammar,
    cost: F,
    params: &HotParams,
) -> Result<Vec<HotSubpath>, IndexTooLarge> {
    if params.max_len == 0 || params.min_len > params.max_len {
        return Ok(Vec::new());
    }
    let mut search = Search {
        params: *params,
        cost,
        occurrences: Occurrences::new(grammar, params.max_len)?,
        reported: HashSet::new(),
        out: Vec::new(),
    };
    let rules = grammar.rules();
    // Edges still to be followed into each rule; a summary is dropped after its last use.
    let mut pending_uses = grammar.use_counts();
    let mut visited = vec![false; rules.len()];
    let mut done: Vec<Option<Summary>> = vec![None; rules.len()];
    let mut stack = vec![Frame::new(0)];
    visited[0] = true;
    while let Some(top) = stack.last_mut() {
        let rhs = &rules[top.rule as usize];
        let Some(&sym) = rhs.get(top.pos) else {
            let f = stack.pop().unwrap_or_else(|| unreachable!());
            done[f.rule as usize] = Some(Summary {
                prefix: f.prefix,
                covers: f.covers,
                suffix: f.window,
            });
            continue;
        };
        match sym {
            Symbol::Terminal(t) => {
                top.append(t, &mut search);
                top.pos += 1;
            }
            Symbol::Rule(c) => {
                let c = c as usize;
                if !visited[c] {
                    // Post-order: summarize the child first, then come back to this symbol.
                    visited[c] = true;
                    stack.push(Frame::new(c as u32));
                    continue;
                }
                let child = done[c].as_ref().unwrap_or_else(|| unreachable!("acyclic"));
                for &t in &child.prefix {
                    top.append(t, &mut search);
                }
                if !child.covers {
                    // The child is wider than its prefix: what follows it continues its suffix.
                    top.window = child.suffix.clone();
                    top.frozen = true;
                    top.covers = false;
                }
                pending_uses[c] -= 1;
                if pending_uses[c] == 0 {
                    done[c] = None;
                }
                top.pos += 1;
            }
        }
    }
    Ok(search.out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(c: char) -> Symbol {
        Symbol::Terminal(c as u32)
    }
    fn r(x: u32) -> Symbol {
        Symbol::Rule(x)
    }
    fn s(path: &[u32]) -> String {
        path.iter().map(|&c| char::from_u32(c).unwrap()).collect()
    }

    /// Fig. 5: the WPP of abbcabbcabbc. The figure is a drawing; its grammar, reconstructed from
    /// the text (A spans a…c, B and C are used once, ab and bb and bc are hot at frequency 3), is
    /// S -> AAA, A -> BC, B -> ab, C -> bc, with frequencies S 1, A 3, B 3, C 3.
    fn figure_5() -> Grammar {
        Grammar::new(vec![
            vec![r(1), r(1), r(1)],
            vec![r(2), r(3)],
            vec![t('a'), t('b')],
            vec![t('b'), t('c')],
        ])
        .unwrap()
    }

    #[test]
    fn figure_5_grammar() {
        let g = figure_5();
        assert_eq!(s(&g.expand()), "abbcabbcabbc");
        assert_eq!(g.frequencies(), [1, 3, 3, 3]);
        let occ = |p: &str| {
            g.occurrences(&p.chars().map(|c| c as u32).collect::<Vec<_>>())
                .unwrap()
        };
        assert_eq!((occ("ab"), occ("bb"), occ("bc"), occ("ca")), (3, 3, 3, 2));
        assert_eq!((occ("abbc"), occ("cab"), occ("abc")), (3, 2, 0));
    }

    #[test]
    fn figure_5_hot_subpaths() {
        // Unit costs; length greater than 1 and less than 4; cost 6 or more. Of the hot
        // subpaths the paper lists (ab, bc, bb, ca), the algorithm reports ab and bc. (By §4.2's
        // definition ca, which occurs twice, costs 4: only ab, bc and bb are actually hot.)
        let params = HotParams {
            min_cost: 6,
            max_len: 3,
            min_len: 2,
        };
        let hot = hot_subpaths(&figure_5(), |_| 1, &params).unwrap();
        let found: Vec<(String, u32, u64, u64)> = hot
            .iter()
            .map(|h| (s(&h.path), h.rule, h.frequency, h.cost))
            .collect();
        assert_eq!(
            found,
            [("ab".to_string(), 2, 3, 6), ("bc".to_string(), 3, 3, 6)]
        );
    }

    #[test]
    fn crossing_subpaths_are_found_at_the_common_ancestor() {
        // S -> A x A x, A -> a b: "b x a" crosses rule boundaries and is found at S.
        let g = Grammar::new(vec![vec![r(1), t('x'), r(1), t('x')], vec![t('a'), t('b')]]).unwrap();
        let cost = |c: u32| if c == 'x' as u32 { 10 } else { 1 };
        let hot = hot_subpaths(&g, cost, &HotParams::new(10, 4)).unwrap();
        // The window that starts at each a first becomes hot at the following x: "abx", which
        // occurs twice (cost 2 × 12), found at S both times and reported once.
        let found: Vec<(String, u32, u64, u64)> = hot
            .iter()
            .map(|h| (s(&h.path), h.rule, h.frequency, h.cost))
            .collect();
        assert_eq!(found, [("abx".to_string(), 0, 2, 24)]);
        assert_eq!(
            hot_subpaths(&g, cost, &HotParams::new(24, 4))
                .unwrap()
                .len(),
            1
        );
        // Above that nothing is hot: the costliest window that occurs once, "xabx", costs 22.
        assert!(
            hot_subpaths(&g, cost, &HotParams::new(25, 4))
                .unwrap()
                .is_empty()
        );
        // Degenerate parameters.
        assert!(
            hot_subpaths(&g, cost, &HotParams::new(1, 0))
                .unwrap()
                .is_empty()
        );
        let p = HotParams {
            min_cost: 0,
            max_len: 2,
            min_len: 3,
        };
        assert!(hot_subpaths(&g, cost, &p).unwrap().is_empty());
    }

    /// A path found under several rules is one subpath with its total frequency: "a" seven
    /// times as S -> A A a, A -> B a, B -> a a (frequencies 1, 2, 2): 2·2 in B, 2 in A, 1 in S.
    #[test]
    fn frequencies_are_combined_across_rules() {
        let g = Grammar::new(vec![
            vec![r(1), r(1), t('a')],
            vec![r(2), t('a')],
            vec![t('a'), t('a')],
        ])
        .unwrap();
        assert_eq!(g.frequencies(), [1, 2, 2]);
        let hot = hot_subpaths(&g, |_| 6, &HotParams::new(1, 1)).unwrap();
        let found: Vec<(String, u64, u64)> = hot
            .iter()
            .map(|h| (s(&h.path), h.frequency, h.cost))
            .collect();
        assert_eq!(found, [("a".to_string(), 7, 42)]);
        // No one rule's share (at most 4 × 6) reaches 30; the total does.
        assert_eq!(
            hot_subpaths(&g, |_| 6, &HotParams::new(30, 1)).unwrap(),
            hot
        );
        assert!(
            hot_subpaths(&g, |_| 6, &HotParams::new(43, 1))
                .unwrap()
                .is_empty()
        );
    }
}
