fn main() {
    /* outer /* inner */ still a comment? no */
    println(1);
}
