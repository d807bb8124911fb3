fn log_line(msg: str) {
    println(msg);
    return 1;
}

fn answer() -> int {
    return;
}

fn ratio() -> float {
    return 1;
}

fn main() {
    log_line("x");
    println(answer(), ratio());
}
