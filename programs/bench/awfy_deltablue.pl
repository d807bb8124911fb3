// Are We Fast Yet: DeltaBlue (Marr et al., DLS 2016; https://github.com/smarr/are-we-fast-yet,
// benchmarks/*/DeltaBlue; the incremental constraint solver of Freeman-Benson, Maloney and Borning, via
// Mario Wolczko's Smalltalk/Java version and the SOM version). Ported to PL from the algorithm, keeping its
// objects: Planner, Variable, Plan, Strength (looked up through AWFY's hashed Dictionary) and the
// constraint hierarchy (Unary: Stay, Edit; Binary: Equality, Scale), with AWFY's Vector (first/last index
// over a growable array, removeFirst, remove by copying, its quicksort) for all collections.
// As in AWFY, the argument is the inner-iteration count n: chainTest(n) then projectionTest(n). The
// published checks are the benchmark's own: the chain's far end follows the edited value 0..99, and the
// projection tests give 1170, 5, i*5+1000 and i*5+2000; a failed check is a failed assert (an exception
// in the original), so the program only prints `verified: true` when all of them passed.
// Workarounds (PL has no classes, generics or closures): one Constraint struct with a kind tag
// (STAY, EDIT, EQUALITY, SCALE) holds the fields of every subclass and the virtual methods dispatch with
// `match`; Direction is an int (NONE = the original's null); Vector<T> is written twice (ConstraintVector,
// VariableVector) and Plan is a ConstraintVector; the Dictionary maps the strength symbols (ints used as
// their own hash, as AWFY's Sym.customHash) to an int or a Strength; the forEach/inputsDo blocks are
// inlined as loops.
// Argument: n (default 20).

// ---- AWFY Vector, for constraints and for variables ----

let INITIAL_SIZE: int = 10;

struct ConstraintVector { storage: [Constraint], first_idx: int, last_idx: int }
struct VariableVector { storage: [Variable], first_idx: int, last_idx: int }

fn cv_new(size: int) -> ConstraintVector {
    let storage: [Constraint] = [null; size];
    return new ConstraintVector { storage: storage, first_idx: 0, last_idx: 0 };
}

fn cv_empty() -> ConstraintVector {
    // `new Vector()`: no storage until the first append
    return new ConstraintVector { storage: [], first_idx: 0, last_idx: 0 };
}

fn cv_with(elem: Constraint) -> ConstraintVector {
    let v = cv_new(1);
    cv_append(v, elem);
    return v;
}

fn cv_append(self: ConstraintVector, elem: Constraint) {
    if len(self.storage) == 0 {
        self.storage = [null; INITIAL_SIZE];
    } else if self.last_idx >= len(self.storage) {
        let new_storage: [Constraint] = [null; 2 * len(self.storage)];
        for i in 0..len(self.storage) {
            new_storage[i] = self.storage[i];
        }
        self.storage = new_storage;
    }
    self.storage[self.last_idx] = elem;
    self.last_idx += 1;
}

fn cv_is_empty(self: ConstraintVector) -> bool {
    return self.last_idx == self.first_idx;
}

fn cv_size(self: ConstraintVector) -> int {
    return self.last_idx - self.first_idx;
}

fn cv_remove_first(self: ConstraintVector) -> Constraint {
    if cv_is_empty(self) {
        return null;
    }
    self.first_idx += 1;
    return self.storage[self.first_idx - 1];
}

fn cv_remove(self: ConstraintVector, obj: Constraint) -> bool {
    if len(self.storage) == 0 || cv_is_empty(self) {
        return false;
    }
    let new_array: [Constraint] = [null; len(self.storage)];
    let new_last = 0;
    let found = false;
    let i = self.first_idx;
    while i < self.last_idx {
        let it = self.storage[i];
        if it == obj {
            found = true;
        } else {
            new_array[new_last] = it;
            new_last += 1;
        }
        i += 1;
    }
    self.storage = new_array;
    self.last_idx = new_last;
    self.first_idx = 0;
    return found;
}

// the comparator of removePropagateFrom: stronger constraints first
fn compare_strength(c1: Constraint, c2: Constraint) -> int {
    if stronger(c1.strength, c2.strength) {
        return -1;
    }
    return 1;
}

