// Masked convolution, the case study of multi-iteration path profiling (001, selective loop
// unrolling): a 3x3 blur of a synthetic grey image, applied only where a mask is set; elsewhere
// the pixel is copied. The mask is a filled disc and a filled rectangle, so along a row the
// inner loop's branch takes long runs of one side: `--profile=kbl --k 10` shows them as the
// same path id ten times in a row. Arguments: WIDTH HEIGHT ROUNDS (default 48 24 2).

// Pixel values 0..255 from a 64-bit LCG, smoothed a little along rows.
fn make_image(w: int, h: int) -> [int] {
    let img = [0; w * h];
    let seed = 12345;
    for i in 0..w * h {
        seed = seed * 6364136223846793005 + 1442695040888963407;
        img[i] = (seed >> 33) & 255;
        if i % w > 0 {
            img[i] = (img[i] + img[i - 1]) / 2;
        }
    }
    return img;
}

// 1 inside a disc (left third) or a rectangle (right part), 0 elsewhere.
fn make_mask(w: int, h: int) -> [int] {
    let mask = [0; w * h];
    let cx = w / 3;
    let cy = h / 2;
    let r = h / 3;
    for y in 0..h {
        for x in 0..w {
            let dx = x - cx;
            let dy = y - cy;
            if dx * dx + dy * dy <= r * r {
                mask[y * w + x] = 1;
            } else if x >= 2 * w / 3 && x < 2 * w / 3 + w / 4 && y >= h / 5 && y < 4 * h / 5 {
                mask[y * w + x] = 1;
            }
        }
    }
    return mask;
}

// The kernel: out = blur(img) where the mask is set, img elsewhere; borders untouched.
fn convolve(img: [int], mask: [int], out: [int], w: int, h: int) {
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let i = y * w + x;
            if mask[i] == 0 {
                out[i] = img[i];
            } else {
                out[i] = (img[i - w - 1] + 2 * img[i - w] + img[i - w + 1]
                    + 2 * img[i - 1] + 4 * img[i] + 2 * img[i + 1]
                    + img[i + w - 1] + 2 * img[i + w] + img[i + w + 1]) >> 4;
            }
        }
    }
}

fn main() {
    let w = 48;
    let h = 24;
    let rounds = 2;
    if argc() == 3 {
        w = parse_int(arg(0));
        h = parse_int(arg(1));
        rounds = parse_int(arg(2));
    }
    let a = make_image(w, h);
    let mask = make_mask(w, h);
    // Two buffers used in turn; both start as the image, so the borders stay as they are.
    let b = [0; w * h];
    for i in 0..w * h {
        b[i] = a[i];
    }
    for round in 0..rounds {
        if round % 2 == 0 {
            convolve(a, mask, b, w, h);
        } else {
            convolve(b, mask, a, w, h);
        }
    }
    let result = a;
    if rounds % 2 == 1 {
        result = b;
    }
    let masked = 0;
    let sum = 0;
    let hash = 0;
    for i in 0..w * h {
        masked += mask[i];
        sum += result[i];
        hash = hash * 1000003 ^ result[i];
    }
    println("masked convolution of a", w, "x", h, "image,", rounds, "rounds");
    println("masked pixels:", masked, "of", w * h);
    println("pixel sum:", sum, "hash:", hash);
    let row = h / 2;
    print("row", row, ":");
    for x in 0..min(w, 16) {
        print("", result[row * w + x]);
    }
    println();
}
