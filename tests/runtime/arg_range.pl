// arg(i) beyond the arguments given (two arguments: `alpha` and `beta`).
fn main() {
    println("argc:", argc());
    let i = 0;
    while i <= 3 {
        println("arg", i, "=", arg(i));
        i += 1;
    }
}
