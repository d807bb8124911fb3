fn main() {
    println(1);
    /* this comment never ends
    println(2);
}
