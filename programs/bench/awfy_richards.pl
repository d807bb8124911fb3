// Are We Fast Yet: Richards (Marr et al., DLS 2016; https://github.com/smarr/are-we-fast-yet,
// benchmarks/*/Richards; Martin Richards' OS task-scheduler simulation, via Mario Wolczko's Smalltalk/Java
// version and the SOM version). Ported to PL from the algorithm, keeping its objects: Scheduler,
// TaskControlBlock (a TaskState with link, identity, priority, input queue, function and data record),
// Packet (link, identity, kind, datum, 4 data words) and the four task data records.
// benchmark(): a fresh Scheduler creates an idler, a worker, two handlers and two devices and schedules
// them until no task can run. verifyResult: queuePacketCount == 23246 && holdCount == 9297 (published).
// Workarounds (PL has no classes, inheritance or closures): TaskControlBlock carries the TaskState flags
// itself; the task's function (a lambda over the scheduler in the original) is a kind tag
// (IDLER_FN..DEVICE_FN) dispatched with `match` in run_task, and its private data record is held in the
// field of that record's type (the other three are null). The original's exceptions are failed asserts.
// Argument: inner iterations (default 1); each runs benchmark() and verifyResult().

let IDLER: int = 0;
let WORKER: int = 1;
let HANDLER_A: int = 2;
let HANDLER_B: int = 3;
let DEVICE_A: int = 4;
let DEVICE_B: int = 5;
let NUM_TYPES: int = 6;

let DEVICE_PACKET_KIND: int = 0;
let WORK_PACKET_KIND: int = 1;

let DATA_SIZE: int = 4;

// kinds of task function
let IDLER_FN: int = 0;
let WORKER_FN: int = 1;
let HANDLER_FN: int = 2;
let DEVICE_FN: int = 3;

struct Packet { link: Packet, identity: int, kind: int, datum: int, data: [int] }

struct TaskState { packet_pending: bool, task_waiting: bool, task_holding: bool }

struct DeviceTaskDataRecord { pending: Packet }
struct HandlerTaskDataRecord { work_in: Packet, device_in: Packet }
struct IdleTaskDataRecord { control: int, count: int }
struct WorkerTaskDataRecord { destination: int, count: int }

struct TaskControlBlock {
    packet_pending: bool, task_waiting: bool, task_holding: bool,
    link: TaskControlBlock, identity: int, priority: int, input: Packet,
    function: int,
    device_data: DeviceTaskDataRecord, handler_data: HandlerTaskDataRecord,
    idle_data: IdleTaskDataRecord, worker_data: WorkerTaskDataRecord,
}

struct Scheduler {
    task_list: TaskControlBlock, current_task: TaskControlBlock, current_task_identity: int,
    task_table: [TaskControlBlock], queue_packet_count: int, hold_count: int, layout: int,
}

// ---- RBObject ----

fn append(packet: Packet, queue_head: Packet) -> Packet {
    packet.link = null;
    if queue_head == null {
        return packet;
    }
    let mouse = queue_head;
    let link = mouse.link;
    while link != null {
        mouse = link;
        link = mouse.link;
    }
    mouse.link = packet;
    return queue_head;
}

fn new_packet(link: Packet, identity: int, kind: int) -> Packet {
    return new Packet { link: link, identity: identity, kind: kind, datum: 0, data: [0; DATA_SIZE] };
}

// ---- TaskState ----

fn create_running() -> TaskState {
    return new TaskState { packet_pending: false, task_waiting: false, task_holding: false };
}

fn create_waiting() -> TaskState {
    return new TaskState { packet_pending: false, task_waiting: true, task_holding: false };
}

fn create_waiting_with_packet() -> TaskState {
    return new TaskState { packet_pending: true, task_waiting: true, task_holding: false };
}

fn tcb_packet_pending(t: TaskControlBlock) {
    t.packet_pending = true;
    t.task_waiting = false;
    t.task_holding = false;
}

fn tcb_running(t: TaskControlBlock) {
    t.packet_pending = false;
    t.task_waiting = false;
    t.task_holding = false;
}

fn is_task_holding_or_waiting(t: TaskControlBlock) -> bool {
    return t.task_holding || (!t.packet_pending && t.task_waiting);
}

fn is_waiting_with_packet(t: TaskControlBlock) -> bool {
    return t.packet_pending && t.task_waiting && !t.task_holding;
}

// ---- TaskControlBlock ----

