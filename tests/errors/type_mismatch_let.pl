fn main() {
    let x: int = 1.5;
    let name: str = 42;
    let flags: [bool] = [true, 0];
    println(x, name, flags);
}
