// fasta: generate DNA sequences: ">ONE" repeats the 287-byte ALU string (2n bytes), ">TWO" and
// ">THREE" draw 3n and 5n symbols from weighted alphabets (IUB codes, Homo sapiens frequencies) with the
// suite's linear congruential generator (IM = 139968, IA = 3877, IC = 29573, seed 42), 60 bytes a line.
// Port of the Computer Language Benchmarks Game "fasta" benchmark
// (https://benchmarksgame-team.pages.debian.net/benchmarksgame/description/fasta.html), following the
// plain C program: a cumulative probability table searched linearly for each random number
// (first entry with r < p), a 60-byte line buffer, and the ALU repeat taken from a buffer holding ALU
// plus its first 60 bytes.
// Deviation: PL cannot write raw bytes, so each line buffer (an [int] of bytes) is turned into a string
// to print it. For timing, the output (250 MB at the benchmark size) is replaced by a digest: with a
// second argument `digest` the program prints the byte count, line count and FNV-1a-64 hash of the
// output it would write (the same work is done, only the write is replaced).
// Arguments: n (default 1000) [digest]. Golden: the full output for n = 1000, which matches the
// suite's published fasta output for 1000 (10245 bytes, 171 lines); the C port prints the same text.
let IM: int = 139968;
let IA: int = 3877;
let IC: int = 29573;
let LAST: int = 42;

let DIGEST: bool = false;
let OUT_BYTES: int = 0;
let OUT_LINES: int = 0;
let OUT_HASH: int = -3750763034362895579;   // FNV-1a 64 offset basis 0xcbf29ce484222325
let CHARS: [str] = [];

fn gen_random(max: float) -> float {
    LAST = (LAST * IA + IC) % IM;
    return max * float(LAST) / float(IM);
}

// writes buf[start .. start + n) and a newline
fn write_line(buf: [int], start: int, n: int) {
    if DIGEST {
        let h = OUT_HASH;
        for i in start..start + n {
            h = (h ^ buf[i]) * 1099511628211;
        }
        OUT_HASH = (h ^ 10) * 1099511628211;
        OUT_BYTES += n + 1;
        OUT_LINES += 1;
    } else {
        let s = "";
        for i in start..start + n {
            s += CHARS[buf[i]];
        }
        println(s);
    }
}

fn write_title(s: str) {
    if DIGEST {
        let h = OUT_HASH;
        for i in 0..len(s) {
            h = (h ^ s[i]) * 1099511628211;
        }
        OUT_HASH = (h ^ 10) * 1099511628211;
        OUT_BYTES += len(s) + 1;
        OUT_LINES += 1;
    } else {
        println(s);
    }
}

fn repeat_fasta(title: str, alu: str, n: int) {
    let line_len = 60;
    let k = len(alu);
    let buf = [0; k + line_len];
    for i in 0..k {
        buf[i] = alu[i];
    }
    for i in 0..line_len {
        buf[k + i] = alu[i];
    }
    write_title(title);
    let pos = 0;
    while n > 0 {
        let bytes = min(n, line_len);
        write_line(buf, pos, bytes);
        pos += bytes;
        if pos > k {
            pos -= k;
        }
        n -= bytes;
    }
}

fn random_fasta(title: str, symbols: str, probs: [float], n: int) {
    let line_len = 60;
    let count = len(symbols);
    // cumulative probabilities
    let cum = [0.0; count];
    let p = 0.0;
    for i in 0..count {
        p += probs[i];
        cum[i] = p;
    }
    let buf = [0; line_len];
    write_title(title);
    while n > 0 {
        let m = min(n, line_len);
        for i in 0..m {
            let r = gen_random(1.0);
            let c = symbols[count - 1];
            for j in 0..count {
                if r < cum[j] {
                    c = symbols[j];
                    break;
                }
            }
            buf[i] = c;
        }
        write_line(buf, 0, m);
        n -= m;
    }
}

fn main() {
    let n = 1000;
    if argc() > 0 {
        n = parse_int(arg(0));
    }
    DIGEST = argc() > 1 && arg(1) == "digest";
    CHARS = [""; 256];
    for c in 0..256 {
        CHARS[c] = chr(c);
    }
    let alu = "GGCCGGGCGCGGTGGCTCACGCCTGTAATCCCAGCACTTTGG"
        + "GAGGCCGAGGCGGGCGGATCACCTGAGGTCAGGAGTTCGAGA"
        + "CCAGCCTGGCCAACATGGTGAAACCCCGTCTCTACTAAAAAT"
        + "ACAAAAATTAGCCGGGCGTGGTGGCGCGCGCCTGTAATCCCA"
        + "GCTACTCGGGAGGCTGAGGCAGGAGAATCGCTTGAACCCGGG"
        + "AGGCGGAGGTTGCAGTGAGCCGAGATCGCGCCACTGCACTCC"
        + "AGCCTGGGCGACAGAGCGAGACTCCGTCTCAAAAA";
    let iub = "acgtBDHKMNRSVWY";
    let iub_p = [0.27, 0.12, 0.12, 0.27, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.02];
    let homo = "acgt";
    let homo_p = [0.3029549426680, 0.1979883004921, 0.1975473066391, 0.3015094502008];
    repeat_fasta(">ONE Homo sapiens alu", alu, 2 * n);
    random_fasta(">TWO IUB ambiguity codes", iub, iub_p, 3 * n);
    random_fasta(">THREE Homo sapiens frequency", homo, homo_p, 5 * n);
    if DIGEST {
        println("bytes", OUT_BYTES, "lines", OUT_LINES, "fnv1a", OUT_HASH);
    }
}
