/* C port of programs/bench/awfy_deltablue.pl (Are We Fast Yet DeltaBlue, https://github.com/smarr/are-we-fast-yet)
   for the gcc -O2 baseline: the same objects (one Constraint struct with a kind tag and switch dispatch,
   AWFY's Vector with its quicksort, the hashed Dictionary of strengths), the same checks (chain test and
   projection tests 1-4) and the same output. Like the PL program, nothing is freed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void fail(const char *msg) {
    fflush(stdout);
    fprintf(stderr, "runtime error: assertion failed: %s\n", msg);
    exit(101);
}

typedef struct Strength { int64_t arithmetic_value, symbolic_value; } Strength;
typedef struct Constraint Constraint;
typedef struct Variable Variable;

/* ---- AWFY Vector ---- */
enum { INITIAL_SIZE = 10 };
typedef struct { Constraint **storage; int64_t cap, first_idx, last_idx; } CVec;
typedef struct { Variable **storage; int64_t cap, first_idx, last_idx; } VVec;

static CVec *cv_new(int64_t size) {
    CVec *v = malloc(sizeof(CVec));
    v->storage = calloc(size ? size : 1, sizeof(Constraint *));
    v->cap = size; v->first_idx = 0; v->last_idx = 0;
    return v;
}
static CVec *cv_empty(void) { return cv_new(0); }
static void cv_append(CVec *v, Constraint *e) {
    if (v->cap == 0) {
        v->storage = calloc(INITIAL_SIZE, sizeof(Constraint *));
        v->cap = INITIAL_SIZE;
    } else if (v->last_idx >= v->cap) {
        Constraint **ns = calloc(2 * v->cap, sizeof(Constraint *));
        for (int64_t i = 0; i < v->cap; i++) ns[i] = v->storage[i];
        v->storage = ns;
        v->cap *= 2;
    }
    v->storage[v->last_idx++] = e;
}
static CVec *cv_with(Constraint *e) { CVec *v = cv_new(1); cv_append(v, e); return v; }
static int cv_is_empty(CVec *v) { return v->last_idx == v->first_idx; }
static Constraint *cv_remove_first(CVec *v) {
    if (cv_is_empty(v)) return NULL;
    v->first_idx++;
    return v->storage[v->first_idx - 1];
}
static int cv_remove(CVec *v, Constraint *obj) {
    if (v->cap == 0 || cv_is_empty(v)) return 0;
    Constraint **na = calloc(v->cap, sizeof(Constraint *));
    int64_t new_last = 0;
    int found = 0;
    for (int64_t i = v->first_idx; i < v->last_idx; i++) {
        Constraint *it = v->storage[i];
        if (it == obj) found = 1; else na[new_last++] = it;
    }
    v->storage = na;
    v->last_idx = new_last;
    v->first_idx = 0;
    return found;
}

static VVec *vv_new(int64_t size) {
    VVec *v = malloc(sizeof(VVec));
    v->storage = calloc(size ? size : 1, sizeof(Variable *));
    v->cap = size; v->first_idx = 0; v->last_idx = 0;
    return v;
}
static void vv_append(VVec *v, Variable *e) {
    if (v->cap == 0) {
        v->storage = calloc(INITIAL_SIZE, sizeof(Variable *));
        v->cap = INITIAL_SIZE;
    } else if (v->last_idx >= v->cap) {
        Variable **ns = calloc(2 * v->cap, sizeof(Variable *));
        for (int64_t i = 0; i < v->cap; i++) ns[i] = v->storage[i];
        v->storage = ns;
        v->cap *= 2;
    }
    v->storage[v->last_idx++] = e;
}
static VVec *vv_with(Variable *e) { VVec *v = vv_new(1); vv_append(v, e); return v; }
static int vv_is_empty(VVec *v) { return v->last_idx == v->first_idx; }
static Variable *vv_remove_first(VVec *v) {
    if (vv_is_empty(v)) return NULL;
    v->first_idx++;
    return v->storage[v->first_idx - 1];
}
static Variable *vv_at(VVec *v, int64_t idx) { return idx >= v->cap ? NULL : v->storage[idx]; }

/* ---- AWFY Dictionary keyed by strength symbols ---- */
typedef struct DictEntry { int64_t hash, key, value; Strength *object; struct DictEntry *next; } DictEntry;
typedef struct { DictEntry **buckets; int64_t nbuckets, size; } Dictionary;

