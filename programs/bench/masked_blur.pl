// A 5x5 box blur under a mask, written the way people write it: one `while` over the pixels
// whose bound is a product (`i < w * h - 2 * w - 2`), reading `img[i - 2*w - 2]` ... `img[i + 2*w + 2]`.
// Checks that the optimizer versions such a loop (opt/hoist.rs, issue 55). Arguments: side, passes.
fn main() {
    let w = 1000;
    let h = 1000;
    if argc() > 0 { w = parse_int(arg(0)); h = w; }
    let iters = 5;
    if argc() > 1 { iters = parse_int(arg(1)); }
    let img = [0; w * h];
    let mask = [0; w * h];
    let out = [0; w * h];
    let seed = 12345;
    let i = 0;
    while i < w * h {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        img[i] = seed % 256;
        mask[i] = (seed / 256) % 4;
        i += 1;
    }
    let total = 0;
    let it = 0;
    while it < iters {
        let i = 2 * w + 2;
        while i < w * h - 2 * w - 2 {
            if mask[i] != 0 {
                let s = img[i - 2*w - 2] + img[i - 2*w - 1] + img[i - 2*w] + img[i - 2*w + 1] + img[i - 2*w + 2]
                      + img[i - w - 2] + img[i - w - 1] + img[i - w] + img[i - w + 1] + img[i - w + 2]
                      + img[i - 2] + img[i - 1] + img[i] + img[i + 1] + img[i + 2]
                      + img[i + w - 2] + img[i + w - 1] + img[i + w] + img[i + w + 1] + img[i + w + 2]
                      + img[i + 2*w - 2] + img[i + 2*w - 1] + img[i + 2*w] + img[i + 2*w + 1] + img[i + 2*w + 2];
                out[i] = s / 25;
            } else {
                out[i] = img[i];
            }
            i += 1;
        }
        let j = 0;
        while j < w * h { total += out[j]; j += 1; }
        it += 1;
    }
    println(total);
}
