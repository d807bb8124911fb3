// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, init and final xor 0xFFFFFFFF), table-driven:
// the 256-entry table is built bit by bit, then each byte costs one lookup, xor and shift. A branchy
// bit-at-a-time CRC cross-checks the table version on a prefix. A kernel standing in for the papers'
// SPEC programs (the CRC loops of compression tools). Standard algorithm (e.g. RFC 1952, section 8).
// Argument: n (default 10000): the CRC of a stream of n bytes, which repeats a buffer of
// min(n, 1 MiB) bytes from a 64-bit LCG. Verification: CRC-32("123456789") = 0xCBF43926 (the standard
// check value), and the stream CRC for the golden size equals Python's zlib.crc32 of the same bytes.
fn make_table() -> [int] {
    let table = [0; 256];
    for i in 0..256 {
        let c = i;
        for k in 0..8 {
            if c & 1 != 0 {
                c = 0xEDB88320 ^ (c >> 1);
            } else {
                c = c >> 1;
            }
        }
        table[i] = c;
    }
    return table;
}

// continues a CRC (crc is the running, already-inverted register) over buf[0..n)
fn crc_update(table: [int], crc: int, buf: [int], n: int) -> int {
    for i in 0..n {
        crc = table[(crc ^ buf[i]) & 0xFF] ^ (crc >> 8);
    }
    return crc;
}

fn crc_bitwise(buf: [int], n: int) -> int {
    let crc = 0xFFFFFFFF;
    for i in 0..n {
        crc = crc ^ buf[i];
        for k in 0..8 {
            if crc & 1 != 0 {
                crc = (crc >> 1) ^ 0xEDB88320;
            } else {
                crc = crc >> 1;
            }
        }
    }
    return crc ^ 0xFFFFFFFF;
}

fn hex32(x: int) -> str {
    let digits = "0123456789ABCDEF";
    let s = "";
    let shift = 28;
    while shift >= 0 {
        s += chr(digits[(x >> shift) & 15]);
        shift -= 4;
    }
    return "0x" + s;
}

fn main() {
    let n = 10000;
    if argc() > 0 {
        n = parse_int(arg(0));
    }
    let table = make_table();
    let check = "123456789";
    let cb = [0; len(check)];
    for i in 0..len(check) {
        cb[i] = check[i];
    }
    let c1 = crc_update(table, 0xFFFFFFFF, cb, len(cb)) ^ 0xFFFFFFFF;
    println("crc32(\"123456789\") =", hex32(c1), c1 == 0xCBF43926, hex32(crc_bitwise(cb, len(cb))));

    let m = min(n, 1 << 20);
    let buf = [0; m];
    let x = 20240601;
    for i in 0..m {
        x = x * 6364136223846793005 + 1442695040888963407;
        buf[i] = (x >> 56) & 255;
    }
    let crc = 0xFFFFFFFF;
    let left = n;
    while left > 0 {
        let k = min(left, m);
        crc = crc_update(table, crc, buf, k);
        left -= k;
    }
    crc = crc ^ 0xFFFFFFFF;
    let p = min(m, 4096);
    let same = crc_bitwise(buf, p) == crc_update(table, 0xFFFFFFFF, buf, p) ^ 0xFFFFFFFF;
    println("crc32 of", n, "bytes =", hex32(crc), "(" + str(crc) + ")");
    println("bitwise and table CRCs agree on", p, "bytes:", same);
}
