// `split` with an empty separator is a runtime error (there is no sensible list of pieces),
// reported at the call after the output before it.
fn main() {
    let parts = split("a,b", ",");
    println(len(parts), parts);
    let sep = substr(",", 0, 0);
    println(split("", sep));
}
