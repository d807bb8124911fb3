// The year-2000 example of Ball & Larus, "Programs Follow Paths" §5.3 (Figure 8, from Reps et al.):
// each person record holds a two-digit birth year, whether they completed college and how many items
// they bought. age = current_date() - byear with two-digit years, so after 1999 ages go negative and
// paths BDF/BDG (under 15 and a college graduate) start to execute. The path spectrum is printed for
// years FIRST, FIRST+STEP, ... up to LAST, given as arguments FIRST LAST [STEP] (default 1997 2002 1).
struct Person { byear: int, college: bool, items: int }

let YEAR: int = 1998;
let SEED: int = 2000;

fn rand(n: int) -> int {
    SEED = (SEED * 1103515245 + 12345) & 0x7FFF_FFFF;
    return SEED % n;
}

// two-digit date, as the legacy code stored it
fn current_date() -> int {
    return YEAR % 100;
}

fn database(n: int) -> [Person] {
    let people: [Person] = [null; n];
    for i in 0..n {
        let born = 1905 + rand(83);
        // nobody born after 1975 has finished college yet
        let college = born <= 1975 && rand(3) != 0;
        people[i] = new Person { byear: born % 100, college: college, items: rand(8) };
    }
    return people;
}

fn main() {
    let first = 1997;
    let last = 2002;
    let step = 1;
    if argc() >= 2 {
        first = parse_int(arg(0));
        last = parse_int(arg(1));
    }
    if argc() >= 3 {
        step = parse_int(arg(2));
    }
    let people = database(40);
    let names = ["BDF", "BDG", "BEF", "BEG", "CDF", "CDG", "CEF", "CEG"];
    let base = [0; 8];
    let y = first;
    while y <= last {
        YEAR = y;
        let spectrum = [0; 8];
        let young = 0;
        let grads = 0;
        let big = 0;
        for i in 0..len(people) {
            let p = people[i];
            let age = current_date() - p.byear;
            let path = 0;
            if age < 15 {
                young += 1;             // B
            } else {
                path += 4;              // C
            }
            if p.college {
                grads += 1;             // D
            } else {
                path += 2;              // E
            }
            if p.items > 3 {
                big += 1;               // F
            } else {
                path += 1;              // G
            }
            spectrum[path] += 1;
        }
        let line = str(y) + " (date " + str(current_date()) + "):";
        for k in 0..8 {
            line = line + " " + names[k] + "=" + str(spectrum[k]);
        }
        println(line, "| young", young, "grads", grads, "big", big);
        if y == first {
            base = spectrum;
        } else {
            let diff = "";
            for k in 0..8 {
                if base[k] == 0 && spectrum[k] != 0 {
                    diff = diff + " +" + names[k];
                }
                if base[k] != 0 && spectrum[k] == 0 {
                    diff = diff + " -" + names[k];
                }
            }
            if diff == "" {
                diff = " none";
            }
            println("  paths appearing/disappearing since", first, ":" + diff);
        }
        y += step;
    }
}
