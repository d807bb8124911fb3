/* C port of programs/bench/clbg_binarytrees.pl (Benchmarks Game binary-trees,
   https://benchmarksgame-team.pages.debian.net/benchmarksgame/description/binarytrees.html) for the
   gcc -O2 baseline: the same recursive bottom_up_tree / item_check on malloc'd nodes; like the suite's
   C programs each tree is freed after its check (PL's collector reclaims it).
   Argument 10 prints the suite's published output for 10. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct node { struct node *left, *right; };

static struct node *bottom_up_tree(int64_t depth) {
    struct node *t = malloc(sizeof *t);
    if (depth > 0) {
        struct node *left = bottom_up_tree(depth - 1);
        struct node *right = bottom_up_tree(depth - 1);
        t->left = left;
        t->right = right;
    } else {
        t->left = t->right = NULL;
    }
    return t;
}

static int64_t item_check(const struct node *t) {
    if (t->left == NULL) return 1;
    return 1 + item_check(t->left) + item_check(t->right);
}

static void delete_tree(struct node *t) {
    if (t->left != NULL) {
        delete_tree(t->left);
        delete_tree(t->right);
    }
    free(t);
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 10;
    int64_t min_depth = 4;
    int64_t max_depth = min_depth + 2 > n ? min_depth + 2 : n;
    int64_t stretch_depth = max_depth + 1;
    struct node *stretch = bottom_up_tree(stretch_depth);
    printf("stretch tree of depth %lld\t check: %lld\n", (long long)stretch_depth, (long long)item_check(stretch));
    delete_tree(stretch);
    struct node *long_lived = bottom_up_tree(max_depth);
    for (int64_t depth = min_depth; depth <= max_depth; depth += 2) {
        int64_t iterations = (int64_t)1 << (max_depth - depth + min_depth);
        int64_t check = 0;
        for (int64_t i = 0; i < iterations; i++) {
            struct node *t = bottom_up_tree(depth);
            check += item_check(t);
            delete_tree(t);
        }
        printf("%lld\t trees of depth %lld\t check: %lld\n", (long long)iterations, (long long)depth, (long long)check);
    }
    printf("long lived tree of depth %lld\t check: %lld\n", (long long)max_depth, (long long)item_check(long_lived));
    delete_tree(long_lived);
    return 0;
}
