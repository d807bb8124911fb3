#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]), total = 0;
    for (long i = 0; i < n; i++) {
        long *a = calloc(101, sizeof(long));
        a[0] = 100;
        a[1 + i % 100] = i;
        total += a[1 + i % 100] + a[0];
        free(a);
    }
    printf("%ld\n", total);
    return 0;
}
