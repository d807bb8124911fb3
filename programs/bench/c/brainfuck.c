/* C port of programs/bench/brainfuck.pl for the gcc -O2 baseline: the same bracket table and switch
   dispatch loop over a 30000-cell tape of int64_t cells masked to 8 bits, the same two programs and
   repetition count; prints the same output. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char HELLO[] =
    "++++++++[>++++[>++>+++>+++>+<<<<-]>+>+>->>+[<]<-]>>.>---.+++++++..+++.>>.<-.<.+++.------.--------.>>+.>++.";
static const char COUNTDOWN[] = "++++++++++++++++++++++++++>++++++++++[>+++++++++<-]>"
                                "<<[>>.->++++[>-[-]<-]<<<-]>>>++++++++++.";
static int64_t steps_total = 0;

static int64_t run(const char *prog, int64_t n, const int64_t *jump, int64_t *tape, int64_t *out) {
    int64_t p = 0, hi = 0, pc = 0, nout = 0, steps = 0;
    while (pc < n) {
        steps++;
        switch (prog[pc]) {
        case '+': tape[p] = (tape[p] + 1) & 255; break;
        case '-': tape[p] = (tape[p] - 1) & 255; break;
        case '>': p++; if (p > hi) hi = p; break;
        case '<': p--; break;
        case '.': out[nout++] = tape[p]; break;
        case ',': tape[p] = 0; break;
        case '[': if (tape[p] == 0) pc = jump[pc]; break;
        case ']': if (tape[p] != 0) pc = jump[pc]; break;
        default: steps--; break;
        }
        pc++;
    }
    for (int64_t i = 0; i < hi + 1; i++) tape[i] = 0;
    steps_total += steps;
    return nout;
}

static int64_t *brackets(const char *prog, int64_t n) {
    int64_t *jump = calloc(n, sizeof(int64_t)), *stack = calloc(n, sizeof(int64_t));
    int64_t sp = 0;
    for (int64_t i = 0; i < n; i++) {
        if (prog[i] == '[') stack[sp++] = i;
        else if (prog[i] == ']') {
            if (sp == 0) { fprintf(stderr, "unmatched ]\n"); exit(101); }
            sp--;
            jump[i] = stack[sp];
            jump[stack[sp]] = i;
        }
    }
    if (sp != 0) { fprintf(stderr, "unmatched [\n"); exit(101); }
    free(stack);
    return jump;
}

int main(int argc, char **argv) {
    int64_t reps = argc > 1 ? atoll(argv[1]) : 1;
    const char *progs[] = {HELLO, COUNTDOWN};
    const char *names[] = {"hello", "countdown"};
    int64_t *tape = calloc(30000, sizeof(int64_t));
    for (int k = 0; k < 2; k++) {
        const char *prog = progs[k];
        int64_t n = (int64_t)strlen(prog);
        int64_t *jump = brackets(prog, n);
        int64_t out[256], first[256], nfirst = 0;
        int same = 1;
        steps_total = 0;
        for (int64_t r = 0; r < reps; r++) {
            int64_t m = run(prog, n, jump, tape, out);
            if (r == 0) {
                nfirst = m;
                for (int64_t i = 0; i < m; i++) first[i] = out[i];
            } else {
                if (m != nfirst) same = 0;
                for (int64_t i = 0; i < (m < nfirst ? m : nfirst); i++)
                    if (out[i] != first[i]) same = 0;
            }
        }
        for (int64_t i = 0; i < nfirst; i++) putchar((int)first[i]);
        printf("%s: %lld chars, %lld steps in %lld runs, same output: %s\n", names[k], (long long)n,
               (long long)steps_total, (long long)reps, same ? "true" : "false");
        free(jump);
    }
    return 0;
}
