// A brainfuck interpreter: the program text gets a precomputed table of matching brackets, then
// its bytes are executed directly by a `match` dispatch loop over a 30000-cell tape of 8-bit wrapping cells. A branchy kernel standing in for the papers' SPEC
// interpreters. Programs (held in strings): the "Hello World!" program from the Wikipedia article on
// brainfuck (prints "Hello World!\n"), and a countdown written for this test that prints the alphabet
// backwards with a busy loop (4 x 255 iterations) per letter. Argument: repetitions R (default 1);
// each repetition runs both programs on a cleared tape (the cells up to the highest one visited are
// reset); the output of the first is printed, then the number of instructions executed and whether
// every repetition wrote the same output.
let HELLO: str = "++++++++[>++++[>++>+++>+++>+<<<<-]>+>+>->>+[<]<-]>>.>---.+++++++..+++.>>.<-.<.+++.------.--------.>>+.>++.";
let COUNTDOWN: str = "++++++++++++++++++++++++++>++++++++++[>+++++++++<-]>"
    + "<<[>>.->++++[>-[-]<-]<<<-]>>>++++++++++.";

let STEPS: int = 0;

// runs prog; the bytes written go to out, and the result is how many
// on tape, which must be all zero, and is left all zero
fn run(prog: str, jump: [int], tape: [int], out: [int]) -> int {
    let p = 0;
    let hi = 0;
    let pc = 0;
    let nout = 0;
    let n = len(prog);
    let steps = 0;
    while pc < n {
        steps += 1;
        match prog[pc] {
            43 => { tape[p] = (tape[p] + 1) & 255; }          // +
            45 => { tape[p] = (tape[p] - 1) & 255; }          // -
            62 => { p += 1; if p > hi { hi = p; } }           // >
            60 => { p -= 1; }                                 // <
            46 => { out[nout] = tape[p]; nout += 1; }         // .
            44 => { tape[p] = 0; }                            // , (no input: reads 0)
            91 => { if tape[p] == 0 { pc = jump[pc]; } }      // [
            93 => { if tape[p] != 0 { pc = jump[pc]; } }      // ]
            _ => { steps -= 1; }                              // comment character
        }
        pc += 1;
    }
    for i in 0..hi + 1 {
        tape[i] = 0;
    }
    STEPS += steps;
    return nout;
}

fn brackets(prog: str) -> [int] {
    let jump = [0; len(prog)];
    let stack = [0; len(prog)];
    let sp = 0;
    for i in 0..len(prog) {
        if prog[i] == 91 {
            stack[sp] = i;
            sp += 1;
        } else if prog[i] == 93 {
            assert(sp > 0, "unmatched ]");
            sp -= 1;
            jump[i] = stack[sp];
            jump[stack[sp]] = i;
        }
    }
    assert(sp == 0, "unmatched [");
    return jump;
}

fn text(out: [int], n: int) -> str {
    let s = "";
    for i in 0..n {
        s += chr(out[i]);
    }
    return s;
}

fn main() {
    let reps = 1;
    if argc() > 0 {
        reps = parse_int(arg(0));
    }
    let progs = [HELLO, COUNTDOWN];
    let names = ["hello", "countdown"];
    let tape = [0; 30000];
    for k in 0..len(progs) {
        let prog = progs[k];
        let jump = brackets(prog);
        let out = [0; 256];
        let first = [0; 256];
        let nfirst = 0;
        let same = true;
        STEPS = 0;
        for r in 0..reps {
            let n = run(prog, jump, tape, out);
            if r == 0 {
                nfirst = n;
                for i in 0..n {
                    first[i] = out[i];
                }
            } else {
                if n != nfirst {
                    same = false;
                }
                for i in 0..min(n, nfirst) {
                    if out[i] != first[i] {
                        same = false;
                    }
                }
            }
        }
        print(text(first, nfirst));
        println(names[k] + ":", len(prog), "chars,", STEPS, "steps in", reps, "runs, same output:", same);
    }
}
