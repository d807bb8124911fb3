// Maps: `new map[K]V` with `int` and `str` keys and values of every kind, `get` with a default,
// `set` (a new key goes last, an existing one keeps its place), `has`, `delete`, `len`, `keys`
// in insertion order, printing, identity `==`, a map global, maps of maps and of structs, and a
// map that grows through many insertions and deletions.
struct Account { owner: str, balance: int }

let SEEN: map[str]bool = new map[str]bool;

fn count_words(text: str) -> map[str]int {
    let counts = new map[str]int;
    let word = "";
    for i in 0..len(text) + 1 {
        if i == len(text) || text[i] == " "[0] {
            if len(word) > 0 {
                set(counts, word, get(counts, word, 0) + 1);
                set(SEEN, word, true);
            }
            word = "";
        } else {
            word += chr(text[i]);
        }
    }
    return counts;
}

fn most_frequent(counts: map[str]int) -> str {
    let words = keys(counts);
    let best = "";
    for i in 0..len(words) {
        // The first of the words with the highest count: insertion order breaks ties.
        if best == "" || get(counts, words[i], 0) > get(counts, best, 0) {
            best = words[i];
        }
    }
    return best;
}

fn main() {
    let counts = count_words("the cat and the dog and the bird");
    println(counts);
    println(len(counts), "words;", "most frequent:", most_frequent(counts));
    println(has(counts, "cat"), has(counts, "cow"), get(counts, "cow", -1));
    delete(counts, "cat");
    delete(counts, "cow");
    set(counts, "cat", 9);
    set(counts, "the", 0);
    println(counts, keys(counts));

    let squares = new map[int]int;
    for i in -3..4 {
        set(squares, i, i * i);
    }
    println(squares, get(squares, -3, 0), get(squares, 10, 0));

    let halves = new map[int]float;
    set(halves, 1, 0.5);
    set(halves, 3, 1.5);
    let flags = new map[str]bool;
    set(flags, "on", true);
    set(flags, "off", false);
    println(halves, flags, get(flags, "off", true), get(flags, "none", true));

    let accounts = new map[int]Account;
    set(accounts, 7, new Account { owner: "ada", balance: 10 });
    let a = get(accounts, 7, null);
    a.balance += 5;
    println(accounts, get(accounts, 8, null));

    let graph = new map[int][int];
    set(graph, 1, [2, 3]);
    set(graph, 2, [3]);
    set(graph, 3, []);
    let edges = 0;
    let nodes = keys(graph);
    for i in 0..len(nodes) {
        edges += len(get(graph, nodes[i], []));
    }
    println(graph, edges);

    let groups = new map[str]map[int]str;
    set(groups, "odd", new map[int]str);
    set(groups, "even", new map[int]str);
    for i in 0..5 {
        let name = "odd";
        if i % 2 == 0 { name = "even"; }
        set(get(groups, name, new map[int]str), i, str(i));
    }
    println(groups);

    let alias = squares;
    set(alias, 100, 1);
    println(alias == squares, squares == new map[int]int, len(squares));

    // Many insertions and deletions: the entries that stay keep their order.
    let churn = new map[int]int;
    for i in 0..20000 {
        set(churn, i, i);
        if i % 3 != 0 {
            delete(churn, i);
        }
    }
    let ks = keys(churn);
    println(len(churn), ks[0], ks[1], ks[len(ks) - 1]);
    println(SEEN);
}
