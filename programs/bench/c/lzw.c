/* C port of programs/bench/lzw.pl for the gcc -O2 baseline: the same text generator, LZW compressor
   (12-bit codes, 5003-slot open-addressing table with compress's secondary probe, reset when the 4096
   codes are used) and decompressor (prefix/suffix tables, stack, KwKwK case); int64_t elements like
   PL's [int], wrapping arithmetic on uint64_t. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *WORDS[] = {"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "path", "profile",
    "branch", "loop", "compiler", "edge", "block", "count", "program", "follows", "paths", "of",
    "and", "a", "in", "to", "is", "execution", "frequency", "hot", "cold", "instrumentation"};
#define NWORDS 30
#define HSIZE 5003
#define MAXCODE 4096

static int64_t *make_text(int64_t n) {
    int64_t *text = calloc(n > 0 ? n : 1, sizeof(int64_t));
    uint64_t x = 12345;
    int64_t i = 0, words = 0;
    while (i < n) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        const char *w = WORDS[((int64_t)(x >> 33) & 0x7FFFFFFF) % NWORDS];
        int64_t wl = (int64_t)strlen(w), k = 0;
        while (k < wl && i < n) text[i++] = (unsigned char)w[k++];
        words++;
        if (i < n) text[i++] = words % 12 == 0 ? 10 : 32;
    }
    return text;
}

static int64_t compress(const int64_t *data, int64_t n, int64_t *out) {
    int64_t keys[HSIZE], vals[HSIZE];
    for (int j = 0; j < HSIZE; j++) { keys[j] = -1; vals[j] = 0; }
    int64_t next = 256, nout = 0;
    if (n == 0) return 0;
    int64_t w = data[0];
    for (int64_t i = 1; i < n; i++) {
        int64_t c = data[i];
        int64_t key = (w << 8) | c;
        int64_t h = ((c << 4) ^ w) % HSIZE;
        int64_t disp = h != 0 ? HSIZE - h : 1;
        int found = 0;
        while (keys[h] != -1) {
            if (keys[h] == key) { found = 1; break; }
            h -= disp;
            if (h < 0) h += HSIZE;
        }
        if (found) {
            w = vals[h];
        } else {
            out[nout++] = w;
            keys[h] = key;
            vals[h] = next++;
            if (next == MAXCODE) {
                for (int j = 0; j < HSIZE; j++) keys[j] = -1;
                next = 256;
            }
            w = c;
        }
    }
    out[nout] = w;
    return nout + 1;
}

static int64_t decompress(const int64_t *codes, int64_t m, int64_t *out) {
    int64_t prefix[MAXCODE] = {0}, suffix[MAXCODE] = {0}, stack[MAXCODE];
    for (int i = 0; i < 256; i++) suffix[i] = i;
    int64_t next = 256, nout = 0;
    if (m == 0) return 0;
    int64_t prev = codes[0];
    out[nout++] = prev;
    int64_t first = prev;
    for (int64_t i = 1; i < m; i++) {
        int64_t code = codes[i], cur = code, sp = 0;
        if (code == next) {
            stack[sp++] = first;
            cur = prev;
        } else if (code > next) {
            return -1;
        }
        while (cur >= 256) {
            stack[sp++] = suffix[cur];
            cur = prefix[cur];
        }
        first = cur;
        out[nout++] = cur;
        while (sp > 0) out[nout++] = stack[--sp];
        prefix[next] = prev;
        suffix[next] = first;
        next++;
        if (next == MAXCODE) next = 256;
        prev = code;
    }
    return nout;
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 5000;
    int64_t *text = make_text(n);
    int64_t *codes = calloc(n + 1, sizeof(int64_t));
    int64_t m = compress(text, n, codes);
    uint64_t h = 0xcbf29ce484222325u;
    for (int64_t i = 0; i < m; i++) h = (h ^ (uint64_t)codes[i]) * 1099511628211u;
    int64_t *back = calloc(n > 0 ? n : 1, sizeof(int64_t));
    int64_t k = decompress(codes, m, back);
    int ok = k == n;
    for (int64_t i = 0; ok && i < n; i++) ok = back[i] == text[i];
    printf("input %lld bytes, compressed to %lld codes (%lld bytes at 12 bits)\n", (long long)n, (long long)m,
           (long long)((m * 12 + 7) / 8));
    printf("codes fnv1a %lld\n", (long long)h);
    printf("round trip ok: %s\n", ok ? "true" : "false");
    return 0;
}
