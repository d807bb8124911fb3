// Are We Fast Yet: Sieve (Marr, Daloze, Mössenböck, "Cross-Language Compiler Benchmarking: Are We Fast Yet?",
// DLS 2016; https://github.com/smarr/are-we-fast-yet, benchmarks/*/Sieve). Ported to PL from the algorithm.
// benchmark(): sieve of Eratosthenes over 5000 bool flags, returns the prime count.
// verifyResult: the count must be 669 (published value, independent of the iteration count).
// Argument: inner iterations (default 1); each runs benchmark() and verifyResult() as AWFY's harness does.

fn sieve(flags: [bool], size: int) -> int {
    let prime_count = 0;
    for i in 2..size + 1 {
        if flags[i - 1] {
            prime_count += 1;
            let k = i + i;
            while k <= size {
                flags[k - 1] = false;
                k += i;
            }
        }
    }
    return prime_count;
}

fn benchmark() -> int {
    let flags = [true; 5000];
    return sieve(flags, 5000);
}

fn verify_result(result: int) -> bool {
    return result == 669;
}

fn main() -> int {
    let iterations = 1;
    if argc() > 0 { iterations = parse_int(arg(0)); }
    let result = 0;
    let ok = true;
    let i = 0;
    while i < iterations && ok {
        result = benchmark();
        ok = verify_result(result);
        i += 1;
    }
    println("Sieve iterations:", iterations, "result:", result, "expected: 669 verified:", ok);
    if ok { return 0; }
    return 1;
}
