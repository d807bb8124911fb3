// A small stack-machine interpreter: a `match` dispatch loop over integer opcodes, with
// a data stack, registers, jumps and calls. Runs three programs written with a tiny assembler.
//
// opcodes: 0 halt | 1 push v | 2 add | 3 sub | 4 mul | 5 div | 6 mod | 7 dup | 8 swap | 9 drop
//          10 load r | 11 store r | 12 jmp a | 13 jz a | 14 lt | 15 eq | 16 print | 17 call a
//          18 ret | 19 over | 20 neg
let CODE: [int] = [0; 512];
let NCODE: int = 0;

fn emit(op: int, v: int) {
    CODE[NCODE] = op;
    CODE[NCODE + 1] = v;
    NCODE += 2;
}

fn op(o: int) {
    emit(o, 0);
}

fn here() -> int {
    return NCODE;
}

fn patch(at: int, target: int) {
    CODE[at + 1] = target;
}

struct Vm { stack: [int], sp: int, regs: [int], calls: [int], csp: int, steps: int, out: str }

fn push(vm: Vm, v: int) {
    vm.stack[vm.sp] = v;
    vm.sp += 1;
}

fn pop(vm: Vm) -> int {
    vm.sp -= 1;
    return vm.stack[vm.sp];
}

fn run(entry: int) -> Vm {
    let vm = new Vm { stack: [0; 64], sp: 0, regs: [0; 8], calls: [0; 32], csp: 0, steps: 0, out: "" };
    let pc = entry;
    let running = true;
    while running {
        let o = CODE[pc];
        let operand = CODE[pc + 1];
        pc += 2;
        vm.steps += 1;
        match o {
            0 => { running = false; }
            1 => { push(vm, operand); }
            2 => { let b = pop(vm); push(vm, pop(vm) + b); }
            3 => { let b = pop(vm); push(vm, pop(vm) - b); }
            4 => { let b = pop(vm); push(vm, pop(vm) * b); }
            5 => { let b = pop(vm); push(vm, pop(vm) / b); }
            6 => { let b = pop(vm); push(vm, pop(vm) % b); }
            7 => { let a = pop(vm); push(vm, a); push(vm, a); }
            8 => { let b = pop(vm); let a = pop(vm); push(vm, b); push(vm, a); }
            9 => { pop(vm); }
            10 => { push(vm, vm.regs[operand]); }
            11 => { vm.regs[operand] = pop(vm); }
            12 => { pc = operand; }
            13 => {
                if pop(vm) == 0 {
                    pc = operand;
                }
            }
            14 | 15 => {
                let b = pop(vm);
                let a = pop(vm);
                let r = false;
                if o == 14 {
                    r = a < b;
                } else {
                    r = a == b;
                }
                if r {
                    push(vm, 1);
                } else {
                    push(vm, 0);
                }
            }
            16 => { vm.out = vm.out + str(pop(vm)) + " "; }
            17 => { vm.calls[vm.csp] = pc; vm.csp += 1; pc = operand; }
            18 => { vm.csp -= 1; pc = vm.calls[vm.csp]; }
            19 => { let b = pop(vm); let a = pop(vm); push(vm, a); push(vm, b); push(vm, a); }
            20 => { push(vm, -pop(vm)); }
            _ => {
                println("bad opcode", o, "at", pc - 2);
                running = false;
            }
        }
    }
    return vm;
}

// factorial of n, iteratively: r0 = n, r1 = acc
fn asm_factorial(n: int) -> int {
    let start = here();
    emit(1, n); emit(11, 0);
    emit(1, 1); emit(11, 1);
    let loop_top = here();
    emit(10, 0); emit(1, 1); op(14);       // n < 1 ?
    let exit_jump = here();
    emit(13, 0);                           // if not (n < 1) continue, else fall to exit
    emit(10, 1); op(16); op(0);
    let body = here();
    patch(exit_jump, body);               // jump to the body while n >= 1; else print and halt
    emit(10, 1); emit(10, 0); op(4); emit(11, 1);
    emit(10, 0); emit(1, 1); op(3); emit(11, 0);
    emit(12, loop_top);
    return start;
}

// first n Fibonacci numbers printed, using a subroutine that adds the top two and keeps both
fn asm_fib(n: int) -> int {
    let sub = here();
    op(8); op(19); op(2); op(18);                    // (a b) -> (b a) -> (b a b) -> (b a+b)
    let start = here();
    emit(1, n); emit(11, 2);
    emit(1, 0); emit(1, 1);
    let loop_top = here();
    emit(10, 2); emit(1, 0); op(15);
    let jz = here();
    emit(13, 0);
    op(9); op(9); op(0);
    patch(jz, here());
    op(19); op(16);
    emit(17, sub);
    emit(10, 2); emit(1, 1); op(3); emit(11, 2);
    emit(12, loop_top);
    return start;
}

// sum of the primes below n by trial division, with div, mod, neg and nested loops
fn asm_prime_sum(n: int) -> int {
    let start = here();
    emit(1, 0); emit(11, 3);              // r3 = sum
    emit(1, 2); emit(11, 4);              // r4 = candidate
    let outer = here();
    emit(10, 4); emit(1, n); op(14);
    let jz_end = here();
    emit(13, 0);
    emit(1, 2); emit(11, 5);              // r5 = divisor
    let inner = here();
    emit(10, 5); op(7); op(4);            // d*d
    emit(10, 4); op(8); op(14);           // candidate < d*d ?
    emit(1, 0); op(15);                   // not (candidate < d*d)
    let jz_prime = here();
    emit(13, 0);
    emit(10, 4); emit(10, 5); op(6); emit(1, 0); op(15);
    let jz_next_div = here();
    emit(13, 0);
    let next_candidate = here();
    emit(10, 4); emit(1, 1); op(2); emit(11, 4);
    emit(12, outer);
    let next_div = here();
    patch(jz_next_div, next_div);
    emit(10, 5); emit(1, 1); op(2); emit(11, 5);
    emit(12, inner);
    let prime = here();
    patch(jz_prime, prime);
    emit(10, 3); emit(10, 4); op(2); emit(11, 3);
    emit(12, next_candidate);
    let end = here();
    patch(jz_end, end);
    emit(10, 3); op(16);
    emit(10, 3); op(20); emit(1, 7); op(5); op(16);
    op(0);
    return start;
}

fn main() {
    let f = asm_factorial(10);
    let vm = run(f);
    println("factorial:", vm.out, "steps:", vm.steps, "sp:", vm.sp);
    let fb = asm_fib(15);
    vm = run(fb);
    println("fib:", vm.out, "steps:", vm.steps, "sp:", vm.sp);
    let p = asm_prime_sum(100);
    vm = run(p);
    println("prime sum:", vm.out, "steps:", vm.steps, "sp:", vm.sp);
    println("code size:", NCODE / 2, "instructions");
    emit(99, 0);
    vm = run(NCODE - 2);
    println("regs after bad opcode:", vm.regs);
}
