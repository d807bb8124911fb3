// Writing a field of a null struct.
struct Node { key: int, left: Node, right: Node }

fn set_left_key(n: Node, k: int) {
    n.left.key = k;
}

fn main() {
    let root = new Node { key: 5, left: new Node { key: 3, left: null, right: null }, right: null };
    set_left_key(root, 4);
    println(root, root.left.key);
    let leaf = root.left;
    set_left_key(leaf, 1);
    println("not reached");
}
