// Your answers, printed one per line; `pcc test` compares them with answer.stdout.
fn main() {
    // 1. How many potential acyclic paths does `grade` have?
    println(8);
    // 2. The Ball-Larus id of the path `grade(77)` takes.
    println(2);
    // 3. NumPaths of the block of `if score >= 75` (line 7).
    println(6);
}
