// Sieve of Eratosthenes up to N (argument, default 100): prime count, the last primes,
// twin primes, the largest prime gap, and a digit-sum histogram.
fn sieve(n: int) -> [bool] {
    let composite = [false; n + 1];
    composite[0] = true;
    if n >= 1 {
        composite[1] = true;
    }
    let i = 2;
    while i * i <= n {
        if !composite[i] {
            let j = i * i;
            while j <= n {
                composite[j] = true;
                j += i;
            }
        }
        i += 1;
    }
    return composite;
}

fn main() {
    let n = 100;
    if argc() >= 1 {
        n = parse_int(arg(0));
    }
    let c = sieve(n);
    let count = 0;
    let twins = 0;
    let last = -1;
    let gap = 0;
    let gap_at = 0;
    let digit_sums = [0; 10];
    for k in 2..n + 1 {
        if !c[k] {
            count += 1;
            if last >= 0 && k - last == 2 {
                twins += 1;
            }
            if last >= 0 && k - last > gap {
                gap = k - last;
                gap_at = last;
            }
            last = k;
            let s = 0;
            let m = k;
            while m > 0 {
                s += m % 10;
                m /= 10;
            }
            digit_sums[s % 10] += 1;
        }
    }
    println("primes up to", n, ":", count);
    println("twin prime pairs:", twins);
    println("largest gap:", gap, "after", gap_at);
    print("last primes:");
    let shown = 0;
    let k = n;
    while k >= 2 && shown < 10 {
        if !c[k] {
            print("", k);
            shown += 1;
        }
        k -= 1;
    }
    println();
    println("digit sums mod 10:", digit_sums);
    let small = "";
    for p in 0..min(n + 1, 50) {
        if !c[p] {
            small = small + str(p) + ",";
        }
    }
    println(substr(small, 0, len(small) - 1));
}
