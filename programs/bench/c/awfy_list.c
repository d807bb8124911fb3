/* C port of programs/bench/awfy_list.pl (Are We Fast Yet List, https://github.com/smarr/are-we-fast-yet)
   for the gcc -O2 baseline: the same algorithm and output; verification value 10.
   Each iteration's lists are freed after it, as PL's collector reclaims them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct Element { int64_t val; struct Element *next; } Element;

static int64_t length(Element *self) {
    if (self->next == NULL) return 1;
    return 1 + length(self->next);
}

static Element *make_list(int64_t length) {
    if (length == 0) return NULL;
    Element *e = malloc(sizeof(Element));
    e->val = length;
    e->next = NULL;
    e->next = make_list(length - 1);
    return e;
}

static int is_shorter_than(Element *x, Element *y) {
    Element *x_tail = x, *y_tail = y;
    while (y_tail != NULL) {
        if (x_tail == NULL) return 1;
        x_tail = x_tail->next;
        y_tail = y_tail->next;
    }
    return 0;
}

static Element *tail(Element *x, Element *y, Element *z) {
    if (is_shorter_than(y, x)) {
        Element *a = tail(x->next, y, z);
        Element *b = tail(y->next, z, x);
        Element *c = tail(z->next, x, y);
        return tail(a, b, c);
    }
    return z;
}

static void free_list(Element *e) {
    while (e) {
        Element *next = e->next;
        free(e);
        e = next;
    }
}

static int64_t benchmark(void) {
    Element *a = make_list(15);
    Element *b = make_list(10);
    Element *c = make_list(6);
    int64_t result = length(tail(a, b, c));
    free_list(a);
    free_list(b);
    free_list(c);
    return result;
}

int main(int argc, char **argv) {
    int64_t iterations = argc > 1 ? atoll(argv[1]) : 1;
    int64_t result = 0;
    int ok = 1;
    for (int64_t i = 0; i < iterations && ok; i++) {
        result = benchmark();
        ok = result == 10;
    }
    printf("List iterations: %lld result: %lld expected: 10 verified: %s\n", (long long)iterations,
           (long long)result, ok ? "true" : "false");
    return ok ? 0 : 1;
}
