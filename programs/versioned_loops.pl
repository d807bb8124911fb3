// Loops that -O 2 versions (compiler/src/opt/version.rs): one test at a loop's entry proves all
// its bounds checks pass, and a copy without them runs; otherwise the checked loop runs. Every
// result must be the same at every -O level, including where the test must fail.

struct Image { pixels: [int], width: int, height: int }

let WEIGHTS: [int] = [1, 2, 1];
let SCALE: int = 4;
let TABLE: [int] = [1, 2, 3, 4, 5, 6, 7, 8];

// Indices affine in the inner loop's variable, through a field and globals read once.
fn blur(img: Image, out: [int]) {
    let w = img.width;
    for y in 1..img.height - 1 {
        for x in 1..w - 1 {
            let i = y * w + x;
            out[i] = (img.pixels[i - w] * WEIGHTS[0] + img.pixels[i] * WEIGHTS[1]
                + img.pixels[i + w] * WEIGHTS[2]) / SCALE;
        }
    }
}

// A variable step, a loop counting down by three, a coefficient.
fn strided(a: [int], step: int) -> int {
    let s = 0;
    let k = step;
    while k < len(a) {
        s += a[k];
        k += step;
    }
    let i = len(a) - 1;
    while i >= 0 {
        s = s * 3 + a[i];
        i -= 3;
    }
    for j in 0..len(a) / 2 {
        s += a[2 * j + 1] - a[len(a) - 1 - 2 * j];
    }
    return s;
}

// A call in the loop stores the field the loop reads: it is read again every time.
fn replace_pixels(img: Image) {
    img.pixels = [7; len(img.pixels)];
}

fn reread(img: Image) -> int {
    let s = 0;
    for i in 0..len(img.pixels) {
        s += img.pixels[i];
        if i == 3 {
            replace_pixels(img);
        }
    }
    return s;
}

// The loop stores the global array it reads.
fn replace_table() -> int {
    let s = 0;
    for i in 0..8 {
        s += TABLE[i];
        if i == 4 {
            TABLE = [100; 8];
        }
    }
    return s;
}

// The loop would run past the end but breaks first: the guard fails, the checked loop is right.
fn early(a: [int]) -> int {
    let s = 0;
    for i in 0..len(a) + 5 {
        if i == len(a) {
            break;
        }
        s += a[i];
    }
    return s;
}

// An induction variable near the largest int: the guard refuses to compute with it.
fn huge(a: [int]) -> int {
    let s = 0;
    let i = 9223372036854775800;
    while i < 9223372036854775807 {
        if i > 0 {
            s += 1;
        } else {
            s += a[i];
        }
        i += 1;
    }
    return s;
}

// The array variable changes in the loop.
fn switching(a: [int], b: [int]) -> int {
    let s = 0;
    let c = a;
    for i in 0..len(a) {
        s += c[i];
        c = b;
    }
    return s;
}

fn main() {
    let w = 6;
    let h = 5;
    let pixels = [0; w * h];
    for i in 0..w * h {
        pixels[i] = i * i % 17;
    }
    let img = new Image { pixels: pixels, width: w, height: h };
    let out = [0; w * h];
    blur(img, out);
    println(out);
    let a = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5];
    println(strided(a, 2), strided(a, 5), strided(a, 20));
    println(reread(img));
    println(replace_table());
    println(early(a));
    println(huge(a));
    println(switching(a, [2; 11]));
}
