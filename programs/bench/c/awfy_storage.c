/* C port of programs/bench/awfy_storage.pl (Are We Fast Yet Storage, https://github.com/smarr/are-we-fast-yet)
   for the gcc -O2 baseline: the same algorithm and data layout as the PL program (a node is a small struct
   pointing to its array of nodes; leaves are zeroed arrays) and the same output; verification value 5461.
   Each iteration's tree is freed after it is built, as PL's collector reclaims it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { int64_t seed; } Random;

static int64_t random_next(Random *self) {
    self->seed = ((self->seed * 1309) + 13849) & 65535;
    return self->seed;
}

typedef struct Obj { int64_t len; struct Obj **arr; } Obj;
typedef struct { int64_t count; } Storage;

static Obj *new_obj(int64_t n) {
    Obj *o = malloc(sizeof(Obj));
    o->len = n;
    o->arr = calloc(n, sizeof(Obj *));
    return o;
}

static Obj *build_tree_depth(Storage *self, int64_t depth, Random *random) {
    self->count++;
    if (depth == 1) {
        return new_obj(random_next(random) % 10 + 1);
    } else {
        Obj *o = new_obj(4);
        for (int i = 0; i < 4; i++) o->arr[i] = build_tree_depth(self, depth - 1, random);
        return o;
    }
}

static void free_tree(Obj *o) {
    for (int64_t i = 0; i < o->len; i++)
        if (o->arr[i]) free_tree(o->arr[i]);
    free(o->arr);
    free(o);
}

static int64_t benchmark(Storage *self) {
    Random *random = malloc(sizeof(Random));
    random->seed = 74755;
    self->count = 0;
    free_tree(build_tree_depth(self, 7, random));
    free(random);
    return self->count;
}

int main(int argc, char **argv) {
    int64_t iterations = argc > 1 ? atoll(argv[1]) : 1;
    Storage bench = {0};
    int64_t result = 0;
    int ok = 1;
    for (int64_t i = 0; i < iterations && ok; i++) {
        result = benchmark(&bench);
        ok = result == 5461;
    }
    printf("Storage iterations: %lld result: %lld expected: 5461 verified: %s\n", (long long)iterations,
           (long long)result, ok ? "true" : "false");
    return ok ? 0 : 1;
}
