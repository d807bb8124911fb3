fn helper() -> int {
    let a = 1 # 2;
    let b = "unknown \y escape";
    return a;
}

fn main() {
    let c = (helper() + ;
    println(c);
}
