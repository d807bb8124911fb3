/* C port of programs/bench/awfy_permute.pl (Are We Fast Yet Permute, https://github.com/smarr/are-we-fast-yet)
   for the gcc -O2 baseline: the same algorithm and output; verification value 8660. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { int64_t count; int64_t *v; } Permute;

static void swap(Permute *self, int64_t i, int64_t j) {
    int64_t tmp = self->v[i];
    self->v[i] = self->v[j];
    self->v[j] = tmp;
}

static void permute(Permute *self, int64_t n) {
    self->count++;
    if (n != 0) {
        int64_t n1 = n - 1;
        permute(self, n1);
        for (int64_t i = n1; i >= 0; i--) {
            swap(self, n1, i);
            permute(self, n1);
            swap(self, n1, i);
        }
    }
}

static int64_t benchmark(Permute *self) {
    self->count = 0;
    free(self->v);
    self->v = calloc(6, sizeof(int64_t));
    permute(self, 6);
    return self->count;
}

int main(int argc, char **argv) {
    int64_t iterations = argc > 1 ? atoll(argv[1]) : 1;
    Permute bench = {0, NULL};
    int64_t result = 0;
    int ok = 1;
    for (int64_t i = 0; i < iterations && ok; i++) {
        result = benchmark(&bench);
        ok = result == 8660;
    }
    printf("Permute iterations: %lld result: %lld expected: 8660 verified: %s\n", (long long)iterations,
           (long long)result, ok ? "true" : "false");
    return ok ? 0 : 1;
}
