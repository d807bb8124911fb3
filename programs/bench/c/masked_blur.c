#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long w = 1000, h = 1000, iters = 5;
    if (argc > 1) { w = atol(argv[1]); h = w; }
    if (argc > 2) iters = atol(argv[2]);
    long *img = calloc(w * h, 8), *mask = calloc(w * h, 8), *out = calloc(w * h, 8);
    long seed = 12345;
    for (long i = 0; i < w * h; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        img[i] = seed % 256;
        mask[i] = (seed / 256) % 4;
    }
    long total = 0;
    for (long it = 0; it < iters; it++) {
        long i = 2 * w + 2;
        while (i < w * h - 2 * w - 2) {
            if (mask[i] != 0) {
                long s = img[i - 2*w - 2] + img[i - 2*w - 1] + img[i - 2*w] + img[i - 2*w + 1] + img[i - 2*w + 2]
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
        for (long j = 0; j < w * h; j++) total += out[j];
    }
    printf("%ld\n", total);
    return 0;
}
