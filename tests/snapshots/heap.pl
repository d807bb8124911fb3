// IR snapshot: allocation (structs, arrays, strings) with references live across calls, where
// the collector may run.
struct Node { key: int, next: Node }

fn build(n: int) -> Node {
    let head: Node = null;
    for i in 0..n {
        head = new Node { key: i, next: head };
    }
    return head;
}

fn main() {
    let list = build(5);
    let names = ["a", "b"];
    let s = "";
    while list != null {
        s = s + str(list.key) + names[list.key % 2];
        list = list.next;
    }
    println(s);
}
