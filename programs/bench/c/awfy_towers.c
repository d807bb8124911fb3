/* C port of programs/bench/awfy_towers.pl (Are We Fast Yet Towers, https://github.com/smarr/are-we-fast-yet)
   for the gcc -O2 baseline: the same algorithm and output; verification value 8191.
   Each iteration's disks and piles are freed after it, as PL's collector reclaims them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct TowersDisk { int64_t size; struct TowersDisk *next; } TowersDisk;
typedef struct { TowersDisk **piles; int64_t moves_done; } Towers;

static void fail(const char *msg) {
    fflush(stdout);
    fprintf(stderr, "runtime error: assertion failed: %s\n", msg);
    exit(101);
}

static void push_disk(Towers *self, TowersDisk *disk, int64_t pile) {
    TowersDisk *top = self->piles[pile];
    if (!(top == NULL) && disk->size >= top->size) fail("Cannot put a big disk on a smaller one");
    disk->next = top;
    self->piles[pile] = disk;
}

static TowersDisk *pop_disk_from(Towers *self, int64_t pile) {
    TowersDisk *top = self->piles[pile];
    if (top == NULL) fail("Attempting to remove a disk from an empty pile");
    self->piles[pile] = top->next;
    top->next = NULL;
    return top;
}

static void move_top_disk(Towers *self, int64_t from_pile, int64_t to_pile) {
    push_disk(self, pop_disk_from(self, from_pile), to_pile);
    self->moves_done++;
}

static void build_tower_at(Towers *self, int64_t pile, int64_t disks) {
    for (int64_t i = disks; i >= 0; i--) {
        TowersDisk *d = malloc(sizeof(TowersDisk));
        d->size = i;
        d->next = NULL;
        push_disk(self, d, pile);
    }
}

static void move_disks(Towers *self, int64_t disks, int64_t from_pile, int64_t to_pile) {
    if (disks == 1) {
        move_top_disk(self, from_pile, to_pile);
    } else {
        int64_t other_pile = (3 - from_pile) - to_pile;
        move_disks(self, disks - 1, from_pile, other_pile);
        move_top_disk(self, from_pile, to_pile);
        move_disks(self, disks - 1, other_pile, to_pile);
    }
}

static int64_t benchmark(Towers *self) {
    self->piles = calloc(3, sizeof(TowersDisk *));
    build_tower_at(self, 0, 13);
    self->moves_done = 0;
    move_disks(self, 13, 0, 1);
    for (int p = 0; p < 3; p++) {
        TowersDisk *d = self->piles[p];
        while (d) {
            TowersDisk *next = d->next;
            free(d);
            d = next;
        }
    }
    free(self->piles);
    return self->moves_done;
}

int main(int argc, char **argv) {
    int64_t iterations = argc > 1 ? atoll(argv[1]) : 1;
    Towers bench = {NULL, 0};
    int64_t result = 0;
    int ok = 1;
    for (int64_t i = 0; i < iterations && ok; i++) {
        result = benchmark(&bench);
        ok = result == 8191;
    }
    printf("Towers iterations: %lld result: %lld expected: 8191 verified: %s\n", (long long)iterations,
           (long long)result, ok ? "true" : "false");
    return ok ? 0 : 1;
}
