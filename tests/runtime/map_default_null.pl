// A map's `get` returns the default for a missing key; a `null` default read as a struct is
// the null field error, at the field access.
struct Node { key: int }

fn main() {
    let nodes = new map[str]Node;
    set(nodes, "a", new Node { key: 1 });
    println(get(nodes, "a", null).key);
    let keys = keys(nodes);
    println(len(keys), len(nodes));
    println(get(nodes, "b", null).key);
}