static Dictionary *dict_new(void) {
    Dictionary *d = malloc(sizeof(Dictionary));
    d->nbuckets = 16;
    d->buckets = calloc(16, sizeof(DictEntry *));
    d->size = 0;
    return d;
}
static int64_t dict_hash(int64_t key) { int64_t h = key & 0xFFFFFFFF; return h ^ (h >> 16); }
static DictEntry *dict_entry_at(Dictionary *d, int64_t key) {
    int64_t hash = dict_hash(key);
    for (DictEntry *e = d->buckets[(d->nbuckets - 1) & hash]; e != NULL; e = e->next)
        if (e->hash == hash && e->key == key) return e;
    return NULL;
}
static DictEntry *new_entry(int64_t hash, int64_t key, int64_t value, Strength *object) {
    DictEntry *e = malloc(sizeof(DictEntry));
    e->hash = hash; e->key = key; e->value = value; e->object = object; e->next = NULL;
    return e;
}
static void dict_resize(Dictionary *d) {
    DictEntry **old = d->buckets;
    int64_t oldn = d->nbuckets;
    d->nbuckets = oldn * 2;
    d->buckets = calloc(d->nbuckets, sizeof(DictEntry *));
    for (int64_t i = 0; i < oldn; i++) {
        DictEntry *cur = old[i];
        if (cur == NULL) continue;
        old[i] = NULL;
        if (cur->next == NULL) {
            d->buckets[cur->hash & (d->nbuckets - 1)] = cur;
        } else {
            DictEntry *lo_head = NULL, *lo_tail = NULL, *hi_head = NULL, *hi_tail = NULL;
            for (; cur != NULL; cur = cur->next) {
                if ((cur->hash & oldn) == 0) {
                    if (lo_tail == NULL) lo_head = cur; else lo_tail->next = cur;
                    lo_tail = cur;
                } else {
                    if (hi_tail == NULL) hi_head = cur; else hi_tail->next = cur;
                    hi_tail = cur;
                }
            }
            if (lo_tail) { lo_tail->next = NULL; d->buckets[i] = lo_head; }
            if (hi_tail) { hi_tail->next = NULL; d->buckets[i + oldn] = hi_head; }
        }
    }
}
static void dict_at_put(Dictionary *d, int64_t key, int64_t value, Strength *object) {
    int64_t hash = dict_hash(key);
    int64_t i = (d->nbuckets - 1) & hash;
    DictEntry *cur = d->buckets[i];
    if (cur == NULL) {
        d->buckets[i] = new_entry(hash, key, value, object);
    } else {
        for (;;) {
            if (cur->hash == hash && cur->key == key) { cur->value = value; cur->object = object; return; }
            if (cur->next == NULL) { cur->next = new_entry(hash, key, value, object); break; }
            cur = cur->next;
        }
    }
    d->size++;
    if (d->size > d->nbuckets) dict_resize(d);
}

/* ---- Strength ---- */
enum { ABSOLUTE_STRONGEST, REQUIRED, STRONG_PREFERRED, PREFERRED, STRONG_DEFAULT, DEFAULT, WEAK_DEFAULT,
       ABSOLUTE_WEAKEST };
static Dictionary *strength_table, *strength_constant;
static Strength *strength_absolute_weakest, *strength_required;

static Strength *strength_of(int64_t sym) { return dict_entry_at(strength_constant, sym)->object; }
static int stronger(Strength *a, Strength *s) { return a->arithmetic_value < s->arithmetic_value; }
static int weaker(Strength *a, Strength *s) { return a->arithmetic_value > s->arithmetic_value; }
static int same_as(Strength *a, Strength *s) { return a->arithmetic_value == s->arithmetic_value; }
static Strength *weakest(Strength *a, Strength *s) { return weaker(s, a) ? s : a; }

