fn main() {
    for i in 0..10 {
        if i == 5 {
            i = 8;
        }
        println(i);
    }
}
