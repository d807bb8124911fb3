// Growable arrays: `push`, `pop`, `insert` and `remove` on something that is not an array, an
// element of the wrong type, a position that is not an `int`, the wrong number of arguments, and
// a popped element used as another type. `null` into an array of structs is fine.
struct P { x: int }

fn main() {
    let a = [1, 2];
    let points: [P] = [];
    push(points, null);
    push(5, 1);
    push(a, "x");
    push(a);
    let s: str = pop(a);
    insert(a, "0", 1);
    insert(a, 0, 1.5);
    remove(a, true);
    pop("abc");
    let m = new map[int]int;
    remove(m, 0);
    push(a, 1, 2);
}
