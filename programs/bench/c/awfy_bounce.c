/* C port of programs/bench/awfy_bounce.pl (Are We Fast Yet Bounce, https://github.com/smarr/are-we-fast-yet)
   for the gcc -O2 baseline: the same algorithm (AWFY's 16-bit LCG Random) and output; verification value 1331.
   Like the PL program, objects are allocated and never freed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { int64_t seed; } Random;

static int64_t random_next(Random *self) {
    self->seed = ((self->seed * 1309) + 13849) & 65535;
    return self->seed;
}

typedef struct { int64_t x, y, x_vel, y_vel; } Ball;

static Ball *new_ball(Random *random) {
    Ball *b = malloc(sizeof(Ball));
    b->x = random_next(random) % 500;
    b->y = random_next(random) % 500;
    b->x_vel = (random_next(random) % 300) - 150;
    b->y_vel = (random_next(random) % 300) - 150;
    return b;
}

static int64_t iabs(int64_t v) { return v < 0 ? -v : v; }

static int bounce(Ball *self) {
    int64_t x_limit = 500, y_limit = 500;
    int bounced = 0;
    self->x += self->x_vel;
    self->y += self->y_vel;
    if (self->x > x_limit) { self->x = x_limit; self->x_vel = 0 - iabs(self->x_vel); bounced = 1; }
    if (self->x < 0) { self->x = 0; self->x_vel = iabs(self->x_vel); bounced = 1; }
    if (self->y > y_limit) { self->y = y_limit; self->y_vel = 0 - iabs(self->y_vel); bounced = 1; }
    if (self->y < 0) { self->y = 0; self->y_vel = iabs(self->y_vel); bounced = 1; }
    return bounced;
}

static int64_t benchmark(void) {
    Random *random = malloc(sizeof(Random));
    random->seed = 74755;
    int64_t ball_count = 100, bounces = 0;
    Ball **balls = malloc(ball_count * sizeof(Ball *));
    for (int64_t i = 0; i < ball_count; i++) balls[i] = new_ball(random);
    for (int64_t i = 1; i < 51; i++) {
        for (int64_t b = 0; b < ball_count; b++) {
            if (bounce(balls[b])) bounces++;
        }
    }
    return bounces;
}

int main(int argc, char **argv) {
    int64_t iterations = argc > 1 ? atoll(argv[1]) : 1;
    int64_t result = 0;
    int ok = 1;
    for (int64_t i = 0; i < iterations && ok; i++) {
        result = benchmark();
        ok = result == 1331;
    }
    printf("Bounce iterations: %lld result: %lld expected: 1331 verified: %s\n", (long long)iterations,
           (long long)result, ok ? "true" : "false");
    return ok ? 0 : 1;
}
