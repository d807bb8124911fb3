let ROOT = null;

fn main() {
    let items = [];
    let ok: [int] = [];
    println(ok, items);
}
