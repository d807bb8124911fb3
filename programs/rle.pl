// Run-length encoding of stdin lines: encode each line as COUNT CHAR pairs ("3a1b"),
// decode it again and check the round trip. The input has an empty line and no final newline.
fn encode(s: str) -> str {
    let out = "";
    let i = 0;
    while i < len(s) {
        let c = s[i];
        let run = 1;
        while i + run < len(s) && s[i + run] == c {
            run += 1;
        }
        out = out + str(run) + chr(c);
        i += run;
    }
    return out;
}

fn is_digit(c: int) -> bool {
    return c >= 48 && c <= 57;
}

fn decode(s: str) -> str {
    let out = "";
    let i = 0;
    while i < len(s) {
        let n = 0;
        while is_digit(s[i]) {
            n = n * 10 + (s[i] - 48);
            i += 1;
        }
        let c = chr(s[i]);
        for k in 0..n {
            out += c;
        }
        i += 1;
    }
    return out;
}

fn main() {
    let line_no = 0;
    let total_in = 0;
    let total_out = 0;
    while !eof() {
        let line = read_line();
        line_no += 1;
        let enc = encode(line);
        let dec = decode(enc);
        total_in += len(line);
        total_out += len(enc);
        println(line_no, "[" + line + "]", "->", "[" + enc + "]", dec == line);
        assert(dec == line, "round trip failed");
    }
    println("lines:", line_no, "bytes in:", total_in, "bytes out:", total_out);
    println("ratio:", fixed(float(total_out) / float(total_in), 4));
}
