// Dijkstra's single-source shortest paths with an indexed binary min-heap (decrease-key through a
// position array), on a deterministic random directed graph in compressed adjacency form: vertex v
// has an edge to v+1 (mod V, weight 1..100, so every vertex is reachable) and 7 edges to vertices
// drawn by a 64-bit LCG (weights 1..1000). A branchy kernel standing in for the papers' SPEC programs
// (heap sift loops, relaxation tests). Argument: V (default 300). Runs from 8 sources spread over the
// graph and prints, per source, the sum of distances, the largest distance and the vertex at that
// distance, then a checksum; the C port prints the same. A Bellman-Ford pass re-checks the first
// source's distances when V <= 2000.
let DEG: int = 8;
let RNG: int = 88172645463325252;

fn rand() -> int {
    RNG = RNG * 6364136223846793005 + 1442695040888963407;
    return (RNG >> 33) & 0x7FFFFFFF;
}

fn sift_up(heap: [int], pos: [int], dist: [int], i: int) {
    let v = heap[i];
    let d = dist[v];
    while i > 0 {
        let parent = (i - 1) / 2;
        let u = heap[parent];
        if dist[u] <= d {
            break;
        }
        heap[i] = u;
        pos[u] = i;
        i = parent;
    }
    heap[i] = v;
    pos[v] = i;
}

fn sift_down(heap: [int], pos: [int], dist: [int], size: int, i: int) {
    let v = heap[i];
    let d = dist[v];
    while true {
        let child = 2 * i + 1;
        if child >= size {
            break;
        }
        if child + 1 < size && dist[heap[child + 1]] < dist[heap[child]] {
            child += 1;
        }
        let u = heap[child];
        if dist[u] >= d {
            break;
        }
        heap[i] = u;
        pos[u] = i;
        i = child;
    }
    heap[i] = v;
    pos[v] = i;
}

// fills dist (-1 = unreachable)
fn dijkstra(nv: int, target: [int], weight: [int], src: int, dist: [int], heap: [int], pos: [int]) {
    for v in 0..nv {
        dist[v] = -1;
        pos[v] = -1;
    }
    let size = 0;
    dist[src] = 0;
    heap[0] = src;
    pos[src] = 0;
    size = 1;
    while size > 0 {
        let u = heap[0];
        pos[u] = -2;          // settled
        size -= 1;
        if size > 0 {
            heap[0] = heap[size];
            pos[heap[0]] = 0;
            sift_down(heap, pos, dist, size, 0);
        }
        let du = dist[u];
        for e in u * DEG..u * DEG + DEG {
            let v = target[e];
            let nd = du + weight[e];
            if pos[v] == -1 {
                dist[v] = nd;
                heap[size] = v;
                size += 1;
                sift_up(heap, pos, dist, size - 1);
            } else if pos[v] >= 0 && nd < dist[v] {
                dist[v] = nd;
                sift_up(heap, pos, dist, pos[v]);
            }
        }
    }
}

fn main() {
    let nv = 300;
    if argc() > 0 {
        nv = parse_int(arg(0));
    }
    let target = [0; nv * DEG];
    let weight = [0; nv * DEG];
    for v in 0..nv {
        target[v * DEG] = (v + 1) % nv;
        weight[v * DEG] = 1 + rand() % 100;
        for k in 1..DEG {
            target[v * DEG + k] = rand() % nv;
            weight[v * DEG + k] = 1 + rand() % 1000;
        }
    }
    let dist = [0; nv];
    let heap = [0; nv];
    let pos = [0; nv];
    let checksum = 0;
    for s in 0..8 {
        let src = s * nv / 8;
        dijkstra(nv, target, weight, src, dist, heap, pos);
        let sum = 0;
        let far = src;
        for v in 0..nv {
            sum += dist[v];
            if dist[v] > dist[far] {
                far = v;
            }
            checksum = checksum * 31 + dist[v];
        }
        println("source", src, "sum", sum, "max", dist[far], "at", far);
        if s == 0 && nv <= 2000 {
            // Bellman-Ford check
            let bf = [-1; nv];
            bf[src] = 0;
            let changed = true;
            while changed {
                changed = false;
                for u in 0..nv {
                    if bf[u] >= 0 {
                        for e in u * DEG..u * DEG + DEG {
                            let v = target[e];
                            if bf[v] < 0 || bf[u] + weight[e] < bf[v] {
                                bf[v] = bf[u] + weight[e];
                                changed = true;
                            }
                        }
                    }
                }
            }
            let same = true;
            for v in 0..nv {
                if bf[v] != dist[v] {
                    same = false;
                }
            }
            println("Bellman-Ford agrees:", same);
        }
    }
    println("checksum", checksum);
}
