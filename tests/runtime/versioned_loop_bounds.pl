// An index out of bounds in a loop that -O 2 versions (compiler/src/opt/version.rs): the test at
// the loop's entry fails, the loop runs with its checks, and the error comes where and when it
// comes at -O 0, after the same output.
struct Buffer { data: [int] }

fn fill(b: Buffer, n: int) {
    for i in 0..n {
        b.data[i] = i * 2;
        print("", b.data[i]);
    }
    println();
}

fn main() {
    let b = new Buffer { data: [0; 6] };
    fill(b, 6);
    fill(b, 8);
    println("not reached");
}
