// Your answers, printed one per line; `pcc test` compares them with answer.stdout.
fn main() {
    // 1. Where does `--profile=bl` count the paths of `mix`: "array" or "hash table"?
    println("hash table");
    // 2. And `--profile=ppp --interesting` with the bl profile of the same run?
    println("array");
    // 3. The PPP range of `mix` then.
    println(64);
}
