// A register bytecode VM with a `match` dispatch loop: instructions are 4 ints (opcode, a, b, c) in
// one array, 18 opcodes (arithmetic, compare, jumps, call/return with a register window of 8 per
// frame and a call stack), assembled by small emit helpers with back-patched jumps. A branchy kernel
// standing in for the papers' SPEC interpreters (perlbench-like dispatch). Two programs in its own
// bytecode: (1) a loop of n iterations accumulating (i*i ^ i) and stepping a Fibonacci pair (wrapping
// 64-bit), (2) recursive fib(k). Arguments: n k (default 1000 15). Each result is printed with the
// value computed directly in PL (they must agree), and the number of instructions executed.
let HALT: int = 0;
let LOADI: int = 1;    // ra = imm(b)
let MOV: int = 2;      // ra = rb
let ADD: int = 3;      // ra = rb + rc
let SUB: int = 4;
let MUL: int = 5;
let ADDI: int = 6;     // ra = rb + imm(c)
let XOR: int = 7;
let SHR: int = 8;      // ra = rb >> imm(c)
let LT: int = 9;       // ra = rb < rc ? 1 : 0
let JMP: int = 10;     // pc = a
let JZ: int = 11;      // if ra == 0: pc = b
let JNZ: int = 12;
let CALL: int = 13;    // new frame; its r1 = ra; pc = b; the callee's RET value goes to ra
let RET: int = 14;     // return ra
let PRINT: int = 15;   // output ra
let MOD: int = 16;
let JLT: int = 17;     // if ra < rb: pc = c

let CODE: [int] = [];
let NCODE: int = 0;
let OUT: [int] = [];
let NOUT: int = 0;
let STEPS: int = 0;

fn emit(op: int, a: int, b: int, c: int) -> int {
    let at = NCODE;
    CODE[at * 4] = op;
    CODE[at * 4 + 1] = a;
    CODE[at * 4 + 2] = b;
    CODE[at * 4 + 3] = c;
    NCODE += 1;
    return at;
}

fn patch(at: int, slot: int, value: int) {
    CODE[at * 4 + slot] = value;
}

fn run(entry: int) {
    let code = CODE;
    let regs = [0; 8 * 1000];
    let stack = [0; 3 * 1000];   // return pc, frame base, result register
    let sp = 0;
    let fp = 0;
    let pc = entry;
    let steps = 0;
    while true {
        let i = pc * 4;
        let op = code[i];
        let a = code[i + 1];
        let b = code[i + 2];
        let c = code[i + 3];
        pc += 1;
        steps += 1;
        match op {
            0 => { break; }
            1 => { regs[fp + a] = b; }
            2 => { regs[fp + a] = regs[fp + b]; }
            3 => { regs[fp + a] = regs[fp + b] + regs[fp + c]; }
            4 => { regs[fp + a] = regs[fp + b] - regs[fp + c]; }
            5 => { regs[fp + a] = regs[fp + b] * regs[fp + c]; }
            6 => { regs[fp + a] = regs[fp + b] + c; }
            7 => { regs[fp + a] = regs[fp + b] ^ regs[fp + c]; }
            8 => { regs[fp + a] = regs[fp + b] >> c; }
            9 => {
                if regs[fp + b] < regs[fp + c] {
                    regs[fp + a] = 1;
                } else {
                    regs[fp + a] = 0;
                }
            }
            10 => { pc = a; }
            11 => { if regs[fp + a] == 0 { pc = b; } }
            12 => { if regs[fp + a] != 0 { pc = b; } }
            13 => {
                stack[sp] = pc;
                stack[sp + 1] = fp;
                stack[sp + 2] = a;
                sp += 3;
                let arg = regs[fp + a];
                fp += 8;
                regs[fp + 1] = arg;
                pc = b;
            }
            14 => {
                let v = regs[fp + a];
                sp -= 3;
                pc = stack[sp];
                fp = stack[sp + 1];
                regs[fp + stack[sp + 2]] = v;
            }
            15 => { OUT[NOUT] = regs[fp + a]; NOUT += 1; }
            16 => { regs[fp + a] = regs[fp + b] % regs[fp + c]; }
            17 => { if regs[fp + a] < regs[fp + b] { pc = c; } }
            _ => {
                println("bad opcode", op, "at", pc - 1);
                break;
            }
        }
    }
    STEPS += steps;
}

// program 1: for i in 0..n: acc += i*i ^ i; (a, b) = (b, a + b); prints acc and a
fn asm_loop(n: int) -> int {
    let entry = emit(LOADI, 1, n, 0);
    emit(LOADI, 2, 0, 0);               // i
    emit(LOADI, 3, 0, 0);               // acc
    emit(LOADI, 4, 0, 0);               // a
    emit(LOADI, 5, 1, 0);               // b
    let top = emit(LT, 6, 2, 1);
    let exit_jump = emit(JZ, 6, 0, 0);
    emit(MUL, 7, 2, 2);
    emit(XOR, 7, 7, 2);
    emit(ADD, 3, 3, 7);
    emit(ADD, 7, 4, 5);
    emit(MOV, 4, 5, 0);
    emit(MOV, 5, 7, 0);
    emit(ADDI, 2, 2, 1);
    emit(JMP, top, 0, 0);
    let end = emit(PRINT, 3, 0, 0);
    patch(exit_jump, 2, end);
    emit(PRINT, 4, 0, 0);
    emit(HALT, 0, 0, 0);
    return entry;
}

// program 2: fib(k) = k < 2 ? k : fib(k - 1) + fib(k - 2)
fn asm_fib(k: int) -> int {
    let entry = emit(LOADI, 1, k, 0);
    let call = emit(CALL, 1, 0, 0);
    emit(PRINT, 1, 0, 0);
    emit(HALT, 0, 0, 0);
    let fib = emit(LOADI, 2, 2, 0);
    patch(call, 2, fib);
    emit(LT, 3, 1, 2);
    let to_rec = emit(JZ, 3, 0, 0);
    emit(RET, 1, 0, 0);
    let rec = emit(ADDI, 4, 1, -1);
    patch(to_rec, 2, rec);
    emit(CALL, 4, fib, 0);
    emit(ADDI, 5, 1, -2);
    emit(CALL, 5, fib, 0);
    emit(ADD, 6, 4, 5);
    emit(RET, 6, 0, 0);
    return entry;
}

fn fib(k: int) -> int {
    if k < 2 {
        return k;
    }
    return fib(k - 1) + fib(k - 2);
}

fn main() {
    let n = 1000;
    let k = 15;
    if argc() > 0 {
        n = parse_int(arg(0));
    }
    if argc() > 1 {
        k = parse_int(arg(1));
    }
    CODE = [0; 4 * 100];
    OUT = [0; 16];
    let loop_entry = asm_loop(n);
    let fib_entry = asm_fib(k);
    println("program:", NCODE, "instructions");

    run(loop_entry);
    let acc = 0;
    let a = 0;
    let b = 1;
    for i in 0..n {
        acc += i * i ^ i;
        let t = a + b;
        a = b;
        b = t;
    }
    println("loop(" + str(n) + "): vm", OUT[0], OUT[1], "direct", acc, a, "steps", STEPS);

    NOUT = 0;
    STEPS = 0;
    run(fib_entry);
    println("fib(" + str(k) + "): vm", OUT[0], "direct", fib(k), "steps", STEPS);
}