static void init_strengths(void) {
    strength_table = dict_new();
    static const int64_t values[8] = {-10000, -800, -600, -400, -200, 0, 500, 10000};
    for (int64_t k = 0; k < 8; k++) dict_at_put(strength_table, k, values[k], NULL);
    strength_constant = dict_new();
    int64_t *keys = calloc(strength_table->size, sizeof(int64_t));
    int64_t n = 0;
    for (int64_t i = 0; i < strength_table->nbuckets; i++)
        for (DictEntry *e = strength_table->buckets[i]; e; e = e->next) keys[n++] = e->key;
    for (int64_t i = 0; i < n; i++) {
        Strength *s = malloc(sizeof(Strength));
        s->arithmetic_value = dict_entry_at(strength_table, keys[i])->value;
        s->symbolic_value = keys[i];
        dict_at_put(strength_constant, keys[i], 0, s);
    }
    strength_absolute_weakest = strength_of(ABSOLUTE_WEAKEST);
    strength_required = strength_of(REQUIRED);
}

/* ---- Variable ---- */
struct Variable {
    int64_t value;
    CVec *constraints;
    Constraint *determined_by;
    int64_t mark;
    Strength *walk_strength;
    uint8_t stay;
};

static Variable *new_variable(void) {
    Variable *v = malloc(sizeof(Variable));
    v->value = 0; v->constraints = cv_new(2); v->determined_by = NULL; v->mark = 0;
    v->walk_strength = strength_absolute_weakest; v->stay = 1;
    return v;
}
static Variable *variable_value(int64_t a) { Variable *v = new_variable(); v->value = a; return v; }
static void var_remove_constraint(Variable *v, Constraint *c) {
    cv_remove(v->constraints, c);
    if (v->determined_by == c) v->determined_by = NULL;
}

/* ---- constraints ---- */
enum { STAY = 0, EDIT = 1, EQUALITY = 2, SCALE = 3 };
enum { NONE = 0, FORWARD = 1, BACKWARD = 2 };

struct Constraint {
    int64_t kind;
    Strength *strength;
    Variable *output;
    uint8_t satisfied;
    Variable *v1, *v2;
    int64_t direction;
    Variable *scale, *offset;
};

typedef struct { int64_t current_mark; } Planner;

static void incremental_add(Planner *p, Constraint *c);
static void incremental_remove(Planner *p, Constraint *c);
static int add_propagate(Planner *p, Constraint *c, int64_t mark);

