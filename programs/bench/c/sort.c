/* C port of programs/bench/sort.pl for the gcc -O2 baseline: the same quicksort (Hoare partition,
   middle pivot, recursion into the smaller part) and heapsort (sift-down) on the same LCG data, int64_t
   elements, wrapping checksum on uint64_t. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void quicksort(int64_t *a, int64_t lo, int64_t hi) {
    while (lo < hi) {
        int64_t pivot = a[lo + (hi - lo) / 2];
        int64_t i = lo - 1, j = hi + 1;
        for (;;) {
            i++;
            while (a[i] < pivot) i++;
            j--;
            while (a[j] > pivot) j--;
            if (i >= j) break;
            int64_t t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        if (j - lo < hi - j) {
            quicksort(a, lo, j);
            lo = j + 1;
        } else {
            quicksort(a, j + 1, hi);
            hi = j;
        }
    }
}

static void sift_down(int64_t *a, int64_t start, int64_t end) {
    int64_t root = start, v = a[root];
    for (;;) {
        int64_t child = 2 * root + 1;
        if (child >= end) break;
        if (child + 1 < end && a[child + 1] > a[child]) child++;
        if (a[child] <= v) break;
        a[root] = a[child];
        root = child;
    }
    a[root] = v;
}

static void heapsort(int64_t *a, int64_t n) {
    for (int64_t start = n / 2 - 1; start >= 0; start--) sift_down(a, start, n);
    for (int64_t end = n - 1; end > 0; end--) {
        int64_t t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(a, 0, end);
    }
}

static int64_t checksum(const int64_t *a, int64_t n) {
    uint64_t h = 0;
    for (int64_t i = 0; i < n; i++) h += (uint64_t)a[i] * (uint64_t)(i + 1);
    return (int64_t)h;
}

static int is_sorted(const int64_t *a, int64_t n) {
    for (int64_t i = 1; i < n; i++)
        if (a[i - 1] > a[i]) return 0;
    return 1;
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 2000;
    int64_t *data = calloc(n + 1, sizeof(int64_t)), *q = calloc(n + 1, sizeof(int64_t)),
            *h = calloc(n + 1, sizeof(int64_t));
    uint64_t x = 31415926535u;
    for (int64_t i = 0; i < n; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        data[i] = ((int64_t)(x >> 33) & 0x7FFFFFFF) % 1000000;
    }
    for (int64_t i = 0; i < n; i++) q[i] = h[i] = data[i];
    printf("n %lld unsorted checksum %lld\n", (long long)n, (long long)checksum(data, n));
    quicksort(q, 0, n - 1);
    printf("quicksort checksum %lld sorted %s\n", (long long)checksum(q, n), is_sorted(q, n) ? "true" : "false");
    heapsort(h, n);
    printf("heapsort checksum %lld sorted %s\n", (long long)checksum(h, n), is_sorted(h, n) ? "true" : "false");
    int same = 1;
    for (int64_t i = 0; i < n; i++)
        if (q[i] != h[i]) same = 0;
    printf("same result %s\n", same ? "true" : "false");
    if (n > 0) printf("min %lld median %lld max %lld\n", (long long)q[0], (long long)q[n / 2], (long long)q[n - 1]);
    return 0;
}
