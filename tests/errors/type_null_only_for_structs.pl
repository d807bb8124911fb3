struct Node { key: int }

fn main() {
    let n: Node = null;
    let count: int = null;
    let name: str = null;
    let items: [int] = null;
    if count == null {
        println(n, name, items);
    }
}
