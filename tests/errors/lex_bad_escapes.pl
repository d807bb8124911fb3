fn main() {
    println("tab\q here");
    println("byte \xZZ and \x4");
    println("fine: \n \t \r \\ \" \0 \x41");
}
