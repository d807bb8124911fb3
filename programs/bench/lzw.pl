// LZW compression and decompression (Welch 1984, as in Unix compress): 12-bit codes, a dictionary
// of (prefix code, byte) pairs in an open-addressing hash table (size 5003, secondary probing as in
// compress), and a dictionary reset when all 4096 codes are used (both sides reset at the same
// point, so no CLEAR code is sent). The decoder rebuilds strings from prefix/suffix tables through a
// stack and handles the KwKwK case. A branchy kernel standing in for the papers' SPEC compress.
// Input: n bytes (argument, default 5000) of text made of words drawn by a 64-bit LCG from a fixed
// vocabulary. Prints the input size, the number of codes, a FNV-1a hash of the codes, and whether
// decompression restores the input (the C port prints the same).
let WORDS: [str] = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "path", "profile",
    "branch", "loop", "compiler", "edge", "block", "count", "program", "follows", "paths", "of",
    "and", "a", "in", "to", "is", "execution", "frequency", "hot", "cold", "instrumentation"];

let HSIZE: int = 5003;
let MAXCODE: int = 4096;

fn make_text(n: int) -> [int] {
    let text = [0; n];
    let x = 12345;
    let i = 0;
    let words = 0;
    while i < n {
        x = x * 6364136223846793005 + 1442695040888963407;
        let w = WORDS[((x >> 33) & 0x7FFFFFFF) % len(WORDS)];
        let k = 0;
        while k < len(w) && i < n {
            text[i] = w[k];
            i += 1;
            k += 1;
        }
        words += 1;
        if i < n {
            if words % 12 == 0 {
                text[i] = 10;
            } else {
                text[i] = 32;
            }
            i += 1;
        }
    }
    return text;
}

// returns the number of codes written to out
fn compress(data: [int], n: int, out: [int]) -> int {
    let keys = [-1; HSIZE];
    let vals = [0; HSIZE];
    let next = 256;
    let nout = 0;
    if n == 0 {
        return 0;
    }
    let w = data[0];
    for i in 1..n {
        let c = data[i];
        let key = (w << 8) | c;
        let h = ((c << 4) ^ w) % HSIZE;
        let disp = 1;
        if h != 0 {
            disp = HSIZE - h;
        }
        let found = false;
        while keys[h] != -1 {
            if keys[h] == key {
                found = true;
                break;
            }
            h -= disp;
            if h < 0 {
                h += HSIZE;
            }
        }
        if found {
            w = vals[h];
        } else {
            out[nout] = w;
            nout += 1;
            keys[h] = key;
            vals[h] = next;
            next += 1;
            if next == MAXCODE {
                for j in 0..HSIZE {
                    keys[j] = -1;
                }
                next = 256;
            }
            w = c;
        }
    }
    out[nout] = w;
    return nout + 1;
}

// returns the number of bytes written to out (or -1 on a bad code)
fn decompress(codes: [int], m: int, out: [int]) -> int {
    let prefix = [0; MAXCODE];
    let suffix = [0; MAXCODE];
    let stack = [0; MAXCODE];
    for i in 0..256 {
        suffix[i] = i;
    }
    let next = 256;
    let nout = 0;
    if m == 0 {
        return 0;
    }
    let prev = codes[0];
    out[nout] = prev;
    nout += 1;
    let first = prev;
    for i in 1..m {
        let code = codes[i];
        let cur = code;
        let sp = 0;
        if code == next {
            // KwKwK: the string is prev followed by its own first byte
            stack[sp] = first;
            sp += 1;
            cur = prev;
        } else if code > next {
            return -1;
        }
        while cur >= 256 {
            stack[sp] = suffix[cur];
            sp += 1;
            cur = prefix[cur];
        }
        first = cur;
        out[nout] = cur;
        nout += 1;
        while sp > 0 {
            sp -= 1;
            out[nout] = stack[sp];
            nout += 1;
        }
        prefix[next] = prev;
        suffix[next] = first;
        next += 1;
        if next == MAXCODE {
            next = 256;
        }
        prev = code;
    }
    return nout;
}

fn main() {
    let n = 5000;
    if argc() > 0 {
        n = parse_int(arg(0));
    }
    let text = make_text(n);
    let codes = [0; n + 1];
    let m = compress(text, n, codes);
    let h = -3750763034362895579;   // FNV-1a 64 offset basis 0xcbf29ce484222325
    for i in 0..m {
        h = (h ^ codes[i]) * 1099511628211;
    }
    let back = [0; n];
    let k = decompress(codes, m, back);
    let ok = k == n;
    let i = 0;
    while ok && i < n {
        ok = back[i] == text[i];
        i += 1;
    }
    println("input", n, "bytes, compressed to", m, "codes (" + str((m * 12 + 7) / 8) + " bytes at 12 bits)");
    println("codes fnv1a", h);
    println("round trip ok:", ok);
}