fn cv_sort(self: ConstraintVector) {
    if cv_size(self) > 0 {
        cv_sort_range(self, self.first_idx, self.last_idx - 1);
    }
}

fn cv_swap(storage: [Constraint], i: int, j: int) {
    let tmp = storage[i];
    storage[i] = storage[j];
    storage[j] = tmp;
}

fn cv_sort_range(self: ConstraintVector, i: int, j: int) {
    let n = j + 1 - i;
    if n <= 1 {
        return;
    }
    let storage = self.storage;
    let di = storage[i];
    let dj = storage[j];
    if compare_strength(di, dj) > 0 {
        cv_swap(storage, i, j);
        let tt = di;
        di = dj;
        dj = tt;
    }
    if n > 2 {
        let ij = (i + j) / 2;
        let dij = storage[ij];
        if compare_strength(di, dij) <= 0 {
            if compare_strength(dij, dj) > 0 {
                cv_swap(storage, j, ij);
                dij = dj;
            }
        } else {
            cv_swap(storage, i, ij);
            dij = di;
        }
        if n > 3 {
            let k = i;
            let l = j - 1;
            while true {
                while k <= l && compare_strength(dij, storage[l]) <= 0 {
                    l -= 1;
                }
                k += 1;
                while k <= l && compare_strength(storage[k], dij) <= 0 {
                    k += 1;
                }
                if k > l {
                    break;
                }
                cv_swap(storage, k, l);
            }
            cv_sort_range(self, i, l);
            cv_sort_range(self, k, j);
        }
    }
}

fn vv_new(size: int) -> VariableVector {
    let storage: [Variable] = [null; size];
    return new VariableVector { storage: storage, first_idx: 0, last_idx: 0 };
}

fn vv_empty() -> VariableVector {
    return new VariableVector { storage: [], first_idx: 0, last_idx: 0 };
}

fn vv_with(elem: Variable) -> VariableVector {
    let v = vv_new(1);
    vv_append(v, elem);
    return v;
}

fn vv_append(self: VariableVector, elem: Variable) {
    if len(self.storage) == 0 {
        self.storage = [null; INITIAL_SIZE];
    } else if self.last_idx >= len(self.storage) {
        let new_storage: [Variable] = [null; 2 * len(self.storage)];
        for i in 0..len(self.storage) {
            new_storage[i] = self.storage[i];
        }
        self.storage = new_storage;
    }
    self.storage[self.last_idx] = elem;
    self.last_idx += 1;
}

fn vv_is_empty(self: VariableVector) -> bool {
    return self.last_idx == self.first_idx;
}

fn vv_remove_first(self: VariableVector) -> Variable {
    if vv_is_empty(self) {
        return null;
    }
    self.first_idx += 1;
    return self.storage[self.first_idx - 1];
}

fn vv_at(self: VariableVector, idx: int) -> Variable {
    if idx >= len(self.storage) {
        return null;
    }
    return self.storage[idx];
}

// ---- AWFY Dictionary (hashed buckets of entries), keyed by strength symbols ----

struct DictEntry { hash: int, key: int, value: int, object: Strength, next: DictEntry }
struct Dictionary { buckets: [DictEntry], size: int }

fn dict_new() -> Dictionary {
    let buckets: [DictEntry] = [null; 16];
    return new Dictionary { buckets: buckets, size: 0 };
}

fn dict_hash(key: int) -> int {
    // a symbol's custom hash is its number; Java's `hash ^ hash >>> 16` on a 32-bit int
    let hash = key & 0xFFFFFFFF;
    return hash ^ (hash >> 16);
}

fn dict_entry_at(self: Dictionary, key: int) -> DictEntry {
    let hash = dict_hash(key);
    let e = self.buckets[(len(self.buckets) - 1) & hash];
    while e != null {
        if e.hash == hash && e.key == key {
            return e;
        }
        e = e.next;
    }
    return null;
}

