#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]), total = 0;
    long *previous = calloc(1000, sizeof(long));
    for (long i = 0; i < n; i++) {
        long *a = malloc(1000 * sizeof(long));
        for (int j = 0; j < 1000; j++) a[j] = i;
        total += a[999] - previous[0];
        free(previous);
        previous = a;
    }
    printf("%ld\n", total);
    free(previous);
    return 0;
}
