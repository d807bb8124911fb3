fn main() {
    let a = [1, 2];
    let b = [1, 2];
    if 1 == 1.0 {
        println("equal");
    }
    if "10" < 9 {
        println("less");
    }
    if a < b {
        println("ordered");
    }
}
