/* C port of programs/bench/awfy_nbody.pl (Are We Fast Yet NBody, https://github.com/smarr/are-we-fast-yet)
   for the gcc -O2 baseline: the same algorithm and output; published energies -0.16907495402506745
   (1 step) and -0.1690859889909308 (250000 steps). Floats are printed as PL does (Rust's `{:?}`: the
   shortest text that reads back as the same double). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Rust {:?} for a finite double: shortest round-trip digits; plain notation when 1e-5 <= |x| < 1e16 (or 0),
   otherwise `<d>[.<ddd>]e<exp>`. */
static void print_float(double x) {
    char buf[64];
    int p;
    for (p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, x);
        if (strtod(buf, NULL) == x) break;
    }
    char digits[32];
    int nd = 0, neg = buf[0] == '-';
    char *s = buf + neg;
    for (; *s && *s != 'e'; s++) if (*s != '.') digits[nd++] = *s;
    int exp10 = atoi(s + 1);
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    digits[nd] = 0;
    if (neg) putchar('-');
    double ax = fabs(x);
    if (x == 0.0 || (ax >= 1e-5 && ax < 1e16)) {
        if (exp10 < 0) {
            printf("0.");
            for (int i = 0; i < -exp10 - 1; i++) putchar('0');
            printf("%s", digits);
        } else {
            for (int i = 0; i <= exp10; i++) putchar(i < nd ? digits[i] : '0');
            putchar('.');
            if (nd > exp10 + 1) printf("%s", digits + exp10 + 1); else putchar('0');
        }
    } else {
        putchar(digits[0]);
        if (nd > 1) printf(".%s", digits + 1);
        printf("e%d", exp10);
    }
}

typedef struct { double x, y, z, vx, vy, vz, mass; } Body;

static const double PI = 3.141592653589793;
#define SOLAR_MASS (4.0 * PI * PI)
static const double DAYS_PER_YEAR = 365.24;

static void offset_momentum(Body *self, double px, double py, double pz) {
    self->vx = 0.0 - (px / SOLAR_MASS);
    self->vy = 0.0 - (py / SOLAR_MASS);
    self->vz = 0.0 - (pz / SOLAR_MASS);
}

static Body *planet(double x, double y, double z, double vx, double vy, double vz, double mass) {
    Body *b = malloc(sizeof(Body));
    b->x = x; b->y = y; b->z = z;
    b->vx = vx * DAYS_PER_YEAR; b->vy = vy * DAYS_PER_YEAR; b->vz = vz * DAYS_PER_YEAR;
    b->mass = mass * SOLAR_MASS;
    return b;
}

static Body **create_bodies(void) {
    Body **bodies = malloc(5 * sizeof(Body *));
    bodies[0] = malloc(sizeof(Body));
    *bodies[0] = (Body){0.0, 0.0, 0.0, 0.0, 0.0, 0.0, SOLAR_MASS};
    bodies[1] = planet(4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
                       1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05,
                       9.54791938424326609e-04);
    bodies[2] = planet(8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
                       -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05,
                       2.85885980666130812e-04);
    bodies[3] = planet(1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
                       2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05,
                       4.36624404335156298e-05);
    bodies[4] = planet(1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
                       2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05,
                       5.15138902046611451e-05);
    double px = 0.0, py = 0.0, pz = 0.0;
    for (int i = 0; i < 5; i++) {
        px += bodies[i]->vx * bodies[i]->mass;
        py += bodies[i]->vy * bodies[i]->mass;
        pz += bodies[i]->vz * bodies[i]->mass;
    }
    offset_momentum(bodies[0], px, py, pz);
    return bodies;
}

static void advance(Body **bodies, int64_t n, double dt) {
    for (int64_t i = 0; i < n; i++) {
        Body *ib = bodies[i];
        for (int64_t j = i + 1; j < n; j++) {
            Body *jb = bodies[j];
            double dx = ib->x - jb->x, dy = ib->y - jb->y, dz = ib->z - jb->z;
            double d_squared = dx * dx + dy * dy + dz * dz;
            double distance = sqrt(d_squared);
            double mag = dt / (d_squared * distance);
            ib->vx = ib->vx - (dx * jb->mass * mag);
            ib->vy = ib->vy - (dy * jb->mass * mag);
            ib->vz = ib->vz - (dz * jb->mass * mag);
            jb->vx = jb->vx + (dx * ib->mass * mag);
            jb->vy = jb->vy + (dy * ib->mass * mag);
            jb->vz = jb->vz + (dz * ib->mass * mag);
        }
    }
    for (int64_t i = 0; i < n; i++) {
        Body *b = bodies[i];
        b->x = b->x + dt * b->vx;
        b->y = b->y + dt * b->vy;
        b->z = b->z + dt * b->vz;
    }
}

static double energy(Body **bodies, int64_t n) {
    double e = 0.0;
    for (int64_t i = 0; i < n; i++) {
        Body *ib = bodies[i];
        e += 0.5 * ib->mass * (ib->vx * ib->vx + ib->vy * ib->vy + ib->vz * ib->vz);
        for (int64_t j = i + 1; j < n; j++) {
            Body *jb = bodies[j];
            double dx = ib->x - jb->x, dy = ib->y - jb->y, dz = ib->z - jb->z;
            double distance = sqrt(dx * dx + dy * dy + dz * dz);
            e -= (ib->mass * jb->mass) / distance;
        }
    }
    return e;
}

int main(int argc, char **argv) {
    int64_t steps = argc > 1 ? atoll(argv[1]) : 1;
    Body **bodies = create_bodies();
    for (int64_t i = 0; i < steps; i++) advance(bodies, 5, 0.01);
    double result = energy(bodies, 5);
    if (steps == 1 || steps == 250000) {
        double expected = steps == 250000 ? -0.1690859889909308 : -0.16907495402506745;
        printf("NBody steps: %lld energy: ", (long long)steps);
        print_float(result);
        printf(" expected: ");
        print_float(expected);
        printf(" verified: %s\n", result == expected ? "true" : "false");
        return result == expected ? 0 : 1;
    }
    printf("NBody steps: %lld energy: ", (long long)steps);
    print_float(result);
    printf(" (no published value for this step count)\n");
    return 0;
}
