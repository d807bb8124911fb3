// Adds up an array where a mask is set and counts the rest. The mask comes in stripes of RUN
// equal elements, so the loop's body takes one path RUN times in a row.
// Arguments: N RUN (default 4000 1).
fn total(a: [int], mask: [int]) -> int {
    let sum = 0;
    let skipped = 0;
    for i in 0..len(a) {
        if mask[i] != 0 {
            sum = sum + a[i] * 3;
        } else {
            skipped = skipped + 1;
        }
    }
    return sum + skipped;
}

fn main() {
    let n = 4000;
    let run = 1;
    if argc() >= 2 {
        n = parse_int(arg(0));
        run = parse_int(arg(1));
    }
    let a = [0; n];
    let mask = [0; n];
    for i in 0..n {
        a[i] = i % 100;
        mask[i] = (i / run) % 2;
    }
    println(total(a, mask));
}
