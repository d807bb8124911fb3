/* C port of programs/bench/dijkstra.pl for the gcc -O2 baseline: the same graph generator (LCG,
   8 edges per vertex in compressed form), indexed binary heap with decrease-key, 8 sources and the
   Bellman-Ford re-check; int64_t values, wrapping arithmetic on uint64_t. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DEG 8
static uint64_t rng = 88172645463325252u;

static int64_t rnd(void) {
    rng = rng * 6364136223846793005u + 1442695040888963407u;
    return (int64_t)(rng >> 33) & 0x7FFFFFFF;
}

static void sift_up(int64_t *heap, int64_t *pos, const int64_t *dist, int64_t i) {
    int64_t v = heap[i], d = dist[v];
    while (i > 0) {
        int64_t parent = (i - 1) / 2, u = heap[parent];
        if (dist[u] <= d) break;
        heap[i] = u;
        pos[u] = i;
        i = parent;
    }
    heap[i] = v;
    pos[v] = i;
}

static void sift_down(int64_t *heap, int64_t *pos, const int64_t *dist, int64_t size, int64_t i) {
    int64_t v = heap[i], d = dist[v];
    for (;;) {
        int64_t child = 2 * i + 1;
        if (child >= size) break;
        if (child + 1 < size && dist[heap[child + 1]] < dist[heap[child]]) child++;
        int64_t u = heap[child];
        if (dist[u] >= d) break;
        heap[i] = u;
        pos[u] = i;
        i = child;
    }
    heap[i] = v;
    pos[v] = i;
}

static void dijkstra(int64_t nv, const int64_t *target, const int64_t *weight, int64_t src, int64_t *dist,
                     int64_t *heap, int64_t *pos) {
    for (int64_t v = 0; v < nv; v++) { dist[v] = -1; pos[v] = -1; }
    dist[src] = 0;
    heap[0] = src;
    pos[src] = 0;
    int64_t size = 1;
    while (size > 0) {
        int64_t u = heap[0];
        pos[u] = -2;
        size--;
        if (size > 0) {
            heap[0] = heap[size];
            pos[heap[0]] = 0;
            sift_down(heap, pos, dist, size, 0);
        }
        int64_t du = dist[u];
        for (int64_t e = u * DEG; e < u * DEG + DEG; e++) {
            int64_t v = target[e], nd = du + weight[e];
            if (pos[v] == -1) {
                dist[v] = nd;
                heap[size++] = v;
                sift_up(heap, pos, dist, size - 1);
            } else if (pos[v] >= 0 && nd < dist[v]) {
                dist[v] = nd;
                sift_up(heap, pos, dist, pos[v]);
            }
        }
    }
}

int main(int argc, char **argv) {
    int64_t nv = argc > 1 ? atoll(argv[1]) : 300;
    int64_t *target = calloc(nv * DEG, sizeof(int64_t)), *weight = calloc(nv * DEG, sizeof(int64_t));
    for (int64_t v = 0; v < nv; v++) {
        target[v * DEG] = (v + 1) % nv;
        weight[v * DEG] = 1 + rnd() % 100;
        for (int k = 1; k < DEG; k++) {
            target[v * DEG + k] = rnd() % nv;
            weight[v * DEG + k] = 1 + rnd() % 1000;
        }
    }
    int64_t *dist = calloc(nv, sizeof(int64_t)), *heap = calloc(nv, sizeof(int64_t)),
            *pos = calloc(nv, sizeof(int64_t));
    uint64_t checksum = 0;
    for (int64_t s = 0; s < 8; s++) {
        int64_t src = s * nv / 8;
        dijkstra(nv, target, weight, src, dist, heap, pos);
        int64_t sum = 0, far = src;
        for (int64_t v = 0; v < nv; v++) {
            sum += dist[v];
            if (dist[v] > dist[far]) far = v;
            checksum = checksum * 31 + (uint64_t)dist[v];
        }
        printf("source %lld sum %lld max %lld at %lld\n", (long long)src, (long long)sum, (long long)dist[far],
               (long long)far);
        if (s == 0 && nv <= 2000) {
            int64_t *bf = malloc(nv * sizeof(int64_t));
            for (int64_t v = 0; v < nv; v++) bf[v] = -1;
            bf[src] = 0;
            int changed = 1;
            while (changed) {
                changed = 0;
                for (int64_t u = 0; u < nv; u++) {
                    if (bf[u] >= 0) {
                        for (int64_t e = u * DEG; e < u * DEG + DEG; e++) {
                            int64_t v = target[e];
                            if (bf[v] < 0 || bf[u] + weight[e] < bf[v]) {
                                bf[v] = bf[u] + weight[e];
                                changed = 1;
                            }
                        }
                    }
                }
            }
            int same = 1;
            for (int64_t v = 0; v < nv; v++) if (bf[v] != dist[v]) same = 0;
            printf("Bellman-Ford agrees: %s\n", same ? "true" : "false");
            free(bf);
        }
    }
    printf("checksum %lld\n", (long long)checksum);
    return 0;
}
