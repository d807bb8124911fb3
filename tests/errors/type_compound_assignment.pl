fn main() {
    let done = false;
    let name = "a";
    let f = 1.5;
    done += true;
    name -= "b";
    f <<= 1;
    f += 1;
}
