fn main() {
    let xs = [1, 2.0, 3];
    let ys = [[1], ["a"]];
    let zs: [int] = [0; 2.5];
    println(xs, ys, zs);
}