fn dict_at_put(self: Dictionary, key: int, value: int, object: Strength) {
    let hash = dict_hash(key);
    let i = (len(self.buckets) - 1) & hash;
    let current = self.buckets[i];
    if current == null {
        self.buckets[i] = new DictEntry { hash: hash, key: key, value: value, object: object, next: null };
    } else {
        while true {
            if current.hash == hash && current.key == key {
                current.value = value;
                current.object = object;
                return;
            }
            if current.next == null {
                current.next = new DictEntry { hash: hash, key: key, value: value, object: object, next: null };
                break;
            }
            current = current.next;
        }
    }
    self.size += 1;
    if self.size > len(self.buckets) {
        dict_resize(self);
    }
}

fn dict_resize(self: Dictionary) {
    let old_storage = self.buckets;
    let new_storage: [DictEntry] = [null; len(old_storage) * 2];
    self.buckets = new_storage;
    for i in 0..len(old_storage) {
        let current = old_storage[i];
        if current != null {
            old_storage[i] = null;
            if current.next == null {
                self.buckets[current.hash & (len(self.buckets) - 1)] = current;
            } else {
                // split the bucket into the low and the high half
                let lo_head: DictEntry = null;
                let lo_tail: DictEntry = null;
                let hi_head: DictEntry = null;
                let hi_tail: DictEntry = null;
                while current != null {
                    if (current.hash & len(old_storage)) == 0 {
                        if lo_tail == null { lo_head = current; } else { lo_tail.next = current; }
                        lo_tail = current;
                    } else {
                        if hi_tail == null { hi_head = current; } else { hi_tail.next = current; }
                        hi_tail = current;
                    }
                    current = current.next;
                }
                if lo_tail != null {
                    lo_tail.next = null;
                    self.buckets[i] = lo_head;
                }
                if hi_tail != null {
                    hi_tail.next = null;
                    self.buckets[i + len(old_storage)] = hi_head;
                }
            }
        }
    }
}

fn dict_get_keys(self: Dictionary) -> [int] {
    let keys = [0; self.size];
    let n = 0;
    for i in 0..len(self.buckets) {
        let current = self.buckets[i];
        while current != null {
            keys[n] = current.key;
            n += 1;
            current = current.next;
        }
    }
    return keys;
}

// ---- Strength ----

// the symbols
let ABSOLUTE_STRONGEST: int = 0;
let REQUIRED: int = 1;
let STRONG_PREFERRED: int = 2;
let PREFERRED: int = 3;
let STRONG_DEFAULT: int = 4;
let DEFAULT: int = 5;
let WEAK_DEFAULT: int = 6;
let ABSOLUTE_WEAKEST: int = 7;

struct Strength { arithmetic_value: int, symbolic_value: int }

let STRENGTH_TABLE: Dictionary = create_strength_table();
let STRENGTH_CONSTANT: Dictionary = create_strength_constants();
let STRENGTH_ABSOLUTE_WEAKEST: Strength = strength_of(ABSOLUTE_WEAKEST);
let STRENGTH_REQUIRED: Strength = strength_of(REQUIRED);

fn create_strength_table() -> Dictionary {
    let t = dict_new();
    dict_at_put(t, ABSOLUTE_STRONGEST, -10000, null);
    dict_at_put(t, REQUIRED, -800, null);
    dict_at_put(t, STRONG_PREFERRED, -600, null);
    dict_at_put(t, PREFERRED, -400, null);
    dict_at_put(t, STRONG_DEFAULT, -200, null);
    dict_at_put(t, DEFAULT, 0, null);
    dict_at_put(t, WEAK_DEFAULT, 500, null);
    dict_at_put(t, ABSOLUTE_WEAKEST, 10000, null);
    return t;
}

fn create_strength_constants() -> Dictionary {
    let constants = dict_new();
    let keys = dict_get_keys(STRENGTH_TABLE);
    for i in 0..len(keys) {
        let key = keys[i];
        let s = new Strength { arithmetic_value: dict_entry_at(STRENGTH_TABLE, key).value, symbolic_value: key };
        dict_at_put(constants, key, 0, s);
    }
    return constants;
}

fn strength_of(sym: int) -> Strength {
    return dict_entry_at(STRENGTH_CONSTANT, sym).object;
}

fn same_as(self: Strength, s: Strength) -> bool {
    return self.arithmetic_value == s.arithmetic_value;
}

fn stronger(self: Strength, s: Strength) -> bool {
    return self.arithmetic_value < s.arithmetic_value;
}

