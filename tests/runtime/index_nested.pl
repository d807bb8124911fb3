// An out-of-bounds column in a 2-D array: the location is where the whole indexing
// expression starts (the array variable).
fn main() {
    let grid = [[0; 0]; 3];
    for r in 0..3 {
        grid[r] = [r; 5];
    }
    let sum = 0;
    for r in 0..3 {
        sum +=   grid[r][r + 3];
        println("row", r, "sum", sum);
    }
}
