struct Node { key: int, left: Node, right: Node }

fn main() {
    let a = new Node { key: 1 };
    let b = new Node { key: 1, left: null, right: null, key: 2 };
    let c = new Node { key: 1, left: null, right: null, parent: null };
    let d = new Node { key: 1.5, left: null, right: 7 };
    println(a, b, c, d);
}
