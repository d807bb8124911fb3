/* C port of programs/bench/clbg_mandelbrot.pl (Benchmarks Game mandelbrot,
   https://benchmarksgame-team.pages.debian.net/benchmarksgame/description/mandelbrot.html) for the
   gcc -O2 baseline: the same per-pixel loop and bit packing. Prints the PBM file's size and FNV-1a-64
   hash (like the PL program); with a second argument `pbm` it writes the PBM file itself instead. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 200;
    int raw = argc > 2 && strcmp(argv[2], "pbm") == 0;
    int64_t w = n, h = n, iter = 50;
    double limit = 2.0;
    char header[64];
    int hl = snprintf(header, sizeof header, "P4\n%lld %lld\n", (long long)w, (long long)h);
    uint64_t hash = 0xcbf29ce484222325u, prime = 1099511628211u;
    for (int i = 0; i < hl; i++) hash = (hash ^ (unsigned char)header[i]) * prime;
    if (raw) fputs(header, stdout);
    int64_t size = hl, inside = 0, bit_num = 0, byte_acc = 0;
    for (int64_t y = 0; y < h; y++) {
        for (int64_t x = 0; x < w; x++) {
            double zr = 0.0, zi = 0.0, tr = 0.0, ti = 0.0;
            double cr = 2.0 * (double)x / (double)w - 1.5;
            double ci = 2.0 * (double)y / (double)h - 1.0;
            for (int64_t i = 0; i < iter && tr + ti <= limit * limit; i++) {
                zi = 2.0 * zr * zi + ci;
                zr = tr - ti + cr;
                tr = zr * zr;
                ti = zi * zi;
            }
            byte_acc <<= 1;
            if (tr + ti <= limit * limit) {
                byte_acc |= 1;
                inside++;
            }
            bit_num++;
            if (bit_num == 8) {
                hash = (hash ^ (uint64_t)byte_acc) * prime;
                if (raw) putchar((int)byte_acc);
                size++;
                byte_acc = 0;
                bit_num = 0;
            } else if (x == w - 1) {
                byte_acc = (byte_acc << (8 - w % 8)) & 255;
                hash = (hash ^ (uint64_t)byte_acc) * prime;
                if (raw) putchar((int)byte_acc);
                size++;
                byte_acc = 0;
                bit_num = 0;
            }
        }
    }
    if (!raw)
        printf("P4 %lldx%lld: %lld bytes, fnv1a %lld, %lld pixels in the set\n", (long long)w, (long long)h,
               (long long)size, (long long)hash, (long long)inside);
    return 0;
}
