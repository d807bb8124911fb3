/* C port of programs/loop_heavy.pl for the gcc -O2 baseline: the same algorithm, with PL's
   wrapping 64-bit arithmetic done on uint64_t and arithmetic shifts on int64_t. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int64_t kernel(int64_t n, int64_t *table) {
    int64_t acc = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t x = (int64_t)((uint64_t)i * 2654435761u + 1);
        for (int64_t j = 0; j < n; j++) {
            x = (int64_t)((uint64_t)(x ^ (x >> 13)) * 0x5bd1e995u + (uint64_t)j);
            if ((x & 4) == 0) {
                acc = (int64_t)((uint64_t)acc + (uint64_t)(x & 0xFFFF));
            } else {
                acc = (int64_t)((uint64_t)acc - (uint64_t)(x >> 48));
            }
            table[j & 255] = (int64_t)((uint64_t)table[j & 255] + (uint64_t)(acc & 7));
        }
    }
    return acc;
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 200;
    int64_t table[256] = {0};
    int64_t acc = kernel(n, table);
    int64_t h = 0;
    for (int k = 0; k < 256; k++) {
        h = (int64_t)((uint64_t)h * 1000003u) ^ table[k];
    }
    printf("n = %lld acc = %lld table hash = %lld\n", (long long)n, (long long)acc, (long long)h);
    return 0;
}
