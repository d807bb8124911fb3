let count = 0;
count = count + 1;

fn main() {
    println(count);
}
