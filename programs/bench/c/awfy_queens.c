/* C port of programs/bench/awfy_queens.pl (Are We Fast Yet Queens, https://github.com/smarr/are-we-fast-yet)
   for the gcc -O2 baseline: the same algorithm and output; verification value true. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { uint8_t *free_maxs, *free_rows, *free_mins; int64_t *queen_rows; } Queens;

static int get_row_column(Queens *self, int64_t r, int64_t c) {
    return self->free_rows[r] && self->free_maxs[c + r] && self->free_mins[c - r + 7];
}

static void set_row_column(Queens *self, int64_t r, int64_t c, int v) {
    self->free_rows[r] = v;
    self->free_maxs[c + r] = v;
    self->free_mins[c - r + 7] = v;
}

static int place_queen(Queens *self, int64_t c) {
    for (int64_t r = 0; r < 8; r++) {
        if (get_row_column(self, r, c)) {
            self->queen_rows[r] = c;
            set_row_column(self, r, c, 0);
            if (c == 7) return 1;
            if (place_queen(self, c + 1)) return 1;
            set_row_column(self, r, c, 1);
        }
    }
    return 0;
}

static uint8_t *bools(int n) {
    uint8_t *a = malloc(n);
    for (int i = 0; i < n; i++) a[i] = 1;
    return a;
}

static int queens(Queens *self) {
    free(self->free_rows); free(self->free_maxs); free(self->free_mins); free(self->queen_rows);
    self->free_rows = bools(8);
    self->free_maxs = bools(16);
    self->free_mins = bools(16);
    self->queen_rows = malloc(8 * sizeof(int64_t));
    for (int i = 0; i < 8; i++) self->queen_rows[i] = -1;
    return place_queen(self, 0);
}

static int benchmark(Queens *self) {
    int result = 1;
    for (int i = 0; i < 10; i++) result = result && queens(self);
    return result;
}

int main(int argc, char **argv) {
    int64_t iterations = argc > 1 ? atoll(argv[1]) : 1;
    Queens bench = {NULL, NULL, NULL, NULL};
    int result = 0;
    int ok = 1;
    for (int64_t i = 0; i < iterations && ok; i++) {
        result = benchmark(&bench);
        ok = result;
    }
    printf("Queens iterations: %lld result: %s expected: true verified: %s\n", (long long)iterations,
           result ? "true" : "false", ok ? "true" : "false");
    return ok ? 0 : 1;
}
