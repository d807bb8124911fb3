fn main() {
    let x = 2;
    match x {
        1 | 2 => { println("small"); }
        3 | 2 => { println("dup"); }
        _ => { println("other"); }
        4 => { println("after default"); }
    }
    match x {
        0 => { println("zero"); }
    }
    match "two" {
        _ => { }
    }
}
