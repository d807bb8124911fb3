// Your answers, printed one per line; `pcc test` compares them with answer.stdout.
fn main() {
    // The smallest RUN (with N = 4000, trained with --profile=kbl --k 6) for which
    // `-O2 --use-profile` unrolls the loop of `total`.
    println(6);
}
