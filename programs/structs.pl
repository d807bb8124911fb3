// Structs: declaration order, new, null, nested printing, identity ==, field updates,
// reference semantics, linked lists, mutually referring struct types.
fn main() {
    let leaf = new Node { key: 2, left: null, right: null };
    let root = new Node { key: 1, left: leaf, right: null };
    println(root);
    println(leaf);
    println(root.left);
    println(root.right);
    println(root.left.key, root.left == leaf, root.right == null, root != null);

    // identity, not contents
    let twin = new Node { key: 2, left: null, right: null };
    println("twin == leaf:", twin == leaf, "twin != leaf:", twin != leaf, "leaf == leaf:", leaf == leaf);
    let alias = leaf;
    alias.key = 20;
    println("alias == leaf:", alias == leaf, "leaf.key:", leaf.key, "root.left.key:", root.left.key);

    // field updates and compound assignment on fields
    root.right = new Node { key: 3, left: null, right: twin };
    root.key += 100;
    root.right.key *= 7;
    root.right.right.key -= 1;
    println(root);
    println(root.right);
    println(root.right.right);

    // a null struct variable
    let nothing: Node = null;
    println(nothing, nothing == null);
    nothing = root;
    println(nothing == root, null != root, null == leaf.left);

    // fields of every type
    let r = new Rec { i: -5, f: 2.5, b: true, s: "text", n: root, items: [1, 2, 3] };
    println(r);
    r.f /= 4.0;
    r.b = !r.b;
    r.s = r.s + "!";
    r.n = null;
    r.items[1] = 20;
    println(r);
    println(r.i, r.f, r.b, r.s, r.n, r.items);

    // fields may be given in any order; they are evaluated in the order written
    let q = new Pair { second: tick("second", 2), first: tick("first", 1) };
    println(q);

    // structs are passed by reference
    bump(q);
    bump(q);
    println(q.first, q.second);

    // a linked list built at the head, reversed in place
    let list: Cell = null;
    for i in 1..6 {
        list = new Cell { value: i * i, next: list };
    }
    print_list(list);
    list = reverse(list);
    print_list(list);
    println("sum:", sum_list(list), "length:", length(list));
    println(list);

    // mutually referring struct types
    let dept = new Dept { name: "R&D", head: null };
    let boss = new Person { name: "Ada", age: 36, dept: dept };
    dept.head = boss;
    println(dept);
    println(boss);
    println(dept.head.dept.head.name, dept.head.dept == dept);

    // arrays of structs
    let pts = [new Pair { first: 1, second: 2 }, new Pair { first: 3, second: 4 }];
    println(pts);
    let cells: [Cell] = [null; 3];
    cells[1] = new Cell { value: 9, next: list };
    println(cells);
    println("bare null:", null);
}

struct Node { key: int, left: Node, right: Node }
struct Rec { i: int, f: float, b: bool, s: str, n: Node, items: [int] }
struct Pair { first: int, second: int }
struct Cell { value: int, next: Cell }
struct Person { name: str, age: int, dept: Dept }
struct Dept { name: str, head: Person }

fn tick(label: str, v: int) -> int {
    println("evaluating", label);
    return v;
}

fn bump(p: Pair) {
    p.first += 10;
    p.second = p.second * 2;
}

fn print_list(c: Cell) {
    while c != null {
        print(c.value, "");
        c = c.next;
    }
    println("end");
}

fn reverse(c: Cell) -> Cell {
    let prev: Cell = null;
    while c != null {
        let next = c.next;
        c.next = prev;
        prev = c;
        c = next;
    }
    return prev;
}

fn sum_list(c: Cell) -> int {
    if c == null {
        return 0;
    }
    return c.value + sum_list(c.next);
}

fn length(c: Cell) -> int {
    let n = 0;
    while c != null {
        n += 1;
        c = c.next;
    }
    return n;
}
