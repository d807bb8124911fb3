fn main() {
    println("hello);
}
