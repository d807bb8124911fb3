fn main() {
    println("café");
}
