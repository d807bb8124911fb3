// Grades scores: the first `if` chain picks a grade, the second adds a bonus for scores
// ending in 7. Arguments: the scores.
fn grade(score: int) -> int {
    let g = 0;
    if score >= 90 {
        g = 4;
    } else if score >= 75 {
        g = 3;
    } else if score >= 50 {
        g = 2;
    }
    if score % 10 == 7 {
        g = g + 1;
    }
    return g;
}

fn main() {
    for i in 0..argc() {
        let score = parse_int(arg(i));
        println(score, "->", grade(score));
    }
}