fn weaker(self: Strength, s: Strength) -> bool {
    return self.arithmetic_value > s.arithmetic_value;
}

fn weakest(self: Strength, s: Strength) -> Strength {
    if weaker(s, self) {
        return s;
    }
    return self;
}

// ---- Variable ----

struct Variable {
    value: int, constraints: ConstraintVector, determined_by: Constraint, mark: int, walk_strength: Strength,
    stay: bool,
}

fn new_variable() -> Variable {
    return new Variable { value: 0, constraints: cv_new(2), determined_by: null, mark: 0,
                          walk_strength: STRENGTH_ABSOLUTE_WEAKEST, stay: true };
}

fn variable_value(a_value: int) -> Variable {
    let v = new_variable();
    v.value = a_value;
    return v;
}

fn var_add_constraint(self: Variable, c: Constraint) {
    cv_append(self.constraints, c);
}

fn var_remove_constraint(self: Variable, c: Constraint) {
    cv_remove(self.constraints, c);
    if self.determined_by == c {
        self.determined_by = null;
    }
}

// ---- constraints ----

let STAY: int = 0;      // UnaryConstraint
let EDIT: int = 1;      // UnaryConstraint, an input constraint
let EQUALITY: int = 2;  // BinaryConstraint
let SCALE: int = 3;     // BinaryConstraint with scale and offset

// Direction (NONE stands for the original's null)
let NONE: int = 0;
let FORWARD: int = 1;
let BACKWARD: int = 2;

struct Constraint {
    kind: int, strength: Strength,
    output: Variable, satisfied: bool,           // UnaryConstraint
    v1: Variable, v2: Variable, direction: int,  // BinaryConstraint
    scale: Variable, offset: Variable,           // ScaleConstraint
}

fn new_unary(kind: int, v: Variable, strength: int, planner: Planner) -> Constraint {
    let c = new Constraint { kind: kind, strength: strength_of(strength), output: v, satisfied: false,
                             v1: null, v2: null, direction: NONE, scale: null, offset: null };
    add_constraint(c, planner);
    return c;
}

fn new_stay_constraint(v: Variable, strength: int, planner: Planner) -> Constraint {
    return new_unary(STAY, v, strength, planner);
}

fn new_edit_constraint(v: Variable, strength: int, planner: Planner) -> Constraint {
    return new_unary(EDIT, v, strength, planner);
}

fn new_equality_constraint(var1: Variable, var2: Variable, strength: int, planner: Planner) -> Constraint {
    let c = new Constraint { kind: EQUALITY, strength: strength_of(strength), output: null, satisfied: false,
                             v1: var1, v2: var2, direction: NONE, scale: null, offset: null };
    add_constraint(c, planner);
    return c;
}

fn new_scale_constraint(src: Variable, scale: Variable, offset: Variable, dest: Variable, strength: int,
                        planner: Planner) -> Constraint {
    let c = new Constraint { kind: SCALE, strength: strength_of(strength), output: null, satisfied: false,
                             v1: src, v2: dest, direction: NONE, scale: scale, offset: offset };
    add_constraint(c, planner);
    return c;
}

fn is_input(self: Constraint) -> bool {
    match self.kind {
        1 => { return true; }
        _ => { return false; }
    }
}

fn is_satisfied(self: Constraint) -> bool {
    match self.kind {
        0 | 1 => { return self.satisfied; }
        _ => { return self.direction != NONE; }
    }
}

fn add_constraint(self: Constraint, planner: Planner) {
    add_to_graph(self);
    incremental_add(planner, self);
}

fn add_to_graph(self: Constraint) {
    match self.kind {
        0 | 1 => {
            var_add_constraint(self.output, self);
            self.satisfied = false;
        }
        2 => {
            var_add_constraint(self.v1, self);
            var_add_constraint(self.v2, self);
            self.direction = NONE;
        }
        _ => {
            var_add_constraint(self.v1, self);
            var_add_constraint(self.v2, self);
            var_add_constraint(self.scale, self);
            var_add_constraint(self.offset, self);
            self.direction = NONE;
        }
    }
}

fn destroy_constraint(self: Constraint, planner: Planner) {
    if is_satisfied(self) {
        incremental_remove(planner, self);
    }
    remove_from_graph(self);
}

