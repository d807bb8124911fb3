/* C port of programs/bench/awfy_sieve.pl (Are We Fast Yet Sieve, https://github.com/smarr/are-we-fast-yet)
   for the gcc -O2 baseline: the same algorithm and output; verification value 669. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int64_t sieve(uint8_t *flags, int64_t size) {
    int64_t prime_count = 0;
    for (int64_t i = 2; i < size + 1; i++) {
        if (flags[i - 1]) {
            prime_count++;
            int64_t k = i + i;
            while (k <= size) {
                flags[k - 1] = 0;
                k += i;
            }
        }
    }
    return prime_count;
}

static int64_t benchmark(void) {
    uint8_t *flags = malloc(5000);
    for (int i = 0; i < 5000; i++) flags[i] = 1;
    int64_t r = sieve(flags, 5000);
    free(flags);
    return r;
}

int main(int argc, char **argv) {
    int64_t iterations = argc > 1 ? atoll(argv[1]) : 1;
    int64_t result = 0;
    int ok = 1;
    for (int64_t i = 0; i < iterations && ok; i++) {
        result = benchmark();
        ok = result == 669;
    }
    printf("Sieve iterations: %lld result: %lld expected: 669 verified: %s\n", (long long)iterations,
           (long long)result, ok ? "true" : "false");
    return ok ? 0 : 1;
}
