// Your answers, printed one per line; `pcc test` compares them with answer.stdout.
fn main() {
    // 1. How many paths of `main` run in `y2k.pl 1994 2004 1` and not in `y2k.pl 1994 1999 1`?
    println(5);
    // 2. Which of the eight paths through the loop body (BDF ... CEG) are among them?
    println("BDF BDG");
}
