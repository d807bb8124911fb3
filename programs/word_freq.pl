// Word frequency: read stdin line by line with read_line()/eof(), split into lowercase words,
// count them in a hash table (open addressing, FNV-1a hash), sort by count then word, print.
struct Entry { word: str, count: int }

let TABLE: [Entry] = [];
let USED: int = 0;

fn hash(s: str) -> int {
    let h = -3750763034362895579;
    for i in 0..len(s) {
        h = (h ^ s[i]) * 1099511628211;
    }
    return h;
}

fn add_word(w: str) {
    let cap = len(TABLE);
    let i = hash(w) & (cap - 1);
    while TABLE[i] != null {
        if TABLE[i].word == w {
            TABLE[i].count += 1;
            return;
        }
        i = (i + 1) & (cap - 1);
    }
    TABLE[i] = new Entry { word: w, count: 1 };
    USED += 1;
}

fn lower(c: int) -> int {
    if c >= 65 && c <= 90 {
        return c + 32;
    }
    return c;
}

fn is_letter(c: int) -> bool {
    return c >= 97 && c <= 122 || c == 39;
}

// insertion sort: higher count first, then alphabetical
fn before(a: Entry, b: Entry) -> bool {
    if a.count != b.count {
        return a.count > b.count;
    }
    return a.word < b.word;
}

fn main() {
    let empty: [Entry] = [null; 256];
    TABLE = empty;
    let lines = 0;
    let words = 0;
    let chars = 0;
    while !eof() {
        let line = read_line();
        lines += 1;
        chars += len(line);
        let cur = "";
        for i in 0..len(line) + 1 {
            let c = 32;
            if i < len(line) {
                c = lower(line[i]);
            }
            if is_letter(c) {
                cur = cur + chr(c);
            } else if len(cur) > 0 {
                add_word(cur);
                words += 1;
                cur = "";
            }
        }
    }
    println("lines:", lines, "words:", words, "chars:", chars, "distinct:", USED);
    let list: [Entry] = [null; USED];
    let n = 0;
    for i in 0..len(TABLE) {
        if TABLE[i] != null {
            list[n] = TABLE[i];
            n += 1;
        }
    }
    for i in 1..n {
        let e = list[i];
        let j = i - 1;
        while j >= 0 && before(e, list[j]) {
            list[j + 1] = list[j];
            j -= 1;
        }
        list[j + 1] = e;
    }
    for i in 0..min(n, 12) {
        println(list[i].count, list[i].word);
    }
    println(list[0]);
}