fn remove_from_graph(self: Constraint) {
    match self.kind {
        0 | 1 => {
            if self.output != null { var_remove_constraint(self.output, self); }
            self.satisfied = false;
        }
        2 => {
            if self.v1 != null { var_remove_constraint(self.v1, self); }
            if self.v2 != null { var_remove_constraint(self.v2, self); }
            self.direction = NONE;
        }
        _ => {
            if self.v1 != null { var_remove_constraint(self.v1, self); }
            if self.v2 != null { var_remove_constraint(self.v2, self); }
            if self.scale != null { var_remove_constraint(self.scale, self); }
            if self.offset != null { var_remove_constraint(self.offset, self); }
            self.direction = NONE;
        }
    }
}

fn choose_method(self: Constraint, mark: int) -> int {
    match self.kind {
        0 | 1 => {
            self.satisfied = self.output.mark != mark && stronger(self.strength, self.output.walk_strength);
            return NONE;
        }
        _ => {
            let v1 = self.v1;
            let v2 = self.v2;
            if v1.mark == mark {
                if v2.mark != mark && stronger(self.strength, v2.walk_strength) {
                    self.direction = FORWARD;
                } else {
                    self.direction = NONE;
                }
                return self.direction;
            }
            if v2.mark == mark {
                if v1.mark != mark && stronger(self.strength, v1.walk_strength) {
                    self.direction = BACKWARD;
                } else {
                    self.direction = NONE;
                }
                return self.direction;
            }
            // neither variable is marked, so we have a choice
            if weaker(v1.walk_strength, v2.walk_strength) {
                if stronger(self.strength, v1.walk_strength) {
                    self.direction = BACKWARD;
                } else {
                    self.direction = NONE;
                }
            } else {
                if stronger(self.strength, v2.walk_strength) {
                    self.direction = FORWARD;
                } else {
                    self.direction = NONE;
                }
            }
            return self.direction;
        }
    }
}

fn execute(self: Constraint) {
    match self.kind {
        0 | 1 => { }  // stay and edit constraints do nothing
        2 => {
            if self.direction == FORWARD {
                self.v2.value = self.v1.value;
            } else {
                self.v1.value = self.v2.value;
            }
        }
        _ => {
            if self.direction == FORWARD {
                self.v2.value = self.v1.value * self.scale.value + self.offset.value;
            } else {
                self.v1.value = (self.v2.value - self.offset.value) / self.scale.value;
            }
        }
    }
}

fn is_known(v: Variable, mark: int) -> bool {
    return v.mark == mark || v.stay || v.determined_by == null;
}

// inputsKnown: inputsDo with a block that answers false for the first unknown input
fn inputs_known(self: Constraint, mark: int) -> bool {
    match self.kind {
        0 | 1 => { return true; }  // no input variables
        2 => {
            if self.direction == FORWARD {
                return is_known(self.v1, mark);
            }
            return is_known(self.v2, mark);
        }
        _ => {
            if self.direction == FORWARD {
                if !is_known(self.v1, mark) { return false; }
            } else {
                if !is_known(self.v2, mark) { return false; }
            }
            if !is_known(self.scale, mark) { return false; }
            if !is_known(self.offset, mark) { return false; }
            return true;
        }
    }
}

// inputsDo(in -> in.setMark(mark))
fn mark_inputs(self: Constraint, mark: int) {
    match self.kind {
        0 | 1 => { }
        2 => {
            if self.direction == FORWARD { self.v1.mark = mark; } else { self.v2.mark = mark; }
        }
        _ => {
            if self.direction == FORWARD { self.v1.mark = mark; } else { self.v2.mark = mark; }
            self.scale.mark = mark;
            self.offset.mark = mark;
        }
    }
}

fn mark_unsatisfied(self: Constraint) {
    match self.kind {
        0 | 1 => { self.satisfied = false; }
        _ => { self.direction = NONE; }
    }
}

fn get_output(self: Constraint) -> Variable {
    match self.kind {
        0 | 1 => { return self.output; }
        _ => {
            if self.direction == FORWARD {
                return self.v2;
            }
            return self.v1;
        }
    }
}

