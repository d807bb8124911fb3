/* C port of programs/bench/awfy_richards.pl (Are We Fast Yet Richards, https://github.com/smarr/are-we-fast-yet)
   for the gcc -O2 baseline: the same objects, the same kind-tag dispatch of the task functions and the same
   output; verification queuePacketCount == 23246 && holdCount == 9297. Like the PL program, nothing is freed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { IDLER = 0, WORKER = 1, HANDLER_A = 2, HANDLER_B = 3, DEVICE_A = 4, DEVICE_B = 5, NUM_TYPES = 6 };
enum { DEVICE_PACKET_KIND = 0, WORK_PACKET_KIND = 1 };
enum { DATA_SIZE = 4 };
enum { IDLER_FN = 0, WORKER_FN = 1, HANDLER_FN = 2, DEVICE_FN = 3 };

typedef struct Packet { struct Packet *link; int64_t identity, kind, datum; int64_t *data; } Packet;
typedef struct { uint8_t packet_pending, task_waiting, task_holding; } TaskState;
typedef struct { Packet *pending; } DeviceTaskDataRecord;
typedef struct { Packet *work_in, *device_in; } HandlerTaskDataRecord;
typedef struct { int64_t control, count; } IdleTaskDataRecord;
typedef struct { int64_t destination, count; } WorkerTaskDataRecord;

typedef struct TCB {
    uint8_t packet_pending, task_waiting, task_holding;
    struct TCB *link;
    int64_t identity, priority;
    Packet *input;
    int64_t function;
    DeviceTaskDataRecord *device_data;
    HandlerTaskDataRecord *handler_data;
    IdleTaskDataRecord *idle_data;
    WorkerTaskDataRecord *worker_data;
} TCB;

typedef struct {
    TCB *task_list, *current_task;
    int64_t current_task_identity;
    TCB **task_table;
    int64_t queue_packet_count, hold_count, layout;
} Scheduler;

static void fail(const char *msg) {
    fflush(stdout);
    fprintf(stderr, "runtime error: assertion failed: %s\n", msg);
    exit(101);
}

static Packet *append(Packet *packet, Packet *queue_head) {
    packet->link = NULL;
    if (queue_head == NULL) return packet;
    Packet *mouse = queue_head, *link;
    while ((link = mouse->link) != NULL) mouse = link;
    mouse->link = packet;
    return queue_head;
}

static Packet *new_packet(Packet *link, int64_t identity, int64_t kind) {
    Packet *p = malloc(sizeof(Packet));
    p->link = link; p->identity = identity; p->kind = kind; p->datum = 0;
    p->data = calloc(DATA_SIZE, sizeof(int64_t));
    return p;
}

static TaskState *new_state(int pp, int tw, int th) {
    TaskState *t = malloc(sizeof(TaskState));
    t->packet_pending = pp; t->task_waiting = tw; t->task_holding = th;
    return t;
}
static TaskState *create_running(void) { return new_state(0, 0, 0); }
static TaskState *create_waiting(void) { return new_state(0, 1, 0); }
static TaskState *create_waiting_with_packet(void) { return new_state(1, 1, 0); }

static int is_task_holding_or_waiting(TCB *t) { return t->task_holding || (!t->packet_pending && t->task_waiting); }
static int is_waiting_with_packet(TCB *t) { return t->packet_pending && t->task_waiting && !t->task_holding; }

static TCB *add_input_and_check_priority(TCB *t, Packet *packet, TCB *old_task) {
    if (t->input == NULL) {
        t->input = packet;
        t->packet_pending = 1;
        if (t->priority > old_task->priority) return t;
    } else {
        t->input = append(packet, t->input);
    }
    return old_task;
}

static TCB *find_task(Scheduler *s, int64_t identity) {
    TCB *t = s->task_table[identity];
    if (t == NULL) fail("findTask failed");
    return t;
}

static TCB *hold_self(Scheduler *s) {
    s->hold_count++;
    s->current_task->task_holding = 1;
    return s->current_task->link;
}

static TCB *queue_packet(Scheduler *s, Packet *packet) {
    TCB *t = find_task(s, packet->identity);
    if (t == NULL) return NULL;
    s->queue_packet_count++;
    packet->link = NULL;
    packet->identity = s->current_task_identity;
    return add_input_and_check_priority(t, packet, s->current_task);
}

static TCB *release(Scheduler *s, int64_t identity) {
    TCB *t = find_task(s, identity);
    if (t == NULL) return NULL;
    t->task_holding = 0;
    return t->priority > s->current_task->priority ? t : s->current_task;
}

static TCB *mark_waiting(Scheduler *s) {
    s->current_task->task_waiting = 1;
    return s->current_task;
}

static TCB *device_fn(Scheduler *s, Packet *work_arg, DeviceTaskDataRecord *d) {
    Packet *function_work = work_arg;
    if (function_work == NULL) {
        function_work = d->pending;
        if (function_work == NULL) return mark_waiting(s);
        d->pending = NULL;
        return queue_packet(s, function_work);
    }
    d->pending = function_work;
    return hold_self(s);
}

static TCB *handler_fn(Scheduler *s, Packet *work, HandlerTaskDataRecord *d) {
    if (work != NULL) {
        if (work->kind == WORK_PACKET_KIND) d->work_in = append(work, d->work_in);
        else d->device_in = append(work, d->device_in);
    }
    Packet *work_packet = d->work_in;
    if (work_packet == NULL) return mark_waiting(s);
    int64_t count = work_packet->datum;
    if (count >= DATA_SIZE) {
        d->work_in = work_packet->link;
        return queue_packet(s, work_packet);
    }
    Packet *device_packet = d->device_in;
    if (device_packet == NULL) return mark_waiting(s);
    d->device_in = device_packet->link;
    device_packet->datum = work_packet->data[count];
    work_packet->datum = count + 1;
    return queue_packet(s, device_packet);
}

static TCB *idler_fn(Scheduler *s, Packet *work_arg, IdleTaskDataRecord *d) {
    (void)work_arg;
    d->count = d->count - 1;
    if (d->count == 0) return hold_self(s);
    if ((d->control & 1) == 0) {
        d->control = d->control / 2;
        return release(s, DEVICE_A);
    }
    d->control = (d->control / 2) ^ 53256;
    return release(s, DEVICE_B);
}

static TCB *worker_fn(Scheduler *s, Packet *work, WorkerTaskDataRecord *d) {
    if (work == NULL) return mark_waiting(s);
    d->destination = d->destination == HANDLER_A ? HANDLER_B : HANDLER_A;
    work->identity = d->destination;
    work->datum = 0;
    for (int64_t i = 0; i < DATA_SIZE; i++) {
        d->count = d->count + 1;
        if (d->count > 26) d->count = 1;
        work->data[i] = 65 + d->count - 1;
    }
    return queue_packet(s, work);
}

static TCB *run_task(Scheduler *s, TCB *t) {
    Packet *message = NULL;
    if (is_waiting_with_packet(t)) {
        message = t->input;
        t->input = message->link;
        if (t->input == NULL) {
            t->packet_pending = t->task_waiting = t->task_holding = 0;
        } else {
            t->packet_pending = 1;
            t->task_waiting = t->task_holding = 0;
        }
    }
    switch (t->function) {
    case 0: return idler_fn(s, message, t->idle_data);
    case 1: return worker_fn(s, message, t->worker_data);
    case 2: return handler_fn(s, message, t->handler_data);
    case 3: return device_fn(s, message, t->device_data);
    default: fail("unknown task function"); return NULL;
    }
}

static TCB *create_task(Scheduler *s, int64_t identity, int64_t priority, Packet *work, TaskState *state,
                        int64_t function) {
    TCB *t = calloc(1, sizeof(TCB));
    t->packet_pending = state->packet_pending;
    t->task_waiting = state->task_waiting;
    t->task_holding = state->task_holding;
    t->link = s->task_list;
    t->identity = identity;
    t->priority = priority;
    t->input = work;
    t->function = function;
    s->task_list = t;
    s->task_table[identity] = t;
    return t;
}

static int start(Scheduler *s) {
    TCB *t = create_task(s, IDLER, 0, NULL, create_running(), IDLER_FN);
    t->idle_data = malloc(sizeof(IdleTaskDataRecord));
    t->idle_data->control = 1;
    t->idle_data->count = 10000;

    Packet *work_q = new_packet(NULL, WORKER, WORK_PACKET_KIND);
    work_q = new_packet(work_q, WORKER, WORK_PACKET_KIND);
    t = create_task(s, WORKER, 1000, work_q, create_waiting_with_packet(), WORKER_FN);
    t->worker_data = malloc(sizeof(WorkerTaskDataRecord));
    t->worker_data->destination = HANDLER_A;
    t->worker_data->count = 0;

    work_q = new_packet(NULL, DEVICE_A, DEVICE_PACKET_KIND);
    work_q = new_packet(work_q, DEVICE_A, DEVICE_PACKET_KIND);
    work_q = new_packet(work_q, DEVICE_A, DEVICE_PACKET_KIND);
    t = create_task(s, HANDLER_A, 2000, work_q, create_waiting_with_packet(), HANDLER_FN);
    t->handler_data = calloc(1, sizeof(HandlerTaskDataRecord));

    work_q = new_packet(NULL, DEVICE_B, DEVICE_PACKET_KIND);
    work_q = new_packet(work_q, DEVICE_B, DEVICE_PACKET_KIND);
    work_q = new_packet(work_q, DEVICE_B, DEVICE_PACKET_KIND);
    t = create_task(s, HANDLER_B, 3000, work_q, create_waiting_with_packet(), HANDLER_FN);
    t->handler_data = calloc(1, sizeof(HandlerTaskDataRecord));

    t = create_task(s, DEVICE_A, 4000, NULL, create_waiting(), DEVICE_FN);
    t->device_data = calloc(1, sizeof(DeviceTaskDataRecord));
    t = create_task(s, DEVICE_B, 5000, NULL, create_waiting(), DEVICE_FN);
    t->device_data = calloc(1, sizeof(DeviceTaskDataRecord));

    s->current_task = s->task_list;
    while (s->current_task != NULL) {
        if (is_task_holding_or_waiting(s->current_task)) {
            s->current_task = s->current_task->link;
        } else {
            s->current_task_identity = s->current_task->identity;
            s->current_task = run_task(s, s->current_task);
        }
    }
    return s->queue_packet_count == 23246 && s->hold_count == 9297;
}

int main(int argc, char **argv) {
    int64_t iterations = argc > 1 ? atoll(argv[1]) : 1;
    int ok = 1;
    Scheduler *s = NULL;
    for (int64_t i = 0; i < iterations && ok; i++) {
        s = calloc(1, sizeof(Scheduler));
        s->task_table = calloc(NUM_TYPES, sizeof(TCB *));
        ok = start(s);
    }
    printf("Richards iterations: %lld queuePacketCount: %lld holdCount: %lld expected: 23246 9297 verified: %s\n",
           (long long)iterations, (long long)(s ? s->queue_packet_count : 0), (long long)(s ? s->hold_count : 0),
           ok ? "true" : "false");
    return ok ? 0 : 1;
}
