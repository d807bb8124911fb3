// Word frequency written with the built-ins (compare word_freq.pl, which hand-writes its hash
// table, its tokenizer and its sort): read stdin line by line, keep letters and apostrophes,
// split into lowercase words, count them in a map, print the 12 most frequent, the most
// frequent first and equal counts in alphabetical order.
const SHOWN: int = 12;

// The line with every byte that is not a letter or an apostrophe made a space.
fn letters_only(line: str) -> str {
    let kept = "";
    for i in 0..len(line) {
        let c = line[i];
        if c >= "a"[0] && c <= "z"[0] || c == "'"[0] {
            kept += chr(c);
        } else {
            kept += " ";
        }
    }
    return kept;
}

fn main() {
    let counts = new map[str]int;
    let lines = 0;
    let words = 0;
    let chars = 0;
    while !eof() {
        let line = read_line();
        lines += 1;
        chars += len(line);
        let pieces = split(letters_only(to_lower(line)), " ");
        for i in 0..len(pieces) {
            if pieces[i] != "" {
                set(counts, pieces[i], get(counts, pieces[i], 0) + 1);
                words += 1;
            }
        }
    }
    println("lines:", lines, "words:", words, "chars:", chars, "distinct:", len(counts));
    // The words of each count, from the highest count down, each group sorted.
    let all = keys(counts);
    let highest = 0;
    for i in 0..len(all) {
        highest = max(highest, get(counts, all[i], 0));
    }
    let shown = 0;
    let count = highest;
    while count > 0 && shown < SHOWN {
        let group: [str] = [];
        for i in 0..len(all) {
            if get(counts, all[i], 0) == count {
                push(group, all[i]);
            }
        }
        sort(group);
        for i in 0..min(len(group), SHOWN - shown) {
            println(count, group[i]);
        }
        shown += min(len(group), SHOWN - shown);
        count -= 1;
    }
}
