fn main() {
    let ok = -9223372036854775808;
    let too_big = 9223372036854775808;
    let way_too_big = 0xFFFFFFFFFFFFFFFF;
    let parens = -(9223372036854775808);
    match ok {
        99999999999999999999 => { }
        _ => { }
    }
}
