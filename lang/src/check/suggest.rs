//! "Did you mean ...?" suggestions by edit distance.

/// Names longer than this are never compared: suggestions for them are not worth quadratic
/// time on adversarial input.
const MAX_LEN: usize = 64;

/// The candidate closest to `name`, if it is close enough to be a plausible typo: at most a
/// third of the name's length edits away, ignoring case (so a one- or two-letter name only
/// matches a different capitalization of itself). Ties go to the alphabetically first
/// candidate, so messages do not depend on hash order.
pub fn closest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let len = name.chars().count();
    if len > MAX_LEN {
        return None;
    }
    let limit = len / 3;
    let name_lower = name.to_lowercase();
    candidates
        .into_iter()
        .filter(|c| c.chars().count().abs_diff(len) <= limit && *c != name)
        .filter_map(|c| {
            let d = distance(&name_lower, &c.to_lowercase());
            (d <= limit).then_some((d, c))
        })
        .min()
        .map(|(_, c)| c)
}

/// The message suffix for a suggestion: ` — did you mean `x`?`, or nothing.
#[cfg(test)]
pub fn did_you_mean<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> String {
    suffix(closest(name, candidates))
}

fn suffix(suggestion: Option<&str>) -> String {
    match suggestion {
        Some(c) => format!(" — did you mean `{c}`?"),
        None => String::new(),
    }
}

/// The work one check may spend on suggestions: cells of the edit-distance table plus
/// candidates looked at. Past it, errors come without suggestions, so that a program with
/// thousands of unknown names among thousands of known ones is checked in near-linear time
/// (20,000 calls of undefined functions among 20,000 functions took minutes comparing every
/// pair). Work, not time, so the messages do not depend on the machine.
pub const BUDGET: usize = 20_000_000;

/// The suggestions of one check: the work spent so far ([`BUDGET`]), and the program's functions
/// and built-ins indexed once by length, so a search compares only the names whose length is
/// close enough to match.
#[derive(Default)]
pub struct Suggester {
    spent: usize,
    /// Per length in characters, the function names of that length (lowercased, and as
    /// written), sorted.
    functions: Option<Vec<Vec<(String, String)>>>,
}

impl Suggester {
    /// [`did_you_mean`] within the budget: nothing once it is spent, or when this search would
    /// exceed it (decided before comparing, so that the answer does not depend on the
    /// candidates' order).
    pub fn did_you_mean<'c>(
        &mut self,
        name: &str,
        candidates: impl IntoIterator<Item = &'c str>,
    ) -> String {
        let len = name.chars().count();
        if self.spent >= BUDGET || len > MAX_LEN {
            return String::new();
        }
        let limit = len / 3;
        let candidates: Vec<&str> = candidates.into_iter().collect();
        self.spent += candidates.len();
        let near: Vec<&str> = (candidates.into_iter())
            .filter(|c| c.chars().count().abs_diff(len) <= limit)
            .collect();
        let cost: usize = near.iter().map(|c| len * c.chars().count()).sum();
        if !self.spend(cost) {
            return String::new();
        }
        suffix(closest(name, near))
    }

    /// [`did_you_mean`] among the program's functions and built-ins, `names` (asked for once per
    /// check, when the first unknown function is met).
    pub fn did_you_mean_function<'c, I: IntoIterator<Item = &'c str>>(
        &mut self,
        name: &str,
        names: impl FnOnce() -> I,
    ) -> String {
        let len = name.chars().count();
        if self.spent >= BUDGET || len > MAX_LEN {
            return String::new();
        }
        let index = self.functions.get_or_insert_with(|| {
            let mut by_len: Vec<Vec<(String, String)>> =
                vec![Vec::new(); MAX_LEN + MAX_LEN / 3 + 1];
            for n in names() {
                if let Some(bucket) = by_len.get_mut(n.chars().count()) {
                    bucket.push((n.to_lowercase(), n.to_string()));
                }
            }
            for bucket in &mut by_len {
                bucket.sort_unstable_by(|a, b| a.1.cmp(&b.1));
                bucket.dedup_by(|a, b| a.1 == b.1);
            }
            by_len
        });
        let limit = len / 3;
        let lengths = len.saturating_sub(limit)..=len + limit;
        let cost: usize = (index[lengths.clone()].iter().enumerate())
            .map(|(i, bucket)| (bucket.len() + 1) * (1 + len * (lengths.start() + i)))
            .sum();
        let index = self.functions.as_ref().expect("built");
        if self.spent.saturating_add(cost) > BUDGET {
            self.spent = BUDGET;
            return String::new();
        }
        self.spent += cost;
        let name_lower = name.to_lowercase();
        let best = (index[lengths].iter().flatten())
            .filter(|(_, c)| c != name)
            .filter_map(|(lower, c)| {
                let d = distance(&name_lower, lower);
                (d <= limit).then_some((d, c.as_str()))
            })
            .min()
            .map(|(_, c)| c);
        suffix(best)
    }

    /// Spends `cost` if the budget has it; else spends the rest, and says no.
    fn spend(&mut self, cost: usize) -> bool {
        if self.spent.saturating_add(cost) > BUDGET {
            self.spent = BUDGET;
            return false;
        }
        self.spent += cost;
        true
    }
}

