//! Process-level tests of the runtime: a program's whole life through `run_program`, as the JIT runs it.
//!
//! Each scenario is an `extern "C"` entry function standing in for compiled code, calling the runtime by its
//! C symbol names. The test binary re-runs itself with `PCC_RUNTIME_SCENARIO=name` to run one scenario as the
//! program, and checks its stdout, stderr and exit status: what exits the process (runtime errors, `exit()`,
//! stack overflow) can only be observed from outside.

use std::hint::black_box;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use libtest_mimic::{Arguments, Failed, Trial};
use pcc_stdlib::{
    FieldInfo, Location, PRINT_BOOL, PRINT_FLOAT, PRINT_INT, PRINT_STR, PRINT_VALUE, PrintArg,
    ProgramInfo, STACK_SAFETY_MARGIN, STACK_SIZE, StructInfo, TypeInfo, pcc_error_operands,
    pcc_stack_limit, register_exit_hook, run_program,
};

unsafe extern "C" {
    fn pcc_print(args: *const PrintArg, count: i64, newline: i8, loc: i64);
    safe fn pcc_struct_new(nfields: i64, struct_id: i64, loc: i64) -> *const u8;
    safe fn pcc_array_new(len: i64, fill_bits: i64, refs: i8, loc: i64) -> *const u8;
    safe fn pcc_argc() -> i64;
    safe fn pcc_arg(index: i64, loc: i64) -> *const u8;
    safe fn pcc_read_line() -> *const u8;
    safe fn pcc_eof() -> i8;
    safe fn pcc_read_int(loc: i64) -> i64;
    safe fn pcc_exit(code: i64) -> !;
    safe fn pcc_err_index() -> !;
    safe fn pcc_err_null() -> !;
    safe fn pcc_err_stack_overflow() -> !;
}

const SCENARIO_VAR: &str = "PCC_RUNTIME_SCENARIO";

/// `print(args...)`, or `println` with `newline`, as compiled code calls it.
fn print(args: &[PrintArg], newline: bool) {
    // SAFETY: each argument's bits are a value of its kind (the helpers below make them).
    unsafe { pcc_print(args.as_ptr(), args.len() as i64, i8::from(newline), 0) }
}

/// Stores a failing check's operands where the error functions read them, as compiled code does.
fn fail_with(operands: &[i64]) {
    for (slot, &operand) in pcc_error_operands.iter().zip(operands) {
        slot.store(operand, Ordering::Relaxed);
    }
}

fn int(v: i64) -> PrintArg {
    PrintArg {
        kind: PRINT_INT,
        bits: v as u64,
    }
}

fn float(v: f64) -> PrintArg {
    PrintArg {
        kind: PRINT_FLOAT,
        bits: v.to_bits(),
    }
}

fn boolean(v: i8) -> PrintArg {
    PrintArg {
        kind: PRINT_BOOL,
        bits: v as u64,
    }
}

/// `s` must be a PL string.
fn string(s: *const u8) -> PrintArg {
    PrintArg {
        kind: PRINT_STR,
        bits: s as u64,
    }
}

/// `value` must be a value of type `types[type_id]`.
fn value(value: *const u8, type_id: i64) -> PrintArg {
    PrintArg {
        kind: PRINT_VALUE + type_id,
        bits: value as u64,
    }
}

