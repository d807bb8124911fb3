fn main() {
    let x = 3;
    match x {
        0 => { println("zero"); }
        n => { println(n); }
    }
}
