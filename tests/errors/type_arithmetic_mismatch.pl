fn main() {
    let i = 2;
    let f = 1.5;
    let total = i + f;
    let label = "n = " + i;
    println(total, label);
}
