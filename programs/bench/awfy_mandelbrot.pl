// Are We Fast Yet: Mandelbrot (Marr et al., DLS 2016; https://github.com/smarr/are-we-fast-yet,
// benchmarks/*/Mandelbrot; after the Computer Language Benchmarks Game program by Karl von Laudermann et al.).
// Ported to PL from the algorithm.
// mandelbrot(size): a size x size bitmap of the Mandelbrot set (at most 50 iterations per point), packed
// into bytes that are xor-ed into a checksum. As in AWFY, the argument is the inner-iteration count used as
// the size, and verifyResult checks the published checksums: size 500 -> 191, 750 -> 50, 1 -> 128.
// For other sizes there is no published value: the result is printed and not verified.
// Argument: size (default 200, the golden size; checked against the gcc-compiled C port, not published).

fn mandelbrot(size: int) -> int {
    let sum = 0;
    let byte_acc = 0;
    let bit_num = 0;
    let y = 0;
    while y < size {
        let ci = (2.0 * float(y) / float(size)) - 1.0;
        let x = 0;
        while x < size {
            let zr = 0.0;
            let zrzr = 0.0;
            let zi = 0.0;
            let zizi = 0.0;
            let cr = (2.0 * float(x) / float(size)) - 1.5;
            let z = 0;
            let not_done = true;
            let escape = 0;
            while not_done && z < 50 {
                zr = zrzr - zizi + cr;
                zi = 2.0 * zr * zi + ci;
                // preserve recalculation
                zrzr = zr * zr;
                zizi = zi * zi;
                if zrzr + zizi > 4.0 {
                    not_done = false;
                    escape = 1;
                }
                z += 1;
            }
            byte_acc = (byte_acc << 1) + escape;
            bit_num += 1;
            if bit_num == 8 {
                sum ^= byte_acc;
                byte_acc = 0;
                bit_num = 0;
            } else if x == size - 1 {
                byte_acc <<= 8 - bit_num;
                sum ^= byte_acc;
                byte_acc = 0;
                bit_num = 0;
            }
            x += 1;
        }
        y += 1;
    }
    return sum;
}

fn main() -> int {
    let size = 200;
    if argc() > 0 { size = parse_int(arg(0)); }
    let result = mandelbrot(size);
    let expected = -1;
    if size == 500 { expected = 191; }
    if size == 750 { expected = 50; }
    if size == 1 { expected = 128; }
    if expected < 0 {
        println("Mandelbrot size:", size, "result:", result, "(no published value for this size)");
        return 0;
    }
    println("Mandelbrot size:", size, "result:", result, "expected:", expected, "verified:", result == expected);
    if result == expected { return 0; }
    return 1;
}