static int is_input(Constraint *c) { return c->kind == EDIT; }
static int is_satisfied(Constraint *c) {
    switch (c->kind) {
    case STAY: case EDIT: return c->satisfied;
    default: return c->direction != NONE;
    }
}
static void add_to_graph(Constraint *c) {
    switch (c->kind) {
    case STAY: case EDIT:
        cv_append(c->output->constraints, c);
        c->satisfied = 0;
        break;
    case EQUALITY:
        cv_append(c->v1->constraints, c);
        cv_append(c->v2->constraints, c);
        c->direction = NONE;
        break;
    default:
        cv_append(c->v1->constraints, c);
        cv_append(c->v2->constraints, c);
        cv_append(c->scale->constraints, c);
        cv_append(c->offset->constraints, c);
        c->direction = NONE;
    }
}
static void remove_from_graph(Constraint *c) {
    switch (c->kind) {
    case STAY: case EDIT:
        if (c->output) var_remove_constraint(c->output, c);
        c->satisfied = 0;
        break;
    case EQUALITY:
        if (c->v1) var_remove_constraint(c->v1, c);
        if (c->v2) var_remove_constraint(c->v2, c);
        c->direction = NONE;
        break;
    default:
        if (c->v1) var_remove_constraint(c->v1, c);
        if (c->v2) var_remove_constraint(c->v2, c);
        if (c->scale) var_remove_constraint(c->scale, c);
        if (c->offset) var_remove_constraint(c->offset, c);
        c->direction = NONE;
    }
}
static void add_constraint(Constraint *c, Planner *p) {
    add_to_graph(c);
    incremental_add(p, c);
}
static Constraint *new_constraint(int64_t kind, int64_t strength, Variable *output, Variable *v1, Variable *v2,
                                  Variable *scale, Variable *offset, Planner *p) {
    Constraint *c = malloc(sizeof(Constraint));
    c->kind = kind; c->strength = strength_of(strength); c->output = output; c->satisfied = 0;
    c->v1 = v1; c->v2 = v2; c->direction = NONE; c->scale = scale; c->offset = offset;
    add_constraint(c, p);
    return c;
}
static void destroy_constraint(Constraint *c, Planner *p) {
    if (is_satisfied(c)) incremental_remove(p, c);
    remove_from_graph(c);
}
static int64_t choose_method(Constraint *c, int64_t mark) {
    switch (c->kind) {
    case STAY: case EDIT:
        c->satisfied = c->output->mark != mark && stronger(c->strength, c->output->walk_strength);
        return NONE;
    default: {
        Variable *v1 = c->v1, *v2 = c->v2;
        if (v1->mark == mark) {
            c->direction = (v2->mark != mark && stronger(c->strength, v2->walk_strength)) ? FORWARD : NONE;
            return c->direction;
        }
        if (v2->mark == mark) {
            c->direction = (v1->mark != mark && stronger(c->strength, v1->walk_strength)) ? BACKWARD : NONE;
            return c->direction;
        }
        if (weaker(v1->walk_strength, v2->walk_strength))
            c->direction = stronger(c->strength, v1->walk_strength) ? BACKWARD : NONE;
        else
            c->direction = stronger(c->strength, v2->walk_strength) ? FORWARD : NONE;
        return c->direction;
    }
    }
}
static void execute(Constraint *c) {
    switch (c->kind) {
    case STAY: case EDIT: break;
    case EQUALITY:
        if (c->direction == FORWARD) c->v2->value = c->v1->value; else c->v1->value = c->v2->value;
        break;
    default:
        if (c->direction == FORWARD)
            c->v2->value = (int64_t)((uint64_t)c->v1->value * (uint64_t)c->scale->value + (uint64_t)c->offset->value);
        else
            c->v1->value = (int64_t)((uint64_t)c->v2->value - (uint64_t)c->offset->value) / c->scale->value;
    }
}
static int is_known(Variable *v, int64_t mark) { return v->mark == mark || v->stay || v->determined_by == NULL; }
static int inputs_known(Constraint *c, int64_t mark) {
    switch (c->kind) {
    case STAY: case EDIT: return 1;
    case EQUALITY: return c->direction == FORWARD ? is_known(c->v1, mark) : is_known(c->v2, mark);
    default:
        if (c->direction == FORWARD) { if (!is_known(c->v1, mark)) return 0; }
        else { if (!is_known(c->v2, mark)) return 0; }
        if (!is_known(c->scale, mark)) return 0;
        if (!is_known(c->offset, mark)) return 0;
        return 1;
    }
}
static void mark_inputs(Constraint *c, int64_t mark) {
    switch (c->kind) {
    case STAY: case EDIT: break;
    case EQUALITY:
        if (c->direction == FORWARD) c->v1->mark = mark; else c->v2->mark = mark;
        break;
    default:
        if (c->direction == FORWARD) c->v1->mark = mark; else c->v2->mark = mark;
        c->scale->mark = mark;
        c->offset->mark = mark;
    }
}
static void mark_unsatisfied(Constraint *c) {
    switch (c->kind) {
    case STAY: case EDIT: c->satisfied = 0; break;
    default: c->direction = NONE;
    }
}
static Variable *get_output(Constraint *c) {
    switch (c->kind) {
    case STAY: case EDIT: return c->output;
    default: return c->direction == FORWARD ? c->v2 : c->v1;
    }
}
static void recalculate(Constraint *c) {
    switch (c->kind) {
    case STAY: case EDIT:
        c->output->walk_strength = c->strength;
        c->output->stay = !is_input(c);
        if (c->output->stay) execute(c);
        break;
    default: {
        Variable *in = c->v2, *out = c->v1;
        if (c->direction == FORWARD) { in = c->v1; out = c->v2; }
        out->walk_strength = weakest(c->strength, in->walk_strength);
        if (c->kind == SCALE) out->stay = in->stay && c->scale->stay && c->offset->stay;
        else out->stay = in->stay;
        if (out->stay) execute(c);
    }
    }
}
static Constraint *satisfy(Constraint *c, int64_t mark, Planner *p) {
    Constraint *overridden;
    choose_method(c, mark);
    if (is_satisfied(c)) {
        mark_inputs(c, mark);
        Variable *out = get_output(c);
        overridden = out->determined_by;
        if (overridden != NULL) mark_unsatisfied(overridden);
        out->determined_by = c;
        if (!add_propagate(p, c, mark)) fail("Cycle encountered");
        out->mark = mark;
    } else {
        overridden = NULL;
        if (same_as(c->strength, strength_required)) fail("Could not satisfy a required constraint");
    }
    return overridden;
}

