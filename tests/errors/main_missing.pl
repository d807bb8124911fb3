fn mian() {
    println("typo in main");
}
