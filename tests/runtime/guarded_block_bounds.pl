// An index out of bounds in a block that -O 2 guards (compiler/src/opt/block_guard.rs): the
// guard at the block's start fails, the block runs with its checks, and the error comes where
// and when it comes at -O 0, after the same output.
fn fetch(code: [int], pc: int) -> int {
    let i = pc * 3;
    print("", code[i]);
    print("", code[i + 1]);
    return code[i + 2];
}

fn main() {
    let code = [1, 2, 3, 4, 5, 6, 7, 8];
    let pc = 0;
    while pc < 4 {
        println("", fetch(code, pc));
        pc += 1;
    }
    println("not reached");
}
