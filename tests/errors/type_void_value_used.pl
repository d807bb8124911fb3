fn greet(name: str) {
    println("hello, " + name);
}

fn main() {
    let result = greet("ann");
    println(greet("bob"));
    let x = 1 + println("side effect");
}