/* ---- Plan ---- */
static void plan_execute(CVec *plan) {
    for (int64_t i = plan->first_idx; i < plan->last_idx; i++) execute(plan->storage[i]);
}

/* ---- Planner ---- */
static int64_t new_mark(Planner *p) { return ++p->current_mark; }

static void incremental_add(Planner *p, Constraint *c) {
    int64_t mark = new_mark(p);
    Constraint *overridden = satisfy(c, mark, p);
    while (overridden != NULL) overridden = satisfy(overridden, mark, p);
}

static int compare_strength(Constraint *c1, Constraint *c2) { return stronger(c1->strength, c2->strength) ? -1 : 1; }

static void cv_swap(Constraint **s, int64_t i, int64_t j) { Constraint *t = s[i]; s[i] = s[j]; s[j] = t; }

static void cv_sort_range(CVec *v, int64_t i, int64_t j) {
    int64_t n = j + 1 - i;
    if (n <= 1) return;
    Constraint **storage = v->storage;
    Constraint *di = storage[i], *dj = storage[j];
    if (compare_strength(di, dj) > 0) {
        cv_swap(storage, i, j);
        Constraint *tt = di; di = dj; dj = tt;
    }
    if (n > 2) {
        int64_t ij = (i + j) / 2;
        Constraint *dij = storage[ij];
        if (compare_strength(di, dij) <= 0) {
            if (compare_strength(dij, dj) > 0) { cv_swap(storage, j, ij); dij = dj; }
        } else {
            cv_swap(storage, i, ij);
            dij = di;
        }
        if (n > 3) {
            int64_t k = i, l = j - 1;
            for (;;) {
                while (k <= l && compare_strength(dij, storage[l]) <= 0) l--;
                k++;
                while (k <= l && compare_strength(storage[k], dij) <= 0) k++;
                if (k > l) break;
                cv_swap(storage, k, l);
            }
            cv_sort_range(v, i, l);
            cv_sort_range(v, k, j);
        }
    }
}
static void cv_sort(CVec *v) {
    if (v->last_idx - v->first_idx > 0) cv_sort_range(v, v->first_idx, v->last_idx - 1);
}

static void add_constraints_consuming_to(Variable *v, CVec *coll) {
    Constraint *determining_c = v->determined_by;
    CVec *cs = v->constraints;
    for (int64_t i = cs->first_idx; i < cs->last_idx; i++) {
        Constraint *c = cs->storage[i];
        if (c != determining_c && is_satisfied(c)) cv_append(coll, c);
    }
}

static CVec *remove_propagate_from(Variable *out) {
    CVec *unsatisfied = cv_empty();
    out->determined_by = NULL;
    out->walk_strength = strength_absolute_weakest;
    out->stay = 1;
    VVec *todo = vv_with(out);
    while (!vv_is_empty(todo)) {
        Variable *v = vv_remove_first(todo);
        CVec *cs = v->constraints;
        for (int64_t i = cs->first_idx; i < cs->last_idx; i++)
            if (!is_satisfied(cs->storage[i])) cv_append(unsatisfied, cs->storage[i]);
        Constraint *determining_c = v->determined_by;
        for (int64_t i = cs->first_idx; i < cs->last_idx; i++) {
            Constraint *c = cs->storage[i];
            if (c != determining_c && is_satisfied(c)) {
                recalculate(c);
                vv_append(todo, get_output(c));
            }
        }
    }
    cv_sort(unsatisfied);
    return unsatisfied;
}

static void incremental_remove(Planner *p, Constraint *c) {
    Variable *out = get_output(c);
    mark_unsatisfied(c);
    remove_from_graph(c);
    CVec *unsatisfied = remove_propagate_from(out);
    for (int64_t i = unsatisfied->first_idx; i < unsatisfied->last_idx; i++) incremental_add(p, unsatisfied->storage[i]);
}

