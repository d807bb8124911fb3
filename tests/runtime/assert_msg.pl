// A failed assert with a message built at run time.
struct Account { owner: str, balance: int }

fn withdraw(acc: Account, amount: int) {
    acc.balance -= amount;
    assert(acc.balance >= 0, "balance of " + acc.owner + " went negative: " + str(acc.balance));
    println(acc.owner, "withdrew", amount, "left", acc.balance);
}

fn main() {
    let acc = new Account { owner: "ada", balance: 100 };
    withdraw(acc, 30);
    withdraw(acc, 50);
    withdraw(acc, 40);
    println("not reached");
}