struct Scenario {
    name: &'static str,
    entry: extern "C" fn() -> i64,
    args: &'static [&'static str],
    stdin: &'static str,
    stdout: &'static str,
    stderr: &'static str,
    status: i32,
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "normal_end_flushes_and_returns_main_result",
        entry: prints_values,
        args: &[],
        stdin: "",
        stdout: "42 1e20 true\nNode{key: 1, left: Node{...}, right: null} [0.5, 0.5]\n",
        stderr: "hook\n",
        status: 7,
    },
    Scenario {
        name: "exit_status_is_main_result_truncated",
        entry: returns_large,
        args: &[],
        stdin: "",
        stdout: "",
        stderr: "hook\n",
        status: 3,
    },
    Scenario {
        name: "runtime_error_keeps_output_and_names_location",
        entry: index_error,
        args: &[],
        stdin: "",
        stdout: "partial",
        stderr: "runtime error: index 10 out of bounds for length 10\n  --> prog.pl:12:9 in function `fill`\nhook\n",
        status: 101,
    },
    Scenario {
        name: "null_field_error_names_struct_and_field",
        entry: null_error,
        args: &[],
        stdin: "",
        stdout: "",
        stderr: "runtime error: field access on null: `Node.right`\n  --> prog.pl:1:1 in function `main`\nhook\n",
        status: 101,
    },
    Scenario {
        name: "exit_flushes_and_runs_hooks",
        entry: exits,
        args: &[],
        stdin: "",
        stdout: "1\n",
        stderr: "hook\n",
        status: 3,
    },
    Scenario {
        name: "program_arguments",
        entry: prints_args,
        args: &["first", "second arg"],
        stdin: "",
        stdout: "2 first second arg\n",
        stderr: "runtime error: arg(2): index out of range (2 arguments)\n  --> prog.pl:1:1 in function `main`\nhook\n",
        status: 101,
    },
    Scenario {
        name: "stdin_lines_and_integers",
        entry: reads_input,
        args: &[],
        stdin: "Ada\r\n 12 -3\nrest\n",
        stdout: "name? Ada 12 -3 false rest true\n",
        stderr: "runtime error: read_int: no integer left, only the end of input\n  --> prog.pl:1:1 in function `main`\nhook\n",
        status: 101,
    },
    Scenario {
        name: "stack_overflow_is_caught_with_room_to_spare",
        entry: recurses,
        args: &[],
        stdin: "",
        stdout: "",
        stderr: "runtime error: stack overflow (recursion too deep)\n  --> prog.pl:3:1 in function `deep`\nhook used most of the stack and still had room\n",
        status: 101,
    },
    Scenario {
        name: "out_of_memory_is_an_error",
        entry: allocates_too_much,
        args: &[],
        stdin: "",
        stdout: "",
        stderr: "runtime error: out of memory\n  --> prog.pl:12:9 in function `fill`\nhook\n",
        status: 101,
    },
    Scenario {
        name: "negative_array_length",
        entry: negative_length,
        args: &[],
        stdin: "",
        stdout: "",
        stderr: "runtime error: negative array length -3\n  --> prog.pl:12:9 in function `fill`\nhook\n",
        status: 101,
    },
];

fn program_info() -> ProgramInfo {
    let field = |name: &str, ty| FieldInfo {
        name: name.into(),
        ty,
    };
    let location = |line, col, function: &str| Location {
        line,
        col,
        function: function.into(),
    };
    ProgramInfo {
        file: "prog.pl".into(),
        structs: vec![StructInfo {
            name: "Node".into(),
            fields: vec![
                field("key", TypeInfo::Int),
                field("left", TypeInfo::Struct(0)),
                field("right", TypeInfo::Struct(0)),
            ],
        }],
        types: vec![
            TypeInfo::Struct(0),
            TypeInfo::Array(Box::new(TypeInfo::Float)),
        ],
        locations: vec![
            location(1, 1, "main"),
            location(12, 9, "fill"),
            location(3, 1, "deep"),
        ],
        profile: None,
        gc: Default::default(),
    }
}

/// A PL string literal as the code generator would emit it: `[header][len][bytes]`, 8-byte
/// aligned, the header that of a static object (1).
fn literal(text: &str) -> *const u8 {
    let mut words = vec![1, text.len() as u64];
    for chunk in text.as_bytes().chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        words.push(u64::from_ne_bytes(word));
    }
    Box::leak(words.into_boxed_slice())[1..].as_ptr().cast()
}

extern "C" fn prints_values() -> i64 {
    print(&[int(42), float(1e20), boolean(1)], true);
    let leaf = pcc_struct_new(3, 0, 0);
    let root = pcc_struct_new(3, 0, 0).cast_mut().cast::<u64>();
    let halves = pcc_array_new(2, 0.5f64.to_bits() as i64, 0, 0);
    // SAFETY: `root` has three fields.
    unsafe {
        root.write(1);
        root.add(1).write(leaf as u64);
    }
    // The values match types 0 and 1.
    print(&[value(root.cast(), 0), value(halves, 1)], true);
    7
}

extern "C" fn returns_large() -> i64 {
    (1 << 32) + 3
}

extern "C" fn index_error() -> i64 {
    print(&[string(literal("partial"))], false);
    fail_with(&[10, 10, 1]);
    pcc_err_index()
}

extern "C" fn null_error() -> i64 {
    fail_with(&[0, 2, 0]);
    pcc_err_null()
}

extern "C" fn exits() -> i64 {
    print(&[int(1)], true);
    pcc_exit(3)
}

extern "C" fn prints_args() -> i64 {
    let mut args = vec![int(pcc_argc())];
    args.extend((0..pcc_argc()).map(|i| string(pcc_arg(i, 0))));
    print(&args, true);
    pcc_arg(2, 0);
    0
}

extern "C" fn reads_input() -> i64 {
    // Literals and `read_line`'s results are PL strings.
    print(&[string(literal("name? "))], false);
    let name = string(pcc_read_line());
    let first = int(pcc_read_int(0));
    let second = int(pcc_read_int(0));
    pcc_read_line(); // the rest of the integers' line
    let before = boolean(pcc_eof());
    let last = string(pcc_read_line());
    print(
        &[name, first, second, before, last, boolean(pcc_eof())],
        true,
    );
    pcc_read_int(0)
}