/// PL's name for a type as other languages spell it (`integer`, `string`, `double`, ...), for
/// names too far from PL's for [`closest`] to suggest.
pub fn type_in_other_languages(name: &str) -> Option<&'static str> {
    Some(match name {
        "integer" | "Integer" | "long" | "i64" | "i32" | "isize" | "usize" | "u64" => "int",
        "string" | "String" | "char" | "text" => "str",
        "double" | "f64" | "f32" | "number" | "real" => "float",
        "boolean" | "Boolean" => "bool",
        _ => return None,
    })
}

/// Edit distance counting insertions, deletions, substitutions and swaps of two adjacent
/// characters (the "optimal string alignment" distance): `cuont` is one edit from `count`.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the dynamic-programming table: two back, one back, current.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            current[j] = (previous[j - 1] + cost)
                .min(previous[j] + 1)
                .min(current[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                current[j] = current[j].min(before[j - 2] + 1);
            }
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("fib", "fibb"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("same", "same"), 0);
        assert_eq!(distance("cuont", "count"), 1);
        assert_eq!(distance("ab", "ba"), 1);
    }

    #[test]
    fn suggestions() {
        assert_eq!(closest("fibb", ["fib", "main", "fizz"]), Some("fib"));
        assert_eq!(closest("x", ["y", "z"]), None);
        assert_eq!(closest("n", ["N", "m"]), Some("N"));
        assert_eq!(closest("Count", ["count"]), Some("count"));
        assert_eq!(closest("count", ["total", "main"]), None);
        assert_eq!(closest("lenght", ["length"]), Some("length"));
        assert_eq!(closest("kye", ["key", "left", "right"]), Some("key"));
        assert_eq!(
            did_you_mean("pritnln", ["println", "print"]),
            " — did you mean `println`?"
        );
        assert_eq!(did_you_mean("zzz", ["println"]), "");
    }

    #[test]
    fn the_function_index_suggests_as_the_plain_search() {
        let names = [
            "fib", "fibb", "main", "fizz", "Fib", "println", "print", "len",
        ];
        let mut suggester = Suggester::default();
        for name in [
            "fibb", "fb", "fiz", "mian", "prnt", "pritnln", "lne", "zzz", "fib",
        ] {
            assert_eq!(
                suggester.did_you_mean_function(name, || names),
                did_you_mean(name, names),
                "{name}"
            );
            assert_eq!(
                suggester.did_you_mean(name, names),
                did_you_mean(name, names)
            );
        }
    }

    #[test]
    fn suggestions_stop_when_the_budget_is_spent() {
        // 4,000 functions of six letters and 4,000 unknown names of six letters: every search
        // compares thousands of names; past the budget the messages have no suggestion.
        let names: Vec<String> = (0..4000).map(|i| format!("f{i:05}")).collect();
        let mut suggester = Suggester::default();
        let mut suggested = 0;
        for i in 0..4000 {
            let hint = suggester
                .did_you_mean_function(&format!("g{i:05}"), || names.iter().map(String::as_str));
            suggested += usize::from(!hint.is_empty());
        }
        assert!(suggester.spent <= BUDGET);
        assert!(0 < suggested && suggested < 4000, "{suggested}");
    }
}