static CVec *make_plan(Planner *p, CVec *sources) {
    int64_t mark = new_mark(p);
    CVec *plan = cv_new(15);
    CVec *todo = sources;
    while (!cv_is_empty(todo)) {
        Constraint *c = cv_remove_first(todo);
        if (get_output(c)->mark != mark && inputs_known(c, mark)) {
            cv_append(plan, c);
            get_output(c)->mark = mark;
            add_constraints_consuming_to(get_output(c), todo);
        }
    }
    return plan;
}

static CVec *extract_plan_from_constraints(Planner *p, CVec *constraints) {
    CVec *sources = cv_empty();
    for (int64_t i = constraints->first_idx; i < constraints->last_idx; i++) {
        Constraint *c = constraints->storage[i];
        if (is_input(c) && is_satisfied(c)) cv_append(sources, c);
    }
    return make_plan(p, sources);
}

static int add_propagate(Planner *p, Constraint *c, int64_t mark) {
    CVec *todo = cv_with(c);
    while (!cv_is_empty(todo)) {
        Constraint *d = cv_remove_first(todo);
        if (get_output(d)->mark == mark) {
            incremental_remove(p, c);
            return 0;
        }
        recalculate(d);
        add_constraints_consuming_to(get_output(d), todo);
    }
    return 1;
}

static void change(Planner *p, Variable *v, int64_t new_value) {
    Constraint *edit_c = new_constraint(EDIT, PREFERRED, v, NULL, NULL, NULL, NULL, p);
    CVec *edit_v = cv_with(edit_c);
    CVec *plan = extract_plan_from_constraints(p, edit_v);
    for (int i = 0; i < 10; i++) {
        v->value = new_value;
        plan_execute(plan);
    }
    destroy_constraint(edit_c, p);
}

static int64_t chain_test(int64_t n) {
    Planner *planner = malloc(sizeof(Planner));
    planner->current_mark = 1;
    Variable **vars = calloc(n + 1, sizeof(Variable *));
    for (int64_t i = 0; i < n + 1; i++) vars[i] = new_variable();
    for (int64_t i = 0; i < n; i++) new_constraint(EQUALITY, REQUIRED, NULL, vars[i], vars[i + 1], NULL, NULL, planner);
    new_constraint(STAY, STRONG_DEFAULT, vars[n], NULL, NULL, NULL, NULL, planner);
    Constraint *edit_c = new_constraint(EDIT, PREFERRED, vars[0], NULL, NULL, NULL, NULL, planner);
    CVec *edit_v = cv_with(edit_c);
    CVec *plan = extract_plan_from_constraints(planner, edit_v);
    for (int64_t i = 0; i < 100; i++) {
        vars[0]->value = i;
        plan_execute(plan);
        if (vars[n]->value != i) fail("Chain test failed!");
    }
    destroy_constraint(edit_c, planner);
    return planner->current_mark;
}

static int64_t projection_test(int64_t n) {
    Planner *planner = malloc(sizeof(Planner));
    planner->current_mark = 1;
    VVec *dests = vv_new(0);
    Variable *scale = variable_value(10), *offset = variable_value(1000);
    Variable *src = NULL, *dst = NULL;
    for (int64_t i = 0; i < n; i++) {
        src = variable_value(i);
        dst = variable_value(i);
        vv_append(dests, dst);
        new_constraint(STAY, DEFAULT, src, NULL, NULL, NULL, NULL, planner);
        new_constraint(SCALE, REQUIRED, NULL, src, dst, scale, offset, planner);
    }
    change(planner, src, 17);
    if (dst->value != 1170) fail("Projection test 1 failed!");
    change(planner, dst, 1050);
    if (src->value != 5) fail("Projection test 2 failed!");
    change(planner, scale, 5);
    for (int64_t i = 0; i < n - 1; i++)
        if (vv_at(dests, i)->value != i * 5 + 1000) fail("Projection test 3 failed!");
    change(planner, offset, 2000);
    for (int64_t i = 0; i < n - 1; i++)
        if (vv_at(dests, i)->value != i * 5 + 2000) fail("Projection test 4 failed!");
    return planner->current_mark;
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 20;
    init_strengths();
    int64_t chain_marks = chain_test(n);
    int64_t projection_marks = projection_test(n);
    printf("DeltaBlue n: %lld chainTest and projectionTest passed; verified: true planner marks: %lld %lld\n",
           (long long)n, (long long)chain_marks, (long long)projection_marks);
    return 0;
}
