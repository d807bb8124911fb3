//! Counted nouns and articles for messages: "1 function", "2 functions", "an edge profile".

/// `n` and the noun, plural unless `n` is 1: `plural(1, "cold block")` is "1 cold block",
/// `plural(2, "branch")` is "2 branches".
pub fn plural(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else if ["s", "x", "ch", "sh"].iter().any(|end| noun.ends_with(end)) {
        format!("{n} {noun}es")
    } else {
        format!("{n} {noun}s")
    }
}

/// `word` after its indefinite article: "a bl", "an edge".
pub fn with_article(word: &str) -> String {
    let vowel = word
        .chars()
        .next()
        .is_some_and(|c| "aeiouAEIOU".contains(c));
    format!("{} {word}", if vowel { "an" } else { "a" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_articles() {
        assert_eq!(plural(1, "function"), "1 function");
        assert_eq!(plural(0, "function"), "0 functions");
        assert_eq!(plural(3, "index range"), "3 index ranges");
        assert_eq!(plural(2, "branch"), "2 branches");
        assert_eq!(with_article("edge"), "an edge");
        assert_eq!(with_article("bl"), "a bl");
    }
}
