// Conway's Game of Life on a 16x12 torus (2-D arrays of bool), with a glider and a blinker;
// prints generations 0, 1, 4 and the population of each generation up to 30.
fn make(h: int, w: int) -> [[bool]] {
    let g = [[false; 0]; h];
    for r in 0..h {
        g[r] = [false; w];
    }
    return g;
}

fn neighbours(g: [[bool]], r: int, c: int) -> int {
    let h = len(g);
    let w = len(g[0]);
    let n = 0;
    for dr in -1..2 {
        for dc in -1..2 {
            if dr != 0 || dc != 0 {
                if g[(r + dr + h) % h][(c + dc + w) % w] {
                    n += 1;
                }
            }
        }
    }
    return n;
}

fn step(g: [[bool]]) -> [[bool]] {
    let h = len(g);
    let w = len(g[0]);
    let next = make(h, w);
    for r in 0..h {
        for c in 0..w {
            let n = neighbours(g, r, c);
            next[r][c] = n == 3 || g[r][c] && n == 2;
        }
    }
    return next;
}

fn show(g: [[bool]], gen: int) {
    println("generation", gen);
    for r in 0..len(g) {
        let line = "";
        for c in 0..len(g[r]) {
            if g[r][c] {
                line += "#";
            } else {
                line += ".";
            }
        }
        println(line);
    }
}

fn population(g: [[bool]]) -> int {
    let p = 0;
    for r in 0..len(g) {
        for c in 0..len(g[r]) {
            if g[r][c] {
                p += 1;
            }
        }
    }
    return p;
}

fn main() {
    let g = make(12, 16);
    // glider
    g[0][1] = true;
    g[1][2] = true;
    g[2][0] = true;
    g[2][1] = true;
    g[2][2] = true;
    // blinker
    g[6][10] = true;
    g[6][11] = true;
    g[6][12] = true;
    // block
    g[9][3] = true;
    g[9][4] = true;
    g[10][3] = true;
    g[10][4] = true;
    let pops = [0; 31];
    for gen in 0..31 {
        if gen == 0 || gen == 1 || gen == 4 {
            show(g, gen);
        }
        pops[gen] = population(g);
        g = step(g);
    }
    println("populations:", pops);
}
