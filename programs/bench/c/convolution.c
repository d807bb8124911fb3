/* C port of programs/convolution.pl for the gcc -O2 baseline: the same algorithm, with PL's
   wrapping 64-bit arithmetic done on uint64_t and arithmetic shifts on int64_t. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int64_t *make_image(int64_t w, int64_t h) {
    int64_t *img = calloc((size_t)(w * h), sizeof *img);
    int64_t seed = 12345;
    for (int64_t i = 0; i < w * h; i++) {
        seed = (int64_t)((uint64_t)seed * 6364136223846793005u + 1442695040888963407u);
        img[i] = (seed >> 33) & 255;
        if (i % w > 0) {
            img[i] = (img[i] + img[i - 1]) / 2;
        }
    }
    return img;
}

static int64_t *make_mask(int64_t w, int64_t h) {
    int64_t *mask = calloc((size_t)(w * h), sizeof *mask);
    int64_t cx = w / 3, cy = h / 2, r = h / 3;
    for (int64_t y = 0; y < h; y++) {
        for (int64_t x = 0; x < w; x++) {
            int64_t dx = x - cx, dy = y - cy;
            if (dx * dx + dy * dy <= r * r) {
                mask[y * w + x] = 1;
            } else if (x >= 2 * w / 3 && x < 2 * w / 3 + w / 4 && y >= h / 5 && y < 4 * h / 5) {
                mask[y * w + x] = 1;
            }
        }
    }
    return mask;
}

static void convolve(const int64_t *img, const int64_t *mask, int64_t *out, int64_t w, int64_t h) {
    for (int64_t y = 1; y < h - 1; y++) {
        for (int64_t x = 1; x < w - 1; x++) {
            int64_t i = y * w + x;
            if (mask[i] == 0) {
                out[i] = img[i];
            } else {
                out[i] = (img[i - w - 1] + 2 * img[i - w] + img[i - w + 1]
                          + 2 * img[i - 1] + 4 * img[i] + 2 * img[i + 1]
                          + img[i + w - 1] + 2 * img[i + w] + img[i + w + 1]) >> 4;
            }
        }
    }
}

int main(int argc, char **argv) {
    int64_t w = 48, h = 24, rounds = 2;
    if (argc == 4) {
        w = atoll(argv[1]);
        h = atoll(argv[2]);
        rounds = atoll(argv[3]);
    }
    int64_t *a = make_image(w, h);
    int64_t *mask = make_mask(w, h);
    int64_t *b = calloc((size_t)(w * h), sizeof *b);
    for (int64_t i = 0; i < w * h; i++) {
        b[i] = a[i];
    }
    for (int64_t round = 0; round < rounds; round++) {
        if (round % 2 == 0) {
            convolve(a, mask, b, w, h);
        } else {
            convolve(b, mask, a, w, h);
        }
    }
    int64_t *result = rounds % 2 == 1 ? b : a;
    int64_t masked = 0, sum = 0, hash = 0;
    for (int64_t i = 0; i < w * h; i++) {
        masked += mask[i];
        sum = (int64_t)((uint64_t)sum + (uint64_t)result[i]);
        hash = (int64_t)((uint64_t)hash * 1000003u) ^ result[i];
    }
    printf("masked convolution of a %lld x %lld image, %lld rounds\n", (long long)w, (long long)h,
           (long long)rounds);
    printf("masked pixels: %lld of %lld\n", (long long)masked, (long long)(w * h));
    printf("pixel sum: %lld hash: %lld\n", (long long)sum, (long long)hash);
    int64_t row = h / 2;
    printf("row %lld :", (long long)row);
    for (int64_t x = 0; x < w && x < 16; x++) {
        printf(" %lld", (long long)result[row * w + x]);
    }
    printf("\n");
    return 0;
}
