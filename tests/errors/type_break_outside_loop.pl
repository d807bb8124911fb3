fn main() {
    let x = 1;
    if x > 0 {
        break;
    }
    continue;
}
