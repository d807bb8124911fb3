struct Account { owner: str, balance: float }

fn deposit(acct: Account, amount: float) {
    acct.balance = acct.balance + amount;
    acct.ownr = "x";
}

fn total(accounts: [Account]) -> float {
    let sum = 0;
    for i in 0..len(accounts) {
        sum = sum + accounts[i].balance;
    }
    return sum;
}

fn report(accounts: [Account]) -> str {
    if len(accounts) == 0 {
        return "none";
    }
}

fn main() {
    let accts: [Account] = [new Account { owner: "ann", balance: 10.0 }];
    deposit(accts[0], 5);
    println(totl(accts));
    undefined_fn();
    while 1 { }
}
