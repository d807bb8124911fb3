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
pub fn did_you_mean<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> String {
    match closest(name, candidates) {
        Some(c) => format!(" — did you mean `{c}`?"),
        None => String::new(),
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
}