fn recalculate(self: Constraint) {
    match self.kind {
        0 | 1 => {
            self.output.walk_strength = self.strength;
            self.output.stay = !is_input(self);
            if self.output.stay {
                execute(self);  // stay optimization
            }
        }
        _ => {
            let input = self.v2;
            let out = self.v1;
            if self.direction == FORWARD {
                input = self.v1;
                out = self.v2;
            }
            out.walk_strength = weakest(self.strength, input.walk_strength);
            if self.kind == SCALE {
                out.stay = input.stay && self.scale.stay && self.offset.stay;
            } else {
                out.stay = input.stay;
            }
            if out.stay {
                execute(self);
            }
        }
    }
}

fn satisfy(self: Constraint, mark: int, planner: Planner) -> Constraint {
    let overridden: Constraint = null;
    choose_method(self, mark);
    if is_satisfied(self) {
        // mark inputs to allow cycle detection in add_propagate
        mark_inputs(self, mark);
        let out = get_output(self);
        overridden = out.determined_by;
        if overridden != null {
            mark_unsatisfied(overridden);
        }
        out.determined_by = self;
        if !add_propagate(planner, self, mark) {
            assert(false, "Cycle encountered");
        }
        out.mark = mark;
    } else {
        overridden = null;
        if same_as(self.strength, STRENGTH_REQUIRED) {
            assert(false, "Could not satisfy a required constraint");
        }
    }
    return overridden;
}

// ---- Plan ----

fn new_plan() -> ConstraintVector {
    return cv_new(15);
}

fn plan_execute(self: ConstraintVector) {
    let i = self.first_idx;
    while i < self.last_idx {
        execute(self.storage[i]);
        i += 1;
    }
}

// ---- Planner ----

struct Planner { current_mark: int }

fn new_planner() -> Planner {
    return new Planner { current_mark: 1 };
}

fn incremental_add(self: Planner, c: Constraint) {
    let mark = new_mark(self);
    let overridden = satisfy(c, mark, self);
    while overridden != null {
        overridden = satisfy(overridden, mark, self);
    }
}

fn incremental_remove(self: Planner, c: Constraint) {
    let out = get_output(c);
    mark_unsatisfied(c);
    remove_from_graph(c);
    let unsatisfied = remove_propagate_from(self, out);
    let i = unsatisfied.first_idx;
    while i < unsatisfied.last_idx {
        incremental_add(self, unsatisfied.storage[i]);
        i += 1;
    }
}

fn extract_plan_from_constraints(self: Planner, constraints: ConstraintVector) -> ConstraintVector {
    let sources = cv_empty();
    let i = constraints.first_idx;
    while i < constraints.last_idx {
        let c = constraints.storage[i];
        if is_input(c) && is_satisfied(c) {
            cv_append(sources, c);
        }
        i += 1;
    }
    return make_plan(self, sources);
}

fn make_plan(self: Planner, sources: ConstraintVector) -> ConstraintVector {
    let mark = new_mark(self);
    let plan = new_plan();
    let todo = sources;
    while !cv_is_empty(todo) {
        let c = cv_remove_first(todo);
        if get_output(c).mark != mark && inputs_known(c, mark) {
            // not in plan already and eligible for inclusion
            cv_append(plan, c);
            get_output(c).mark = mark;
            add_constraints_consuming_to(self, get_output(c), todo);
        }
    }
    return plan;
}

fn propagate_from(self: Planner, v: Variable) {
    let todo = cv_empty();
    add_constraints_consuming_to(self, v, todo);
    while !cv_is_empty(todo) {
        let c = cv_remove_first(todo);
        execute(c);
        add_constraints_consuming_to(self, get_output(c), todo);
    }
}

fn add_constraints_consuming_to(self: Planner, v: Variable, coll: ConstraintVector) {
    let determining_c = v.determined_by;
    let cs = v.constraints;
    let i = cs.first_idx;
    while i < cs.last_idx {
        let c = cs.storage[i];
        if c != determining_c && is_satisfied(c) {
            cv_append(coll, c);
        }
        i += 1;
    }
}

