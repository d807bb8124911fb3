// Type names of other languages: PL writes `int`, `str`, `float`, `bool`.
fn length(name: string) -> integer {
    return len(name);
}

fn main() {
    println(length("abc"));
}
