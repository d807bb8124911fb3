/* C port of programs/bench/clbg_fannkuch.pl (Benchmarks Game fannkuch-redux,
   https://benchmarksgame-team.pages.debian.net/benchmarksgame/description/fannkuchredux.html) for the
   gcc -O2 baseline: the same single-threaded algorithm (perm1 / perm / count arrays, prefix rotations),
   int64_t elements like PL's int. n = 7 prints 228 / Pfannkuchen(7) = 16. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void fannkuch(int64_t n, int64_t *result) {
    int64_t *perm = calloc(n, sizeof(int64_t)), *perm1 = calloc(n, sizeof(int64_t)),
            *count = calloc(n, sizeof(int64_t));
    int64_t max_flips = 0, checksum = 0, perm_count = 0;
    for (int64_t i = 0; i < n; i++) perm1[i] = i;
    int64_t r = n;
    for (;;) {
        while (r != 1) {
            count[r - 1] = r;
            r--;
        }
        for (int64_t i = 0; i < n; i++) perm[i] = perm1[i];
        int64_t flips = 0;
        int64_t k = perm[0];
        while (k != 0) {
            int64_t i = 0, j = k;
            while (i < j) {
                int64_t t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
                i++;
                j--;
            }
            flips++;
            k = perm[0];
        }
        if (flips > max_flips) max_flips = flips;
        if (perm_count % 2 == 0) checksum += flips; else checksum -= flips;
        for (;;) {
            if (r == n) {
                result[0] = checksum;
                result[1] = max_flips;
                return;
            }
            int64_t perm0 = perm1[0];
            for (int64_t i = 0; i < r; i++) perm1[i] = perm1[i + 1];
            perm1[r] = perm0;
            count[r]--;
            if (count[r] > 0) break;
            r++;
        }
        perm_count++;
    }
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 7;
    int64_t result[2];
    fannkuch(n, result);
    printf("%lld\nPfannkuchen(%lld) = %lld\n", (long long)result[0], (long long)n, (long long)result[1]);
    return 0;
}
