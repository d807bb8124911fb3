// Binary search tree of structs: insert, find, in-order traversal (recursive and with an explicit
// stack), height, min/max, delete, and printing nodes (nested nodes print as Node{...}).
struct Node { key: int, left: Node, right: Node }
struct Tree { root: Node, size: int }

fn insert(t: Tree, key: int) -> bool {
    if t.root == null {
        t.root = new Node { key: key, left: null, right: null };
        t.size += 1;
        return true;
    }
    let n = t.root;
    while true {
        if key == n.key {
            return false;
        }
        if key < n.key {
            if n.left == null {
                n.left = new Node { key: key, left: null, right: null };
                t.size += 1;
                return true;
            }
            n = n.left;
        } else {
            if n.right == null {
                n.right = new Node { key: key, left: null, right: null };
                t.size += 1;
                return true;
            }
            n = n.right;
        }
    }
    return false;
}

fn find(n: Node, key: int) -> Node {
    while n != null && n.key != key {
        if key < n.key {
            n = n.left;
        } else {
            n = n.right;
        }
    }
    return n;
}

fn inorder(n: Node, out: [int], pos: int) -> int {
    if n == null {
        return pos;
    }
    pos = inorder(n.left, out, pos);
    out[pos] = n.key;
    return inorder(n.right, out, pos + 1);
}

fn inorder_iterative(t: Tree) -> str {
    let stack: [Node] = [null; t.size];
    let sp = 0;
    let s = "";
    let n = t.root;
    while n != null || sp > 0 {
        while n != null {
            stack[sp] = n;
            sp += 1;
            n = n.left;
        }
        sp -= 1;
        n = stack[sp];
        s = s + str(n.key) + " ";
        n = n.right;
    }
    return s;
}

fn height(n: Node) -> int {
    if n == null {
        return 0;
    }
    return 1 + max(height(n.left), height(n.right));
}

fn min_node(n: Node) -> Node {
    while n.left != null {
        n = n.left;
    }
    return n;
}

fn delete(n: Node, key: int) -> Node {
    if n == null {
        return null;
    }
    if key < n.key {
        n.left = delete(n.left, key);
    } else if key > n.key {
        n.right = delete(n.right, key);
    } else {
        if n.left == null {
            return n.right;
        }
        if n.right == null {
            return n.left;
        }
        let m = min_node(n.right);
        n.key = m.key;
        n.right = delete(n.right, m.key);
    }
    return n;
}

fn show(t: Tree) {
    let out = [0; t.size];
    let count = inorder(t.root, out, 0);
    println("size", t.size, "count", count, "height", height(t.root), out);
}

fn main() {
    let t = new Tree { root: null, size: 0 };
    let keys = [50, 30, 70, 20, 40, 60, 80, 35, 45, 65, 30, 50, 10, 90, 85];
    let inserted = "";
    for i in 0..len(keys) {
        if insert(t, keys[i]) {
            inserted += "+";
        } else {
            inserted += "=";
        }
    }
    println(inserted);
    show(t);
    println(inorder_iterative(t));
    println(t.root);
    println(t.root.left);
    println(find(t.root, 45));
    println(find(t.root, 99));
    println(find(t.root, 65) == t.root.right.left.right, find(t.root, 10).left == null);
    println("min", min_node(t.root).key);

    t.root = delete(t.root, 20);
    t.size -= 1;
    show(t);
    t.root = delete(t.root, 30);
    t.size -= 1;
    show(t);
    t.root = delete(t.root, 50);
    t.size -= 1;
    show(t);
    println(t.root);

    // a degenerate tree from sorted keys, then a balanced one from a midpoint order
    let chain = new Tree { root: null, size: 0 };
    for k in 0..64 {
        insert(chain, k);
    }
    println("chain height", height(chain.root));
    let bal = new Tree { root: null, size: 0 };
    let step = 32;
    while step >= 1 {
        let k = step;
        while k < 64 {
            insert(bal, k);
            k += 2 * step;
        }
        step /= 2;
    }
    insert(bal, 0);
    println("balanced height", height(bal.root), "size", bal.size);
    let total = 0;
    for k in 0..70 {
        if find(bal.root, k) != null {
            total += k;
        }
    }
    println("sum of found keys", total);
}