fn new_tcb(link: TaskControlBlock, identity: int, priority: int, initial_work_queue: Packet,
           initial_state: TaskState, function: int) -> TaskControlBlock {
    return new TaskControlBlock {
        packet_pending: initial_state.packet_pending, task_waiting: initial_state.task_waiting,
        task_holding: initial_state.task_holding,
        link: link, identity: identity, priority: priority, input: initial_work_queue,
        function: function, device_data: null, handler_data: null, idle_data: null, worker_data: null,
    };
}

fn add_input_and_check_priority(t: TaskControlBlock, packet: Packet, old_task: TaskControlBlock)
        -> TaskControlBlock {
    if t.input == null {
        t.input = packet;
        t.packet_pending = true;
        if t.priority > old_task.priority {
            return t;
        }
    } else {
        t.input = append(packet, t.input);
    }
    return old_task;
}

fn run_task(s: Scheduler, t: TaskControlBlock) -> TaskControlBlock {
    let message: Packet = null;
    if is_waiting_with_packet(t) {
        message = t.input;
        t.input = message.link;
        if t.input == null {
            tcb_running(t);
        } else {
            tcb_packet_pending(t);
        }
    }
    match t.function {
        0 => { return idler_fn(s, message, t.idle_data); }
        1 => { return worker_fn(s, message, t.worker_data); }
        2 => { return handler_fn(s, message, t.handler_data); }
        3 => { return device_fn(s, message, t.device_data); }
        _ => { assert(false, "unknown task function"); return null; }
    }
}

// ---- the task functions (the lambdas of the original) ----

fn device_fn(s: Scheduler, work_arg: Packet, data_record: DeviceTaskDataRecord) -> TaskControlBlock {
    let function_work = work_arg;
    if function_work == null {
        function_work = data_record.pending;
        if function_work == null {
            return mark_waiting(s);
        } else {
            data_record.pending = null;
            return queue_packet(s, function_work);
        }
    } else {
        data_record.pending = function_work;
        return hold_self(s);
    }
}

fn handler_fn(s: Scheduler, work: Packet, data_record: HandlerTaskDataRecord) -> TaskControlBlock {
    if work != null {
        if work.kind == WORK_PACKET_KIND {
            data_record.work_in = append(work, data_record.work_in);
        } else {
            data_record.device_in = append(work, data_record.device_in);
        }
    }
    let work_packet = data_record.work_in;
    if work_packet == null {
        return mark_waiting(s);
    } else {
        let count = work_packet.datum;
        if count >= DATA_SIZE {
            data_record.work_in = work_packet.link;
            return queue_packet(s, work_packet);
        } else {
            let device_packet = data_record.device_in;
            if device_packet == null {
                return mark_waiting(s);
            } else {
                data_record.device_in = device_packet.link;
                device_packet.datum = work_packet.data[count];
                work_packet.datum = count + 1;
                return queue_packet(s, device_packet);
            }
        }
    }
}

fn idler_fn(s: Scheduler, work_arg: Packet, data_record: IdleTaskDataRecord) -> TaskControlBlock {
    data_record.count = data_record.count - 1;
    if data_record.count == 0 {
        return hold_self(s);
    } else {
        if (data_record.control & 1) == 0 {
            data_record.control = data_record.control / 2;
            return release(s, DEVICE_A);
        } else {
            data_record.control = (data_record.control / 2) ^ 53256;
            return release(s, DEVICE_B);
        }
    }
}

fn worker_fn(s: Scheduler, work: Packet, data: WorkerTaskDataRecord) -> TaskControlBlock {
    if work == null {
        return mark_waiting(s);
    } else {
        if data.destination == HANDLER_A {
            data.destination = HANDLER_B;
        } else {
            data.destination = HANDLER_A;
        }
        work.identity = data.destination;
        work.datum = 0;
        for i in 0..DATA_SIZE {
            data.count = data.count + 1;
            if data.count > 26 { data.count = 1; }
            work.data[i] = 65 + data.count - 1;
        }
        return queue_packet(s, work);
    }
}

// ---- Scheduler ----

fn new_scheduler() -> Scheduler {
    let table: [TaskControlBlock] = [null; NUM_TYPES];
    return new Scheduler { task_list: null, current_task: null, current_task_identity: 0, task_table: table,
                           queue_packet_count: 0, hold_count: 0, layout: 0 };
}

fn create_task(s: Scheduler, identity: int, priority: int, work: Packet, state: TaskState, function: int)
        -> TaskControlBlock {
    let t = new_tcb(s.task_list, identity, priority, work, state, function);
    s.task_list = t;
    s.task_table[identity] = t;
    return t;
}