static STACK_TOP: AtomicUsize = AtomicUsize::new(0);
static LOWEST_FRAME: AtomicUsize = AtomicUsize::new(usize::MAX);

/// A recursive function with the prologue check the code generator emits.
extern "C" fn deep(depth: i64) -> i64 {
    let frame = [depth as u8; 256];
    let sp = black_box(&frame) as *const _ as usize;
    if sp < pcc_stack_limit.load(Ordering::Relaxed) {
        fail_with(&[2]);
        pcc_err_stack_overflow();
    }
    LOWEST_FRAME.fetch_min(sp, Ordering::Relaxed);
    deep(depth + 1) + black_box(frame)[depth as usize % 256] as i64
}

extern "C" fn recurses() -> i64 {
    let top = 0u8;
    STACK_TOP.store(black_box(&top) as *const u8 as usize, Ordering::Relaxed);
    deep(0)
}

/// The overflow scenario's exit hook: checks that the recursion used most of the stack, and that the error
/// path, still on the overflowed stack, has most of the safety margin to work with.
fn check_stack_use() -> bool {
    let used = STACK_TOP.load(Ordering::Relaxed) - LOWEST_FRAME.load(Ordering::Relaxed);
    let room = [1u8; 3 * STACK_SAFETY_MARGIN / 4];
    if used > STACK_SIZE - 2 * STACK_SAFETY_MARGIN && black_box(&room)[0] == 1 {
        eprintln!("hook used most of the stack and still had room");
    } else {
        eprintln!("stack use: {used} of {STACK_SIZE}");
    }
    true
}

extern "C" fn allocates_too_much() -> i64 {
    pcc_array_new(1 << 59, 0, 0, 1);
    0
}

extern "C" fn negative_length() -> i64 {
    pcc_array_new(-3, 0, 0, 1);
    0
}

/// Runs scenario `name` as the program; does not return.
fn run_scenario(name: &str) -> ! {
    let scenario = SCENARIOS
        .iter()
        .find(|s| s.name == name)
        .expect("unknown scenario");
    if name == "stack_overflow_is_caught_with_room_to_spare" {
        register_exit_hook(Box::new(check_stack_use));
    } else {
        register_exit_hook(Box::new(|| {
            eprintln!("hook");
            true
        }));
    }
    let args = scenario.args.iter().map(|s| s.to_string()).collect();
    std::process::exit(run_program(program_info(), args, scenario.entry))
}

fn check_scenario(scenario: &Scenario) -> Result<(), Failed> {
    let mut child = Command::new(std::env::current_exe()?)
        .env(SCENARIO_VAR, scenario.name)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(scenario.stdin.as_bytes())?;
    let output = child.wait_with_output()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if (stdout.as_ref(), stderr.as_ref(), output.status.code())
        != (scenario.stdout, scenario.stderr, Some(scenario.status))
    {
        return Err(format!(
            "expected status {}, stdout {:?}, stderr {:?}\n     got {}, stdout {stdout:?}, stderr {stderr:?}",
            scenario.status, scenario.stdout, scenario.stderr, output.status
        )
        .into());
    }
    Ok(())
}

/// Many prints across buffer refills, and a string larger than the buffer, come out whole and in order.
fn check_large_output() -> Result<(), Failed> {
    let output = Command::new(std::env::current_exe()?)
        .env(SCENARIO_VAR, "large_output")
        .output()?;
    let mut expected = String::new();
    for i in 0..100_000 {
        expected += &format!("{i} ");
    }
    expected += &"x".repeat(200_000);
    expected += "\n";
    if output.status.code() != Some(0) || output.stdout != expected.as_bytes() {
        return Err(format!(
            "status {}, {} bytes of output",
            output.status,
            output.stdout.len()
        )
        .into());
    }
    Ok(())
}

extern "C" fn prints_a_lot() -> i64 {
    for i in 0..100_000 {
        // The empty string after the number prints the space after it.
        print(&[int(i), string(literal(""))], false);
    }
    print(&[string(literal(&"x".repeat(200_000)))], true);
    0
}

fn main() {
    if let Ok(name) = std::env::var(SCENARIO_VAR) {
        if name == "large_output" {
            std::process::exit(run_program(program_info(), vec![], prints_a_lot));
        }
        run_scenario(&name);
    }
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = SCENARIOS
        .iter()
        .map(|scenario| Trial::test(scenario.name, move || check_scenario(scenario)))
        .collect();
    trials.push(Trial::test(
        "large_output_stays_whole_and_ordered",
        check_large_output,
    ));
    libtest_mimic::run(&args, trials).exit();
}
