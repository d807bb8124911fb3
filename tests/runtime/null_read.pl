// Reading a field through a null reference at the end of a list.
struct Cell { value: int, next: Cell }

fn third(c: Cell) -> int {
    return c.next.next.value;
}

fn main() {
    let long = new Cell { value: 1, next: new Cell { value: 2, next: new Cell { value: 3, next: null } } };
    println("third of long list:", third(long));
    let short = new Cell { value: 1, next: new Cell { value: 2, next: null } };
    println("third of short list:", third(short));
}
