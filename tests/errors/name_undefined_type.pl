struct Node { key: int, next: Node }

fn length(list: Nod) -> int {
    let n = 0;
    while list != null {
        n += 1;
        list = list.next;
    }
    return n;
}

fn main() {
    let xs: [flaot] = [1.0];
    let head = new Noed { key: 1, next: null };
    println(length(null));
}
