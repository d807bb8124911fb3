// exit(code) from inside nested calls and loops: output so far (even without a final newline)
// is flushed, nothing after runs, and the process exits with the code.
fn check(i: int) {
    if i == 4 {
        print("giving up at", i);
        exit(3);
    }
    println("checked", i);
}

fn run() -> int {
    for i in 0..10 {
        check(i);
    }
    return 0;
}

fn main() {
    println("start");
    let r = run();
    println("never printed", r);
}
