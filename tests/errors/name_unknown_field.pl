struct Node { key: int, left: Node, right: Node }

fn main() {
    let n = new Node { key: 1, left: null, right: null };
    println(n.kye);
    n.rigth = null;
}
