// Your answers, printed one per line; `pcc test` compares them with answer.stdout.
fn main() {
    // 1. The Ball-Larus id of the hottest path of `main` through the body of the loop over the
    //    people (lines 53 to 72) in a run of `y2k.pl 1994 2004 1`.
    println(24);
    // 2. Its branches, as the paper names them (B or C, D or E, F or G).
    println("BEF");
}
