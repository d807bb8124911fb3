fn main() {
    let count = 10;
    let total = 0;
    for i in 0..cuont {
        total += i;
    }
    println(totl, undefined_thing);
}