fn add_propagate(self: Planner, c: Constraint, mark: int) -> bool {
    let todo = cv_with(c);
    while !cv_is_empty(todo) {
        let d = cv_remove_first(todo);
        if get_output(d).mark == mark {
            incremental_remove(self, c);
            return false;
        }
        recalculate(d);
        add_constraints_consuming_to(self, get_output(d), todo);
    }
    return true;
}

fn change(self: Planner, v: Variable, new_value: int) {
    let edit_c = new_edit_constraint(v, PREFERRED, self);
    let edit_v = cv_with(edit_c);
    let plan = extract_plan_from_constraints(self, edit_v);
    for i in 0..10 {
        v.value = new_value;
        plan_execute(plan);
    }
    destroy_constraint(edit_c, self);
}

fn new_mark(self: Planner) -> int {
    self.current_mark += 1;
    return self.current_mark;
}

fn remove_propagate_from(self: Planner, out: Variable) -> ConstraintVector {
    let unsatisfied = cv_empty();
    out.determined_by = null;
    out.walk_strength = STRENGTH_ABSOLUTE_WEAKEST;
    out.stay = true;
    let todo = vv_with(out);
    while !vv_is_empty(todo) {
        let v = vv_remove_first(todo);
        let cs = v.constraints;
        let i = cs.first_idx;
        while i < cs.last_idx {
            let c = cs.storage[i];
            if !is_satisfied(c) {
                cv_append(unsatisfied, c);
            }
            i += 1;
        }
        // constraintsConsuming(v, c -> { c.recalculate(); todo.append(c.getOutput()); })
        let determining_c = v.determined_by;
        i = cs.first_idx;
        while i < cs.last_idx {
            let c = cs.storage[i];
            if c != determining_c && is_satisfied(c) {
                recalculate(c);
                vv_append(todo, get_output(c));
            }
            i += 1;
        }
    }
    cv_sort(unsatisfied);
    return unsatisfied;
}

fn chain_test(n: int) -> int {
    let planner = new_planner();
    let vars: [Variable] = [null; n + 1];
    for i in 0..n + 1 {
        vars[i] = new_variable();
    }
    // build a chain of n equality constraints
    for i in 0..n {
        let v1 = vars[i];
        let v2 = vars[i + 1];
        new_equality_constraint(v1, v2, REQUIRED, planner);
    }
    new_stay_constraint(vars[n], STRONG_DEFAULT, planner);
    let edit_c = new_edit_constraint(vars[0], PREFERRED, planner);
    let edit_v = cv_with(edit_c);
    let plan = extract_plan_from_constraints(planner, edit_v);
    for i in 0..100 {
        vars[0].value = i;
        plan_execute(plan);
        if vars[n].value != i {
            assert(false, "Chain test failed!");
        }
    }
    destroy_constraint(edit_c, planner);
    return planner.current_mark;
}

fn projection_test(n: int) -> int {
    let planner = new_planner();
    let dests = vv_empty();
    let scale = variable_value(10);
    let offset = variable_value(1000);
    let src: Variable = null;
    let dst: Variable = null;
    for i in 0..n {
        src = variable_value(i);
        dst = variable_value(i);
        vv_append(dests, dst);
        new_stay_constraint(src, DEFAULT, planner);
        new_scale_constraint(src, scale, offset, dst, REQUIRED, planner);
    }
    change(planner, src, 17);
    if dst.value != 1170 {
        assert(false, "Projection test 1 failed!");
    }
    change(planner, dst, 1050);
    if src.value != 5 {
        assert(false, "Projection test 2 failed!");
    }
    change(planner, scale, 5);
    for i in 0..n - 1 {
        if vv_at(dests, i).value != i * 5 + 1000 {
            assert(false, "Projection test 3 failed!");
        }
    }
    change(planner, offset, 2000);
    for i in 0..n - 1 {
        if vv_at(dests, i).value != i * 5 + 2000 {
            assert(false, "Projection test 4 failed!");
        }
    }
    return planner.current_mark;
}

fn main() {
    let n = 20;
    if argc() > 0 { n = parse_int(arg(0)); }
    let chain_marks = chain_test(n);
    let projection_marks = projection_test(n);
    // the planners' last marks (not part of AWFY) show that the ports took the same path
    println("DeltaBlue n:", n, "chainTest and projectionTest passed; verified:", true, "planner marks:",
            chain_marks, projection_marks);
}
