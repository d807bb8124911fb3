/* C port of programs/bench/clbg_spectralnorm.pl (Benchmarks Game spectral-norm,
   https://benchmarksgame-team.pages.debian.net/benchmarksgame/description/spectralnorm.html) for the
   gcc -O2 baseline: the same functions; int arithmetic on int64_t (no overflow at the sizes used).
   N = 100 prints 1.274219991. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static double eval_a(int64_t i, int64_t j) {
    return 1.0 / (double)((i + j) * (i + j + 1) / 2 + i + 1);
}

static void eval_a_times_u(int64_t n, const double *u, double *au) {
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t j = 0; j < n; j++) s += eval_a(i, j) * u[j];
        au[i] = s;
    }
}

static void eval_at_times_u(int64_t n, const double *u, double *au) {
    for (int64_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int64_t j = 0; j < n; j++) s += eval_a(j, i) * u[j];
        au[i] = s;
    }
}

static void eval_ata_times_u(int64_t n, const double *u, double *atau, double *tmp) {
    eval_a_times_u(n, u, tmp);
    eval_at_times_u(n, tmp, atau);
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 100;
    double *u = malloc(n * sizeof(double)), *v = malloc(n * sizeof(double)), *tmp = malloc(n * sizeof(double));
    for (int64_t i = 0; i < n; i++) { u[i] = 1.0; v[i] = 0.0; tmp[i] = 0.0; }
    for (int i = 0; i < 10; i++) {
        eval_ata_times_u(n, u, v, tmp);
        eval_ata_times_u(n, v, u, tmp);
    }
    double vbv = 0.0, vv = 0.0;
    for (int64_t i = 0; i < n; i++) {
        vbv += u[i] * v[i];
        vv += v[i] * v[i];
    }
    printf("%.9f\n", sqrt(vbv / vv));
    return 0;
}
