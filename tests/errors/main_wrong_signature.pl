fn main(args: [str]) -> float {
    return 1.0;
}
