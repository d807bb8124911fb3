// Floating-point kernel: an ASCII Mandelbrot set, plus the escape-count histogram and the
// area estimate it implies. Arguments: WIDTH HEIGHT MAXITER (default 48 20 60).
fn escape(cr: float, ci: float, max_iter: int) -> int {
    let zr = 0.0;
    let zi = 0.0;
    let n = 0;
    while n < max_iter && zr * zr + zi * zi <= 4.0 {
        let t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        n += 1;
    }
    return n;
}

fn main() {
    let w = 48;
    let h = 20;
    let max_iter = 60;
    if argc() == 3 {
        w = parse_int(arg(0));
        h = parse_int(arg(1));
        max_iter = parse_int(arg(2));
    }
    let shades = " .:-=+*#%@";
    let inside = 0;
    let hist = [0; 10];
    let total_iter = 0;
    for y in 0..h {
        let ci = -1.2 + 2.4 * float(y) / float(h - 1);
        let line = "";
        for x in 0..w {
            let cr = -2.1 + 2.8 * float(x) / float(w - 1);
            let n = escape(cr, ci, max_iter);
            total_iter += n;
            if n == max_iter {
                inside += 1;
                line += "@";
            } else {
                let s = n * 9 / max_iter;
                hist[s] += 1;
                line = line + substr(shades, s, 1);
            }
        }
        println(line);
    }
    let area = 2.8 * 2.4 * float(inside) / float(w * h);
    println("inside:", inside, "of", w * h, "area estimate:", fixed(area, 4), "iterations:", total_iter);
    println("histogram:", hist);
    // a few exact escape counts along the real axis
    let probes = [-2.0, -1.75, -1.0, -0.75, 0.0, 0.25, 0.26, 0.5];
    for i in 0..len(probes) {
        print(probes[i], "->", escape(probes[i], 0.0, 1000), "");
    }
    println();
}
