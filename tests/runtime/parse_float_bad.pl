// parse_float of malformed text.
fn to_celsius(f: str) -> float {
    return (parse_float(f) - 32.0) * 5.0 / 9.0;
}

fn main() {
    println(to_celsius("212.0"), to_celsius("32"));
    println(to_celsius("1.2.3"));
}
