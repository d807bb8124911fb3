fn main() {
    let total = 10 @ 3;
    let price = $5;
    println(total, price);
}
