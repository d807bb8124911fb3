/* C port of programs/bench/clbg_fasta.pl (Benchmarks Game fasta,
   https://benchmarksgame-team.pages.debian.net/benchmarksgame/description/fasta.html) for the gcc -O2
   baseline: the same LCG, cumulative tables searched linearly, 60-byte line buffer and ALU repeat buffer.
   Arguments: n [digest]; with `digest` it prints the byte count, line count and FNV-1a-64 hash of the
   output instead of writing it, like the PL program. n = 1000 writes the suite's published output. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IM 139968
#define IA 3877
#define IC 29573
#define LINE_LEN 60

static int64_t last = 42;
static int digest = 0;
static int64_t out_bytes = 0, out_lines = 0;
static uint64_t out_hash = 0xcbf29ce484222325u;

static double gen_random(double max) {
    last = (last * IA + IC) % IM;
    return max * (double)last / (double)IM;
}

static void write_line(const char *buf, int64_t n) {
    if (digest) {
        uint64_t h = out_hash;
        for (int64_t i = 0; i < n; i++) h = (h ^ (unsigned char)buf[i]) * 1099511628211u;
        out_hash = (h ^ 10) * 1099511628211u;
        out_bytes += n + 1;
        out_lines++;
    } else {
        fwrite(buf, 1, n, stdout);
        fputc('\n', stdout);
    }
}

static void write_title(const char *s) { write_line(s, (int64_t)strlen(s)); }

static void repeat_fasta(const char *title, const char *alu, int64_t n) {
    int64_t k = (int64_t)strlen(alu);
    char *buf = malloc(k + LINE_LEN);
    memcpy(buf, alu, k);
    memcpy(buf + k, alu, LINE_LEN);
    write_title(title);
    int64_t pos = 0;
    while (n > 0) {
        int64_t bytes = n < LINE_LEN ? n : LINE_LEN;
        write_line(buf + pos, bytes);
        pos += bytes;
        if (pos > k) pos -= k;
        n -= bytes;
    }
    free(buf);
}

static void random_fasta(const char *title, const char *symbols, const double *probs, int64_t n) {
    int64_t count = (int64_t)strlen(symbols);
    double cum[16];
    double p = 0.0;
    for (int64_t i = 0; i < count; i++) {
        p += probs[i];
        cum[i] = p;
    }
    char buf[LINE_LEN];
    write_title(title);
    while (n > 0) {
        int64_t m = n < LINE_LEN ? n : LINE_LEN;
        for (int64_t i = 0; i < m; i++) {
            double r = gen_random(1.0);
            char c = symbols[count - 1];
            for (int64_t j = 0; j < count; j++) {
                if (r < cum[j]) {
                    c = symbols[j];
                    break;
                }
            }
            buf[i] = c;
        }
        write_line(buf, m);
        n -= m;
    }
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 1000;
    digest = argc > 2 && strcmp(argv[2], "digest") == 0;
    static const char alu[] =
        "GGCCGGGCGCGGTGGCTCACGCCTGTAATCCCAGCACTTTGG"
        "GAGGCCGAGGCGGGCGGATCACCTGAGGTCAGGAGTTCGAGA"
        "CCAGCCTGGCCAACATGGTGAAACCCCGTCTCTACTAAAAAT"
        "ACAAAAATTAGCCGGGCGTGGTGGCGCGCGCCTGTAATCCCA"
        "GCTACTCGGGAGGCTGAGGCAGGAGAATCGCTTGAACCCGGG"
        "AGGCGGAGGTTGCAGTGAGCCGAGATCGCGCCACTGCACTCC"
        "AGCCTGGGCGACAGAGCGAGACTCCGTCTCAAAAA";
    static const double iub_p[] = {0.27, 0.12, 0.12, 0.27, 0.02, 0.02, 0.02, 0.02,
                                   0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02};
    static const double homo_p[] = {0.3029549426680, 0.1979883004921, 0.1975473066391, 0.3015094502008};
    repeat_fasta(">ONE Homo sapiens alu", alu, 2 * n);
    random_fasta(">TWO IUB ambiguity codes", "acgtBDHKMNRSVWY", iub_p, 3 * n);
    random_fasta(">THREE Homo sapiens frequency", "acgt", homo_p, 5 * n);
    if (digest) printf("bytes %lld lines %lld fnv1a %lld\n", (long long)out_bytes, (long long)out_lines, (long long)out_hash);
    return 0;
}
