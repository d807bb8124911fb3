// Named constants: opcodes named in `match` arms, constant expressions folded when compiling
// (other constants, `-`, shifts, `|`, float and string constants), constants as array sizes
// and in global initializers, and a local shadowing a constant in an inner block.
const OP_PUSH: int = 1;
const OP_ADD = OP_PUSH + 1;
const OP_MUL = OP_ADD + 1;
const OP_NEG = OP_MUL + 1;
const OP_PRINT = 0x10;
const OP_HALT = -1;
const FLAG_A = 1 << 0;
const FLAG_B = 1 << 1;
const FLAGS = FLAG_A | FLAG_B | (1 << 62);
const MIN = -9223372036854775808;
const MAX = ~MIN;
const STACK = 2 * 4;
const TAU: float = 2.0 * 3.14159;
const GREETING = "hello" + ", " + "world";
const DEBUG: bool = STACK > 4 && !false;
const LAST = FIRST + 1; // a constant may name one declared later
const FIRST = 100;

let CODE: [int] = [OP_PUSH, 6, OP_PUSH, 7, OP_MUL, OP_NEG, OP_PRINT, OP_PUSH, 2, OP_ADD, OP_PRINT, 99, OP_HALT];

fn run(code: [int]) {
    let stack = [0; STACK];
    let sp = 0;
    let pc = 0;
    while true {
        let op = code[pc];
        pc += 1;
        match op {
            OP_PUSH => {
                stack[sp] = code[pc];
                sp += 1;
                pc += 1;
            }
            OP_ADD | OP_MUL => {
                sp -= 1;
                if op == OP_ADD {
                    stack[sp - 1] = stack[sp - 1] + stack[sp];
                } else {
                    stack[sp - 1] = stack[sp - 1] * stack[sp];
                }
            }
            OP_NEG => { stack[sp - 1] = -stack[sp - 1]; }
            OP_PRINT => { println("top:", stack[sp - 1]); }
            OP_HALT => { println("halt at", pc - 1); return; }
            _ => { println("unknown opcode", op); }
        }
    }
}

fn main() {
    run(CODE);
    println(FLAG_A, FLAG_B, FLAGS, MIN, MAX);
    println(TAU, GREETING, DEBUG, FIRST, LAST, len(GREETING));
    {
        let STACK = "shadowed";
        println(STACK);
    }
    println(STACK);
    match 3 {
        -1 | OP_MUL => { println("three is OP_MUL"); }
        _ => { println("no"); }
    }
}
