/* C port of programs/bench/crc32.pl for the gcc -O2 baseline: the same table-driven CRC-32
   (reflected polynomial 0xEDB88320), the same LCG buffer (int64_t elements like PL's [int]) and the
   same bitwise cross-check. CRC-32("123456789") = 0xCBF43926. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void make_table(int64_t *table) {
    for (int64_t i = 0; i < 256; i++) {
        int64_t c = i;
        for (int k = 0; k < 8; k++) {
            if ((c & 1) != 0) c = 0xEDB88320 ^ (c >> 1);
            else c = c >> 1;
        }
        table[i] = c;
    }
}

static int64_t crc_update(const int64_t *table, int64_t crc, const int64_t *buf, int64_t n) {
    for (int64_t i = 0; i < n; i++) crc = table[(crc ^ buf[i]) & 0xFF] ^ (crc >> 8);
    return crc;
}

static int64_t crc_bitwise(const int64_t *buf, int64_t n) {
    int64_t crc = 0xFFFFFFFF;
    for (int64_t i = 0; i < n; i++) {
        crc ^= buf[i];
        for (int k = 0; k < 8; k++) {
            if ((crc & 1) != 0) crc = (crc >> 1) ^ 0xEDB88320;
            else crc = crc >> 1;
        }
    }
    return crc ^ 0xFFFFFFFF;
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 10000;
    int64_t table[256];
    make_table(table);
    const char *check = "123456789";
    int64_t cb[9];
    for (int i = 0; i < 9; i++) cb[i] = (unsigned char)check[i];
    int64_t c1 = crc_update(table, 0xFFFFFFFF, cb, 9) ^ 0xFFFFFFFF;
    printf("crc32(\"123456789\") = 0x%08llX %s 0x%08llX\n", (long long)c1, c1 == 0xCBF43926 ? "true" : "false",
           (long long)crc_bitwise(cb, 9));
    int64_t m = n < (1 << 20) ? n : (1 << 20);
    int64_t *buf = calloc(m > 0 ? m : 1, sizeof(int64_t));
    uint64_t x = 20240601;
    for (int64_t i = 0; i < m; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        buf[i] = (int64_t)(x >> 56) & 255;
    }
    int64_t crc = 0xFFFFFFFF;
    for (int64_t left = n; left > 0;) {
        int64_t k = left < m ? left : m;
        crc = crc_update(table, crc, buf, k);
        left -= k;
    }
    crc ^= 0xFFFFFFFF;
    int64_t p = m < 4096 ? m : 4096;
    int same = crc_bitwise(buf, p) == (crc_update(table, 0xFFFFFFFF, buf, p) ^ 0xFFFFFFFF);
    printf("crc32 of %lld bytes = 0x%08llX (%lld)\n", (long long)n, (long long)crc, (long long)crc);
    printf("bitwise and table CRCs agree on %lld bytes: %s\n", (long long)p, same ? "true" : "false");
    return 0;
}
