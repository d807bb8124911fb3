// A test against null proves the object it tested, not a later value of the same variable:
// `m` is reassigned after `m != null` held, and reading through the new, null, `m` fails.
struct Node { val: int, next: Node }

fn main() {
    let n = new Node { val: 1, next: new Node { val: 2, next: null } };
    let total = 0;
    while n != null {
        total += n.val;
        n = n.next;
    }
    println("total:", total);
    let m = new Node { val: 3, next: null };
    while m != null {
        m = m.next;
        println("next value:", m.val);
    }
}
