// mandelbrot: the Mandelbrot set [-1.5-i, 0.5+i] on an N x N bitmap, 50 iterations, escape limit 2,
// written as a PBM "P4" image (one bit per pixel, rows padded to whole bytes).
// Port of the Computer Language Benchmarks Game "mandelbrot" benchmark
// (https://benchmarksgame-team.pages.debian.net/benchmarksgame/description/mandelbrot.html),
// following the plain C program: per pixel Zr, Zi, Tr, Ti and the loop
// `Zi = 2*Zr*Zi + Ci; Zr = Tr - Ti + Cr; Tr = Zr*Zr; Ti = Zi*Zi` while Tr + Ti <= 4, bits
// accumulated into a byte and emitted every 8 pixels or at the end of a row.
// Deviation: PL cannot write binary output, so instead of the PBM bytes the program prints the file's
// size (header + bitmap) and a checksum of all its bytes (FNV-1a 64, header "P4\nN N\n" included),
// plus the number of pixels in the set. The C port prints the same line and, with a second argument
// `pbm`, writes the real PBM file instead (its FNV-1a 64 hash matches the one printed here).
// Argument: N (default 200).
fn main() {
    let n = 200;
    if argc() > 0 {
        n = parse_int(arg(0));
    }
    let w = n;
    let h = n;
    let iter = 50;
    let limit = 2.0;
    let header = "P4\n" + str(w) + " " + str(h) + "\n";
    let hash = -3750763034362895579;   // FNV-1a 64 offset basis 0xcbf29ce484222325
    let prime = 1099511628211;
    for i in 0..len(header) {
        hash = (hash ^ header[i]) * prime;
    }
    let size = len(header);
    let inside = 0;
    let bit_num = 0;
    let byte_acc = 0;
    for y in 0..h {
        for x in 0..w {
            let zr = 0.0;
            let zi = 0.0;
            let tr = 0.0;
            let ti = 0.0;
            let cr = 2.0 * float(x) / float(w) - 1.5;
            let ci = 2.0 * float(y) / float(h) - 1.0;
            let i = 0;
            while i < iter && tr + ti <= limit * limit {
                zi = 2.0 * zr * zi + ci;
                zr = tr - ti + cr;
                tr = zr * zr;
                ti = zi * zi;
                i += 1;
            }
            byte_acc = byte_acc << 1;
            if tr + ti <= limit * limit {
                byte_acc = byte_acc | 1;
                inside += 1;
            }
            bit_num += 1;
            if bit_num == 8 {
                hash = (hash ^ byte_acc) * prime;
                size += 1;
                byte_acc = 0;
                bit_num = 0;
            } else if x == w - 1 {
                byte_acc = (byte_acc << (8 - w % 8)) & 255;
                hash = (hash ^ byte_acc) * prime;
                size += 1;
                byte_acc = 0;
                bit_num = 0;
            }
        }
    }
    println("P4 " + str(w) + "x" + str(h) + ": " + str(size) + " bytes, fnv1a " + str(hash)
        + ", " + str(inside) + " pixels in the set");
}
