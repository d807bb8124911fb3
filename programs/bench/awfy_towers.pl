// Are We Fast Yet: Towers (Marr et al., DLS 2016; https://github.com/smarr/are-we-fast-yet,
// benchmarks/*/Towers; from the SOM benchmarks). Ported to PL from the algorithm.
// benchmark(): builds a tower of 14 disks (sizes 13..0, linked TowersDisk objects) on pile 0 and moves the
// top 13 to pile 1 recursively, counting the moves. verifyResult: the count must be 8191 (published value).
// The exceptions of the original (big disk on a smaller one, pop from an empty pile) are failed asserts.
// Argument: inner iterations (default 1); each runs benchmark() and verifyResult().

struct TowersDisk { size: int, next: TowersDisk }
struct Towers { piles: [TowersDisk], moves_done: int }

fn push_disk(self: Towers, disk: TowersDisk, pile: int) {
    let top = self.piles[pile];
    if !(top == null) && disk.size >= top.size {
        assert(false, "Cannot put a big disk on a smaller one");
    }
    disk.next = top;
    self.piles[pile] = disk;
}

fn pop_disk_from(self: Towers, pile: int) -> TowersDisk {
    let top = self.piles[pile];
    if top == null {
        assert(false, "Attempting to remove a disk from an empty pile");
    }
    self.piles[pile] = top.next;
    top.next = null;
    return top;
}

fn move_top_disk(self: Towers, from_pile: int, to_pile: int) {
    push_disk(self, pop_disk_from(self, from_pile), to_pile);
    self.moves_done += 1;
}

fn build_tower_at(self: Towers, pile: int, disks: int) {
    let i = disks;
    while i >= 0 {
        push_disk(self, new TowersDisk { size: i, next: null }, pile);
        i -= 1;
    }
}

fn move_disks(self: Towers, disks: int, from_pile: int, to_pile: int) {
    if disks == 1 {
        move_top_disk(self, from_pile, to_pile);
    } else {
        let other_pile = (3 - from_pile) - to_pile;
        move_disks(self, disks - 1, from_pile, other_pile);
        move_top_disk(self, from_pile, to_pile);
        move_disks(self, disks - 1, other_pile, to_pile);
    }
}

fn benchmark(self: Towers) -> int {
    self.piles = [null; 3];
    build_tower_at(self, 0, 13);
    self.moves_done = 0;
    move_disks(self, 13, 0, 1);
    return self.moves_done;
}

fn verify_result(result: int) -> bool {
    return result == 8191;
}

fn main() -> int {
    let iterations = 1;
    if argc() > 0 { iterations = parse_int(arg(0)); }
    let bench = new Towers { piles: [], moves_done: 0 };
    let result = 0;
    let ok = true;
    let i = 0;
    while i < iterations && ok {
        result = benchmark(bench);
        ok = verify_result(result);
        i += 1;
    }
    println("Towers iterations:", iterations, "result:", result, "expected: 8191 verified:", ok);
    if ok { return 0; }
    return 1;
}