fn create_device(s: Scheduler, identity: int, priority: int, work: Packet, state: TaskState) {
    let t = create_task(s, identity, priority, work, state, DEVICE_FN);
    t.device_data = new DeviceTaskDataRecord { pending: null };
}

fn create_handler(s: Scheduler, identity: int, priority: int, work: Packet, state: TaskState) {
    let t = create_task(s, identity, priority, work, state, HANDLER_FN);
    t.handler_data = new HandlerTaskDataRecord { work_in: null, device_in: null };
}

fn create_idler(s: Scheduler, identity: int, priority: int, work: Packet, state: TaskState) {
    let t = create_task(s, identity, priority, work, state, IDLER_FN);
    t.idle_data = new IdleTaskDataRecord { control: 1, count: 10000 };
}

fn create_worker(s: Scheduler, identity: int, priority: int, work: Packet, state: TaskState) {
    let t = create_task(s, identity, priority, work, state, WORKER_FN);
    t.worker_data = new WorkerTaskDataRecord { destination: HANDLER_A, count: 0 };
}

fn start(s: Scheduler) -> bool {
    create_idler(s, IDLER, 0, null, create_running());
    let work_q = new_packet(null, WORKER, WORK_PACKET_KIND);
    work_q = new_packet(work_q, WORKER, WORK_PACKET_KIND);
    create_worker(s, WORKER, 1000, work_q, create_waiting_with_packet());

    work_q = new_packet(null, DEVICE_A, DEVICE_PACKET_KIND);
    work_q = new_packet(work_q, DEVICE_A, DEVICE_PACKET_KIND);
    work_q = new_packet(work_q, DEVICE_A, DEVICE_PACKET_KIND);
    create_handler(s, HANDLER_A, 2000, work_q, create_waiting_with_packet());

    work_q = new_packet(null, DEVICE_B, DEVICE_PACKET_KIND);
    work_q = new_packet(work_q, DEVICE_B, DEVICE_PACKET_KIND);
    work_q = new_packet(work_q, DEVICE_B, DEVICE_PACKET_KIND);
    create_handler(s, HANDLER_B, 3000, work_q, create_waiting_with_packet());

    create_device(s, DEVICE_A, 4000, null, create_waiting());
    create_device(s, DEVICE_B, 5000, null, create_waiting());

    schedule(s);
    return s.queue_packet_count == 23246 && s.hold_count == 9297;
}

fn find_task(s: Scheduler, identity: int) -> TaskControlBlock {
    let t = s.task_table[identity];
    if t == null {
        assert(false, "findTask failed");
    }
    return t;
}

fn hold_self(s: Scheduler) -> TaskControlBlock {
    s.hold_count = s.hold_count + 1;
    s.current_task.task_holding = true;
    return s.current_task.link;
}

fn queue_packet(s: Scheduler, packet: Packet) -> TaskControlBlock {
    let t = find_task(s, packet.identity);
    if t == null {
        return null;
    }
    s.queue_packet_count = s.queue_packet_count + 1;
    packet.link = null;
    packet.identity = s.current_task_identity;
    return add_input_and_check_priority(t, packet, s.current_task);
}

fn release(s: Scheduler, identity: int) -> TaskControlBlock {
    let t = find_task(s, identity);
    if t == null {
        return null;
    }
    t.task_holding = false;
    if t.priority > s.current_task.priority {
        return t;
    } else {
        return s.current_task;
    }
}

fn mark_waiting(s: Scheduler) -> TaskControlBlock {
    s.current_task.task_waiting = true;
    return s.current_task;
}

fn schedule(s: Scheduler) {
    s.current_task = s.task_list;
    while s.current_task != null {
        if is_task_holding_or_waiting(s.current_task) {
            s.current_task = s.current_task.link;
        } else {
            s.current_task_identity = s.current_task.identity;
            s.current_task = run_task(s, s.current_task);
        }
    }
}

// ---- harness ----

fn main() -> int {
    let iterations = 1;
    if argc() > 0 { iterations = parse_int(arg(0)); }
    let result = false;
    let ok = true;
    let i = 0;
    let s: Scheduler = null;
    while i < iterations && ok {
        s = new_scheduler();
        result = start(s);
        ok = result;
        i += 1;
    }
    let qpc = 0;
    let hc = 0;
    if s != null { qpc = s.queue_packet_count; hc = s.hold_count; }
    println("Richards iterations:", iterations, "queuePacketCount:", qpc, "holdCount:", hc,
            "expected: 23246 9297 verified:", ok);
    if ok { return 0; }
    return 1;
}
