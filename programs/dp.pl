// Dynamic programming: longest common subsequence (with reconstruction), edit distance,
// 0/1 knapsack (with the chosen items), and coin-change counting.
fn lcs(a: str, b: str) -> str {
    let n = len(a);
    let m = len(b);
    let t = [[0; 0]; n + 1];
    for i in 0..n + 1 {
        t[i] = [0; m + 1];
    }
    for i in 1..n + 1 {
        for j in 1..m + 1 {
            if a[i - 1] == b[j - 1] {
                t[i][j] = t[i - 1][j - 1] + 1;
            } else {
                t[i][j] = max(t[i - 1][j], t[i][j - 1]);
            }
        }
    }
    // walk back
    let out = "";
    let i = n;
    let j = m;
    while i > 0 && j > 0 {
        if a[i - 1] == b[j - 1] {
            out = chr(a[i - 1]) + out;
            i -= 1;
            j -= 1;
        } else if t[i - 1][j] >= t[i][j - 1] {
            i -= 1;
        } else {
            j -= 1;
        }
    }
    return out;
}

fn edit_distance(a: str, b: str) -> int {
    let prev = [0; len(b) + 1];
    let cur = [0; len(b) + 1];
    for j in 0..len(b) + 1 {
        prev[j] = j;
    }
    for i in 1..len(a) + 1 {
        cur[0] = i;
        for j in 1..len(b) + 1 {
            let cost = 1;
            if a[i - 1] == b[j - 1] {
                cost = 0;
            }
            cur[j] = min(min(prev[j] + 1, cur[j - 1] + 1), prev[j - 1] + cost);
        }
        let tmp = prev;
        prev = cur;
        cur = tmp;
    }
    return prev[len(b)];
}

struct Item { name: str, weight: int, value: int }

fn knapsack(items: [Item], cap: int) {
    let n = len(items);
    let best = [[0; 0]; n + 1];
    best[0] = [0; cap + 1];
    for i in 1..n + 1 {
        best[i] = [0; cap + 1];
        let it = items[i - 1];
        for c in 0..cap + 1 {
            best[i][c] = best[i - 1][c];
            if it.weight <= c && best[i - 1][c - it.weight] + it.value > best[i][c] {
                best[i][c] = best[i - 1][c - it.weight] + it.value;
            }
        }
    }
    let chosen = "";
    let c = cap;
    let weight = 0;
    let i = n;
    while i > 0 {
        if best[i][c] != best[i - 1][c] {
            chosen = items[i - 1].name + " " + chosen;
            c -= items[i - 1].weight;
            weight += items[i - 1].weight;
        }
        i -= 1;
    }
    println("capacity", cap, "value", best[n][cap], "weight", weight, "items:", chosen);
}

fn coin_ways(coins: [int], amount: int) -> int {
    let ways = [0; amount + 1];
    ways[0] = 1;
    for k in 0..len(coins) {
        for a in coins[k]..amount + 1 {
            ways[a] += ways[a - coins[k]];
        }
    }
    return ways[amount];
}

fn main() {
    let pairs = [["ABCBDAB", "BDCABA"], ["programs follow paths", "preferential path profiling"],
                 ["", "abc"], ["same", "same"], ["AGGTAB", "GXTXAYB"]];
    for p in 0..len(pairs) {
        let a = pairs[p][0];
        let b = pairs[p][1];
        let s = lcs(a, b);
        println("lcs(\"" + a + "\", \"" + b + "\") = \"" + s + "\"", len(s), "edit distance", edit_distance(a, b));
    }
    println("kitten/sitting", edit_distance("kitten", "sitting"), "flaw/lawn", edit_distance("flaw", "lawn"));

    let items = [
        new Item { name: "map", weight: 9, value: 150 },
        new Item { name: "compass", weight: 13, value: 35 },
        new Item { name: "water", weight: 153, value: 200 },
        new Item { name: "sandwich", weight: 50, value: 160 },
        new Item { name: "glucose", weight: 15, value: 60 },
        new Item { name: "tin", weight: 68, value: 45 },
        new Item { name: "banana", weight: 27, value: 60 },
        new Item { name: "apple", weight: 39, value: 40 },
        new Item { name: "cheese", weight: 23, value: 30 },
        new Item { name: "beer", weight: 52, value: 10 },
        new Item { name: "suntan", weight: 11, value: 70 },
        new Item { name: "camera", weight: 32, value: 30 }
    ];
    knapsack(items, 0);
    knapsack(items, 10);
    knapsack(items, 100);
    knapsack(items, 400);
    println("coin ways 100 with [1,5,10,25,50]:", coin_ways([1, 5, 10, 25, 50], 100));
    println("coin ways 300 with [2,3,7]:", coin_ways([2, 3, 7], 300));
}
