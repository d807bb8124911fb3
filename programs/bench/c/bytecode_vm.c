/* C port of programs/bench/bytecode_vm.pl for the gcc -O2 baseline: the same 4-int instruction
   encoding, the same assembler and the same switch dispatch loop with register windows and a call
   stack; int64_t registers with wrapping arithmetic on uint64_t. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { HALT, LOADI, MOV, ADD, SUB, MUL, ADDI, XOR, SHR, LT, JMP, JZ, JNZ, CALL, RET, PRINT, MOD, JLT };

static int64_t code[4 * 100];
static int64_t ncode = 0;
static int64_t out[16];
static int64_t nout = 0;
static int64_t steps_total = 0;

static int64_t emit(int64_t op, int64_t a, int64_t b, int64_t c) {
    int64_t at = ncode;
    code[at * 4] = op;
    code[at * 4 + 1] = a;
    code[at * 4 + 2] = b;
    code[at * 4 + 3] = c;
    ncode++;
    return at;
}

static void patch(int64_t at, int64_t slot, int64_t value) { code[at * 4 + slot] = value; }

static void run(int64_t entry) {
    int64_t *regs = calloc(8 * 1000, sizeof(int64_t));
    int64_t *stack = calloc(3 * 1000, sizeof(int64_t));
    int64_t sp = 0, fp = 0, pc = entry, steps = 0;
    for (;;) {
        int64_t i = pc * 4;
        int64_t op = code[i], a = code[i + 1], b = code[i + 2], c = code[i + 3];
        pc++;
        steps++;
        switch (op) {
        case HALT: goto done;
        case LOADI: regs[fp + a] = b; break;
        case MOV: regs[fp + a] = regs[fp + b]; break;
        case ADD: regs[fp + a] = (int64_t)((uint64_t)regs[fp + b] + (uint64_t)regs[fp + c]); break;
        case SUB: regs[fp + a] = (int64_t)((uint64_t)regs[fp + b] - (uint64_t)regs[fp + c]); break;
        case MUL: regs[fp + a] = (int64_t)((uint64_t)regs[fp + b] * (uint64_t)regs[fp + c]); break;
        case ADDI: regs[fp + a] = (int64_t)((uint64_t)regs[fp + b] + (uint64_t)c); break;
        case XOR: regs[fp + a] = regs[fp + b] ^ regs[fp + c]; break;
        case SHR: regs[fp + a] = regs[fp + b] >> (c & 63); break;
        case LT: regs[fp + a] = regs[fp + b] < regs[fp + c] ? 1 : 0; break;
        case JMP: pc = a; break;
        case JZ: if (regs[fp + a] == 0) pc = b; break;
        case JNZ: if (regs[fp + a] != 0) pc = b; break;
        case CALL: {
            stack[sp] = pc;
            stack[sp + 1] = fp;
            stack[sp + 2] = a;
            sp += 3;
            int64_t arg = regs[fp + a];
            fp += 8;
            regs[fp + 1] = arg;
            pc = b;
            break;
        }
        case RET: {
            int64_t v = regs[fp + a];
            sp -= 3;
            pc = stack[sp];
            fp = stack[sp + 1];
            regs[fp + stack[sp + 2]] = v;
            break;
        }
        case PRINT: out[nout++] = regs[fp + a]; break;
        case MOD: regs[fp + a] = regs[fp + b] % regs[fp + c]; break;
        case JLT: if (regs[fp + a] < regs[fp + b]) pc = c; break;
        default:
            printf("bad opcode %lld at %lld\n", (long long)op, (long long)(pc - 1));
            goto done;
        }
    }
done:
    free(regs);
    free(stack);
    steps_total += steps;
}

static int64_t asm_loop(int64_t n) {
    int64_t entry = emit(LOADI, 1, n, 0);
    emit(LOADI, 2, 0, 0);
    emit(LOADI, 3, 0, 0);
    emit(LOADI, 4, 0, 0);
    emit(LOADI, 5, 1, 0);
    int64_t top = emit(LT, 6, 2, 1);
    int64_t exit_jump = emit(JZ, 6, 0, 0);
    emit(MUL, 7, 2, 2);
    emit(XOR, 7, 7, 2);
    emit(ADD, 3, 3, 7);
    emit(ADD, 7, 4, 5);
    emit(MOV, 4, 5, 0);
    emit(MOV, 5, 7, 0);
    emit(ADDI, 2, 2, 1);
    emit(JMP, top, 0, 0);
    int64_t end = emit(PRINT, 3, 0, 0);
    patch(exit_jump, 2, end);
    emit(PRINT, 4, 0, 0);
    emit(HALT, 0, 0, 0);
    return entry;
}

static int64_t asm_fib(int64_t k) {
    int64_t entry = emit(LOADI, 1, k, 0);
    int64_t call = emit(CALL, 1, 0, 0);
    emit(PRINT, 1, 0, 0);
    emit(HALT, 0, 0, 0);
    int64_t fib = emit(LOADI, 2, 2, 0);
    patch(call, 2, fib);
    emit(LT, 3, 1, 2);
    int64_t to_rec = emit(JZ, 3, 0, 0);
    emit(RET, 1, 0, 0);
    int64_t rec = emit(ADDI, 4, 1, -1);
    patch(to_rec, 2, rec);
    emit(CALL, 4, fib, 0);
    emit(ADDI, 5, 1, -2);
    emit(CALL, 5, fib, 0);
    emit(ADD, 6, 4, 5);
    emit(RET, 6, 0, 0);
    return entry;
}

static int64_t fib(int64_t k) { return k < 2 ? k : (int64_t)((uint64_t)fib(k - 1) + (uint64_t)fib(k - 2)); }

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 1000;
    int64_t k = argc > 2 ? atoll(argv[2]) : 15;
    int64_t loop_entry = asm_loop(n);
    int64_t fib_entry = asm_fib(k);
    printf("program: %lld instructions\n", (long long)ncode);
    run(loop_entry);
    uint64_t acc = 0, a = 0, b = 1;
    for (int64_t i = 0; i < n; i++) {
        acc += ((uint64_t)i * (uint64_t)i) ^ (uint64_t)i;
        uint64_t t = a + b;
        a = b;
        b = t;
    }
    printf("loop(%lld): vm %lld %lld direct %lld %lld steps %lld\n", (long long)n, (long long)out[0],
           (long long)out[1], (long long)acc, (long long)a, (long long)steps_total);
    nout = 0;
    steps_total = 0;
    run(fib_entry);
    printf("fib(%lld): vm %lld direct %lld steps %lld\n", (long long)k, (long long)out[0], (long long)fib(k),
           (long long)steps_total);
    return 0;
}
