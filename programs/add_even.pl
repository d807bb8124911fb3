// Programs Follow Paths, Sidebar 1: 6 potential acyclic paths
fn add_even(limit: int) -> int {
    let sum = 0;
    let j = 1;
    while j <= limit {
        if j % 2 == 0 {
            sum = sum + j;
        }
        j = j + 1;
    }
    return sum;
}

fn main() {
    println(add_even(parse_int(arg(0))));
}
